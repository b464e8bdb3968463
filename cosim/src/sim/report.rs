//! What a closed-loop run shows a person: the summary figures (`SPEC.md`
//! §9.4), CSV time series, SVG charts and the per-host captures.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use std::io::Write;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use serde::Serialize;

use super::charts::{queue_chart, rates_chart};
use super::nic::RTL_WIDTH;
use super::outputs::{SimRun, MANY_FLOWS};
use super::packet::{Packet, WIRE_OVERHEAD};
use super::pauses::{pauses_cell, priorities, victim, victim_cell, PrioritySummary, VictimSummary};
use super::reliability::{self, reliability, ReliabilitySummary};
use super::scenario::{RtlPlacement, SimCc, SimConfig};
use crate::capture::write_capture;

/// The figures of one run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub cc: String,
    /// The congestion-control preset (`paper`, `ns3`, `mlx5`), or
    /// `defaults` (the parameter table's).
    pub preset: String,
    /// `np_min_time_between_cnps`, µs.
    pub cnp_interval_us: u32,
    pub link_gbps: u32,
    /// Where the switch marked ECN: `enqueue` or `dequeue`.
    pub mark: String,
    pub flows: usize,
    pub message_bytes: u64,
    /// Shared-buffer occupancy: the most ever, and the mean over the
    /// samples up to completion.
    pub peak_buffer_bytes: u64,
    pub mean_buffer_bytes: u64,
    /// The deepest any single egress queue got.
    pub peak_port_bytes: u64,
    pub marks: u64,
    pub drops: u64,
    pub cnps: u64,
    /// The switch's first ECN mark and the first CNP sent, µs.
    pub first_mark_us: Option<f64>,
    pub first_cnp_us: Option<f64>,
    /// Until every packet of the collective was delivered (dropped ones
    /// sent again), µs; none when the run stopped first (`--max-time-us`)
    /// or a QP's retries ran out (`ack_mode`).
    pub completion_us: Option<f64>,
    pub flows_done: usize,
    /// The bound: the busiest host link carrying its bytes at line rate, µs.
    pub ideal_completion_us: f64,
    /// Jain's fairness index of the flows' throughputs over their fair
    /// shares while all are active.
    pub jain_fairness: f64,
    /// From the first start until every egress queue stays at or below
    /// Kmax for the rest of the run, µs.
    pub converge_us: Option<f64>,
    /// From when the busiest egress queue, having passed Kmin, first falls
    /// back below it, until every flow still running has a rate at or
    /// above its fair share (a flow that finishes first counts at its
    /// finish), µs; none when the queue never does, or a flow never gets
    /// there (issue 16's "no stranded QP").
    pub fair_share_after_us: Option<f64>,
    /// Whether any egress queue ever went above Kmin (when none did, there
    /// was no congestion to recover from).
    pub queue_passed_kmin: bool,
    /// Lossless data behind PFC (`--pfc`): per priority its pauses; the
    /// PFC frames that reached the hosts' NICs.
    pub pfc: bool,
    pub pfc_priorities: Vec<PrioritySummary>,
    /// Whether the switch marked ECN (not with `--cc none`).
    pub ecn: bool,
    pub pfc_frames_received: u64,
    /// The victim scenario's victim flow.
    pub victim: Option<VictimSummary>,
    /// With `ack_mode` on or a lossy link: goodput, what was sent again
    /// and why, the ACK load (§9.7).
    pub reliability: Option<ReliabilitySummary>,
}

pub fn summarize(run: &SimRun) -> Summary {
    let c = &run.config;
    let done_ns = run.completion_ps.map(|ps| ps / 1000);
    let until_done: Vec<_> =
        run.samples.iter().filter(|s| done_ns.is_none_or(|d| s.time_ns <= d)).map(|s| s.buffer_used).collect();
    let mean_buffer = if until_done.is_empty() { 0 } else { until_done.iter().sum::<u64>() / until_done.len() as u64 };
    let first_start = run.flows.iter().map(|f| f.start_ps).min().unwrap_or(0) / 1000;
    // The last sample above Kmax; converged from the next one on.
    let last_over = run.samples.iter().rposition(|s| s.port_depth.iter().any(|&d| d > c.red.kmax));
    let converge_us = match last_over {
        None => Some(0.0),
        Some(i) => run.samples.get(i + 1).map(|s| (s.time_ns.saturating_sub(first_start)) as f64 / 1000.0),
    };
    Summary {
        scenario: c.scenario.name(),
        cc: run.cc().name().to_string(),
        preset: c.preset_name().to_string(),
        cnp_interval_us: c.cc.np_min_time_between_cnps,
        link_gbps: c.link_gbps,
        mark: c.mark.name().to_string(),
        flows: run.flows.len(),
        message_bytes: c.message_bytes,
        peak_buffer_bytes: run.peak_buffer,
        mean_buffer_bytes: mean_buffer,
        peak_port_bytes: run.peak_port.iter().copied().max().unwrap_or(0),
        marks: run.marks,
        drops: run.drops,
        cnps: run.cnps_sent,
        first_mark_us: run.first_mark_ps.map(|ps| ps as f64 / 1e6),
        first_cnp_us: run.first_cnp_ps.map(|ps| ps as f64 / 1e6),
        completion_us: run.completion_ps.map(|ps| ps as f64 / 1e6),
        flows_done: run.flows.iter().filter(|f| f.done_ps.is_some()).count(),
        ideal_completion_us: ideal_completion_us(run),
        jain_fairness: jain(&fair_shares_taken(run)),
        converge_us,
        fair_share_after_us: fair_share_after_us(run),
        queue_passed_kmin: run.samples.iter().any(|s| s.port_depth.iter().any(|&d| d > c.red.kmin)),
        pfc: c.pfc,
        pfc_priorities: priorities(run),
        ecn: c.ecn,
        pfc_frames_received: run.pfc_frames_received,
        victim: victim(run),
        reliability: reliability(run),
    }
}

/// [`Summary::fair_share_after_us`]: the samples give the queue, each
/// flow's rate steps its rate.
fn fair_share_after_us(run: &SimRun) -> Option<f64> {
    let kmin = run.config.red.kmin;
    let busiest = (0..run.peak_port.len()).max_by_key(|&p| run.peak_port[p])?;
    let above = run.samples.iter().position(|s| s.port_depth[busiest] > kmin)?;
    let below_ns = run.samples[above..].iter().find(|s| s.port_depth[busiest] < kmin)?.time_ns;
    let mut latest_ns = below_ns;
    for (i, f) in run.flows.iter().enumerate() {
        let fair_kbps = run.fair_share_gbps(i) * 1e6;
        let done_ns = f.done_ps.map(|ps| ps / 1000);
        if done_ns.is_some_and(|d| d <= below_ns) {
            continue;
        }
        let rate_at_below =
            f.rate_steps.iter().take_while(|&&(t, _)| t <= below_ns).last().map_or(f.start_rate_kbps, |s| s.1);
        let reached_ns = if f64::from(rate_at_below) >= fair_kbps {
            Some(below_ns)
        } else {
            f.rate_steps.iter().find(|&&(t, r)| t > below_ns && f64::from(r) >= fair_kbps).map(|s| s.0)
        };
        let at_ns = match (reached_ns, done_ns) {
            (Some(r), Some(d)) => r.min(d),
            (r, d) => r.or(d)?,
        };
        latest_ns = latest_ns.max(at_ns);
    }
    Some((latest_ns - below_ns) as f64 / 1000.0)
}

/// The busiest host link (in or out), at line rate with the wire overhead.
fn ideal_completion_us(run: &SimRun) -> f64 {
    let c = &run.config;
    let frame_bytes: u64 =
        (0..c.packets_per_message()).map(|i| Packet::frame_len(c.payload_of(i)) as u64 + WIRE_OVERHEAD).sum();
    let hosts = c.scenario.hosts();
    let (mut out, mut into) = (vec![0u64; hosts], vec![0u64; hosts]);
    for f in &run.flows {
        out[f.src] += frame_bytes;
        into[f.dst] += frame_bytes;
    }
    let busiest = out.iter().chain(&into).copied().max().unwrap_or(0);
    busiest as f64 * 8.0 / f64::from(c.link_gbps) / 1000.0
}

/// Each flow's throughput (bytes per ns) while every flow is active: from
/// the last start to the first finish, from the samples; over each flow's
/// own lifetime when that window holds fewer than two samples.
fn flow_throughputs(run: &SimRun) -> Vec<f64> {
    let last_start = run.flows.iter().map(|f| f.start_ps / 1000).max().unwrap_or(0);
    let first_done = run.flows.iter().filter_map(|f| f.done_ps.map(|d| d / 1000)).min().unwrap_or(u64::MAX);
    let window: Vec<_> = run.samples.iter().filter(|s| s.time_ns >= last_start && s.time_ns <= first_done).collect();
    if let [first, .., last] = window.as_slice() {
        let span = (last.time_ns - first.time_ns) as f64;
        return (0..run.flows.len())
            .map(|i| (last.delivered_bytes[i] - first.delivered_bytes[i]) as f64 / span)
            .collect();
    }
    run.flows
        .iter()
        .map(|f| {
            let end = f.done_ps.unwrap_or(run.completion_ps.unwrap_or(0));
            f.delivered_bytes as f64 / ((end.saturating_sub(f.start_ps)) as f64 / 1000.0).max(1.0)
        })
        .collect()
}

/// Each flow's throughput over its fair share (Jain's normalized
/// allocation, so that unequal fair shares count as fair).
fn fair_shares_taken(run: &SimRun) -> Vec<f64> {
    let throughputs = flow_throughputs(run);
    throughputs.iter().enumerate().map(|(i, x)| x / run.config.scenario.fair_share(i)).collect()
}

/// (Σx)² / (n Σx²): 1 when all are equal, 1/n when one takes everything.
pub fn jain(xs: &[f64]) -> f64 {
    let (sum, squares) = xs.iter().fold((0.0, 0.0), |(s, q), x| (s + x, q + x * x));
    if squares == 0.0 {
        return 1.0;
    }
    sum * sum / (xs.len() as f64 * squares)
}

/// `rates.csv`: the sender's rate per flow in Gb/s, one row per sample
/// and one at each tick where a rate changed (the rates from then on).
pub fn rates_csv(run: &SimRun) -> String {
    if run.flows.len() > MANY_FLOWS {
        return rate_steps_csv(run);
    }
    let mut s = String::from("time_ns");
    for i in 0..run.flows.len() {
        let _ = write!(s, ",{}_gbps", run.flow_name(i));
    }
    s.push('\n');
    run.for_each_rate_row(|tick, rates| {
        let _ = write!(s, "{tick}");
        for &kbps in rates {
            let _ = write!(s, ",{}", gbps(kbps));
        }
        s.push('\n');
    });
    s
}

/// Gb/s with kb/s precision from integers (exact float formatting was most
/// of a 64-host run's time).
fn gbps(kbps: u32) -> String {
    format!("{}.{:06}", kbps / 1_000_000, kbps % 1_000_000)
}

/// `rates.csv` of more than [`MANY_FLOWS`] flows: a row per rate change
/// (`time_ns,flow,gbps`, each flow's start rate at 0), in time order; a
/// row per tick and a column per flow would be the ticks times thousands
/// of flows.
fn rate_steps_csv(run: &SimRun) -> String {
    let mut steps: Vec<(u64, usize, u32)> = Vec::new();
    for (i, f) in run.flows.iter().enumerate() {
        steps.push((0, i, f.start_rate_kbps));
        steps.extend(f.rate_steps.iter().map(|&(tick, kbps)| (tick, i, kbps)));
    }
    steps.sort_by_key(|&(tick, i, _)| (tick, i));
    let mut s = String::from("time_ns,flow,gbps\n");
    for (tick, i, kbps) in steps {
        let _ = writeln!(s, "{tick},{},{}", run.flow_name(i), gbps(kbps));
    }
    s
}

/// `queue.csv`: one row per sample: the shared buffer, every egress queue
/// (bytes), and the running counts of marks, drops and CNPs.
pub fn queue_csv(run: &SimRun) -> String {
    let mut s = String::from("time_ns,buffer_bytes");
    for p in 0..run.config.scenario.hosts() {
        let _ = write!(s, ",port{p}_bytes");
    }
    s.push_str(",marks,drops,cnps,pfc_pauses\n");
    for sample in &run.samples {
        let _ = write!(s, "{},{}", sample.time_ns, sample.buffer_used);
        for depth in &sample.port_depth {
            let _ = write!(s, ",{depth}");
        }
        let _ = writeln!(s, ",{},{},{},{}", sample.marks, sample.drops, sample.cnps, sample.pfc_pauses);
    }
    s
}

/// Writes the run's files into `dir`: `summary.json`, `rates.csv`,
/// `queue.csv`, `rates.svg`, `queue.svg`, and with captures
/// `captures/hostNN.pcap` with `hostNN.nic.json` beside each.
pub fn write_run(run: &SimRun, summary: &Summary, dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write("summary.json", serde_json::to_string_pretty(summary)? + "\n")?;
    write("rates.csv", rates_csv(run))?;
    write("queue.csv", queue_csv(run))?;
    write("rates.svg", rates_chart(run).svg())?;
    write("queue.svg", queue_chart(run).svg())?;
    if run.config.record_captures {
        let captures = dir.join("captures");
        fs::create_dir_all(&captures).with_context(|| format!("cannot create {}", captures.display()))?;
        for (h, (nic, frames)) in run.captures.iter().enumerate() {
            let pcap = captures.join(format!("host{h:02}.pcap"));
            write_capture(&pcap, frames).with_context(|| format!("cannot write {}", pcap.display()))?;
            let nic_path = captures.join(format!("host{h:02}.nic.json"));
            fs::write(&nic_path, serde_json::to_string_pretty(nic)? + "\n")
                .with_context(|| format!("cannot write {}", nic_path.display()))?;
        }
    }
    Ok(())
}

fn optional(v: Option<f64>, unit: &str) -> String {
    v.map_or_else(|| "never".to_string(), |v| format!("{v:.1} {unit}"))
}

/// Bytes as whole kB (1000 B), as the tables show them.
pub(super) fn kb(bytes: u64) -> String {
    format!("{:.0} kB", bytes as f64 / 1000.0)
}

/// Runs side by side: one column per run, one row per figure (Markdown).
pub fn comparison_table(runs: &[Summary]) -> String {
    type Row = (&'static str, fn(&Summary) -> String);
    let mut rows: Vec<Row> = vec![
        ("preset, CNP interval", |s| format!("{}, {} µs", s.preset, s.cnp_interval_us)),
        ("ECN marking", |s| if s.ecn { format!("on {}", s.mark) } else { "off".into() }),
        ("peak shared buffer", |s| kb(s.peak_buffer_bytes)),
        ("mean shared buffer", |s| kb(s.mean_buffer_bytes)),
        ("peak egress queue", |s| kb(s.peak_port_bytes)),
        ("ECN marks", |s| s.marks.to_string()),
        ("drops", |s| s.drops.to_string()),
        ("CNPs", |s| s.cnps.to_string()),
        ("first ECN mark, first CNP", |s| {
            format!("{}, {}", optional(s.first_mark_us, "µs"), optional(s.first_cnp_us, "µs"))
        }),
        ("completion", |s| match s.completion_us {
            Some(us) => format!("{us:.1} µs"),
            None => format!("stopped, {} of {} flows done", s.flows_done, s.flows),
        }),
        ("line-rate bound", |s| format!("{:.1} µs", s.ideal_completion_us)),
        ("Jain's fairness", |s| format!("{:.3}", s.jain_fairness)),
        ("queue under Kmax after", |s| optional(s.converge_us, "µs")),
        ("every QP at its fair share", |s| match s.fair_share_after_us {
            Some(us) => format!("{us:.1} µs after the queue fell below Kmin"),
            None if !s.queue_passed_kmin => "no queue above Kmin".to_string(),
            None => "never".to_string(),
        }),
        ("flows × message", |s| format!("{} × {} KiB", s.flows, s.message_bytes / 1024)),
    ];
    let after = |rows: &[Row], name: &str| rows.iter().position(|(n, _)| *n == name).map_or(rows.len(), |i| i + 1);
    if runs.iter().any(|s| s.pfc) {
        rows.insert(after(&rows, "drops"), ("PFC pauses", |s| pauses_cell(s.pfc, &s.pfc_priorities)));
    }
    if runs.iter().any(|s| s.reliability.is_some()) {
        let at = after(&rows, "line-rate bound");
        let reliability_rows: [Row; 5] = [
            ("reliable delivery, link loss", |s| reliability::loss_cell(&s.reliability)),
            ("goodput", |s| reliability::goodput_cell(&s.reliability)),
            ("sent again", |s| reliability::sent_again_cell(&s.reliability)),
            ("retransmit requests", |s| reliability::requests_cell(&s.reliability)),
            ("ACK frames per data packet", |s| reliability::ack_load_cell(&s.reliability)),
        ];
        rows.splice(at..at, reliability_rows);
    }
    if runs.iter().any(|s| s.victim.is_some()) {
        rows.insert(
            after(&rows, "every QP at its fair share"),
            ("victim flow", |s| victim_cell(s.victim.as_ref(), s.pfc)),
        );
    }
    let mut t = String::from("|");
    if let Some(s) = runs.first() {
        let _ = write!(t, " {} at {}G |", s.scenario, s.link_gbps);
    }
    for s in runs {
        let _ = write!(
            t,
            " {}{}{}, {} |",
            s.cc,
            if s.pfc { " + PFC" } else { "" },
            reliability::loss_label(&s.reliability),
            s.preset
        );
    }
    t.push_str("\n|---|");
    t.push_str(&"---|".repeat(runs.len()));
    t.push('\n');
    for (name, value) in &rows {
        let _ = write!(t, "| {name} |");
        for s in runs {
            let _ = write!(t, " {} |", value(s));
        }
        t.push('\n');
    }
    t
}

/// Runs `config` once per reaction, each run's files into `out/<cc>/`, the
/// side-by-side table into `out/summary.md`; returns the summaries.
pub fn run_modes(config: &SimConfig, modes: &[SimCc], out: &Path, log: &mut dyn Write) -> Result<Vec<Summary>> {
    let mut summaries = Vec::new();
    for &mode in modes {
        let started = Instant::now();
        let run = super::setup::run_cc(config, mode).map_err(|e| {
            let mut message = format!("{} ({}): {e}", config.scenario.name(), mode.name());
            if let (Some(host), true) = (e.host, config.rtl != RtlPlacement::Nowhere) {
                // The golden loop gives that NIC the same input up to here.
                let _ = write!(
                    message,
                    "\nto find the transaction: run the same command without --rtl, then \
                     `metaroce cosim --block top --width {RTL_WIDTH} {}`",
                    out.join(mode.name()).join("captures").join(format!("host{host:02}.pcap")).display()
                );
            }
            anyhow!(message)
        })?;
        let summary = summarize(&run);
        let dir = out.join(mode.name());
        write_run(&run, &summary, &dir)?;
        writeln!(
            log,
            "{} at {} Gb/s, {}: {} events in {:.1} s -> {}",
            config.scenario.name(),
            config.link_gbps,
            mode.name(),
            run.events,
            started.elapsed().as_secs_f64(),
            dir.display()
        )?;
        log.flush()?;
        summaries.push(summary);
    }
    let table = comparison_table(&summaries);
    let path = out.join("summary.md");
    fs::write(&path, &table).with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(log, "\n{table}")?;
    Ok(summaries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_hog() {
        assert!((jain(&[2.0, 2.0, 2.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
