//! The RC responder (`SPEC.md` §6.10): received RC SEND and WRITE requests
//! in, ACKs and NAKs out, RoCEv2's go-back-N (IBTA vol. 1 §9.7; Linux rxe's
//! `rxe_resp.c`), as `rtl/roce_responder.v`.

use crate::cc_params::{AckMode, CcRegisters};
use crate::cn_event::{CnEvent, CnEventKind};
use crate::notify::reply_frame;
use crate::opcode::RC_ACK;
use crate::wire::{AethRepr, BthRepr};

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
    /// A NAK was sent for the current gap.
    pub nak_sent: bool,
    /// In-order packets since the last ACK.
    pub unacked: u8,
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
        if ev.kind != CnEventKind::RxData || !ev.rc_req || regs.ack_mode != AckMode::Rocev2 as u8 {
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
        let (ack_psn, syndrome) = if d == 0 {
            // In order.
            entry.epsn = (entry.epsn + 1) & PSN_MASK;
            if ev.msg_end {
                entry.msn = (entry.msn + 1) & PSN_MASK;
            }
            entry.nak_sent = false;
            entry.unacked = entry.unacked.wrapping_add(1);
            if !ev.ack_req && entry.unacked < regs.ack_coalesce_pkts {
                return None;
            }
            entry.unacked = 0;
            (psn, AETH_ACK)
        } else if d < PSN_HALF {
            // Ahead: one NAK per gap, then go-back-N drops until epsn comes.
            if entry.nak_sent {
                return None;
            }
            entry.nak_sent = true;
            (entry.epsn, AETH_NAK_PSN_SEQ)
        } else {
            // Duplicate: acknowledge everything received.
            entry.unacked = 0;
            (entry.epsn.wrapping_sub(1) & PSN_MASK, AETH_ACK)
        };
        let msn = entry.msn;
        Some(AckSent {
            time: ev.time,
            local_qp: ev.qp,
            dest_qp: remote,
            psn: ack_psn,
            syndrome,
            msn,
            frame: ack_frame(ev, remote, ack_psn, syndrome, msn, regs),
        })
    }
}

/// The ACK or NAK answering `ev` (SPEC §6.10): the CNP's headers (§6.3)
/// with the ACK's DSCP and priority, a BTH of opcode RC ACKNOWLEDGE and the
/// AETH; 62 bytes (IPv4), 66 (tagged), 82 (IPv6), 86 (IPv6 tagged).
pub fn ack_frame(ev: &CnEvent, dest_qp: u32, psn: u32, syndrome: u8, msn: u32, regs: &CcRegisters) -> Vec<u8> {
    let aeth = AethRepr { syndrome, msn: msn & PSN_MASK }.to_bytes();
    let bth = BthRepr { opcode: RC_ACK, pkey: 0xFFFF, dest_qp, psn: psn & PSN_MASK, ..BthRepr::default() };
    reply_frame(ev, regs.ack_dscp, regs.ack_pcp, &bth, &aeth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc_params::CcParams;
    use crate::wire::{EthernetRepr, Ipv4Packet, VlanRepr};
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
        assert_eq!(sent.frame, ack_frame(ev, REMOTE, sent.psn, sent.syndrome, sent.msn, regs));
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
                let frame = ack_frame(&ev, 0x1234, psn, syndrome, msn, &regs);
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
}
