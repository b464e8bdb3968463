//! Header structs for every header the parser reads, as deku bit layouts.
//!
//! Each struct reads from and writes to network byte order, so the same
//! definitions serve the parser and the stimulus generator. Fields are whole
//! bytes as on the wire; sub-byte fields (flags, nibbles) are accessor
//! methods that slice the byte, as the RTL does. (Bit-granular deku fields
//! cost microseconds per header; byte fields tens of nanoseconds.)

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
    /// PCP (15:13), DEI (12), VID (11:0).
    pub tci: u16,
    pub ethertype: u16,
}
impl VlanTag {
    pub const LEN: usize = 4;
    pub fn new(pcp: u8, vid: u16, ethertype: u16) -> Self {
        VlanTag { tci: (u16::from(pcp) & 7) << 13 | (vid & 0x0FFF), ethertype }
    }
    pub fn pcp(&self) -> u8 {
        (self.tci >> 13) as u8
    }
    pub fn vid(&self) -> u16 {
        self.tci & 0x0FFF
    }
}

/// IPv4 fixed header (RFC 791); options follow when `ihl > 5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Ipv4Header {
    /// Version (7:4), IHL in 32-bit words (3:0).
    pub version_ihl: u8,
    /// DSCP (7:2), ECN (1:0).
    pub tos: u8,
    pub total_len: u16,
    pub ident: u16,
    /// Reserved (15), DF (14), MF (13), fragment offset (12:0).
    pub flags_frag: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub checksum: u16,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}
impl Ipv4Header {
    pub const LEN: usize = 20;
    pub const DONT_FRAGMENT: u16 = 0x4000;
    pub const MORE_FRAGMENTS: u16 = 0x2000;
    pub fn version(&self) -> u8 {
        self.version_ihl >> 4
    }
    pub fn ihl(&self) -> u8 {
        self.version_ihl & 0x0F
    }
    pub fn dscp(&self) -> u8 {
        self.tos >> 2
    }
    pub fn ecn(&self) -> u8 {
        self.tos & 3
    }
    pub fn is_fragment(&self) -> bool {
        self.flags_frag & (Self::MORE_FRAGMENTS | 0x1FFF) != 0
    }
}

/// IPv6 fixed header (RFC 8200).
#[derive(Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct Ipv6Header {
    /// Version (31:28), traffic class (27:20), flow label (19:0).
    pub version_class_flow: u32,
    pub payload_len: u16,
    pub next_header: u8,
    pub hop_limit: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}
impl Ipv6Header {
    pub const LEN: usize = 40;
    pub fn version_class_flow(version: u8, traffic_class: u8, flow_label: u32) -> u32 {
        u32::from(version & 0x0F) << 28 | u32::from(traffic_class) << 20 | (flow_label & 0xF_FFFF)
    }
    pub fn version(&self) -> u8 {
        (self.version_class_flow >> 28) as u8
    }
    pub fn traffic_class(&self) -> u8 {
        (self.version_class_flow >> 20) as u8
    }
    pub fn dscp(&self) -> u8 {
        self.traffic_class() >> 2
    }
    pub fn ecn(&self) -> u8 {
        self.traffic_class() & 3
    }
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
    /// SE (7), MigReq (6), PadCnt (5:4), TVer (3:0).
    pub flags: u8,
    pub pkey: u16,
    /// FECN (7), BECN (6), reserved (5:0).
    pub fecn_becn: u8,
    #[deku(bytes = 3)]
    pub dest_qp: u32,
    /// AckReq (7), reserved (6:0).
    pub ack_req_byte: u8,
    #[deku(bytes = 3)]
    pub psn: u32,
}
impl Bth {
    pub const LEN: usize = 12;
    /// Offset of the FECN/BECN byte, which the ICRC treats as all ones.
    pub const FECN_BECN_OFFSET: usize = 4;
    pub fn flags_byte(se: u8, mig_req: u8, pad_cnt: u8, tver: u8) -> u8 {
        (se & 1) << 7 | (mig_req & 1) << 6 | (pad_cnt & 3) << 4 | (tver & 0x0F)
    }
    pub fn se(&self) -> u8 {
        self.flags >> 7
    }
    pub fn mig_req(&self) -> u8 {
        self.flags >> 6 & 1
    }
    pub fn pad_cnt(&self) -> u8 {
        self.flags >> 4 & 3
    }
    pub fn tver(&self) -> u8 {
        self.flags & 0x0F
    }
    pub fn fecn(&self) -> u8 {
        self.fecn_becn >> 7
    }
    pub fn becn(&self) -> u8 {
        self.fecn_becn >> 6 & 1
    }
    pub fn ack_req(&self) -> u8 {
        self.ack_req_byte >> 7
    }
    pub fn set_pad_cnt(&mut self, pad_cnt: u8) {
        self.flags = (self.flags & !0x30) | (pad_cnt & 3) << 4;
    }
    pub fn set_tver(&mut self, tver: u8) {
        self.flags = (self.flags & !0x0F) | (tver & 0x0F);
    }
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
    #[deku(bytes = 3)]
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
    #[deku(bytes = 3)]
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
