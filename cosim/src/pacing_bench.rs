//! `metaroce bench --only pacing`: how closely the pacer holds each QP to
//! its rate, and how far any QP ever runs ahead of it, on the golden model
//! (which the cosim holds the RTL to, bit for bit).
//!
//! Each case: N QPs share an aggregate rate equally (line rate 400 Gb/s),
//! every QP backlogged by a host that posts its next 1024-byte packet the
//! moment the previous one leaves (one packet per QP in the pacer, so 4096
//! QPs fit the default 4096 descriptors), starting at a random phase.
//! Measured per QP from its release ticks:
//! * rate error: bytes over the time of the second half of its releases
//!   (steady state), against the configured rate;
//! * burst: the most bytes released in any window `[T_i, T_j)` beyond
//!   `rate * (T_j - T_i)`, against the allowance. Release ticks are whole
//!   ns rounded up, so the bound is the allowance plus `rate * 1 ns`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use metaroce_golden::cc_params::CcParams;
use metaroce_golden::pacer::{Pacer, PacerCommand, PacerGeometry, Release};

use crate::dice::splitmix64;

const PACKET: u32 = 1024;
const LINE_MBPS: u32 = 400_000;
/// Packets over all QPs of one case.
const PACKETS_PER_CASE: u64 = 200_000;

/// One measured case.
#[derive(Debug, Clone, Copy)]
pub struct PacingCase {
    pub aggregate_gbps: u32,
    pub qps: u32,
    pub burst_bytes: u32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct PacingResult {
    pub rate_kbps: u32,
    pub packets: u64,
    pub dropped: u64,
    /// Largest and mean |achieved / configured - 1| over the QPs.
    pub max_rate_error: f64,
    pub mean_rate_error: f64,
    /// Largest burst over the QPs, bytes: over the whole run, and in the
    /// second half (after the start, when every QP's allowance is spent at
    /// once and the link cap delays some of them).
    pub max_burst: f64,
    pub max_steady_burst: f64,
    /// The allowance plus one ns at the rate, bytes.
    pub bound: f64,
}

/// The backlogged host: the next packet of a QP goes in when its last
/// one leaves.
struct Host {
    posts: BinaryHeap<Reverse<(u64, u32)>>,
    posted: Vec<u64>,
    per_qp: u64,
    releases: Vec<Vec<u64>>,
    dropped: u64,
}

impl Host {
    fn take(&mut self, out: &mut Vec<Release>, now: u64) {
        for r in out.drain(..) {
            if r.dropped {
                self.dropped += 1;
                continue;
            }
            self.releases[r.qp as usize].push(r.time);
            if self.posted[r.qp as usize] < self.per_qp {
                self.posts.push(Reverse((r.time.max(now), r.qp)));
            }
        }
    }
}

/// The most bytes released in a window `[T_i, T_j)` beyond `rate * (T_j -
/// T_i)`: bytes before release j less rate * T_j, against its lowest so far.
fn largest_burst(times: &[u64], rate_bytes_per_ns: f64) -> f64 {
    let (mut lowest, mut largest) = (f64::INFINITY, 0.0f64);
    for (j, &t) in times.iter().enumerate() {
        let level = f64::from(PACKET) * j as f64 - rate_bytes_per_ns * t as f64;
        lowest = lowest.min(level);
        largest = largest.max(level - lowest);
    }
    largest
}

/// Runs one case on the golden pacer.
pub fn run_case(case: PacingCase, seed: u64) -> Result<PacingResult> {
    let params = CcParams { line_rate_mbps: LINE_MBPS, pacer_burst_bytes: case.burst_bytes, ..CcParams::default() };
    let regs = params.registers()?;
    let geometry = PacerGeometry::default();
    let mut pacer = Pacer::new(geometry, &regs);
    let rate_kbps = (u64::from(case.aggregate_gbps) * 1_000_000 / u64::from(case.qps)) as u32;
    let per_qp = (PACKETS_PER_CASE / u64::from(case.qps)).max(50);
    let interval_ns = f64::from(PACKET) * 8e6 / f64::from(rate_kbps);
    let mut out = Vec::new();
    let mut host = Host {
        posts: BinaryHeap::new(),
        posted: vec![0; case.qps as usize],
        per_qp,
        releases: vec![Vec::new(); case.qps as usize],
        dropped: 0,
    };
    for qp in 0..case.qps {
        pacer.command(&PacerCommand { time: 0, qp, rate_kbps: Some(rate_kbps), send_len: None, pause: None }, &mut out);
        let phase = (splitmix64(seed ^ u64::from(qp)) % (interval_ns as u64).max(1)).max(1);
        host.posts.push(Reverse((phase, qp)));
    }
    // Event by event: the next post, or the next slot the pacer must serve.
    loop {
        let next_post = host.posts.peek().map(|Reverse((t, _))| *t);
        let busy = pacer.next_busy_tick();
        match next_post {
            Some(post) if busy.is_none_or(|b| post < b) => {
                let Reverse((time, qp)) = host.posts.pop().expect("peeked");
                host.posted[qp as usize] += 1;
                pacer.command(
                    &PacerCommand { time, qp, rate_kbps: None, send_len: Some(PACKET), pause: None },
                    &mut out,
                );
                host.take(&mut out, time);
            }
            _ => match busy {
                Some(tick) => {
                    let now = pacer.advance(tick, &mut out);
                    host.take(&mut out, now);
                }
                None => break,
            },
        }
    }
    pacer.flush(&mut out);
    host.take(&mut out, u64::MAX);
    let releases = host.releases;
    let mut result = PacingResult { rate_kbps, dropped: host.dropped, ..PacingResult::default() };

    let rate_bytes_per_ns = f64::from(rate_kbps) / 8e6;
    let mut errors = Vec::new();
    for times in &releases {
        result.packets += times.len() as u64;
        // The second half: the QP in steady state.
        let steady = &times[times.len() / 2..];
        if steady.len() > 1 {
            let span = (steady[steady.len() - 1] - steady[0]) as f64;
            let bytes = f64::from(PACKET) * (steady.len() - 1) as f64;
            errors.push((bytes / span / rate_bytes_per_ns - 1.0).abs());
        }
        result.max_burst = result.max_burst.max(largest_burst(times, rate_bytes_per_ns));
        result.max_steady_burst = result.max_steady_burst.max(largest_burst(steady, rate_bytes_per_ns));
    }
    result.max_rate_error = errors.iter().copied().fold(0.0, f64::max);
    result.mean_rate_error = errors.iter().sum::<f64>() / errors.len().max(1) as f64;
    result.bound = f64::from(case.burst_bytes) + rate_bytes_per_ns;
    Ok(result)
}

/// The grid: 1 to 400 Gb/s over 1, 64 and 4096 QPs, strict and with a
/// 4 KiB allowance.
pub fn run_pacing_bench(out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "pacing accuracy (golden pacer = RTL; line rate {} Gb/s, {PACKET}-byte packets, default geometry {:?})",
        LINE_MBPS / 1000,
        PacerGeometry::default()
    )?;
    writeln!(
        out,
        "| aggregate Gb/s | QPs | rate per QP, Mb/s | allowance B | packets | max rate error | mean rate error | largest burst B | steady-state burst B | bound B | drops |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|")?;
    let started = Instant::now();
    let mut worst_error = 0.0f64;
    let (mut over_bound, mut over_steady) = (0, 0);
    for burst_bytes in [0, 4096] {
        for qps in [1, 64, 4096] {
            for aggregate_gbps in [1, 10, 25, 100, 200, 400] {
                let case = PacingCase { aggregate_gbps, qps, burst_bytes };
                let r = run_case(case, 0x5eed ^ u64::from(qps) ^ u64::from(aggregate_gbps) << 20)?;
                worst_error = worst_error.max(r.max_rate_error);
                over_bound += usize::from(r.max_burst > r.bound);
                over_steady += usize::from(r.max_steady_burst > r.bound);
                writeln!(
                    out,
                    "| {aggregate_gbps} | {qps} | {:.3} | {burst_bytes} | {} | {:.5} % | {:.5} % | {:.1} | {:.1} | {:.1} | {} |",
                    f64::from(r.rate_kbps) / 1000.0,
                    r.packets,
                    100.0 * r.max_rate_error,
                    100.0 * r.mean_rate_error,
                    r.max_burst,
                    r.max_steady_burst,
                    r.bound,
                    r.dropped
                )?;
                out.flush()?;
            }
        }
    }
    writeln!(
        out,
        "worst rate error {:.5} % (target < 0.1 %); cases with a burst above the bound: {over_bound} over the run, \
         {over_steady} in steady state; {:.1} s",
        100.0 * worst_error,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}
