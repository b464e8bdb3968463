//! The reaction point's closed-form catch-up (`SPEC.md` §6.4 step 1, issue
//! 15): timer increases worked off in runs leave exactly the rates that the
//! same increases one at a time leave (an oracle written here from the
//! SPEC's rule), alpha decays in chunks stay within the single decays'
//! bound, and a catch-up costs chunks in log2 of its expiries.

use metaroce_golden::cc_params::{CcParams, CcRegisters};
use metaroce_golden::cn_event::{CnEvent, CnEventKind};
use metaroce_golden::reaction::{
    alpha_decay, alpha_decay_chunk, alpha_keep_table, catch_up_chunks, RateTrigger, ReactionPoint, RpEntry,
    ALPHA_KEEP_STEPS,
};

fn event(time: u64, kind: CnEventKind, len: u32) -> CnEvent {
    let mut ev = CnEvent::new(time, kind, 0);
    ev.len = len;
    ev
}

/// A CNP at 0 and `byte_steps` byte-counter steps (the word before the
/// idle time), then `expiries` timer expiries worked off by one received
/// packet after the last: both words and the timer rate changes.
fn run(params: CcParams, byte_steps: u64, expiries: u64) -> (RpEntry, RpEntry, usize) {
    let regs = params.registers().unwrap();
    let mut events = vec![event(0, CnEventKind::RxCnp, 0)];
    events.extend((1..=byte_steps).map(|i| event(i, CnEventKind::TxData, regs.byte_reset)));
    let mut rp = ReactionPoint::new(1, &regs);
    let mut out = Vec::new();
    for ev in &events {
        rp.handle(ev, &regs, &mut out);
    }
    let before = rp.entries[0];
    let last = before.increase_due + (expiries - 1) * u64::from(regs.time_reset_ns);
    rp.handle(&event(last, CnEventKind::RxData, 0), &regs, &mut out);
    (before, rp.entries[0], out.iter().filter(|c| c.trigger == RateTrigger::Timer).count())
}

/// `count` timer increases one at a time, as SPEC.md §6.4 states the rule
/// (kind from the stage counts before the step, Rt up to line rate, Rc to
/// (Rt + Rc) / 2 rounded up): {Rc, Rt, timer stage}.
fn single_increases(e: &RpEntry, r: &CcRegisters, count: u64) -> (u32, u32, u8) {
    let (mut rate, mut target, mut stage) = (u64::from(e.rate), u64::from(e.target), e.timer_stage);
    let (line, f) = (u64::from(r.line_rate_kbps), r.threshold);
    for _ in 0..count {
        let (high, low) = (stage.max(e.byte_stage), stage.min(e.byte_stage));
        if high < f {
        } else if low > f {
            target = (target + u64::from(low - f) * u64::from(r.hai_kbps)).min(line);
        } else {
            target = (target + u64::from(r.ai_kbps)).min(line);
        }
        rate = (target + rate).div_ceil(2);
        stage = stage.saturating_add(1);
    }
    (rate as u32, target as u32, stage)
}

#[test]
fn increases_in_runs_equal_increases_one_at_a_time() {
    let mut cases = 0;
    for (threshold, hai, ai) in [(5, 50, 5), (0, 50, 5), (1, 7, 0), (30, 1, 3), (255, 50, 5)] {
        for line in [100_000, 400_000] {
            let params = CcParams {
                line_rate_mbps: line,
                rp_threshold: threshold,
                rp_hai_rate: hai,
                rp_ai_rate: ai,
                rp_byte_reset: 1_000_000,
                ..CcParams::default()
            };
            for byte_steps in [0, 3, 40] {
                for expiries in [1, 2, 3, 7, 40, 300, 5_000, 90_000] {
                    let regs = params.registers().unwrap();
                    let (before, runs, changes) = run(params, byte_steps, expiries);
                    let (rate, target, stage) = single_increases(&before, &regs, expiries);
                    let what = format!(
                        "F {threshold}, HAI {hai}, AI {ai}, line {line}, {byte_steps} byte steps, {expiries} expiries"
                    );
                    assert_eq!((runs.rate, runs.target, runs.timer_stage), (rate, target, stage), "{what}");
                    let t = u64::from(regs.time_reset_ns);
                    assert_eq!(runs.increase_due, before.increase_due + expiries * t, "{what}");
                    assert!(changes <= 1, "{what}: {changes} timer rate changes from one catch-up");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 5 * 2 * 3 * 8);
}

#[test]
fn one_expiry_decays_alpha_as_a_single_decay() {
    for g in [0u16, 1, 4, 100, 1023] {
        let keep = alpha_keep_table(g);
        for alpha in [0u16, 1, 2, 255, 256, 1000, 12_345, 32_768] {
            assert_eq!(alpha_decay_chunk(alpha, keep[0]), alpha_decay(alpha, g), "g {g}, alpha {alpha}");
        }
        // The last entry is where the squares settle: 0, or 1.0 for g = 0.
        let last = keep[ALPHA_KEEP_STEPS - 1];
        assert_eq!(last, if g == 0 { 1 << 16 } else { 0 }, "g {g}: {keep:?}");
    }
}

/// Chunked decays against the exact (1 - g)^n, with the bound single decays
/// have (`SPEC.md` §6.4's rounding bound: each rounds by under 1 LSB, and
/// the decay shrinks older error by (1 - g), so under 1/g LSB): the table's
/// entries are squares rounded to nearest in Q16, and a chunk rounds alpha
/// once where single decays round it 2^j times.
#[test]
fn alpha_in_chunks_stays_within_the_single_decay_bound() {
    let (mut worst_chunked, mut worst_single) = (0f64, 0f64);
    for g in [1u16, 4, 16, 100, 1000] {
        let keep = alpha_keep_table(g);
        let bound = 1024.0 / f64::from(g);
        for start in [32_768u16, 20_000, 1_000] {
            for count in [2u64, 3, 5, 17, 100, 1_000, 5_000, 100_000] {
                let mut chunked = start;
                for j in catch_up_chunks(count.into()) {
                    chunked = alpha_decay_chunk(chunked, keep[(j as usize).min(ALPHA_KEEP_STEPS - 1)]);
                }
                let mut single = start;
                for _ in 0..count {
                    single = alpha_decay(single, g);
                }
                let exact = f64::from(start) * (1.0 - f64::from(g) / 1024.0).powf(count as f64);
                let (chunk_error, single_error) =
                    ((f64::from(chunked) - exact).abs(), (f64::from(single) - exact).abs());
                worst_chunked = worst_chunked.max(chunk_error * f64::from(g) / 1024.0);
                worst_single = worst_single.max(single_error * f64::from(g) / 1024.0);
                assert!(chunk_error < bound, "g {g}, alpha {start}, {count} decays: {chunked}, exact {exact:.1}");
            }
        }
    }
    println!("worst alpha error in units of 1/g LSB: chunks {worst_chunked:.3}, single decays {worst_single:.3}");
}

#[test]
fn a_catch_up_takes_chunks_in_log2_of_its_expiries() {
    for count in (1u128..2_000).chain([1 << 20, (1 << 40) + 12_345, 1 << 54]) {
        let chunks: Vec<u32> = catch_up_chunks(count).collect();
        assert_eq!(chunks.iter().map(|&j| 1u128 << j).sum::<u128>(), count);
        let log2 = 128 - count.leading_zeros();
        assert!(chunks.len() as u32 <= 2 * log2, "{count}: {chunks:?}");
    }
    assert_eq!(catch_up_chunks(1).collect::<Vec<_>>(), vec![0]);
    assert_eq!(catch_up_chunks(10).collect::<Vec<_>>(), vec![0, 1, 2, 1, 0]);
}
