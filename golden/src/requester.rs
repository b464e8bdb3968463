//! The RC requester (`SPEC.md` §6.11): the send side of RoCEv2's go-back-N
//! (IBTA vol. 1 §9.7.5; Linux rxe's `rxe_comp.c`). The RC requests this NIC
//! sends and the ACKs and NAKs it receives in, retransmit requests out, as
//! `rtl/roce_requester.v`. The retry limit counts go-backs without progress;
//! no retransmit timer yet.

use crate::cc_params::{AckMode, CcRegisters};
use crate::cn_event::{CnEvent, CnEventKind};
use crate::responder::{AETH_NAK_PSN_SEQ, PSN_HALF, PSN_MASK};

/// AETH syndrome bits 7:5, the type: 000 is an ACK, bits 4:0 its credit
/// count (rxe's `AETH_TYPE_MASK`, `AETH_ACK`).
const AETH_TYPE_MASK: u8 = 0xE0;

/// Why a retransmit request was made (`m_retx_cause`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetxCause {
    /// A NAK "PSN sequence error" in the window: go back and send again.
    Nak = 0,
    /// The NAK found the QP's retries used up: nothing is sent again, the
    /// QP is in error from now on and its `count` packets are lost.
    RetryExhausted = 1,
}

impl RetxCause {
    /// Every cause, in code order.
    pub const ALL: [RetxCause; 2] = [RetxCause::Nak, RetxCause::RetryExhausted];

    /// The JSONL name.
    pub fn name(self) -> &'static str {
        match self {
            RetxCause::Nak => "nak",
            RetxCause::RetryExhausted => "retry_exhausted",
        }
    }

    /// From `m_retx_cause`; `None` for a code no cause has.
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
}

/// Go back: the host re-posts the `count` packets from `psn` on
/// (`psn .. psn + count` mod 2^24) of local QP `qp`; or, with `cause`
/// [`RetxCause::RetryExhausted`], those packets will never be acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetxRequest {
    /// The tick of the NAK that asked for it.
    pub time: u64,
    pub qp: u32,
    pub psn: u32,
    pub count: u32,
    pub cause: RetxCause,
}

/// Per-QP state of the requester (one 53-bit RAM word in the RTL).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReqEntry {
    /// `una` and `nxt` hold a window (the QP has sent an RC request).
    pub valid: bool,
    /// Retry exhausted: the QP takes no more events (rxe's `rxe_qp_error`).
    pub error: bool,
    /// Go-backs since `una` last moved on (0..=`retry_cnt`).
    pub retries: u8,
    /// The oldest unacknowledged PSN.
    pub una: u32,
    /// The PSN after the newest sent.
    pub nxt: u32,
}

/// The requester for `entries.len()` local QPs (QPs 0..n).
#[derive(Debug, Clone)]
pub struct Requester {
    pub entries: Vec<ReqEntry>,
}

impl Requester {
    /// Every QP without a window, as after the RTL's reset sweep. No
    /// context loads: the requester has no QP-context input.
    pub fn new(qp_count: usize) -> Self {
        Requester { entries: vec![ReqEntry::default(); qp_count] }
    }

    /// One event: a sent RC request (TxData with `rc_req`) or a received
    /// ACK or NAK (RxData with `syndrome`); any other event, `ack_mode` off
    /// or a QP beyond the table changes nothing. The retransmit request a
    /// NAK makes, if any.
    pub fn handle(&mut self, ev: &CnEvent, regs: &CcRegisters) -> Option<RetxRequest> {
        if regs.ack_mode != AckMode::Rocev2 as u8 {
            return None;
        }
        let entry = self.entries.get_mut(ev.qp as usize)?;
        if entry.error {
            // Retry exhausted: the QP is done with (§6.11 rule 6).
            return None;
        }
        let psn = ev.psn & PSN_MASK;
        match (ev.kind, ev.syndrome) {
            (CnEventKind::TxData, _) if ev.rc_req => {
                entry.sent(psn);
                None
            }
            (CnEventKind::RxData, Some(syndrome)) => entry
                .response(psn, syndrome, regs.retry_cnt)
                .map(|(count, cause)| RetxRequest { time: ev.time, qp: ev.qp, psn, count, cause }),
            // Not the requester's input (§6.11).
            _ => None,
        }
    }
}

impl ReqEntry {
    /// §6.11 rule 1: a sent request of PSN `psn` moves `nxt` on when it is new.
    fn sent(&mut self, psn: u32) {
        let next = (psn + 1) & PSN_MASK;
        if !self.valid {
            // The first request seen opens the window (a capture that
            // starts in the middle of a flow).
            *self = ReqEntry { valid: true, una: psn, nxt: next, ..*self };
            return;
        }
        // How far beyond nxt the packet ends, as a signed 24-bit number
        // (rxe's psn_compare): 1..2^23-1 is a new packet (gaps allowed);
        // 0 or behind is a retransmission, which leaves nxt where it is.
        let d = next.wrapping_sub(self.nxt) & PSN_MASK;
        if d != 0 && d < PSN_HALF {
            self.nxt = next;
        }
    }

    /// §6.11 rules 2-6: an ACK or NAK of PSN `psn`; for a NAK "PSN
    /// sequence error" inside the window the count from it to `nxt`, and
    /// whether it goes back or finds the retries used up (`retry_cnt`).
    fn response(&mut self, psn: u32, syndrome: u8, retry_cnt: u8) -> Option<(u32, RetxCause)> {
        if !self.valid {
            return None;
        }
        // Only a PSN in [una, nxt) answers a packet still in flight: one
        // behind una is stale, already acknowledged (rxe check_psn drops a
        // response behind comp.psn); one at or beyond nxt answers nothing
        // sent.
        let inflight = self.nxt.wrapping_sub(self.una) & PSN_MASK;
        let k = psn.wrapping_sub(self.una) & PSN_MASK;
        if k >= inflight {
            return None;
        }
        if syndrome & AETH_TYPE_MASK == 0 {
            // Rule 3, ACK: its PSN is the last packet the responder
            // acknowledges (§6.10), so everything up to it is done (rxe
            // COMPST_UPDATE_COMP: comp.psn = psn + 1). Progress: the retries
            // count again from 0 (rxe's reset_retry_counters on an ACK).
            self.una = (psn + 1) & PSN_MASK;
            self.retries = 0;
            None
        } else if syndrome == AETH_NAK_PSN_SEQ {
            // Rule 4, NAK: its PSN is the responder's expected one;
            // everything before it is acknowledged, everything from it on
            // is sent again (rxe check_ack: comp.psn = psn, then req_retry
            // from there; IBTA's go-back-N).
            let count = self.nxt.wrapping_sub(psn) & PSN_MASK;
            // Rule 6: a NAK that acknowledges packets is progress; then
            // this go-back is one more retry, unless there is none left
            // (rxe COMPST_ERROR_RETRY: retry_cnt > 0 retries, 0 errors).
            let retries = if k == 0 { self.retries } else { 0 };
            self.una = psn;
            if retries == retry_cnt {
                self.error = true;
                return Some((count, RetxCause::RetryExhausted));
            }
            self.retries = retries + 1;
            Some((count, RetxCause::Nak))
        } else {
            // Rule 5: RNR NAK (0x20-0x3F, rxe's timer), the other NAK codes
            // (0x61-0x7F, errors that complete the work request),
            // reserved types (0x40-0x5F, 0x80-0xFF): not yet.
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc_params::CcParams;
    use crate::responder::AETH_ACK;

    const QP: u32 = 7;
    /// RNR NAK, timer field 1 (0.01 ms).
    const RNR_NAK: u8 = 0x21;

    fn regs() -> CcRegisters {
        let mut regs = CcParams::default().registers().unwrap();
        regs.ack_mode = AckMode::Rocev2 as u8;
        regs
    }

    /// An RC request QP 7 sent.
    fn sent(psn: u32) -> CnEvent {
        let mut ev = CnEvent::new(u64::from(psn) * 10, CnEventKind::TxData, QP);
        ev.len = 1_000;
        ev.psn = psn;
        ev.rc_req = true;
        ev
    }

    /// An ACK or NAK QP 7 received, at tick 5.
    fn answer(psn: u32, syndrome: u8) -> CnEvent {
        let mut ev = CnEvent::new(5, CnEventKind::RxData, QP);
        ev.psn = psn;
        ev.syndrome = Some(syndrome);
        ev
    }

    fn send_all(r: &mut Requester, psns: impl IntoIterator<Item = u32>) {
        for psn in psns {
            assert_eq!(r.handle(&sent(psn), &regs()), None);
        }
    }

    fn entry(r: &Requester) -> (bool, u32, u32) {
        let e = r.entries[QP as usize];
        (e.valid, e.una, e.nxt)
    }

    fn retx(psn: u32, count: u32) -> Option<RetxRequest> {
        Some(RetxRequest { time: 5, qp: QP, psn, count, cause: RetxCause::Nak })
    }

    fn exhausted(psn: u32, count: u32) -> Option<RetxRequest> {
        Some(RetxRequest { time: 5, qp: QP, psn, count, cause: RetxCause::RetryExhausted })
    }

    fn with_retry_cnt(retry_cnt: u8) -> CcRegisters {
        CcRegisters { retry_cnt, ..regs() }
    }

    #[test]
    fn go_backs_without_progress_use_up_the_retries() {
        let two = with_retry_cnt(2);
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        // The first NAK acknowledges 10..12: progress, then retry 1.
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &two), retx(13, 7));
        // The same PSN again: no progress, retry 2.
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &two), retx(13, 7));
        assert_eq!(r.entries[QP as usize].retries, 2);
        // None left: retry exhausted, the QP in error.
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &two), exhausted(13, 7));
        assert!(r.entries[QP as usize].error);
        // An error QP takes nothing more: requests, ACKs, NAKs.
        let before = r.entries[QP as usize];
        for ev in [sent(20), answer(15, AETH_ACK), answer(14, AETH_NAK_PSN_SEQ)] {
            assert_eq!(r.handle(&ev, &two), None, "{ev:?}");
        }
        assert_eq!(r.entries[QP as usize], before);
    }

    #[test]
    fn progress_restarts_the_retries() {
        let one = with_retry_cnt(1);
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        assert_eq!(r.handle(&answer(10, AETH_NAK_PSN_SEQ), &one), retx(10, 10));
        // An ACK moves una on: the retries start again.
        assert_eq!(r.handle(&answer(11, AETH_ACK), &one), None);
        assert_eq!(r.entries[QP as usize].retries, 0);
        assert_eq!(r.handle(&answer(12, AETH_NAK_PSN_SEQ), &one), retx(12, 8));
        // A NAK that acknowledges packets (13 > 12) is progress too.
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &one), retx(13, 7));
        // ... and one that does not, with the one retry used: exhausted.
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &one), exhausted(13, 7));
        // A stale ACK is no progress and does not revive the QP.
        assert_eq!(r.handle(&answer(12, AETH_ACK), &one), None);
        assert!(r.entries[QP as usize].error);
    }

    #[test]
    fn retry_cnt_zero_errs_on_the_first_nak() {
        let zero = with_retry_cnt(0);
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        assert_eq!(r.handle(&answer(15, AETH_NAK_PSN_SEQ), &zero), exhausted(15, 5));
        assert_eq!(entry(&r), (true, 15, 20));
        // Another QP is not touched.
        assert!(!r.entries[QP as usize + 1].error);
    }

    #[test]
    fn cause_codes_round_trip() {
        for cause in RetxCause::ALL {
            assert_eq!(RetxCause::from_code(cause as u8), Some(cause));
        }
        assert_eq!(RetxCause::from_code(2), None);
    }

    #[test]
    fn in_order_acks_advance_una() {
        let mut r = Requester::new(1024);
        send_all(&mut r, 100..110);
        assert_eq!(entry(&r), (true, 100, 110));
        assert_eq!(r.handle(&answer(103, AETH_ACK), &regs()), None);
        assert_eq!(entry(&r), (true, 104, 110));
        // Any ACK syndrome (type 000, any credit count) is an ACK.
        assert_eq!(r.handle(&answer(109, 0x00), &regs()), None);
        assert_eq!(entry(&r), (true, 110, 110));
        // The window is empty: an ACK of the same PSN answers nothing.
        assert_eq!(r.handle(&answer(109, AETH_ACK), &regs()), None);
        assert_eq!(entry(&r), (true, 110, 110));
    }

    #[test]
    fn nak_goes_back_to_its_psn_with_the_count_in_flight() {
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &regs()), retx(13, 7));
        assert_eq!(entry(&r), (true, 13, 20));
        // A NAK at una itself goes back too.
        assert_eq!(r.handle(&answer(13, AETH_NAK_PSN_SEQ), &regs()), retx(13, 7));
        // The newest packet NAKed: one to send again.
        assert_eq!(r.handle(&answer(19, AETH_NAK_PSN_SEQ), &regs()), retx(19, 1));
        assert_eq!(entry(&r), (true, 19, 20));
    }

    #[test]
    fn nak_outside_the_window_is_ignored() {
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        assert_eq!(r.handle(&answer(14, AETH_ACK), &regs()), None);
        // Behind una (already acknowledged), at nxt, beyond nxt.
        for psn in [9, 14, 20, 21, 10 + PSN_HALF] {
            assert_eq!(r.handle(&answer(psn, AETH_NAK_PSN_SEQ), &regs()), None, "psn {psn}");
        }
        assert_eq!(entry(&r), (true, 15, 20));
        // Nothing sent yet: nothing to go back to.
        let mut fresh = Requester::new(1024);
        assert_eq!(fresh.handle(&answer(0, AETH_NAK_PSN_SEQ), &regs()), None);
        assert_eq!(entry(&fresh), (false, 0, 0));
    }

    #[test]
    fn stale_ack_is_ignored() {
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        assert_eq!(r.handle(&answer(15, AETH_ACK), &regs()), None);
        // An older ACK (the responder's duplicate re-ACK of epsn - 1 included)
        // or one beyond what was sent moves nothing back or forward.
        for psn in [15, 14, 10, 9, 20, 25] {
            assert_eq!(r.handle(&answer(psn, AETH_ACK), &regs()), None, "psn {psn}");
            assert_eq!(entry(&r), (true, 16, 20), "psn {psn}");
        }
    }

    #[test]
    fn retransmitted_tx_data_does_not_move_nxt() {
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        assert_eq!(r.handle(&answer(12, AETH_NAK_PSN_SEQ), &regs()), retx(12, 8));
        send_all(&mut r, 12..20);
        assert_eq!(entry(&r), (true, 12, 20));
        // A packet older than una, too.
        send_all(&mut r, [3]);
        assert_eq!(entry(&r), (true, 12, 20));
        // New packets, with a gap (a capture's missed frame), move it on.
        send_all(&mut r, [20, 22]);
        assert_eq!(entry(&r), (true, 12, 23));
        // 2^23 beyond nxt counts as behind.
        send_all(&mut r, [22 + PSN_HALF]);
        assert_eq!(entry(&r), (true, 12, 23));
        send_all(&mut r, [21 + PSN_HALF]);
        assert_eq!(entry(&r), (true, 12, 22 + PSN_HALF));
    }

    #[test]
    fn psns_wrap_at_24_bits() {
        let mut r = Requester::new(1024);
        send_all(&mut r, [PSN_MASK - 2, PSN_MASK - 1, PSN_MASK, 0, 1]);
        assert_eq!(entry(&r), (true, PSN_MASK - 2, 2));
        assert_eq!(r.handle(&answer(PSN_MASK - 1, AETH_NAK_PSN_SEQ), &regs()), retx(PSN_MASK - 1, 4));
        assert_eq!(r.handle(&answer(PSN_MASK, AETH_ACK), &regs()), None);
        assert_eq!(entry(&r), (true, 0, 2));
        assert_eq!(r.handle(&answer(0, AETH_NAK_PSN_SEQ), &regs()), retx(0, 2));
        // Bits above the 24 are not the PSN's.
        assert_eq!(r.handle(&answer(0x100_0000, AETH_ACK), &regs()), None);
        assert_eq!(entry(&r), (true, 1, 2));
        send_all(&mut r, [0x100_0002]);
        assert_eq!(entry(&r), (true, 1, 3));
        // The first request at the top of the range opens a window that wraps.
        let mut top = Requester::new(1024);
        send_all(&mut top, [PSN_MASK]);
        assert_eq!(entry(&top), (true, PSN_MASK, 0));
    }

    #[test]
    fn ack_mode_off_does_nothing() {
        let mut off = regs();
        off.ack_mode = AckMode::Off as u8;
        let mut r = Requester::new(1024);
        assert_eq!(r.handle(&sent(10), &off), None);
        assert_eq!(entry(&r), (false, 0, 0));
        send_all(&mut r, 10..20);
        for ev in [sent(20), answer(12, AETH_NAK_PSN_SEQ), answer(12, AETH_ACK)] {
            assert_eq!(r.handle(&ev, &off), None);
        }
        assert_eq!(entry(&r), (true, 10, 20));
    }

    #[test]
    fn qp_beyond_the_table_is_ignored() {
        let mut r = Requester::new(8);
        let before = r.entries.clone();
        for mut ev in [sent(10), answer(10, AETH_NAK_PSN_SEQ)] {
            ev.qp = 8;
            assert_eq!(r.handle(&ev, &regs()), None);
        }
        assert_eq!(r.entries, before);
    }

    #[test]
    fn other_syndromes_and_events_are_ignored() {
        let mut r = Requester::new(1024);
        send_all(&mut r, 10..20);
        // RNR NAK, the other NAK codes, the reserved types.
        for syndrome in [RNR_NAK, 0x3F, 0x40, 0x5F, 0x61, 0x63, 0x7F, 0x80, 0xE0, 0xFF] {
            assert_eq!(r.handle(&answer(12, syndrome), &regs()), None, "syndrome {syndrome:#04x}");
        }
        // Not its input: a sent frame that is no RC request, received data without
        // an AETH, a CNP.
        let mut not_rc = sent(25);
        not_rc.rc_req = false;
        let mut data = answer(12, AETH_NAK_PSN_SEQ);
        data.syndrome = None;
        data.rc_req = true;
        let mut cnp = answer(12, AETH_NAK_PSN_SEQ);
        cnp.kind = CnEventKind::RxCnp;
        for ev in [not_rc, data, cnp] {
            assert_eq!(r.handle(&ev, &regs()), None, "{ev:?}");
        }
        assert_eq!(entry(&r), (true, 10, 20));
    }
}
