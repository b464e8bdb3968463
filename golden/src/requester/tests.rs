//! The golden requester's unit tests (`super`: golden/src/requester.rs).

use super::*;
use crate::cc_params::CcParams;
use crate::responder::AETH_ACK;

const QP: u32 = 7;
/// RNR NAK, timer field 1 (0.01 ms).
const RNR_NAK: u8 = 0x21;

/// The window rules alone: no timer (these tests' ticks go back).
fn regs() -> CcRegisters {
    let mut regs = CcParams::default().registers().unwrap();
    regs.ack_mode = AckMode::Rocev2 as u8;
    regs.retx_timeout = 0;
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

/// One event's request, if any (these tests make at most one).
fn one(r: &mut Requester, ev: &CnEvent, regs: &CcRegisters) -> Option<RetxRequest> {
    let mut out = Vec::new();
    r.handle(ev, regs, &mut out);
    assert!(out.len() <= 1, "{out:?}");
    out.pop()
}

fn send_all(r: &mut Requester, psns: impl IntoIterator<Item = u32>) {
    for psn in psns {
        assert_eq!(one(r, &sent(psn), &regs()), None);
    }
}

fn entry(r: &Requester) -> (bool, u32, u32) {
    let e = r.entries[QP as usize];
    (e.valid, e.una, e.nxt)
}

fn retx(psn: u32, count: u32) -> Option<RetxRequest> {
    Some(RetxRequest { time: 5, qp: QP, psn, count, cause: RetxCause::Nak, mask: u64::MAX })
}

fn exhausted(psn: u32, count: u32) -> Option<RetxRequest> {
    Some(RetxRequest { time: 5, qp: QP, psn, count, cause: RetxCause::RetryExhausted, mask: u64::MAX })
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
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &two), retx(13, 7));
    // The same PSN again: no progress, retry 2.
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &two), retx(13, 7));
    assert_eq!(r.entries[QP as usize].retries, 2);
    // None left: retry exhausted, the QP in error.
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &two), exhausted(13, 7));
    assert!(r.entries[QP as usize].error);
    // An error QP takes nothing more: requests, ACKs, NAKs.
    let before = r.entries[QP as usize];
    for ev in [sent(20), answer(15, AETH_ACK), answer(14, AETH_NAK_PSN_SEQ)] {
        assert_eq!(one(&mut r, &ev, &two), None, "{ev:?}");
    }
    assert_eq!(r.entries[QP as usize], before);
}

#[test]
fn progress_restarts_the_retries() {
    let one_retry = with_retry_cnt(1);
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    assert_eq!(one(&mut r, &answer(10, AETH_NAK_PSN_SEQ), &one_retry), retx(10, 10));
    // An ACK moves una on: the retries start again.
    assert_eq!(one(&mut r, &answer(11, AETH_ACK), &one_retry), None);
    assert_eq!(r.entries[QP as usize].retries, 0);
    assert_eq!(one(&mut r, &answer(12, AETH_NAK_PSN_SEQ), &one_retry), retx(12, 8));
    // A NAK that acknowledges packets (13 > 12) is progress too.
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &one_retry), retx(13, 7));
    // ... and one that does not, with the one retry used: exhausted.
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &one_retry), exhausted(13, 7));
    // A stale ACK is no progress and does not revive the QP.
    assert_eq!(one(&mut r, &answer(12, AETH_ACK), &one_retry), None);
    assert!(r.entries[QP as usize].error);
}

#[test]
fn retry_cnt_zero_errs_on_the_first_nak() {
    let zero = with_retry_cnt(0);
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    assert_eq!(one(&mut r, &answer(15, AETH_NAK_PSN_SEQ), &zero), exhausted(15, 5));
    assert_eq!(entry(&r), (true, 15, 20));
    // Another QP is not touched.
    assert!(!r.entries[QP as usize + 1].error);
}

#[test]
fn cause_codes_round_trip() {
    for cause in RetxCause::ALL {
        assert_eq!(RetxCause::from_code(cause as u8), Some(cause));
    }
    assert_eq!(RetxCause::from_code(4), None);
}

#[test]
fn in_order_acks_advance_una() {
    let mut r = Requester::new(1024);
    send_all(&mut r, 100..110);
    assert_eq!(entry(&r), (true, 100, 110));
    assert_eq!(one(&mut r, &answer(103, AETH_ACK), &regs()), None);
    assert_eq!(entry(&r), (true, 104, 110));
    // Any ACK syndrome (type 000, any credit count) is an ACK.
    assert_eq!(one(&mut r, &answer(109, 0x00), &regs()), None);
    assert_eq!(entry(&r), (true, 110, 110));
    // The window is empty: an ACK of the same PSN answers nothing.
    assert_eq!(one(&mut r, &answer(109, AETH_ACK), &regs()), None);
    assert_eq!(entry(&r), (true, 110, 110));
}

#[test]
fn nak_goes_back_to_its_psn_with_the_count_in_flight() {
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &regs()), retx(13, 7));
    assert_eq!(entry(&r), (true, 13, 20));
    // A NAK at una itself goes back too.
    assert_eq!(one(&mut r, &answer(13, AETH_NAK_PSN_SEQ), &regs()), retx(13, 7));
    // The newest packet NAKed: one to send again.
    assert_eq!(one(&mut r, &answer(19, AETH_NAK_PSN_SEQ), &regs()), retx(19, 1));
    assert_eq!(entry(&r), (true, 19, 20));
}

#[test]
fn nak_outside_the_window_is_ignored() {
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    assert_eq!(one(&mut r, &answer(14, AETH_ACK), &regs()), None);
    // Behind una (already acknowledged), at nxt, beyond nxt.
    for psn in [9, 14, 20, 21, 10 + PSN_HALF] {
        assert_eq!(one(&mut r, &answer(psn, AETH_NAK_PSN_SEQ), &regs()), None, "psn {psn}");
    }
    assert_eq!(entry(&r), (true, 15, 20));
    // Nothing sent yet: nothing to go back to.
    let mut fresh = Requester::new(1024);
    assert_eq!(one(&mut fresh, &answer(0, AETH_NAK_PSN_SEQ), &regs()), None);
    assert_eq!(entry(&fresh), (false, 0, 0));
}

#[test]
fn stale_ack_is_ignored() {
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    assert_eq!(one(&mut r, &answer(15, AETH_ACK), &regs()), None);
    // An older ACK (the responder's duplicate re-ACK of epsn - 1 included)
    // or one beyond what was sent moves nothing back or forward.
    for psn in [15, 14, 10, 9, 20, 25] {
        assert_eq!(one(&mut r, &answer(psn, AETH_ACK), &regs()), None, "psn {psn}");
        assert_eq!(entry(&r), (true, 16, 20), "psn {psn}");
    }
}

#[test]
fn retransmitted_tx_data_does_not_move_nxt() {
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    assert_eq!(one(&mut r, &answer(12, AETH_NAK_PSN_SEQ), &regs()), retx(12, 8));
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
    assert_eq!(one(&mut r, &answer(PSN_MASK - 1, AETH_NAK_PSN_SEQ), &regs()), retx(PSN_MASK - 1, 4));
    assert_eq!(one(&mut r, &answer(PSN_MASK, AETH_ACK), &regs()), None);
    assert_eq!(entry(&r), (true, 0, 2));
    assert_eq!(one(&mut r, &answer(0, AETH_NAK_PSN_SEQ), &regs()), retx(0, 2));
    // Bits above the 24 are not the PSN's.
    assert_eq!(one(&mut r, &answer(0x100_0000, AETH_ACK), &regs()), None);
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
    assert_eq!(one(&mut r, &sent(10), &off), None);
    assert_eq!(entry(&r), (false, 0, 0));
    send_all(&mut r, 10..20);
    for ev in [sent(20), answer(12, AETH_NAK_PSN_SEQ), answer(12, AETH_ACK)] {
        assert_eq!(one(&mut r, &ev, &off), None);
    }
    assert_eq!(entry(&r), (true, 10, 20));
}

#[test]
fn qp_beyond_the_table_is_ignored() {
    let mut r = Requester::new(8);
    let before = r.entries.clone();
    for mut ev in [sent(10), answer(10, AETH_NAK_PSN_SEQ)] {
        ev.qp = 8;
        assert_eq!(one(&mut r, &ev, &regs()), None);
    }
    assert_eq!(r.entries, before);
}

#[test]
fn other_syndromes_and_events_are_ignored() {
    let mut r = Requester::new(1024);
    send_all(&mut r, 10..20);
    // RNR NAK, the other NAK codes, the reserved types.
    for syndrome in [RNR_NAK, 0x3F, 0x40, 0x5F, 0x61, 0x63, 0x7F, 0x80, 0xE0, 0xFF] {
        assert_eq!(one(&mut r, &answer(12, syndrome), &regs()), None, "syndrome {syndrome:#04x}");
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
        assert_eq!(one(&mut r, &ev, &regs()), None, "{ev:?}");
    }
    assert_eq!(entry(&r), (true, 10, 20));
}

/// retx_timeout 2: 4 units (16,384 ticks), doubling per retry.
fn timed(retry_cnt: u8) -> CcRegisters {
    CcRegisters { retx_timeout: 2, retry_cnt, ..regs() }
}

/// An event of a unit (2^12 ticks) that is no input of QP 7: a tick.
fn tick(unit: u64) -> CnEvent {
    CnEvent::new(unit << TIMER_UNIT_SHIFT, CnEventKind::RxCnp, QP)
}

fn at(unit: u64, mut ev: CnEvent) -> CnEvent {
    ev.time = unit << TIMER_UNIT_SHIFT;
    ev
}

fn all(r: &mut Requester, ev: &CnEvent, regs: &CcRegisters) -> Vec<(u64, u32, u32, u32, RetxCause)> {
    let mut out = Vec::new();
    r.handle(ev, regs, &mut out);
    out.iter().map(|q| (q.time >> TIMER_UNIT_SHIFT, q.qp, q.psn, q.count, q.cause)).collect()
}

#[test]
fn the_timer_goes_back_from_una_and_backs_off() {
    let regs = timed(2);
    let mut r = Requester::new(16);
    for psn in 10..14 {
        assert!(all(&mut r, &at(1, sent(psn)), &regs).is_empty());
    }
    // Started by the first request at unit 1: due at 5, not before.
    assert_eq!((r.entries[QP as usize].armed, r.dues[QP as usize], r.quiet_until), (true, 5, 5));
    assert!(all(&mut r, &tick(4), &regs).is_empty());
    // An ACK of 10 at 3 starts it again: due at 7.
    assert!(all(&mut r, &at(3, answer(10, AETH_ACK)), &regs).is_empty());
    assert!(all(&mut r, &tick(6), &regs).is_empty());
    assert_eq!(all(&mut r, &tick(7), &regs), [(7, QP, 11, 3, RetxCause::Timeout)]);
    // Retry 1: 2^(2+1) units.
    assert_eq!((r.dues[QP as usize], r.quiet_until), (15, 15));
    assert!(all(&mut r, &tick(14), &regs).is_empty());
    assert_eq!(all(&mut r, &tick(100), &regs), [(100, QP, 11, 3, RetxCause::Timeout)]);
    assert_eq!(r.dues[QP as usize], 116);
    // The third finds both retries used: exhausted, no timer.
    assert_eq!(all(&mut r, &tick(116), &regs), [(116, QP, 11, 3, RetxCause::RetryExhausted)]);
    let e = r.entries[QP as usize];
    assert!(e.error && !e.armed);
    assert_eq!(r.quiet_until, QUIET_NONE);
    assert!(all(&mut r, &tick(1_000), &regs).is_empty());
}

#[test]
fn the_timer_stops_with_nothing_in_flight_and_restarts_on_the_next_request() {
    let regs = timed(7);
    let mut r = Requester::new(16);
    send_all_at(&mut r, 0, 10..12, &regs);
    assert!(all(&mut r, &at(2, answer(11, AETH_ACK)), &regs).is_empty());
    assert!(!r.entries[QP as usize].armed);
    // Nothing runs: the bound stays where the ACK put it, and the scan
    // at 6 finds nothing and clears it.
    assert!(all(&mut r, &tick(6), &regs).is_empty());
    assert_eq!(r.quiet_until, QUIET_NONE);
    send_all_at(&mut r, 50, [12], &regs);
    assert_eq!(r.dues[QP as usize], 54);
    // A second request does not move a running timer.
    send_all_at(&mut r, 52, [13], &regs);
    assert_eq!(r.dues[QP as usize], 54);
    // A NAK goes back and backs off: retry 1, due 2^3 later.
    assert_eq!(all(&mut r, &at(53, answer(13, AETH_NAK_PSN_SEQ)), &regs), [(53, QP, 13, 1, RetxCause::Nak)]);
    assert_eq!(r.dues[QP as usize], 61);
    assert_eq!(all(&mut r, &tick(61), &regs), [(61, QP, 13, 1, RetxCause::Timeout)]);
}

#[test]
fn one_scan_fires_every_qp_due_in_qp_order_before_the_event() {
    let regs = timed(7);
    let mut r = Requester::new(16);
    for (qp, unit) in [(9, 1), (3, 2), (5, 4)] {
        let mut ev = at(unit, sent(100));
        ev.qp = qp;
        assert!(all(&mut r, &ev, &regs).is_empty());
    }
    // At 6 QPs 9 and 3 are due (5 and 6), 5 is not (8); then the
    // event's own NAK of QP 3, which finds its retry 1 counted.
    let mut nak = at(6, answer(100, AETH_NAK_PSN_SEQ));
    nak.qp = 3;
    assert_eq!(
        all(&mut r, &nak, &regs),
        [(6, 3, 100, 1, RetxCause::Timeout), (6, 9, 100, 1, RetxCause::Timeout), (6, 3, 100, 1, RetxCause::Nak)]
    );
    assert_eq!(r.entries[3].retries, 2);
    // The nearest due left: QP 5's (8), before QP 9's (6 + 8) and QP
    // 3's (6 + 16).
    assert_eq!((r.dues[5], r.dues[9], r.dues[3], r.quiet_until), (8, 14, 22, 8));
    // No timer, no scan: a QP in flight never times out.
    let mut off = Requester::new(16);
    let untimed = CcRegisters { retx_timeout: 0, ..regs };
    send_all_at(&mut off, 0, [1], &untimed);
    assert!(all(&mut off, &tick(1 << 40), &untimed).is_empty());
    assert_eq!(off.quiet_until, QUIET_NONE);
}

#[test]
fn dues_compare_mod_2_pow_32() {
    let regs = timed(7);
    let mut r = Requester::new(16);
    // Started 2 units before the 32-bit unit wraps: due at 2 of the
    // next round.
    let base = (1u64 << 32) - 2;
    send_all_at(&mut r, base, [1], &regs);
    assert_eq!(r.dues[QP as usize], 2);
    assert!(all(&mut r, &tick(base + 3), &regs).is_empty());
    assert_eq!(all(&mut r, &tick(base + 4), &regs), [(base + 4, QP, 1, 1, RetxCause::Timeout)]);
}

fn send_all_at(r: &mut Requester, unit: u64, psns: impl IntoIterator<Item = u32>, regs: &CcRegisters) {
    for psn in psns {
        assert!(all(r, &at(unit, sent(psn)), regs).is_empty());
    }
}
