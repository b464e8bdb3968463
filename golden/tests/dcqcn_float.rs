//! The fixed-point reaction point against a floating-point evaluation of the
//! same DCQCN / MetaRoCE formulas (`SPEC.md` §6.4), over scripted CNP and
//! transmit sequences that pass through every stage.
//!
//! Bound (SPEC.md §6.4): alpha within 1/g LSB of Q1.15 (each decay rounds by
//! under 1 LSB and the decay contracts past error by (1 - g), so the error
//! stays below 1/g LSB), and the rate within 0.5 % of the line rate (a cut
//! scales the alpha error by rate/2; each increase halves past error and
//! adds under 1 kb/s).

use std::collections::HashSet;

use metaroce_golden::cc_params::{CcMode, CcParams, CcRegisters, FRACTION_ONE};
use metaroce_golden::cn_event::{CnEvent, CnEventKind};
use metaroce_golden::reaction::{RateStage, ReactionPoint};

/// The same formulas in f64, with the timers and stages of the fixed model
/// (those are integers in both) but no rounding and no stop at convergence.
struct FloatQp {
    rate: f64,
    target: f64,
    alpha: f64,
    started: bool,
    cut_seen: bool,
    alpha_due: u64,
    increase_due: u64,
    bytes: u64,
    timer_stage: u32,
    byte_stage: u32,
}

impl FloatQp {
    fn new(r: &CcRegisters) -> Self {
        FloatQp {
            rate: r.line_rate_kbps as f64,
            target: r.line_rate_kbps as f64,
            alpha: r.initial_alpha as f64 / FRACTION_ONE as f64,
            started: false,
            cut_seen: false,
            alpha_due: 0,
            increase_due: 0,
            bytes: 0,
            timer_stage: 0,
            byte_stage: 0,
        }
    }

    fn g(r: &CcRegisters) -> f64 {
        r.g as f64 / 1024.0
    }

    fn increase(&mut self, r: &CcRegisters) {
        let (high, low) = (self.timer_stage.max(self.byte_stage), self.timer_stage.min(self.byte_stage));
        let line = r.line_rate_kbps as f64;
        if high < r.threshold as u32 {
        } else if low > r.threshold as u32 {
            self.target = (self.target + (low - r.threshold as u32) as f64 * r.hai_kbps as f64).min(line);
        } else {
            self.target = (self.target + r.ai_kbps as f64).min(line);
        }
        self.rate = (self.target + self.rate) / 2.0;
    }

    fn catch_up(&mut self, now: u64, r: &CcRegisters) {
        while self.started && self.alpha_due.min(self.increase_due) <= now {
            if self.alpha_due <= self.increase_due {
                self.alpha *= 1.0 - Self::g(r);
                self.alpha_due += r.alpha_period_ns as u64;
            } else {
                // The step's kind from the counts before it counts (F steps of fast recovery).
                self.increase(r);
                self.timer_stage = (self.timer_stage + 1).min(255);
                self.increase_due += r.time_reset_ns as u64;
            }
        }
    }

    fn event(&mut self, ev: &CnEvent, r: &CcRegisters) {
        // A MetaRoCE extent of 0 is no congestion signal.
        if ev.kind == CnEventKind::RxCnp && r.metaroce && ev.extent == Some(0) {
            return;
        }
        self.catch_up(ev.time, r);
        match ev.kind {
            CnEventKind::RxCnp => {
                let extent = ev.extent.filter(|_| r.metaroce).map(|x| x as f64 / FRACTION_ONE as f64);
                let alpha = (1.0 - Self::g(r)) * self.alpha + Self::g(r) * extent.unwrap_or(1.0);
                // At most one cut per decrease period; a CNP inside it counts for alpha only.
                // Until the first timer increase, increase_due - T is the last cut's tick.
                let period_end = self.increase_due + r.reduce_period_ns as u64;
                if self.cut_seen && self.timer_stage == 0 && ev.time + (r.time_reset_ns as u64) < period_end {
                    self.alpha = alpha;
                    self.alpha_due = ev.time + r.alpha_period_ns as u64;
                    return;
                }
                let first = !self.cut_seen && r.first_cnp_kbps != 0;
                let cut = self.rate * (1.0 - extent.unwrap_or(self.alpha) / 2.0);
                let rate = if first {
                    (r.first_cnp_kbps as f64).min(self.rate)
                } else {
                    cut.max(self.rate * r.min_dec_q15 as f64 / FRACTION_ONE as f64)
                };
                let rate = rate.max(r.min_rate_kbps as f64);
                if first {
                    self.target = rate;
                } else if r.clamp_tgt || self.timer_stage != 0 || self.byte_stage != 0 {
                    self.target = self.rate;
                }
                self.rate = rate;
                self.alpha = alpha;
                self.started = true;
                self.cut_seen = true;
                self.timer_stage = 0;
                self.byte_stage = 0;
                self.bytes = 0;
                self.alpha_due = ev.time + r.alpha_period_ns as u64;
                self.increase_due = ev.time + r.time_reset_ns as u64;
            }
            CnEventKind::TxData if self.started => {
                self.bytes += ev.len as u64;
                if self.bytes >= r.byte_reset as u64 {
                    self.bytes = 0;
                    self.increase(r);
                    self.byte_stage = (self.byte_stage + 1).min(255);
                }
            }
            _ => {}
        }
    }
}

/// A scripted sender: `cnps` at the given ticks (with an optional MetaRoCE
/// extent), and 4 KB frames at the QP's own current rate in between.
fn run(params: CcParams, cnps: &[(u64, Option<u16>)], end: u64) -> (f64, f64, HashSet<RateStage>) {
    let r = params.registers().unwrap();
    let mut rp = ReactionPoint::new(1, &r);
    let mut float = FloatQp::new(&r);
    let mut out = Vec::new();
    let (mut worst_rate, mut worst_alpha) = (0f64, 0f64);
    let mut next_cnp = 0;
    let mut now = 0u64;
    while now < end {
        let ev = if next_cnp < cnps.len() && cnps[next_cnp].0 <= now {
            let mut ev = CnEvent::new(cnps[next_cnp].0, CnEventKind::RxCnp, 0);
            ev.extent = cnps[next_cnp].1;
            next_cnp += 1;
            ev
        } else {
            let mut ev = CnEvent::new(now, CnEventKind::TxData, 0);
            ev.len = 4096;
            // 4096 bytes at the current rate (kb/s): 4096 * 8e6 / rate ns.
            now += 4096 * 8_000_000 / u64::from(rp.entries[0].rate.max(1));
            ev
        };
        rp.handle(&ev, &r, &mut out);
        float.event(&ev, &r);
        let e = rp.entries[0];
        worst_rate = worst_rate.max((e.rate as f64 - float.rate).abs() / r.line_rate_kbps as f64);
        worst_alpha = worst_alpha.max((e.alpha as f64 / FRACTION_ONE as f64 - float.alpha).abs());
        assert!(
            (e.rate as f64 - float.rate).abs() <= 0.005 * r.line_rate_kbps as f64,
            "{ev:?}: {e:?} vs {}",
            float.rate
        );
        assert!(
            (e.alpha as f64 / FRACTION_ONE as f64 - float.alpha).abs() <= 1024.0 / r.g as f64 / FRACTION_ONE as f64
        );
    }
    (worst_rate, worst_alpha, out.iter().map(|c| c.stage).collect())
}

fn stage_script() -> (CcParams, Vec<(u64, Option<u16>)>) {
    // A small byte counter so hyper increase comes within milliseconds.
    let params = CcParams { rp_byte_reset: 256 * 1024, ..CcParams::default() };
    let cnps =
        vec![(1_000, None), (3_000, None), (60_000, None), (400_000, None), (3_000_000, None), (3_020_000, None)];
    (params, cnps)
}

#[test]
fn dcqcn_trajectory_stays_within_the_rounding_bound_through_every_stage() {
    let (params, cnps) = stage_script();
    let (rate_err, alpha_err, stages) = run(params, &cnps, 8_000_000);
    println!("dcqcn: worst rate error {:.5} % of line, worst alpha error {alpha_err:.6}", rate_err * 100.0);
    assert_eq!(stages.len(), 4, "stages seen: {stages:?}");
}

#[test]
fn options_stay_within_the_bound() {
    let (params, cnps) = stage_script();
    for tweak in [
        CcParams { rp_clamp_tgt_rate: 1, ..params },
        CcParams { rp_rate_to_set_on_first_cnp: 20_000, ..params },
        CcParams { rp_min_dec_fac: 90, rp_initial_alpha_value: 300, ..params },
        CcParams { rp_dce_tcp_g: 960, line_rate_mbps: 400_000, rp_min_rate: 1000, ..params },
    ] {
        let (rate_err, alpha_err, stages) = run(tweak, &cnps, 6_000_000);
        println!("{tweak:?}: {:.5} % / {alpha_err:.6} / {stages:?}", rate_err * 100.0);
    }
}

#[test]
fn metaroce_cut_follows_the_extent() {
    let (params, _) = stage_script();
    let params = CcParams { mode: CcMode::Metaroce, ..params };
    let cnps = vec![(1_000, Some(1638)), (200_000, Some(32768)), (900_000, None), (1_500_000, Some(0))];
    let (rate_err, alpha_err, stages) = run(params, &cnps, 5_000_000);
    println!("metaroce: {:.5} % / {alpha_err:.6}", rate_err * 100.0);
    assert!(stages.contains(&RateStage::Cut));
    // A 5 % extent costs 2.5 % of the rate; a full extent halves it at once.
    let r = params.registers().unwrap();
    let mut rp = ReactionPoint::new(1, &r);
    let mut out = Vec::new();
    let mut ev = CnEvent::new(0, CnEventKind::RxCnp, 0);
    ev.extent = Some(1638);
    rp.handle(&ev, &r, &mut out);
    assert_eq!(out[0].rate_kbps, 100_000_000 - ((100_000_000u64 * 1638) >> 16) as u32);
    ev.extent = Some(32768);
    ev.time = 1;
    rp.handle(&ev, &r, &mut out);
    assert_eq!(out[1].rate_kbps, out[0].rate_kbps - out[0].rate_kbps / 2);
}
