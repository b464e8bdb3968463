//! The regression stimuli's frame builder: a RoCEv2 frame (or a plain
//! IP/UDP one) described by its fields, laid out from the golden model's
//! header Reprs (`metaroce_golden::wire`, `metaroce_golden::frame`) with
//! field values from a fixed-seed sequence, so the same description gives
//! the same bytes on every run. The captures built from it are in
//! [`crate::catalog`].

use crate::addresses::{host_ipv4, host_ipv6, host_mac};
use crate::dice::seq_value;
use metaroce_golden::frame::{pad_to_minimum, MacControlFrameRepr, UdpFrameRepr, MAC_CONTROL_DST};
use metaroce_golden::opcode;
use metaroce_golden::wire::{
    ethertype, ip_proto, AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, DethRepr, EthernetRepr, IethRepr,
    ImmDtRepr, IpRepr, Ipv4Packet, Ipv4Repr, Ipv6Repr, MacControlRepr, RethRepr, UdpRepr, VlanRepr, ROCE_V2_UDP_PORT,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum L3 {
    V4 { options: Vec<u8> },
    V6 { flow_label: u32 },
}

/// A RoCEv2 frame (or, with another protocol or port, a plain IP/UDP one)
/// before it is laid out; [`RoceFrame::build`] fills every length, the
/// IPv4 checksum and the ICRC.
#[derive(Debug, Clone)]
pub struct RoceFrame {
    /// (TPID, PCP, VID), outermost first.
    pub vlans: Vec<(u16, u8, u16)>,
    pub l3: L3,
    pub dscp: u8,
    pub ecn: u8,
    pub ip_proto: u8,
    pub udp_sport: u16,
    pub udp_dport: u16,
    pub bth: BthRepr,
    pub ext: Vec<u8>,
    pub payload: Vec<u8>,
    /// Keep only this many bytes from the BTH on (ICRC included), with IP
    /// and UDP lengths saying so: a transport that ends early.
    pub transport_len: Option<usize>,
    pub corrupt_icrc: bool,
    /// Source and destination host numbers (addresses: `host_mac` etc.).
    pub hosts: (u8, u8),
}

impl RoceFrame {
    /// A valid RoCEv2/IPv4 frame with opcode `op`, no payload, and header
    /// fields drawn from sequence number `seq`.
    pub fn new(op: u8, seq: u32) -> Self {
        let v = |salt| seq_value(seq, salt);
        RoceFrame {
            vlans: Vec::new(),
            l3: L3::V4 { options: Vec::new() },
            dscp: 26,
            ecn: 2,
            ip_proto: ip_proto::UDP,
            udp_sport: 0xC000 | (v(1) as u16 & 0x3FFF),
            udp_dport: ROCE_V2_UDP_PORT,
            bth: BthRepr {
                opcode: op,
                se: v(2) & 1 == 1,
                mig_req: true,
                pkey: 0xFFFF,
                dest_qp: (v(3) & 0xFF_FFFF) as u32,
                ack_req: v(4) & 1 == 1,
                psn: (v(5) & 0xFF_FFFF) as u32,
                ..BthRepr::default()
            },
            ext: ext_headers_for(op, seq),
            payload: Vec::new(),
            transport_len: None,
            corrupt_icrc: false,
            hosts: (1, 2),
        }
    }

    /// Sets a payload of `len` bytes and the PadCnt that 4-aligns it.
    pub fn with_payload(mut self, len: usize, seq: u32) -> Self {
        self.payload = (0..len).map(|i| seq_value(seq, 100 + i as u32) as u8).collect();
        self.bth.pad_cnt = ((4 - len % 4) % 4) as u8;
        self
    }

    pub fn ipv6(mut self, flow_label: u32) -> Self {
        self.l3 = L3::V6 { flow_label };
        self
    }

    pub fn tagged(mut self, tags: &[(u16, u8, u16)]) -> Self {
        self.vlans = tags.to_vec();
        self
    }

    /// Offset of the IP header in the built frame.
    pub fn l3_offset(&self) -> usize {
        EthernetRepr::LEN + VlanRepr::LEN * self.vlans.len()
    }

    pub fn ip_header_len(&self) -> usize {
        match &self.l3 {
            L3::V4 { options } => Ipv4Repr::LEN + options.len(),
            L3::V6 { .. } => Ipv6Repr::LEN,
        }
    }

    pub fn build(&self) -> Vec<u8> {
        let mut transport = self.bth.to_bytes().to_vec();
        transport.extend_from_slice(&self.ext);
        transport.extend_from_slice(&self.payload);
        transport.resize(transport.len() + usize::from(self.bth.pad_cnt), 0);
        let with_icrc = transport.len() + 4;
        let transport_len = self.transport_len.unwrap_or(with_icrc);

        let ip = self.ip_repr();
        let vlans = vlan_chain(&self.vlans, ip.ethertype());
        let (src, dst) = self.hosts;
        let headers = UdpFrameRepr {
            ethernet: EthernetRepr {
                dst_addr: host_mac(dst),
                src_addr: host_mac(src),
                ethertype: self.vlans.first().map_or(ip.ethertype(), |t| t.0),
            },
            vlans: &vlans,
            ip,
            udp: UdpRepr { src_port: self.udp_sport, dst_port: self.udp_dport, ..UdpRepr::default() },
        };
        let mut frame = headers.emit(transport_len);
        if self.transport_len.is_some() {
            transport.resize(with_icrc, 0xA5);
            transport.truncate(transport_len);
            frame.extend(transport);
        } else {
            frame.extend(transport);
            headers.append_icrc(&mut frame);
            if self.corrupt_icrc {
                // Bit 8 of the value: the ICRC goes least significant byte first.
                let second = frame.len() - 3;
                frame[second] ^= 0x01;
            }
        }
        pad_to_minimum(&mut frame);
        frame
    }

    fn ip_repr(&self) -> IpRepr<'_> {
        match &self.l3 {
            L3::V4 { options } => IpRepr::V4(Ipv4Repr {
                dscp: self.dscp,
                ecn: self.ecn,
                ident: (seq_value(self.bth.psn, 7) & 0xFFFF) as u16,
                dont_frag: true,
                ttl: 64,
                protocol: self.ip_proto,
                src_addr: host_ipv4(self.hosts.0),
                dst_addr: host_ipv4(self.hosts.1),
                options,
                ..Ipv4Repr::default()
            }),
            L3::V6 { flow_label } => IpRepr::V6(Ipv6Repr {
                dscp: self.dscp,
                ecn: self.ecn,
                flow_label: *flow_label,
                next_header: self.ip_proto,
                hop_limit: 64,
                src_addr: host_ipv6(self.hosts.0),
                dst_addr: host_ipv6(self.hosts.1),
                ..Ipv6Repr::default()
            }),
        }
    }
}

/// Recomputes the IPv4 header checksum of the header at `l3` in `frame`.
pub fn fix_ipv4_checksum(frame: &mut [u8], l3: usize) {
    Ipv4Packet::new_unchecked(&mut frame[l3..]).fill_checksum();
}

/// The extension headers opcode `op` carries, in wire order, with values
/// from `seq`.
pub fn ext_headers_for(op: u8, seq: u32) -> Vec<u8> {
    let Some(h) = opcode::ext_headers(op) else {
        return Vec::new();
    };
    let v = |salt| seq_value(seq, salt);
    let mut bytes = Vec::new();
    if h.reth {
        bytes.extend(RethRepr { va: v(10), rkey: v(11) as u32, dma_len: (v(12) & 0xFFFF) as u32 }.to_bytes());
    }
    if h.atomic {
        bytes.extend(AtomicEthRepr { va: v(13) & !7, rkey: v(14) as u32, swap_add: v(15), compare: v(16) }.to_bytes());
    }
    if h.aeth {
        // ACK with a credit count, or RNR NAK, or NAK: syndrome types 000/001/011.
        let syndrome = [0x1F, 0x20 | (v(17) as u8 & 0x1F), 0x60 | (v(17) as u8 & 0x03)][(v(18) % 3) as usize];
        bytes.extend(AethRepr { syndrome, msn: (v(19) & 0xFF_FFFF) as u32 }.to_bytes());
    }
    if h.atomic_ack {
        bytes.extend(AtomicAckEthRepr { orig: v(20) }.to_bytes());
    }
    if h.deth {
        bytes.extend(DethRepr { qkey: v(21) as u32, reserved: 0, src_qp: (v(22) & 0xFF_FFFF) as u32 }.to_bytes());
    }
    if h.imm {
        bytes.extend(ImmDtRepr { data: v(23) as u32 }.to_bytes());
    }
    if h.ieth {
        bytes.extend(IethRepr { rkey: v(24) as u32 }.to_bytes());
    }
    if h.cnp {
        bytes.resize(bytes.len() + opcode::CNP_RESERVED_LEN, 0);
    }
    bytes
}

/// Every opcode RoCEv2 carries, in numeric order.
pub fn carried_opcodes() -> Vec<u8> {
    (0..=255u8).filter(|&op| opcode::ext_headers(op).is_some()).collect()
}

/// Tags given as (TPID, PCP, VID), outermost first, each naming what
/// follows it: the next tag's TPID, or `inner_type`.
pub fn vlan_chain(tags: &[(u16, u8, u16)], inner_type: u16) -> Vec<VlanRepr> {
    let next = |i: usize| tags.get(i + 1).map_or(inner_type, |t| t.0);
    tags.iter().enumerate().map(|(i, &(_, pcp, vid))| VlanRepr { pcp, dei: false, vid, ethertype: next(i) }).collect()
}

/// A MAC Control frame from `src` to the MAC Control address, behind VLAN
/// tags given as (TPID, PCP, VID), outermost first.
pub fn tagged_mac_control_frame(tags: &[(u16, u8, u16)], src: [u8; 6], body: MacControlRepr) -> Vec<u8> {
    let first_type = tags.first().map_or(ethertype::MAC_CONTROL, |t| t.0);
    let ethernet = EthernetRepr { dst_addr: MAC_CONTROL_DST, src_addr: src, ethertype: first_type };
    MacControlFrameRepr { ethernet, vlans: &vlan_chain(tags, ethertype::MAC_CONTROL), body }.emit()
}
