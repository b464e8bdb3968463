//! Frames on the simulated wire: RC SEND packets of a flow, CNPs, and the
//! switch's PFC frames. Every RoCE frame is IPv4 without VLAN tags or
//! options, so the fields the switch reads sit at fixed offsets.

use metaroce_golden::frame::{RoceRepr, UdpFrameRepr, ICRC_LEN, MIN_FRAME_LEN};
use metaroce_golden::opcode::{CNP, RC_ACK};
use metaroce_golden::wire::{
    ethertype, ip_proto, Bth, BthRepr, EthernetFrame, EthernetRepr, IpRepr, Ipv4Packet, Ipv4Repr, UdpRepr,
    ROCE_V2_UDP_PORT,
};

use crate::addresses::{host_ipv4, host_mac};
use crate::dice::seq_value;

/// RC SEND opcodes (IBTA table 38): first, middle, last, only.
const SEND_FIRST: u8 = 0x00;
const SEND_MIDDLE: u8 = 0x01;
const SEND_LAST: u8 = 0x02;
const SEND_ONLY: u8 = 0x04;
/// Bytes of a frame on the wire beyond the frame itself: FCS 4, preamble
/// and start delimiter 8, minimum inter-frame gap 12.
pub const WIRE_OVERHEAD: u64 = 24;
/// The FCS, which a switch stores with the frame.
const FCS_LEN: u64 = 4;
const IP_OFFSET: usize = EthernetRepr::LEN;
const BTH_OFFSET: usize = IP_OFFSET + Ipv4Repr::LEN + UdpRepr::LEN;
/// The DSCP of data packets: 26 (AF31), as the regression stimuli draw it;
/// priority 3, the lossless class of RoCE deployments.
pub const DATA_DSCP: u8 = 26;

/// The priority of a frame with `dscp`: its class selector, DSCP / 8 (the
/// switch trusts DSCP; mlx5's default `dscp2prio` map, `mlnx_qos --trust
/// dscp`): data 26 on 3, CNPs 48 (`np_cnp_dscp`) on 6.
pub fn priority_of_dscp(dscp: u8) -> usize {
    usize::from(dscp >> 3)
}

/// Host `h`'s number in addresses (`addresses::host_mac` etc.): 1-based.
pub fn address_of(host: usize) -> u8 {
    u8::try_from(host + 1).expect("at most 254 hosts")
}

#[derive(Debug, Clone)]
pub struct Packet {
    pub data: Vec<u8>,
    /// The flow a data packet belongs to (None: a CNP, an ACK or NAK, or a
    /// PFC frame).
    pub flow: Option<usize>,
    /// A data packet's index in its message (its PSN).
    pub index: u64,
    /// A data packet's copy: 0 the first time it starts on its sender's
    /// wire, then 1, 2, ... (set then: a lost copy whose next copy has
    /// already left is told from the latest one).
    pub copy: u32,
}

impl Packet {
    /// Packet `index` (its PSN; a message starts at PSN 0) of `count` of a
    /// flow from `src` to `dst` hosts, with `payload` bytes, to the remote
    /// QP `dest_qp`.
    pub fn data(flow: usize, src: usize, dst: usize, dest_qp: u32, index: u64, count: u64, payload: u32) -> Self {
        let psn = index as u32;
        let op = match (index == 0, index + 1 == count) {
            (true, true) => SEND_ONLY,
            (true, false) => SEND_FIRST,
            (false, true) => SEND_LAST,
            (false, false) => SEND_MIDDLE,
        };
        let (src, dst) = (address_of(src), address_of(dst));
        // DSCP, TTL, the IP ident and SE as the regression stimuli draw
        // them (`stimuli::RoceFrame`), so the simulator's captures keep
        // their bytes; ECT(0); one UDP source port per flow (RoCE's entropy).
        let ip = Ipv4Repr {
            dscp: DATA_DSCP,
            ecn: 2,
            ident: (seq_value(psn & 0xFF_FFFF, 7) & 0xFFFF) as u16,
            dont_frag: true,
            ttl: 64,
            protocol: ip_proto::UDP,
            src_addr: host_ipv4(src),
            dst_addr: host_ipv4(dst),
            ..Ipv4Repr::default()
        };
        let payload = vec![0; payload as usize];
        let data = RoceRepr {
            headers: UdpFrameRepr {
                ethernet: EthernetRepr { dst_addr: host_mac(dst), src_addr: host_mac(src), ethertype: ethertype::IPV4 },
                vlans: &[],
                ip: IpRepr::V4(ip),
                udp: UdpRepr { src_port: 0xC000 | flow as u16, dst_port: ROCE_V2_UDP_PORT, ..UdpRepr::default() },
            },
            bth: BthRepr {
                opcode: op,
                se: seq_value(psn, 2) & 1 == 1,
                mig_req: true,
                pad_cnt: ((4 - payload.len() % 4) % 4) as u8,
                pkey: 0xFFFF,
                dest_qp,
                ack_req: index + 1 == count,
                psn: psn & 0xFF_FFFF,
                ..BthRepr::default()
            },
            ext: &[],
            payload: &payload,
        }
        .emit();
        Packet { data, flow: Some(flow), index, copy: 0 }
    }

    /// The frame length of a data packet with `payload` bytes: headers
    /// (Ethernet 14, IPv4 20, UDP 8, BTH 12), payload, pad, ICRC 4.
    pub fn frame_len(payload: u32) -> usize {
        let padded = payload.next_multiple_of(4) as usize;
        (BTH_OFFSET + BthRepr::LEN + padded + ICRC_LEN).max(MIN_FRAME_LEN)
    }

    /// A frame of no flow: a CNP, ACK or NAK a NIC made, or a MAC Control
    /// (PFC) frame the switch sends on its own.
    pub fn no_flow(data: Vec<u8>) -> Self {
        Packet { data, flow: None, index: 0, copy: 0 }
    }

    pub fn is_mac_control(&self) -> bool {
        EthernetFrame::new_unchecked(&self.data).ethertype() == ethertype::MAC_CONTROL
    }

    pub fn is_cnp(&self) -> bool {
        self.opcode() == Some(CNP)
    }

    /// An RC ACKNOWLEDGE: a responder's ACK or NAK.
    pub fn is_ack(&self) -> bool {
        self.opcode() == Some(RC_ACK)
    }

    fn opcode(&self) -> Option<u8> {
        Bth::new_checked(self.data.get(BTH_OFFSET..).unwrap_or_default()).ok().map(|bth| bth.opcode())
    }

    /// The destination host, from the MAC.
    pub fn dst_host(&self) -> usize {
        usize::from(EthernetFrame::new_unchecked(&self.data).dst_addr()[5]).wrapping_sub(1)
    }

    /// The sending host, from the MAC: the switch port it came in on.
    pub fn src_host(&self) -> usize {
        usize::from(EthernetFrame::new_unchecked(&self.data).src_addr()[5]).wrapping_sub(1)
    }

    /// The priority the switch queues a RoCE frame on, by its DSCP.
    pub fn priority(&self) -> usize {
        priority_of_dscp(Ipv4Packet::new_unchecked(&self.data[IP_OFFSET..]).dscp())
    }

    pub fn ecn_capable(&self) -> bool {
        Ipv4Packet::new_unchecked(&self.data[IP_OFFSET..]).ecn() != 0
    }

    pub fn is_ce(&self) -> bool {
        Ipv4Packet::new_unchecked(&self.data[IP_OFFSET..]).ecn() == 3
    }

    /// Sets ECN to CE (the ICRC does not cover the TOS byte; the IPv4
    /// checksum does).
    pub fn mark_ce(&mut self) {
        let mut ip = Ipv4Packet::new_unchecked(&mut self.data[IP_OFFSET..]);
        ip.set_tos(ip.tos() | 3);
        ip.fill_checksum();
    }

    /// Bytes a switch buffers: the frame and its FCS.
    pub fn stored_len(&self) -> u64 {
        self.data.len() as u64 + FCS_LEN
    }

    /// Time on a link of `gbps`, ps (rounded up).
    pub fn wire_ps(&self, gbps: u32) -> u64 {
        ((self.data.len() as u64 + WIRE_OVERHEAD) * 8000).div_ceil(u64::from(gbps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metaroce_golden::parser::parse_frame;
    use metaroce_golden::record::FrameClass;
    use metaroce_golden::ParserConfig;

    #[test]
    fn a_marked_packet_still_parses_with_a_good_icrc() {
        let mut p = Packet::data(3, 1, 0, 17, 1, 4, 1024);
        assert!(p.ecn_capable() && !p.is_cnp());
        assert_eq!(p.dst_host(), 0);
        p.mark_ce();
        let record = parse_frame(&p.data, false, &ParserConfig::default());
        assert_eq!(record.class, FrameClass::Roce);
        assert_eq!(record.ecn, Some(3));
        assert_eq!(record.dest_qp, Some(17));
        assert_eq!(record.icrc_ok, Some(true));
        // 1024 B payload + 58 B of headers and ICRC, 24 B overhead, at 100 Gb/s.
        assert_eq!(p.data.len(), Packet::frame_len(1024));
        assert_eq!(p.wire_ps(100), (1082 + 24) * 80);
        assert_eq!(Packet::data(0, 1, 0, 17, 0, 1, 1).data.len(), Packet::frame_len(1));
    }
}
