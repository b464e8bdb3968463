//! The DCQCN and MetaRoCE rules of `SPEC.md` §6.3 and §6.4 that the outside
//! audit (issue 16, finding 6 and 7) found wrong, one test each: every one
//! of these failed before its fix.

use metaroce_golden::cc_params::{CcMode, CcParams, CcRegisters};
use metaroce_golden::cn_event::{CnEvent, CnEventKind};
use metaroce_golden::notify::{ce_extent, NotificationPoint};
use metaroce_golden::reaction::{RateChange, RateStage, RateTrigger, ReactionPoint, RpEntry};

fn cnp(time: u64, extent: Option<u16>) -> CnEvent {
    let mut ev = CnEvent::new(time, CnEventKind::RxCnp, 0);
    ev.extent = extent;
    ev
}

/// A transmit event too small for the byte counter: it only makes the QP
/// work off its timer expiries.
fn poke(time: u64) -> CnEvent {
    let mut ev = CnEvent::new(time, CnEventKind::TxData, 0);
    ev.len = 64;
    ev
}

fn run(params: CcParams, events: &[CnEvent]) -> (CcRegisters, RpEntry, Vec<RateChange>) {
    let regs = params.registers().unwrap();
    let mut rp = ReactionPoint::new(1, &regs);
    let mut out = Vec::new();
    for ev in events {
        rp.handle(ev, &regs, &mut out);
    }
    (regs, rp.entries[0], out)
}

/// The stages of the rate changes `trigger` made: F steps of fast
/// recovery, then additive increase.
fn assert_f_steps_then_additive(out: &[RateChange], trigger: RateTrigger, f: usize) {
    let stages: Vec<RateStage> = out.iter().filter(|c| c.trigger == trigger).map(|c| c.stage).collect();
    let mut expected = vec![RateStage::FastRecovery; f];
    expected.push(RateStage::AdditiveIncrease);
    assert_eq!(stages, expected, "{out:#?}");
}

#[test]
fn fast_recovery_takes_f_timer_steps() {
    let params = CcParams::default();
    let regs = params.registers().unwrap();
    let f = usize::from(regs.threshold);
    let t = u64::from(regs.time_reset_ns);
    // A poke after each expiry: a catch-up emits one rate change, its last step's.
    let mut events = vec![cnp(0, None)];
    events.extend((1..=f as u64 + 1).map(|i| poke(i * t)));
    let (_, _, out) = run(params, &events);
    assert_f_steps_then_additive(&out, RateTrigger::Timer, f);
}

#[test]
fn fast_recovery_takes_f_byte_counter_steps() {
    let params = CcParams { rp_byte_reset: 4096, ..CcParams::default() };
    let regs = params.registers().unwrap();
    let f = usize::from(regs.threshold);
    let mut events = vec![cnp(0, None)];
    events.extend((1..=f as u64 + 1).map(|i| CnEvent { len: 4096, ..poke(i) }));
    let (_, _, out) = run(params, &events);
    assert_f_steps_then_additive(&out, RateTrigger::ByteCounter, f);
}

#[test]
fn the_first_cnp_sets_both_rates() {
    let params = CcParams { rp_rate_to_set_on_first_cnp: 20_000, ..CcParams::default() };
    let (_, entry, out) = run(params, &[cnp(0, None)]);
    assert_eq!((entry.rate, entry.target), (20_000_000, 20_000_000));
    assert_eq!((out[0].rate_kbps, out[0].target_kbps), (20_000_000, 20_000_000));
}

#[test]
fn a_cnp_inside_the_decrease_period_counts_for_alpha_but_does_not_cut() {
    // alpha below 1.0, so a CNP can raise it.
    let params = CcParams { rp_rate_reduce_monitor_period: 4, rp_initial_alpha_value: 300, ..CcParams::default() };
    let (regs, first, _) = run(params, &[cnp(0, None)]);
    let (_, held, out) = run(params, &[cnp(0, None), cnp(1_000, None)]);
    assert_eq!(out.len(), 1, "one cut per period: {out:#?}");
    assert_eq!((held.rate, held.target), (first.rate, first.target));
    assert!(held.alpha > first.alpha, "alpha {} after the held CNP, {} before", held.alpha, first.alpha);
    assert_eq!(held.alpha_due, 1_000 + u64::from(regs.alpha_period_ns));
    // Past the period, the next CNP cuts.
    let (_, _, out) = run(params, &[cnp(0, None), cnp(1_000, None), cnp(4_000, None)]);
    assert_eq!(out.len(), 2, "{out:#?}");
}

#[test]
fn a_metaroce_cnp_of_extent_0_changes_nothing() {
    let params = CcParams { mode: CcMode::Metaroce, ..CcParams::default() };
    let (regs, entry, out) = run(params, &[cnp(0, Some(0))]);
    assert!(out.is_empty(), "{out:#?}");
    assert_eq!(entry, RpEntry::initial(&regs));
    // After a cut, it neither clamps nor restarts the stages.
    let (_, cut, _) = run(params, &[cnp(0, Some(8192)), poke(200_000)]);
    let (_, after, out) = run(params, &[cnp(0, Some(8192)), poke(200_000), cnp(200_001, Some(0))]);
    assert_eq!(after, cut);
    assert!(out.iter().filter(|c| c.trigger == RateTrigger::Cnp).count() == 1, "{out:#?}");
}

#[test]
fn one_mark_in_many_packets_is_extent_1_not_0() {
    assert_eq!(ce_extent(1, 40_000), 1);
    assert_eq!(ce_extent(0, 40_000), 0);
    assert_eq!(ce_extent(1, 2), 16_384);
}

#[test]
fn the_marked_packet_counts_after_the_packet_count_is_full() {
    let mut regs = CcParams::default().registers().unwrap();
    regs.metaroce = true;
    let mut np = NotificationPoint::new(1);
    np.set_remote(0, 9);
    let mut data = CnEvent::new(0, CnEventKind::RxData, 0);
    data.ce = true;
    let first = np.receive(&data, &regs).unwrap();
    assert_eq!(first.extent, Some(32_768));
    // 65,535 unmarked packets within the CNP interval fill the packet count.
    data.ce = false;
    for i in 0..65_535 {
        data.time = 1 + i / 100;
        assert!(np.receive(&data, &regs).is_none());
    }
    assert_eq!((np.entries[0].pkts, np.entries[0].ce_pkts), (u16::MAX, 0));
    data.ce = true;
    data.time = 1_000_000;
    let second = np.receive(&data, &regs).unwrap();
    // One mark in a full count: 1 * 2^15 / 65535 rounds to 0, the floor makes it 1.
    assert_eq!(second.extent, Some(1));
}
