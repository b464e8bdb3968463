//! The RC responder (`SPEC.md` §6.10): received RC SEND and WRITE requests
//! in, ACKs and NAKs out, as `rtl/roce_responder.v`: RoCEv2's go-back-N
//! (IBTA vol. 1 §9.7; Linux rxe's `rxe_resp.c`) or MetaRoCE's selective
//! ACKs (out-of-order packets kept in a bitmap the ACKs carry).

use crate::cc_params::{AckMode, CcRegisters};
use crate::cn_event::{CnEvent, CnEventKind};
use crate::notify::reply_frame;
use crate::opcode::RC_ACK;
use crate::wire::{AethRepr, BthRepr, SackRepr};

/// AETH syndromes (SPEC §6.10): ACK with credit count 31, "invalid"
/// (rxe's `AETH_ACK_UNLIMITED`).
pub const AETH_ACK: u8 = 0x1F;
/// NAK, code 0: PSN sequence error.
pub const AETH_NAK_PSN_SEQ: u8 = 0x60;
/// PSNs and MSNs are 24 bits.
pub const PSN_MASK: u32 = 0xFF_FFFF;
/// The first PSN distance that counts as behind: `psn - epsn` mod 2^24 in
/// 1..2^23-1 is ahead, 2^23.. is a duplicate (rxe's `psn_compare`).
pub(crate) const PSN_HALF: u32 = 1 << 23;
/// MetaRoCE mode's window past the expected PSN: the bitmap holds PSNs
/// `epsn + 1 ..= epsn + SACK_WINDOW`.
pub const SACK_WINDOW: u32 = 64;

/// One ACK or NAK sent: the frame (no FCS) and its emit tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckSent {
    pub time: u64,
    /// The local QP whose request it answers.
    pub local_qp: u32,
    /// DestQP of the ACK: the remote (requesting) QP.
    pub dest_qp: u32,
    pub psn: u32,
    /// [`AETH_ACK`] or [`AETH_NAK_PSN_SEQ`].
    pub syndrome: u8,
    pub msn: u32,
    /// MetaRoCE mode's extension (`ack_mode` metaroce): what was received
    /// past the first missing PSN.
    pub sack: Option<SackRepr>,
    pub frame: Vec<u8>,
}

/// Per-QP state of the responder (one RAM word in the RTL).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RespEntry {
    /// The remote QP from the QP context table.
    pub remote_qp: Option<u32>,
    /// `epsn` holds the expected PSN (from `rq_psn` or the first request).
    pub psn_valid: bool,
    pub epsn: u32,
    /// Message sequence number: messages received whole, mod 2^24.
    pub msn: u32,
    /// A NAK was sent for the current gap (metaroce: a packet past the
    /// window was dropped and reported since `epsn` last moved).
    pub nak_sent: bool,
    /// Packets taken since the last ACK (in order; metaroce: or into the bitmap).
    pub unacked: u8,
    /// Metaroce: bit i is set when PSN `epsn + 1 + i` was received.
    pub sack: u64,
    /// Metaroce: the tick (mod 2^32) of the oldest packet not yet
    /// acknowledged, when `unacked` is not 0.
    pub first_unacked: u32,
}

/// The responder for `entries.len()` local QPs (QPs 0..n).
#[derive(Debug, Clone)]
pub struct Responder {
    pub entries: Vec<RespEntry>,
}

impl Responder {
    pub fn new(qp_count: usize) -> Self {
        Responder { entries: vec![RespEntry::default(); qp_count] }
    }

    /// Loads one QP context (remote QP, optional rq_psn); false when the local QP is out of range.
    pub fn set_context(&mut self, local: u32, remote: u32, rq_psn: Option<u32>) -> bool {
        match self.entries.get_mut(local as usize) {
            Some(e) => {
                // Loading a context starts the QP afresh, as the RTL writes the whole word.
                *e = RespEntry {
                    remote_qp: Some(remote & PSN_MASK),
                    psn_valid: rq_psn.is_some(),
                    epsn: rq_psn.unwrap_or(0) & PSN_MASK,
                    ..RespEntry::default()
                };
                true
            }
            None => false,
        }
    }

    /// One received data event (kind RxData); ignores events without rc_req, with ack_mode off, or out of range. The ACK or NAK it sends, if any.
    pub fn receive(&mut self, ev: &CnEvent, regs: &CcRegisters) -> Option<AckSent> {
        let selective = regs.ack_mode == AckMode::Metaroce as u8;
        if ev.kind != CnEventKind::RxData || !ev.rc_req || !(selective || regs.ack_mode == AckMode::Rocev2 as u8) {
            return None;
        }
        let entry = self.entries.get_mut(ev.qp as usize)?;
        // No one to answer: the word is left as it is.
        let remote = entry.remote_qp?;
        let psn = ev.psn & PSN_MASK;
        if !entry.psn_valid {
            entry.epsn = psn;
            entry.psn_valid = true;
        }
        // psn - epsn as a signed 24-bit number (rxe's psn_compare).
        let d = psn.wrapping_sub(entry.epsn) & PSN_MASK;
        let (ack_psn, syndrome, sack) = if selective {
            let sack = entry.selective(ev, d, regs)?;
            (entry.epsn.wrapping_sub(1) & PSN_MASK, AETH_ACK, Some(sack))
        } else {
            let (ack_psn, syndrome) = entry.go_back_n(ev, d, regs)?;
            (ack_psn, syndrome, None)
        };
        let msn = entry.msn;
        Some(AckSent {
            time: ev.time,
            local_qp: ev.qp,
            dest_qp: remote,
            psn: ack_psn,
            syndrome,
            msn,
            sack,
            frame: ack_frame(ev, remote, ack_psn, syndrome, msn, sack, regs),
        })
    }
}

impl RespEntry {
    /// RoCEv2 (SPEC §6.10 rules 4-6) for a packet `d` past `epsn`: the ACK's
    /// or NAK's PSN and syndrome, if one is sent.
    fn go_back_n(&mut self, ev: &CnEvent, d: u32, regs: &CcRegisters) -> Option<(u32, u8)> {
        if d == 0 {
            // In order.
            self.epsn = (self.epsn + 1) & PSN_MASK;
            if ev.msg_end {
                self.msn = (self.msn + 1) & PSN_MASK;
            }
            self.nak_sent = false;
            self.unacked = self.unacked.wrapping_add(1);
            if !ev.ack_req && self.unacked < regs.ack_coalesce_pkts {
                return None;
            }
            self.unacked = 0;
            Some((ev.psn & PSN_MASK, AETH_ACK))
        } else if d < PSN_HALF {
            // Ahead: one NAK per gap, then go-back-N drops until epsn comes.
            if self.nak_sent {
                return None;
            }
            self.nak_sent = true;
            Some((self.epsn, AETH_NAK_PSN_SEQ))
        } else {
            // Duplicate: acknowledge everything received.
            self.unacked = 0;
            Some((self.epsn.wrapping_sub(1) & PSN_MASK, AETH_ACK))
        }
    }

    /// MetaRoCE's selective ACKs (SPEC §6.10, metaroce rules) for a packet
    /// `d` past `epsn`: the extension of the ACK sent, if one is (its PSN
    /// is then `epsn - 1`, all received in order).
    fn selective(&mut self, ev: &CnEvent, d: u32, regs: &CcRegisters) -> Option<SackRepr> {
        let in_window = (1..=SACK_WINDOW).contains(&d);
        let bit = if in_window { 1u64 << (d - 1) } else { 0 };
        let send = if d >= PSN_HALF || self.sack & bit != 0 {
            // Duplicate: acknowledge everything received.
            true
        } else if d == 0 || in_window {
            // Taken. A packet whose predecessor is missing opens a gap: it
            // is acknowledged at once, the sender's loss signal.
            let opens_gap = in_window && (d == 1 || self.sack & (bit >> 1) == 0);
            let time = ev.time as u32;
            let late = regs.ack_coalesce_ns != 0
                && self.unacked != 0
                && time.wrapping_sub(self.first_unacked) >= regs.ack_coalesce_ns;
            if self.unacked == 0 {
                self.first_unacked = time;
            }
            self.unacked = self.unacked.wrapping_add(1);
            if ev.msg_end {
                self.msn = (self.msn + 1) & PSN_MASK;
            }
            if d == 0 {
                // In order: epsn moves past the PSNs the bitmap holds next.
                let run = self.sack.trailing_ones();
                self.epsn = (self.epsn + 1 + run) & PSN_MASK;
                self.sack = self.sack.checked_shr(run + 1).unwrap_or(0);
                self.nak_sent = false;
            } else {
                self.sack |= bit;
            }
            ev.ack_req || self.unacked >= regs.ack_coalesce_pkts || late || opens_gap
        } else {
            // Past the window: dropped, and reported once until epsn moves.
            if self.nak_sent {
                return None;
            }
            self.nak_sent = true;
            true
        };
        if !send {
            return None;
        }
        self.unacked = 0;
        Some(SackRepr { bitmap: self.sack, beyond: self.nak_sent })
    }
}

/// The ACK or NAK answering `ev` (SPEC §6.10): the CNP's headers (§6.3)
/// with the ACK's DSCP and priority, a BTH of opcode RC ACKNOWLEDGE, the
/// AETH and, for a selective ACK, its extension; 62 bytes (IPv4), 66
/// (tagged), 82 (IPv6), 86 (IPv6 tagged), 12 more with the extension.
pub fn ack_frame(
    ev: &CnEvent,
    dest_qp: u32,
    psn: u32,
    syndrome: u8,
    msn: u32,
    sack: Option<SackRepr>,
    regs: &CcRegisters,
) -> Vec<u8> {
    let mut ext = AethRepr { syndrome, msn: msn & PSN_MASK }.to_bytes().to_vec();
    if let Some(sack) = sack {
        ext.extend_from_slice(&sack.to_bytes());
    }
    let bth = BthRepr { opcode: RC_ACK, pkey: 0xFFFF, dest_qp, psn: psn & PSN_MASK, ..BthRepr::default() };
    reply_frame(ev, regs.ack_dscp, regs.ack_pcp, &bth, &ext)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc_params::CcParams;
    use crate::wire::{EthernetRepr, Ipv4Packet, SackExt, VlanRepr};
    use crate::{parse_frame, FrameClass, ParserConfig};
    use std::net::{IpAddr, Ipv4Addr};

    const QP: u32 = 7;
    const REMOTE: u32 = 0x123;

    fn regs(coalesce: u8) -> CcRegisters {
        let mut regs = CcParams::default().registers().unwrap();
        regs.ack_mode = AckMode::Rocev2 as u8;
        regs.ack_coalesce_pkts = coalesce;
        regs
    }

    /// An RC request of QP 7.
    fn req(psn: u32, ack_req: bool, msg_end: bool) -> CnEvent {
        let mut ev = CnEvent::new(u64::from(psn) * 10, CnEventKind::RxData, QP);
        ev.eth_src = [2, 0, 0, 0, 0, 1];
        ev.eth_dst = [2, 0, 0, 0, 0, 2];
        ev.ip_src[12..].copy_from_slice(&[10, 0, 0, 1]);
        ev.ip_dst[12..].copy_from_slice(&[10, 0, 0, 2]);
        ev.udp_sport = 0xC000;
        ev.psn = psn;
        ev.ack_req = ack_req;
        ev.rc_req = true;
        ev.msg_end = msg_end;
        ev
    }

    fn responder(rq_psn: Option<u32>) -> Responder {
        let mut r = Responder::new(1024);
        assert!(r.set_context(QP, REMOTE, rq_psn));
        r
    }

    /// (psn, syndrome, msn) of what `ev` sends, checking the rest.
    fn step(r: &mut Responder, ev: &CnEvent, regs: &CcRegisters) -> Option<(u32, u8, u32)> {
        let sent = r.receive(ev, regs)?;
        assert_eq!((sent.time, sent.local_qp, sent.dest_qp), (ev.time, QP, REMOTE));
        assert_eq!(sent.frame, ack_frame(ev, REMOTE, sent.psn, sent.syndrome, sent.msn, sent.sack, regs));
        Some((sent.psn, sent.syndrome, sent.msn))
    }

    #[test]
    fn ack_is_a_valid_roce_frame_of_62_bytes() {
        let regs = regs(64);
        for (ipv6, vlan, len) in [(false, None, 62), (false, Some(5), 66), (true, None, 82), (true, Some(5), 86)] {
            let mut ev = req(0, true, true);
            ev.ipv6 = ipv6;
            ev.vlan_id = vlan;
            for (syndrome, psn, msn) in [(AETH_ACK, 0xABCDEF, 0x123456), (AETH_NAK_PSN_SEQ, 12, 0xFFFFFF)] {
                let frame = ack_frame(&ev, 0x1234, psn, syndrome, msn, None, &regs);
                assert_eq!(frame.len(), len);
                let r = parse_frame(&frame, false, &ParserConfig::default());
                assert_eq!(r.class, FrameClass::Roce, "{r:?}");
                assert_eq!(
                    (r.opcode, r.dest_qp, r.psn, r.aeth_syndrome, r.aeth_msn, r.dscp, r.icrc_ok),
                    (Some(0x11), Some(0x1234), Some(psn), Some(syndrome), Some(msn), Some(26), Some(true))
                );
                assert_eq!(
                    (r.pkey, r.becn, r.ack_req, r.ecn, r.payload_len),
                    (Some(0xFFFF), Some(0), Some(0), Some(0), Some(0))
                );
                assert_eq!((r.eth_dst.unwrap().0, r.eth_src.unwrap().0), (ev.eth_src, ev.eth_dst));
                assert_eq!((r.udp_sport, r.udp_dport), (Some(0xC000), Some(4791)));
                assert_eq!((r.vlan_id, r.vlan_pcp), (vlan, vlan.map(|_| 3)));
                let ip_at = EthernetRepr::LEN + VlanRepr::LEN * usize::from(vlan.is_some());
                if !ipv6 {
                    assert_eq!(r.ip_src, Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2))));
                    let ip = Ipv4Packet::new_checked(&frame[ip_at..]).unwrap();
                    assert!(ip.verify_checksum() && ip.dont_frag());
                    assert_eq!((ip.total_len(), ip.ttl()), (48, 64));
                }
            }
        }
    }

    #[test]
    fn go_back_n() {
        let regs = regs(64);
        let mut r = responder(None);
        assert_eq!(step(&mut r, &req(10, false, false), &regs), None);
        assert_eq!(step(&mut r, &req(11, true, true), &regs), Some((11, AETH_ACK, 1)));
        assert_eq!(step(&mut r, &req(13, false, true), &regs), Some((12, AETH_NAK_PSN_SEQ, 1)));
        assert_eq!(step(&mut r, &req(14, true, true), &regs), None);
        assert_eq!(r.entries[QP as usize].epsn, 12);
        assert_eq!(step(&mut r, &req(12, true, true), &regs), Some((12, AETH_ACK, 2)));
        assert_eq!(step(&mut r, &req(11, false, true), &regs), Some((12, AETH_ACK, 2)));
        // A new gap NAKs again.
        assert_eq!(step(&mut r, &req(15, false, false), &regs), Some((13, AETH_NAK_PSN_SEQ, 2)));
        let e = r.entries[QP as usize];
        assert_eq!((e.epsn, e.msn, e.nak_sent, e.unacked), (13, 2, true, 0));
    }

    #[test]
    fn acks_every_coalesce_packets() {
        let regs = regs(4);
        let mut r = responder(None);
        let acks: Vec<_> = (100..110).filter_map(|psn| step(&mut r, &req(psn, false, true), &regs)).collect();
        assert_eq!(acks, [(103, AETH_ACK, 4), (107, AETH_ACK, 8)]);
        assert_eq!(r.entries[QP as usize].unacked, 2);
        // A duplicate ACK restarts the count, as does an AckReq.
        assert_eq!(step(&mut r, &req(100, false, true), &regs), Some((109, AETH_ACK, 10)));
        assert_eq!(step(&mut r, &req(110, true, true), &regs), Some((110, AETH_ACK, 11)));
        let acks: Vec<_> = (111..115).filter_map(|psn| step(&mut r, &req(psn, false, true), &regs)).collect();
        assert_eq!(acks, [(114, AETH_ACK, 15)]);
    }

    #[test]
    fn rq_psn_sets_the_expected_psn() {
        let regs = regs(64);
        let mut r = responder(Some(3));
        assert_eq!(step(&mut r, &req(5, true, true), &regs), Some((3, AETH_NAK_PSN_SEQ, 0)));
        assert_eq!(step(&mut r, &req(6, true, true), &regs), None);
        assert_eq!(step(&mut r, &req(3, false, true), &regs), None);
        assert_eq!(step(&mut r, &req(4, true, true), &regs), Some((4, AETH_ACK, 2)));
        // A context load starts afresh.
        assert!(r.set_context(QP, REMOTE, None));
        assert_eq!(r.entries[QP as usize], RespEntry { remote_qp: Some(REMOTE), ..RespEntry::default() });
        assert!(!r.set_context(1024, REMOTE, None));
    }

    #[test]
    fn psns_and_msns_wrap_at_24_bits() {
        let regs = regs(64);
        let mut r = responder(Some(PSN_MASK));
        r.entries[QP as usize].msn = PSN_MASK;
        assert_eq!(step(&mut r, &req(PSN_MASK, true, true), &regs), Some((PSN_MASK, AETH_ACK, 0)));
        // epsn 0: the previous PSN is a duplicate, ACKed as epsn - 1.
        assert_eq!(step(&mut r, &req(PSN_MASK, false, false), &regs), Some((PSN_MASK, AETH_ACK, 0)));
        assert_eq!(step(&mut r, &req(0, true, false), &regs), Some((0, AETH_ACK, 0)));
        // epsn 1: 2^23 ahead is behind (a duplicate), 2^23 - 1 ahead is ahead.
        assert_eq!(step(&mut r, &req(1 + PSN_HALF, false, false), &regs), Some((0, AETH_ACK, 0)));
        assert_eq!(step(&mut r, &req(PSN_HALF, false, false), &regs), Some((1, AETH_NAK_PSN_SEQ, 0)));
        // Bits above the 24 are not the PSN's.
        assert_eq!(step(&mut r, &req(0x100_0001, true, true), &regs), Some((1, AETH_ACK, 1)));
    }

    #[test]
    fn ignored_events_change_nothing() {
        let on = regs(1);
        let mut off = on;
        off.ack_mode = AckMode::Off as u8;
        let mut r = responder(None);
        let before = r.entries.clone();
        assert_eq!(r.receive(&req(10, true, true), &off), None);
        let mut not_rc = req(10, true, true);
        not_rc.rc_req = false;
        assert_eq!(r.receive(&not_rc, &on), None);
        let mut cnp = req(10, true, true);
        cnp.kind = CnEventKind::RxCnp;
        assert_eq!(r.receive(&cnp, &on), None);
        let mut no_remote = req(10, true, true);
        no_remote.qp = QP + 1;
        assert_eq!(r.receive(&no_remote, &on), None);
        let mut out_of_range = req(10, true, true);
        out_of_range.qp = 1024;
        assert_eq!(r.receive(&out_of_range, &on), None);
        assert_eq!(r.entries, before);
    }

    fn selective_regs(coalesce: u8, coalesce_ns: u32) -> CcRegisters {
        let mut regs = regs(coalesce);
        regs.ack_mode = AckMode::Metaroce as u8;
        regs.ack_coalesce_ns = coalesce_ns;
        regs
    }

    /// (psn, msn, bitmap, beyond) of the selective ACK `ev` sends.
    fn sstep(r: &mut Responder, ev: &CnEvent, regs: &CcRegisters) -> Option<(u32, u32, u64, bool)> {
        let sent = r.receive(ev, regs)?;
        assert_eq!(sent.syndrome, AETH_ACK);
        assert_eq!(sent.frame, ack_frame(ev, REMOTE, sent.psn, sent.syndrome, sent.msn, sent.sack, regs));
        let sack = sent.sack.expect("metaroce sends selective ACKs");
        Some((sent.psn, sent.msn, sack.bitmap, sack.beyond))
    }

    #[test]
    fn selective_ack_is_a_valid_roce_ack_with_its_extension() {
        let regs = selective_regs(8, 0);
        let sack = SackRepr { bitmap: 0x8000_0000_0000_0005, beyond: true };
        for (ipv6, vlan, len) in [(false, None, 74), (true, Some(5), 98)] {
            let mut ev = req(0, true, true);
            ev.ipv6 = ipv6;
            ev.vlan_id = vlan;
            let frame = ack_frame(&ev, 0x1234, 0xABCDEF, AETH_ACK, 7, Some(sack), &regs);
            assert_eq!(frame.len(), len);
            let r = parse_frame(&frame, false, &ParserConfig::default());
            assert_eq!(r.class, FrameClass::Roce, "{r:?}");
            assert_eq!(
                (r.opcode, r.psn, r.aeth_syndrome, r.aeth_msn, r.icrc_ok, r.payload_len),
                (Some(0x11), Some(0xABCDEF), Some(AETH_ACK), Some(7), Some(true), Some(12))
            );
            // The extension is the last 12 bytes before the ICRC.
            let ext = SackExt::new_checked(&frame[len - 16..len - 4]).unwrap();
            assert_eq!((ext.tag(), ext.version(), ext.flags()), (*b"MS", 1, 1));
            assert_eq!(SackRepr::parse(&ext), Some(sack));
        }
        let mut other = SackRepr::default().to_bytes();
        other[2] = 2;
        assert_eq!(SackRepr::parse(&SackExt::new_checked(&other[..]).unwrap()), None);
    }

    #[test]
    fn selective_acks_keep_what_arrives_out_of_order() {
        let regs = selective_regs(8, 0);
        let mut r = responder(Some(10));
        assert_eq!(sstep(&mut r, &req(10, false, false), &regs), None);
        // 11 lost: 12 opens a gap and is acknowledged at once (bit 0 = 12).
        assert_eq!(sstep(&mut r, &req(12, false, false), &regs), Some((10, 0, 0b1, false)));
        assert_eq!(sstep(&mut r, &req(13, false, true), &regs), None);
        // 14 lost: 15 opens another gap.
        assert_eq!(sstep(&mut r, &req(15, false, false), &regs), Some((10, 1, 0b1011, false)));
        // A duplicate is acknowledged, in the bitmap or behind.
        assert_eq!(sstep(&mut r, &req(12, false, false), &regs), Some((10, 1, 0b1011, false)));
        assert_eq!(sstep(&mut r, &req(9, false, false), &regs), Some((10, 1, 0b1011, false)));
        // 11 comes: epsn moves past 12 and 13 to 14; 15 is now bit 0.
        assert_eq!(sstep(&mut r, &req(11, true, false), &regs), Some((13, 1, 0b1, false)));
        assert_eq!(sstep(&mut r, &req(14, true, true), &regs), Some((15, 2, 0, false)));
        let e = r.entries[QP as usize];
        assert_eq!((e.epsn, e.sack, e.unacked, e.nak_sent), (16, 0, 0, false));
        // A full bitmap: epsn moves 65 at once.
        r.entries[QP as usize].sack = u64::MAX;
        assert_eq!(sstep(&mut r, &req(16, true, false), &regs), Some((16 + 64, 2, 0, false)));
    }

    #[test]
    fn selective_acks_are_coalesced_by_count_and_by_time() {
        // req(psn) arrives at psn * 10 ns.
        let count = |regs: &CcRegisters| {
            let mut r = responder(Some(0));
            (0..8).filter_map(|psn| sstep(&mut r, &req(psn, false, false), regs)).map(|a| a.0).collect::<Vec<_>>()
        };
        assert_eq!(count(&selective_regs(4, 0)), [3, 7]);
        // 15 ns after the oldest unacknowledged packet: PSN 2 (20 ns after
        // PSN 0), then PSN 5 (20 ns after PSN 3).
        assert_eq!(count(&selective_regs(4, 15)), [2, 5]);
        assert_eq!(count(&selective_regs(2, 15)), [1, 3, 5, 7]);
        // The time is taken mod 2^32.
        let regs = selective_regs(64, 15);
        let mut r = responder(Some(0));
        let mut first = req(0, false, false);
        first.time = (1 << 32) - 5;
        let mut second = req(1, false, false);
        second.time = (1 << 32) + 9;
        assert_eq!(sstep(&mut r, &first, &regs), None);
        assert_eq!(sstep(&mut r, &second, &regs), None);
        second.psn = 2;
        second.time += 1;
        assert_eq!(sstep(&mut r, &second, &regs), Some((2, 0, 0, false)));
    }

    #[test]
    fn past_the_window_is_dropped_and_reported_once() {
        let regs = selective_regs(64, 0);
        let mut r = responder(Some(0));
        assert_eq!(sstep(&mut r, &req(1, false, false), &regs), Some((PSN_MASK, 0, 1, false)));
        assert_eq!(sstep(&mut r, &req(65, false, false), &regs), Some((PSN_MASK, 0, 1, true)));
        assert_eq!(sstep(&mut r, &req(66, true, false), &regs), None);
        // 64 is the window's last PSN.
        assert_eq!(sstep(&mut r, &req(64, false, false), &regs), Some((PSN_MASK, 0, 1 | 1 << 63, true)));
        assert_eq!(sstep(&mut r, &req(0, false, true), &regs), None);
        let e = r.entries[QP as usize];
        assert_eq!((e.epsn, e.sack, e.msn, e.nak_sent, e.unacked), (2, 1 << 61, 1, false, 1));
        // The window moved: 66 is in it now, after a gap.
        assert_eq!(sstep(&mut r, &req(66, false, false), &regs), Some((1, 1, 1 << 61 | 1 << 63, false)));
    }

    #[test]
    fn selective_psns_wrap_at_24_bits() {
        let regs = selective_regs(64, 0);
        let mut r = responder(Some(PSN_MASK));
        assert_eq!(sstep(&mut r, &req(1, false, false), &regs), Some((PSN_MASK - 1, 0, 0b10, false)));
        assert_eq!(sstep(&mut r, &req(PSN_MASK, true, false), &regs), Some((PSN_MASK, 0, 0b1, false)));
        assert_eq!(sstep(&mut r, &req(0, true, false), &regs), Some((1, 0, 0, false)));
        // 2^23 past epsn is behind: a duplicate.
        assert_eq!(sstep(&mut r, &req(2 + PSN_HALF, false, false), &regs), Some((1, 0, 0, false)));
        assert_eq!(r.entries[QP as usize].epsn, 2);
    }
}
