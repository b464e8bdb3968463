//! What priority flow control did in a run (`SPEC.md` §9.4): per priority
//! the PFC frames and the time paused, the victim flows, and the victim
//! scenario's victim throughput against its fair share.

use serde::Serialize;

use super::outputs::SimRun;
use super::packet::{priority_of_dscp, DATA_DSCP, WIRE_OVERHEAD};

/// One priority's pauses over every switch port.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PrioritySummary {
    pub priority: usize,
    /// XOFF frames that began a pause, refreshes, and XON frames.
    pub pause_frames: u64,
    pub refresh_frames: u64,
    pub resume_frames: u64,
    /// Σ over ports of the time from XOFF to XON, µs.
    pub paused_us: f64,
    /// The most one port's headroom held, and that port's headroom, bytes.
    pub peak_headroom: u64,
    pub peak_headroom_of: u64,
    /// Flows on the priority paused while their own egress queue was at
    /// or below Kmin.
    pub victim_flows: usize,
}

/// The victim scenario's victim flow.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VictimSummary {
    pub flow: String,
    /// Its frames' wire bits (overhead included) over its life, Gb/s.
    pub throughput_gbps: f64,
    /// Its max-min fair share: its host's link less the share the incast's
    /// receiver gives the host's other flow.
    pub fair_gbps: f64,
    pub percent_of_fair: f64,
    /// The time its host was paused while it ran, µs.
    pub paused_us: f64,
}

/// Every priority that PFC protects or that sent a PFC frame (none
/// without `--pfc`).
pub fn priorities(run: &SimRun) -> Vec<PrioritySummary> {
    let Some(counts) = &run.pfc else { return Vec::new() };
    let data = priority_of_dscp(DATA_DSCP);
    counts
        .iter()
        .enumerate()
        .filter(|&(p, c)| p == data || c.pause_frames > 0)
        .map(|(priority, c)| PrioritySummary {
            priority,
            pause_frames: c.pause_frames,
            refresh_frames: c.refresh_frames,
            resume_frames: c.resume_frames,
            paused_us: c.paused_ps as f64 / 1e6,
            peak_headroom: c.peak_headroom,
            peak_headroom_of: c.peak_headroom_of,
            victim_flows: if priority == data { run.flows.iter().filter(|f| f.victim_ps > 0).count() } else { 0 },
        })
        .collect()
}

pub fn victim(run: &SimRun) -> Option<VictimSummary> {
    let c = &run.config;
    let i = c.scenario.victim_flow()?;
    let f = &run.flows[i];
    let end = f.done_ps.or(run.completion_ps).unwrap_or_else(|| run.samples.last().map_or(0, |s| s.time_ns * 1000));
    let wire_bits = (f.delivered_bytes + f.delivered_packets * WIRE_OVERHEAD) * 8;
    let throughput_gbps = wire_bits as f64 * 1000.0 / end.saturating_sub(f.start_ps).max(1) as f64;
    let fair_gbps = f64::from(c.link_gbps) * c.scenario.fair_share(i);
    Some(VictimSummary {
        flow: format!("h{}->h{}", f.src, f.dst),
        throughput_gbps,
        fair_gbps,
        percent_of_fair: 100.0 * throughput_gbps / fair_gbps,
        paused_us: f.paused_ps as f64 / 1e6,
    })
}

/// The table's cell for the run's pauses.
pub fn pauses_cell(pfc: bool, priorities: &[PrioritySummary]) -> String {
    if !pfc {
        return "off".into();
    }
    let cells: Vec<String> = priorities
        .iter()
        .map(|p| {
            let headroom = match p.peak_headroom_of {
                0 => "headroom unused".to_string(),
                of => format!("headroom peak {} of {of} B", p.peak_headroom),
            };
            format!(
                "priority {}: {} XOFF (+{} refreshes), {} XON; {:.1} µs paused over all ports; {headroom}; {} victim flows",
                p.priority, p.pause_frames, p.refresh_frames, p.resume_frames, p.paused_us, p.victim_flows
            )
        })
        .collect();
    cells.join("; ")
}

/// The table's cell for the victim flow (its pauses only with PFC).
pub fn victim_cell(victim: Option<&VictimSummary>, pfc: bool) -> String {
    let Some(v) = victim else { return "no victim flow in this scenario".into() };
    let rate =
        format!("{}: {:.1} Gb/s, {:.1} % of its fair {:.1}", v.flow, v.throughput_gbps, v.percent_of_fair, v.fair_gbps);
    if pfc {
        format!("{rate}, paused {:.1} µs", v.paused_us)
    } else {
        rate
    }
}
