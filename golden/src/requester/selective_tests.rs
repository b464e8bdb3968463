//! Rule 8 (`SPEC.md` §6.11): the requester in MetaRoCE mode, on selective
//! ACKs (`super`: golden/src/requester.rs).

use super::*;
use crate::cc_params::CcParams;
use crate::responder::AETH_ACK;

const QP: u32 = 3;

fn regs() -> CcRegisters {
    let mut regs = CcParams::default().registers().unwrap();
    regs.ack_mode = AckMode::Metaroce as u8;
    regs.retx_timeout = 0;
    regs
}

fn sent(psn: u32) -> CnEvent {
    let mut ev = CnEvent::new(1, CnEventKind::TxData, QP);
    ev.psn = psn;
    ev.rc_req = true;
    ev
}

/// A selective ACK of `psn` with `bitmap` (bit i: psn + 2 + i received).
fn sack(psn: u32, bitmap: u64, beyond: bool) -> CnEvent {
    let mut ev = CnEvent::new(9, CnEventKind::RxData, QP);
    ev.psn = psn;
    ev.syndrome = Some(AETH_ACK);
    ev.sack = Some(SackRepr { bitmap, beyond });
    ev
}

fn requester_with(psns: std::ops::Range<u32>) -> Requester {
    let mut r = Requester::new(8);
    let mut out = Vec::new();
    for psn in psns {
        r.handle(&sent(psn & PSN_MASK), &regs(), &mut out);
    }
    assert!(out.is_empty());
    r
}

fn run(r: &mut Requester, ev: &CnEvent, regs: &CcRegisters) -> Vec<(u32, u32, RetxCause, u64)> {
    let mut out = Vec::new();
    r.handle(ev, regs, &mut out);
    out.iter().map(|q| (q.psn, q.count, q.cause, q.mask)).collect()
}

const SEL: RetxCause = RetxCause::Selective;

#[test]
fn holes_below_the_highest_received_are_asked_for_once() {
    let mut r = requester_with(100..120);
    // 100..=104 in order; 105 and 107 missing, 106, 108, 109 received.
    let bitmap = 0b1101; // 106, 108, 109
    assert_eq!(run(&mut r, &sack(104, bitmap, false), &regs()), [(105, 4, SEL, 0b0101)]);
    let e = r.entries[QP as usize];
    assert_eq!((e.una, e.rtx, e.retries), (105, 109, 0));
    // The same news again (a coalesced ACK): nothing new to ask for.
    assert_eq!(run(&mut r, &sack(104, bitmap, false), &regs()), []);
    // 112 received too: only 110 and 111 are new holes (109 was received).
    assert_eq!(run(&mut r, &sack(104, bitmap | 1 << 6, false), &regs()), [(105, 7, SEL, 0b0110_0000)]);
    assert_eq!(r.entries[QP as usize].rtx, 112);
}

#[test]
fn a_hole_at_una_is_news_without_progress() {
    let mut r = requester_with(0..10);
    let mut out = Vec::new();
    r.handle(&sack(4, 0, false), &regs(), &mut out);
    assert_eq!(r.entries[QP as usize].una, 5);
    // 5 lost: the next selective ACK still says 4, with 6 received.
    assert_eq!(run(&mut r, &sack(4, 1, false), &regs()), [(5, 1, SEL, 1)]);
    // A plain ACK behind una is still stale (rule 3).
    let mut plain = sack(4, 0, false);
    plain.sack = None;
    assert_eq!(run(&mut r, &plain, &regs()), []);
    // The resend arrived: progress past rtx, no more holes.
    assert_eq!(run(&mut r, &sack(6, 0, false), &regs()), []);
    assert_eq!(r.entries[QP as usize].una, 7);
}

#[test]
fn beyond_asks_for_everything_past_the_bitmap() {
    let mut r = requester_with(0..200);
    // 0 in order, 1 missing, 2..=65 received (the full bitmap), the rest
    // dropped past the window: 1 and 66..199 (65 is sent again too: past
    // the mask, the request names every PSN).
    let asked = run(&mut r, &sack(0, u64::MAX, true), &regs());
    assert_eq!(asked, [(1, 199, SEL, 1)]);
    let request = RetxRequest { time: 0, qp: QP, psn: 1, count: 199, cause: SEL, mask: 1 };
    assert_eq!(request.psns().collect::<Vec<_>>(), [1].into_iter().chain(65..200).collect::<Vec<_>>());
    // Asked for up to nxt: the same news asks for nothing.
    assert_eq!(run(&mut r, &sack(0, u64::MAX, true), &regs()), []);
    // Sent on past 200, a drop beyond again: a range from rtx.
    let mut out = Vec::new();
    for psn in 200..210 {
        r.handle(&sent(psn), &regs(), &mut out);
    }
    assert_eq!(run(&mut r, &sack(0, u64::MAX, true), &regs()), [(200, 10, SEL, u64::MAX)]);
    // 1 arrived: una moves on, nothing new.
    assert_eq!(run(&mut r, &sack(65, 0, true), &regs()), []);
    assert_eq!(r.entries[QP as usize].una, 66);
}

#[test]
fn a_bitmap_past_nxt_is_cut_at_nxt() {
    let mut r = requester_with(0..4);
    // Bits for PSNs never sent (a broken peer): the span stops at nxt.
    assert_eq!(run(&mut r, &sack(0, 0b1_0000_0001, false), &regs()), [(1, 3, SEL, 0b101)]);
    assert_eq!(r.entries[QP as usize].rtx, 4);
}

#[test]
fn psns_wrap_at_24_bits() {
    let top = PSN_MASK - 2;
    let mut r = requester_with(top..top + 8);
    // top + 3 (PSN 0) received: top + 1 and top + 2 missing.
    assert_eq!(run(&mut r, &sack(top, 0b10, false), &regs()), [((top + 1) & PSN_MASK, 2, SEL, 0b11)]);
    assert_eq!(r.entries[QP as usize].rtx, 0);
}

#[test]
fn a_hole_among_a_go_backs_resends_is_asked_for_again() {
    let mut r = requester_with(0..10);
    let mut nak = sack(3, 0, false);
    (nak.sack, nak.syndrome) = (None, Some(AETH_NAK_PSN_SEQ));
    assert_eq!(run(&mut r, &nak, &regs()), [(3, 7, RetxCause::Nak, u64::MAX)]);
    assert_eq!(r.entries[QP as usize].rtx, 3);
    // 3 arrived again, 4 and 5 did not, 6 did: both are asked for.
    assert_eq!(run(&mut r, &sack(3, 0b10, false), &regs()), [(4, 2, SEL, 0b11)]);
}

#[test]
fn rocev2_mode_reads_a_selective_ack_as_an_ack() {
    let mut r = Requester::new(8);
    let rocev2 = CcRegisters { ack_mode: AckMode::Rocev2 as u8, ..regs() };
    let mut out = Vec::new();
    for psn in 0..10 {
        r.handle(&sent(psn), &rocev2, &mut out);
    }
    assert_eq!(run(&mut r, &sack(4, 0b1, false), &rocev2), []);
    assert_eq!(r.entries[QP as usize].una, 5);
}

#[test]
fn psns_compare_by_the_sign_of_their_difference() {
    // 2^24 - 255 in flight (rule 1 takes jumps below 2^23): the bitmap's
    // end, 2, is then 0x101 past nxt by the sign of the difference, so the
    // span runs to nxt, as the RTL reads it.
    let mut r = Requester::new(8);
    let mut out = Vec::new();
    for psn in [0, 0x7F_FFFE, 0xFF_FF00] {
        r.handle(&sent(psn), &regs(), &mut out);
    }
    assert_eq!(r.entries[QP as usize].nxt, 0xFF_FF01);
    assert_eq!(run(&mut r, &sack(0, 1, false), &regs()), [(1, 0xFF_FF00, SEL, !0b10)]);
    assert_eq!(r.entries[QP as usize].rtx, 0xFF_FF01);
}

#[test]
fn mask_names_psns_mod_2_pow_24() {
    let request = RetxRequest { time: 0, qp: 0, psn: PSN_MASK, count: 3, cause: SEL, mask: 0b110 };
    assert_eq!(request.psns().collect::<Vec<_>>(), [0, 1]);
    let go_back = RetxRequest { mask: u64::MAX, ..request };
    assert_eq!(go_back.psns().count(), 3);
}

#[test]
fn a_packet_sent_after_a_lost_resend_finds_it_lost() {
    // Rule 9: 100..110 sent, 103 lost, the ACK of 102 shows 104 and 105.
    let mut r = requester_with(100..110);
    assert_eq!(run(&mut r, &sack(102, 0b11, false), &regs()), [(103, 2, SEL, 1)]);
    // The resend of 103 leaves when nxt is 110, then 110 and 111.
    run(&mut r, &sent(103), &regs());
    let e = r.entries[QP as usize];
    assert_eq!((e.marked, e.mark, e.rtx), (true, 110, 105));
    run(&mut r, &sent(110), &regs());
    run(&mut r, &sent(111), &regs());
    // 104..=109 came: no news of 110 yet, the resend may still arrive.
    assert_eq!(run(&mut r, &sack(102, 0x3F, false), &regs()), []);
    assert!(r.entries[QP as usize].marked);
    // 110 came, sent after the resend, and 103 is still missing: the
    // resend was lost, asked for again from una, once.
    assert_eq!(run(&mut r, &sack(102, 0x7F, false), &regs()), [(103, 7, SEL, 1)]);
    let e = r.entries[QP as usize];
    assert_eq!((e.marked, e.rtx), (false, 110));
    assert_eq!(run(&mut r, &sack(102, 0x7F, false), &regs()), []);
    // A go-back clears the mark too; a resend behind una marks nothing.
    run(&mut r, &sent(103), &regs());
    assert!(r.entries[QP as usize].marked);
    let mut nak = sack(102, 0, false);
    nak.sack = None;
    nak.syndrome = Some(AETH_NAK_PSN_SEQ);
    nak.psn = 103;
    run(&mut r, &nak, &regs());
    assert!(!r.entries[QP as usize].marked);
    run(&mut r, &sent(100), &regs());
    assert!(!r.entries[QP as usize].marked);
}

#[test]
fn acks_bring_rtx_up_to_una() {
    // Rules 3 and 8: rtx follows una, so that 2^23 loss-free PSNs later a
    // hole is still asked for (rtx read by its sign would be ahead).
    let mut r = requester_with(0..1);
    let mut plain = sack(0, 0, false);
    plain.sack = None;
    for top in [0x40_0000, 0x80_0000, 0xBF_FFFF] {
        run(&mut r, &sent(top), &regs());
        plain.psn = top - 1;
        assert_eq!(run(&mut r, &plain, &regs()), []);
        assert_eq!(r.entries[QP as usize].rtx, top);
    }
    run(&mut r, &sent(0xC0_0005), &regs());
    // 0xBFFFFF lost, 0xC00000 received.
    assert_eq!(run(&mut r, &sack(0xBF_FFFE, 1, false), &regs()), [(0xBF_FFFF, 1, SEL, 1)]);
}

#[test]
fn a_request_from_una_clears_an_old_mark() {
    // A resend of 100 marks (mark 110); an ACK of 104 brings rtx up to una
    // (105) without a request. 105 lost: the request from una is rule 8's
    // first from there, and the old mark no longer speaks for it.
    let mut r = requester_with(100..110);
    run(&mut r, &sent(100), &regs());
    let mut plain = sack(104, 0, false);
    plain.sack = None;
    run(&mut r, &plain, &regs());
    let e = r.entries[QP as usize];
    assert_eq!((e.una, e.rtx, e.marked), (105, 105, true));
    assert_eq!(run(&mut r, &sack(104, 0b1, false), &regs()), [(105, 1, SEL, 1)]);
    assert!(!r.entries[QP as usize].marked);
    // 110 shown received later, past the old mark: 105's resend has not
    // left, so nothing is asked for again.
    run(&mut r, &sent(110), &regs());
    assert_eq!(run(&mut r, &sack(104, 0x3F, false), &regs()), []);
}
