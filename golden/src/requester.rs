//! The RC requester (`SPEC.md` §6.11): the send side of RoCEv2's go-back-N
//! (IBTA vol. 1 §9.7.5; Linux rxe's `rxe_comp.c`). The RC requests this NIC
//! sends and the ACKs and NAKs it receives in, retransmit requests out, as
//! `rtl/roce_requester.v`. The retry limit counts go-backs without progress;
//! the retransmit timer (rxe's `retransmit_timer`) goes back when no answer
//! came in time, with a backoff that doubles per retry. In MetaRoCE mode
//! (`ack_mode` metaroce) a selective ACK asks again for only the PSNs its
//! bitmap shows missing (rule 8, after IRN: Mittal et al., SIGCOMM 2018),
//! and asks again when a packet sent after a resend arrived before it
//! (rule 9, RACK's lost-retransmission rule: RFC 8985).

use crate::cc_params::{AckMode, CcRegisters};
use crate::cn_event::{CnEvent, CnEventKind};
use crate::responder::{AETH_NAK_PSN_SEQ, PSN_HALF, PSN_MASK};
use crate::wire::SackRepr;

/// AETH syndrome bits 7:5, the type: 000 is an ACK, bits 4:0 its credit
/// count (rxe's `AETH_TYPE_MASK`, `AETH_ACK`).
const AETH_TYPE_MASK: u8 = 0xE0;

/// Why a retransmit request was made (`m_retx_cause`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetxCause {
    /// A NAK "PSN sequence error" in the window: go back and send again.
    Nak = 0,
    /// The NAK or the timer found the QP's retries used up: nothing is
    /// sent again, the QP is in error from now on and its `count` packets
    /// are lost.
    RetryExhausted = 1,
    /// The retransmit timer ran out: go back to `una` and send again.
    Timeout = 2,
    /// A selective ACK showed PSNs missing (MetaRoCE mode): only those
    /// are sent again, the ones `mask` names.
    Selective = 3,
}

impl RetxCause {
    /// Every cause, in code order.
    pub const ALL: [RetxCause; 4] =
        [RetxCause::Nak, RetxCause::RetryExhausted, RetxCause::Timeout, RetxCause::Selective];

    /// The JSONL name.
    pub fn name(self) -> &'static str {
        match self {
            RetxCause::Nak => "nak",
            RetxCause::RetryExhausted => "retry_exhausted",
            RetxCause::Timeout => "timeout",
            RetxCause::Selective => "selective",
        }
    }

    /// From `m_retx_cause`; `None` for a code no cause has.
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
}

/// Send again: the host re-posts those of the `count` packets from `psn` on
/// (`psn + i` mod 2^24, i < `count`) of local QP `qp` that `mask` names;
/// or, with `cause` [`RetxCause::RetryExhausted`], those packets will never
/// be acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetxRequest {
    /// The tick of the event that asked for it: the NAK, the selective
    /// ACK, or the event at which the timer was found run out.
    pub time: u64,
    pub qp: u32,
    pub psn: u32,
    pub count: u32,
    pub cause: RetxCause,
    /// Bit i: packet `psn + i` is sent again; every packet from `psn + 64`
    /// on is. All ones but for [`RetxCause::Selective`] (a go-back).
    pub mask: u64,
}

impl RetxRequest {
    /// Whether packet `psn + i` is one the request names.
    pub fn names(&self, i: u32) -> bool {
        i < self.count && (i >= 64 || self.mask >> i & 1 != 0)
    }

    /// The PSNs it names, in order.
    pub fn psns(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.count).filter(|&i| self.names(i)).map(|i| (self.psn + i) & PSN_MASK)
    }
}

/// Whether PSN `a` is behind `b`: their 24-bit difference is negative, as
/// rule 1 reads a PSN (rxe's psn_compare) and the RTL's B stage compares.
fn behind(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) & PSN_MASK >= PSN_HALF
}

/// The timer's unit: 2^12 ticks (ns), IBTA's 4.096 µs.
pub const TIMER_UNIT_SHIFT: u32 = 12;
/// No due to wait for (`quiet_until`): beyond every unit a 64-bit tick has.
pub const QUIET_NONE: u64 = (1 << (64 - TIMER_UNIT_SHIFT)) - 1;

/// Per-QP state of the requester (one 103-bit RAM word in the RTL; the
/// timer's due is in a RAM of its own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReqEntry {
    /// `una` and `nxt` hold a window (the QP has sent an RC request).
    pub valid: bool,
    /// Retry exhausted: the QP takes no more events (rxe's `rxe_qp_error`).
    pub error: bool,
    /// The retransmit timer runs: set exactly while the window holds
    /// packets (`una` != `nxt`; not after 2^24 in flight, read as none) of
    /// a QP not in error, with `retx_timeout` not 0.
    pub armed: bool,
    /// Go-backs since `una` last moved on (0..=`retry_cnt`).
    pub retries: u8,
    /// The oldest unacknowledged PSN.
    pub una: u32,
    /// The PSN after the newest sent.
    pub nxt: u32,
    /// Rule 8: the PSNs before it that a selective ACK showed missing have
    /// been asked for again (a go-back moves it back to its start).
    pub rtx: u32,
    /// Rule 9: a resend has been sent since the last request from una (or
    /// go-back), and `mark` is `nxt` as it was sent: every packet from
    /// `mark` on left after that resend.
    pub marked: bool,
    pub mark: u32,
}

/// The requester for `entries.len()` local QPs (QPs 0..n).
#[derive(Debug, Clone)]
pub struct Requester {
    pub entries: Vec<ReqEntry>,
    /// Each QP's timer due while `armed`: a unit (tick >> 12) mod 2^32.
    pub dues: Vec<u32>,
    /// A unit no due comes before (§6.11 rule 7): an event of an earlier
    /// unit finds no timer run out and needs no scan. [`QUIET_NONE`] while
    /// no timer runs.
    pub quiet_until: u64,
}

/// What one event does to a QP's timer, decided with its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timer {
    /// As it was (running or not).
    Keep,
    /// (Re)start: due 2^(retx_timeout + retries) units from now.
    Start,
    /// Stop: the window is empty or the QP in error.
    Stop,
}

impl Requester {
    /// Every QP without a window, as after the RTL's reset sweep. No
    /// context loads: the requester has no QP-context input.
    pub fn new(qp_count: usize) -> Self {
        Requester { entries: vec![ReqEntry::default(); qp_count], dues: vec![0; qp_count], quiet_until: QUIET_NONE }
    }

    /// One event, of any kind: every event first carries the time to the
    /// timers (rule 7: the QPs whose timer has run out go back, in QP
    /// order). Then a sent RC request (TxData with `rc_req`) or a received
    /// ACK or NAK (RxData with `syndrome`) is the QP's input; any other
    /// event, or a QP beyond the table, changes nothing more. With
    /// `ack_mode` off nothing happens at all. The retransmit requests go
    /// to `out`.
    pub fn handle(&mut self, ev: &CnEvent, regs: &CcRegisters, out: &mut Vec<RetxRequest>) {
        let selective = regs.ack_mode == AckMode::Metaroce as u8;
        if regs.ack_mode != AckMode::Rocev2 as u8 && !selective {
            return;
        }
        let unit = ev.time >> TIMER_UNIT_SHIFT;
        if regs.retx_timeout != 0 && unit >= self.quiet_until {
            self.scan(ev.time, regs, out);
        }
        let input = match (ev.kind, ev.syndrome) {
            (CnEventKind::TxData, _) => ev.rc_req,
            (CnEventKind::RxData, Some(_)) => true,
            // Not the requester's input (§6.11).
            _ => false,
        };
        let q = ev.qp as usize;
        if !input || q >= self.entries.len() {
            return;
        }
        if regs.retx_timeout != 0 {
            // Any timer this event starts is due at 2^retx_timeout units
            // or later: the bound comes down to that.
            self.quiet_until = self.quiet_until.min(unit + (1 << regs.retx_timeout));
        }
        let entry = &mut self.entries[q];
        if entry.error {
            // Retry exhausted: the QP is done with (§6.11 rule 6).
            return;
        }
        let psn = ev.psn & PSN_MASK;
        let (timer, retx) = match (ev.syndrome, ev.sack.filter(|_| selective)) {
            (None, _) => (entry.sent(psn), None),
            (Some(syndrome), Some(sack)) if syndrome & AETH_TYPE_MASK == 0 => entry.selective(psn, sack),
            (Some(syndrome), _) => {
                let (timer, retx) = entry.response(psn, syndrome, regs.retry_cnt);
                (timer, retx.map(|(count, cause)| (psn, count, cause, u64::MAX)))
            }
        };
        entry.set_timer(timer, &mut self.dues[q], unit as u32, regs.retx_timeout);
        if let Some((psn, count, cause, mask)) = retx {
            out.push(RetxRequest { time: ev.time, qp: ev.qp, psn, count, cause, mask });
        }
    }

    /// The first tick of `quiet_until`'s unit: no timer runs out before
    /// it (none while no timer runs). A driver that moves time on to it
    /// lets a due timer go back with no traffic (`rtl/roce_requester.v`
    /// `timer_*`).
    pub fn timer_tick(&self) -> Option<u64> {
        (self.quiet_until != QUIET_NONE).then_some(self.quiet_until << TIMER_UNIT_SHIFT)
    }

    /// Rule 7: every running timer whose due has come (`unit - due` mod
    /// 2^32 below 2^31) goes back to `una`, QP by QP; then `quiet_until` is
    /// the nearest due left.
    fn scan(&mut self, time: u64, regs: &CcRegisters, out: &mut Vec<RetxRequest>) {
        let unit = time >> TIMER_UNIT_SHIFT;
        let now = unit as u32;
        let mut nearest: Option<u32> = None;
        for (q, (entry, due)) in self.entries.iter_mut().zip(self.dues.iter_mut()).enumerate() {
            if !entry.armed {
                continue;
            }
            if now.wrapping_sub(*due) < 1 << 31 {
                let (count, cause) = entry.go_back(entry.una, entry.retries, regs.retry_cnt, RetxCause::Timeout);
                entry.set_timer(Timer::Start, due, now, regs.retx_timeout);
                out.push(RetxRequest { time, qp: q as u32, psn: entry.una, count, cause, mask: u64::MAX });
            }
            if entry.armed {
                let left = due.wrapping_sub(now);
                nearest = Some(nearest.map_or(left, |n| n.min(left)));
            }
        }
        self.quiet_until = nearest.map_or(QUIET_NONE, |left| unit + u64::from(left));
    }
}

impl ReqEntry {
    /// Rule 7's timer after an event: a start sets the due from the
    /// retries now counted (the backoff), unless the QP is in error or
    /// there is no timer.
    fn set_timer(&mut self, timer: Timer, due: &mut u32, now: u32, retx_timeout: u8) {
        match timer {
            Timer::Keep => {}
            Timer::Start if retx_timeout != 0 && !self.error => {
                self.armed = true;
                *due = now.wrapping_add(1 << (retx_timeout + self.retries));
            }
            Timer::Start | Timer::Stop => self.armed = false,
        }
    }

    /// §6.11 rule 1: a sent request of PSN `psn` moves `nxt` on when it is
    /// new. The timer starts when it was not running (rxe_req.c starts it
    /// unless pending), and stops when `nxt` has come round to `una`.
    fn sent(&mut self, psn: u32) -> Timer {
        let next = (psn + 1) & PSN_MASK;
        if !self.valid {
            // The first request seen opens the window (a capture that
            // starts in the middle of a flow).
            *self = ReqEntry { valid: true, una: psn, nxt: next, rtx: psn, marked: false, ..*self };
            return Timer::Start;
        }
        // How far beyond nxt the packet ends, as a signed 24-bit number
        // (rxe's psn_compare): 1..2^23-1 is a new packet (gaps allowed);
        // 0 or behind is a retransmission, which leaves nxt where it is.
        let d = next.wrapping_sub(self.nxt) & PSN_MASK;
        if d == 0 || d >= PSN_HALF {
            if self.answers_in_flight(psn) {
                // Rule 9: a resend; what is sent from now on leaves after it.
                self.marked = true;
                self.mark = self.nxt;
            }
            return Timer::Keep;
        }
        self.nxt = next;
        if next == self.una {
            // 2^24 packets in flight: the window reads as empty.
            Timer::Stop
        } else if self.armed {
            Timer::Keep
        } else {
            Timer::Start
        }
    }

    /// A go-back from `psn` (rules 4, 6 and 7) with `retries` counted
    /// before it: one more retry, or, with none left, retry exhausted and
    /// the QP in error. The count from `psn` to `nxt`, and `cause` or
    /// retry exhausted.
    fn go_back(&mut self, psn: u32, retries: u8, retry_cnt: u8, cause: RetxCause) -> (u32, RetxCause) {
        let count = self.nxt.wrapping_sub(psn) & PSN_MASK;
        self.una = psn;
        // Everything from psn on is asked for again; a selective ACK may
        // still ask for a hole among them (rule 8): one of these resends
        // lost, found without another timeout.
        self.rtx = psn;
        self.marked = false;
        if retries == retry_cnt {
            self.error = true;
            return (count, RetxCause::RetryExhausted);
        }
        self.retries = retries + 1;
        (count, cause)
    }

    /// §6.11 rule 8, MetaRoCE mode: a selective ACK of PSN `psn` (an ACK
    /// syndrome with the extension). Its PSN acknowledges as an ACK's
    /// (rule 3) when it answers a packet in flight; at `una - 1` it
    /// acknowledges nothing new but its bitmap is still news. The PSNs it
    /// shows missing are `psn + 1` and each whose bit is clear, below the
    /// highest set bit; with `beyond`, also every one past the bitmap up to
    /// `nxt` (the responder dropped them). Those from `rtx` on are asked
    /// for again, once: one request, from `psn + 1` with a mask, or, when
    /// `rtx` is past the bitmap, a range from `rtx`; then `rtx` is past
    /// them. The retries and the timer move only with progress, as for an
    /// ACK. Rule 9: a lost resend of una is asked for again (below); one
    /// with nothing sent after it is left to the timer (IRN's RTO).
    fn selective(&mut self, psn: u32, sack: SackRepr) -> (Timer, Option<(u32, u32, RetxCause, u64)>) {
        let una = (psn + 1) & PSN_MASK;
        if !self.valid || (!self.answers_in_flight(psn) && una != self.una) {
            return (Timer::Keep, None);
        }
        // rtx as the word had it: rule 8's and 9's compares read it so.
        let rtx = self.rtx;
        let timer = if una == self.una { Timer::Keep } else { self.acknowledge(una) };
        // The span: from una up to the last PSN the bitmap shows received
        // (bit i is una + 1 + i), or up to nxt when the responder dropped
        // some past the bitmap or the bitmap reaches nxt. PSNs compare by
        // the sign of their 24-bit difference, as rule 1 reads them (and
        // as the RTL's B stage does).
        let received_span = 64 - sack.bitmap.leading_zeros();
        let received_end = (una + received_span) & PSN_MASK;
        let (end, span) = if sack.beyond || !behind(received_end, self.nxt) {
            (self.nxt, self.nxt.wrapping_sub(una) & PSN_MASK)
        } else {
            (received_end, received_span)
        };
        // Rule 9: una was asked for (it is before rtx), and the bitmap
        // shows a packet received that left after the last resend (at or
        // past mark): una's resend, which left before it on the same path,
        // was lost. Everything missing is asked for again, from una.
        let resend_lost = self.marked && received_span != 0 && behind(una, rtx) && !behind(received_end, self.mark);
        // The first one not yet asked for: rtx, or una when rtx is not past
        // it (or rule 9 asks again); nothing when rtx is at or past the
        // span's end.
        let from_una = resend_lost || rtx == una || behind(rtx, una);
        if span == 0 || !(from_una || behind(rtx, end)) {
            return (timer, None);
        }
        let from = if from_una { 0 } else { rtx.wrapping_sub(una) & PSN_MASK };
        self.rtx = end;
        if from_una {
            // A request from una (always made: una is missing): only a
            // resend that leaves after it marks.
            self.marked = false;
        }
        if from >= 64 {
            let count = span.wrapping_sub(from) & PSN_MASK;
            return (timer, Some((rtx, count, RetxCause::Selective, u64::MAX)));
        }
        // Bit 0 is una, missing; bit j > 0 is bitmap bit j - 1.
        let missing = !(sack.bitmap << 1);
        let in_span = if span >= 64 { u64::MAX } else { (1u64 << span) - 1 };
        let mask = missing & in_span & (u64::MAX << from);
        let any = mask != 0 || span > 64;
        (timer, any.then_some((una, span, RetxCause::Selective, mask)))
    }

    /// Rules 3 and 8: an ACK acknowledges everything before `una`.
    /// Progress: the retries count again from 0 (rxe's
    /// reset_retry_counters on an ACK), and `rtx` never stays behind `una`
    /// (read by the sign of their difference, it would read as ahead after
    /// 2^23 more PSNs). The timer starts again while packets are in
    /// flight, and stops when none are (rxe's completer, COMPST_EXIT).
    fn acknowledge(&mut self, una: u32) -> Timer {
        self.una = una;
        self.retries = 0;
        if behind(self.rtx, una) {
            self.rtx = una;
        }
        if una == self.nxt {
            Timer::Stop
        } else {
            Timer::Start
        }
    }

    /// Rule 2: only a PSN in [una, nxt) answers a packet still in flight:
    /// one behind una is stale, already acknowledged (rxe check_psn drops
    /// a response behind comp.psn); one at or beyond nxt answers nothing
    /// sent.
    fn answers_in_flight(&self, psn: u32) -> bool {
        let inflight = self.nxt.wrapping_sub(self.una) & PSN_MASK;
        psn.wrapping_sub(self.una) & PSN_MASK < inflight
    }

    /// §6.11 rules 2-7: an ACK or NAK of PSN `psn`: what it does to the
    /// timer, and for a NAK "PSN sequence error" inside the window the
    /// count from it to `nxt`, and whether it goes back or finds the
    /// retries used up (`retry_cnt`).
    fn response(&mut self, psn: u32, syndrome: u8, retry_cnt: u8) -> (Timer, Option<(u32, RetxCause)>) {
        if !self.valid || !self.answers_in_flight(psn) {
            return (Timer::Keep, None);
        }
        if syndrome & AETH_TYPE_MASK == 0 {
            // Rule 3, ACK: its PSN is the last packet the responder
            // acknowledges (§6.10), so everything up to it is done (rxe
            // COMPST_UPDATE_COMP: comp.psn = psn + 1).
            (self.acknowledge((psn + 1) & PSN_MASK), None)
        } else if syndrome == AETH_NAK_PSN_SEQ {
            // Rule 4, NAK: its PSN is the responder's expected one;
            // everything before it is acknowledged, everything from it on
            // is sent again (rxe check_ack: comp.psn = psn, then req_retry
            // from there; IBTA's go-back-N).
            // Rule 6: a NAK that acknowledges packets is progress; then
            // this go-back is one more retry, unless there is none left
            // (rxe COMPST_ERROR_RETRY: retry_cnt > 0 retries, 0 errors).
            // Rule 7: the go-back starts the timer again, backed off.
            let retries = if psn == self.una { self.retries } else { 0 };
            (Timer::Start, Some(self.go_back(psn, retries, retry_cnt, RetxCause::Nak)))
        } else {
            // Rule 5: RNR NAK (0x20-0x3F, rxe's timer), the other NAK codes
            // (0x61-0x7F, errors that complete the work request),
            // reserved types (0x40-0x5F, 0x80-0xFF): not yet.
            (Timer::Keep, None)
        }
    }
}

#[cfg(test)]
mod selective_tests;
#[cfg(test)]
mod tests;
