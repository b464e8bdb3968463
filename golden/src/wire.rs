//! Header structs for every header the parser reads, as deku bit layouts.
//!
//! Each struct reads from and writes to network byte order, so the same
//! definitions serve the parser and the stimulus generator. Byte offsets are
//! those of `SPEC.md` section "Frame layout".

use deku::prelude::*;

/// EtherTypes and TPIDs the parser recognises.
pub mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86DD;
    pub const ARP: u16 = 0x0806;
    /// RoCEv1 (IB GRH directly over Ethernet): not RoCEv2.
    pub const ROCE_V1: u16 = 0x8915;
    pub const VLAN_CTAG: u16 = 0x8100;
    pub const VLAN_STAG: u16 = 0x88A8;

    /// True for the two tag protocol identifiers the parser strips.
    pub fn is_vlan_tpid(ethertype: u16) -> bool {
        ethertype == VLAN_CTAG || ethertype == VLAN_STAG
    }
}

/// IP protocol numbers.
pub mod ip_proto {
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    pub const IPV6_FRAGMENT: u8 = 44;

    /// IPv6 next-header values that are extension headers (IANA "IPv6
    /// Extension Header Types"); the parser classifies them, it does not
    /// walk them.
    pub fn is_ipv6_extension(next_header: u8) -> bool {
        matches!(next_header, 0 | 43 | 44 | 50 | 51 | 60 | 135 | 139 | 140 | 253 | 254)
    }
}

/// The IANA-assigned RoCEv2 UDP destination port.
pub const ROCE_V2_UDP_PORT: u16 = 4791;

#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct EthernetHeader {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    pub ethertype: u16,
}
impl EthernetHeader {
    pub const LEN: usize = 14;
}

/// One 802.1Q/802.1ad tag as it follows its TPID: TCI, then the next EtherType.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct VlanTag {
    #[deku(bits = 3)]
    pub pcp: u8,
    #[deku(bits = 1)]
    pub dei: u8,
    #[deku(bits = 12)]
    pub vid: u16,
    pub ethertype: u16,
}
impl VlanTag {
    pub const LEN: usize = 4;
}

/// IPv4 fixed header (RFC 791); options follow when `ihl > 5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Ipv4Header {
    #[deku(bits = 4)]
    pub version: u8,
    #[deku(bits = 4)]
    pub ihl: u8,
    #[deku(bits = 6)]
    pub dscp: u8,
    #[deku(bits = 2)]
    pub ecn: u8,
    pub total_len: u16,
    pub ident: u16,
    #[deku(bits = 1)]
    pub reserved_flag: u8,
    #[deku(bits = 1)]
    pub dont_fragment: u8,
    #[deku(bits = 1)]
    pub more_fragments: u8,
    #[deku(bits = 13)]
    pub frag_offset: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub checksum: u16,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}
impl Ipv4Header {
    pub const LEN: usize = 20;
    pub fn is_fragment(&self) -> bool {
        self.more_fragments != 0 || self.frag_offset != 0
    }
}

/// IPv6 fixed header (RFC 8200).
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Ipv6Header {
    #[deku(bits = 4)]
    pub version: u8,
    #[deku(bits = 6)]
    pub dscp: u8,
    #[deku(bits = 2)]
    pub ecn: u8,
    #[deku(bits = 20)]
    pub flow_label: u32,
    pub payload_len: u16,
    pub next_header: u8,
    pub hop_limit: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}
impl Ipv6Header {
    pub const LEN: usize = 40;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct UdpHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub length: u16,
    pub checksum: u16,
}
impl UdpHeader {
    pub const LEN: usize = 8;
}

/// InfiniBand Base Transport Header (IBTA vol. 1, 9.2; `../shared/REFERENCE.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Bth {
    pub opcode: u8,
    #[deku(bits = 1)]
    pub se: u8,
    #[deku(bits = 1)]
    pub mig_req: u8,
    #[deku(bits = 2)]
    pub pad_cnt: u8,
    #[deku(bits = 4)]
    pub tver: u8,
    pub pkey: u16,
    #[deku(bits = 1)]
    pub fecn: u8,
    #[deku(bits = 1)]
    pub becn: u8,
    #[deku(bits = 6)]
    pub reserved6: u8,
    #[deku(bits = 24)]
    pub dest_qp: u32,
    #[deku(bits = 1)]
    pub ack_req: u8,
    #[deku(bits = 7)]
    pub reserved7: u8,
    #[deku(bits = 24)]
    pub psn: u32,
}
impl Bth {
    pub const LEN: usize = 12;
    /// Offset of the FECN/BECN byte, which the ICRC treats as all ones.
    pub const FECN_BECN_OFFSET: usize = 4;
}

/// RDMA Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Reth {
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
}

/// ACK Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Aeth {
    pub syndrome: u8,
    #[deku(bits = 24)]
    pub msn: u32,
}

/// Immediate data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct ImmDt {
    pub data: u32,
}

/// Invalidate Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Ieth {
    pub rkey: u32,
}

/// Datagram Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Deth {
    pub qkey: u32,
    pub reserved: u8,
    #[deku(bits = 24)]
    pub src_qp: u32,
}

/// Atomic Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct AtomicEth {
    pub va: u64,
    pub rkey: u32,
    pub swap_add: u64,
    pub compare: u64,
}

/// Atomic ACK Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct AtomicAckEth {
    pub orig: u64,
}

/// Reads a header struct from the start of `bytes`, or `None` when the
/// slice is shorter than the header.
pub fn read<T>(bytes: &[u8]) -> Option<T>
where
    for<'a> T: DekuContainerRead<'a>,
{
    T::from_bytes((bytes, 0)).ok().map(|(_, header)| header)
}
