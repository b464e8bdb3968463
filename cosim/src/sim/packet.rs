//! Frames on the simulated wire: RC SEND packets of a flow, and CNPs. Every
//! frame is IPv4 without VLAN tags or options, so the fields the switch
//! reads sit at fixed offsets.

use metaroce_golden::opcode::CNP;
use metaroce_golden::wire::{Bth, EthernetHeader, Ipv4Header, UdpHeader};

use crate::stimuli::{fix_ipv4_checksum, RoceFrame};

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
const TOS_OFFSET: usize = EthernetHeader::LEN + 1;
const OPCODE_OFFSET: usize = EthernetHeader::LEN + Ipv4Header::LEN + UdpHeader::LEN;

/// Host `h`'s number in addresses (`stimuli::host_mac` etc.): 1-based.
pub fn address_of(host: usize) -> u8 {
    u8::try_from(host + 1).expect("at most 254 hosts")
}

#[derive(Debug, Clone)]
pub struct Packet {
    pub data: Vec<u8>,
    /// The flow a data packet belongs to (None: a CNP).
    pub flow: Option<usize>,
    /// A data packet's index in its message (its PSN).
    pub index: u64,
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
        let mut frame = RoceFrame::new(op, psn);
        frame.hosts = (address_of(src), address_of(dst));
        // One UDP source port per flow (RoCE's entropy), ECT(0).
        frame.udp_sport = 0xC000 | flow as u16;
        frame.ecn = 2;
        frame.bth.dest_qp = dest_qp;
        frame.bth.psn = psn & 0xFF_FFFF;
        frame.bth.ack_req_byte = u8::from(index + 1 == count) << 7;
        frame.payload = vec![0; payload as usize];
        frame.bth.set_pad_cnt(((4 - payload % 4) % 4) as u8);
        Packet { data: frame.build(), flow: Some(flow), index }
    }

    /// The frame length of a data packet with `payload` bytes: headers
    /// (Ethernet 14, IPv4 20, UDP 8, BTH 12), payload, pad, ICRC 4.
    pub fn frame_len(payload: u32) -> usize {
        let padded = payload.next_multiple_of(4) as usize;
        (EthernetHeader::LEN + Ipv4Header::LEN + UdpHeader::LEN + Bth::LEN + padded + 4).max(60)
    }

    pub fn cnp(data: Vec<u8>) -> Self {
        Packet { data, flow: None, index: 0 }
    }

    pub fn is_cnp(&self) -> bool {
        self.data.get(OPCODE_OFFSET) == Some(&CNP)
    }

    /// The destination host, from the MAC.
    pub fn dst_host(&self) -> usize {
        usize::from(self.data[5]).wrapping_sub(1)
    }

    pub fn ecn_capable(&self) -> bool {
        self.data[TOS_OFFSET] & 3 != 0
    }

    /// Sets ECN to CE (the ICRC does not cover the TOS byte; the IPv4
    /// checksum does).
    pub fn mark_ce(&mut self) {
        self.data[TOS_OFFSET] |= 3;
        fix_ipv4_checksum(&mut self.data, EthernetHeader::LEN);
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
