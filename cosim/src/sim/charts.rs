//! A closed-loop run's charts (`SPEC.md` §9.4-9.5): each flow's rate at
//! its sender, or their spread over many flows, and the switch's queues.

use super::outputs::{SimRun, MANY_FLOWS};
use super::plot::{Chart, Series};
use super::scenario::SimCc;

fn title(run: &SimRun, what: &str) -> String {
    let c = &run.config;
    let pfc = if c.pfc { ", PFC" } else { "" };
    let cc = match run.cc() {
        SimCc::None => "no congestion control (no ECN marking)".to_string(),
        cc => format!(
            "{} ({} preset), CNPs ≥ {} µs apart, ECN on {}",
            cc.name(),
            c.preset_name(),
            c.cc.np_min_time_between_cnps,
            c.mark.name()
        ),
    };
    format!("{what}: {} at {} Gb/s, {cc}{pfc}", c.scenario.name(), c.link_gbps)
}

/// A guide per distinct fair share: the flows', and the victim flow's.
fn fair_share_guides(run: &SimRun) -> Vec<(String, f64)> {
    let mut guides = vec![("fair share".to_string(), run.fair_share_gbps(0))];
    if let Some(victim) = run.config.scenario.victim_flow() {
        guides.push(("victim's fair share".to_string(), run.fair_share_gbps(victim)));
    }
    guides
}

/// A rate at a tick as a chart's point: (µs, Gb/s).
fn point(ns: u64, kbps: u32) -> (f64, f64) {
    (ns as f64 / 1000.0, f64::from(kbps) / 1e6)
}

/// Where a rates chart ends: the last sample.
fn end_ns(run: &SimRun) -> u64 {
    run.samples.last().map_or(0, |s| s.time_ns)
}

/// Each flow's rate as steps: level until the tick of a change, then the
/// new level from that tick on.
pub fn rates_chart(run: &SimRun) -> Chart {
    let many = run.flows.len() > MANY_FLOWS;
    let series = if many {
        rate_bands(run)
    } else {
        run.flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut level = f.start_rate_kbps;
                let mut points = vec![point(0, level)];
                for &(tick, rate) in &f.rate_steps {
                    points.push(point(tick, level));
                    points.push(point(tick, rate));
                    level = rate;
                }
                points.push(point(end_ns(run), level));
                Series { name: run.flow_name(i), points }
            })
            .collect()
    };
    Chart {
        title: title(run, if many { "Rate over the QPs" } else { "Rate per QP" }),
        x_label: "time (µs)".into(),
        y_label: "rate (Gb/s)".into(),
        series,
        guides: fair_share_guides(run),
    }
}

/// The lowest, median and highest rate over the QPs, as steps.
pub(crate) fn rate_bands(run: &SimRun) -> Vec<Series> {
    let names = ["lowest", "median", "highest"];
    let mut bands: Vec<Series> = names
        .iter()
        .map(|name| Series { name: format!("{name} of {} QPs", run.flows.len()), points: Vec::new() })
        .collect();
    let mut sorted = Vec::new();
    run.for_each_rate_row(|tick, rates| {
        sorted.clear();
        sorted.extend_from_slice(rates);
        sorted.sort_unstable();
        let values = [sorted[0], sorted[sorted.len() / 2], sorted[sorted.len() - 1]];
        for (band, kbps) in bands.iter_mut().zip(values) {
            let (x, y) = point(tick, kbps);
            if let Some(&(_, level)) = band.points.last() {
                if level == y {
                    continue;
                }
                band.points.push((x, level));
            }
            band.points.push((x, y));
        }
    });
    let end_us = point(end_ns(run), 0).0;
    for band in &mut bands {
        if let Some(&(_, level)) = band.points.last() {
            band.points.push((end_us, level));
        }
    }
    bands
}

pub fn queue_chart(run: &SimRun) -> Chart {
    let kb = |b: u64| b as f64 / 1000.0;
    let mut series = vec![Series {
        name: "shared buffer".into(),
        points: run.samples.iter().map(|s| (s.time_ns as f64 / 1000.0, kb(s.buffer_used))).collect(),
    }];
    // The egress queues that carried a tenth of the deepest one, at most 8.
    let deepest = run.peak_port.iter().copied().max().unwrap_or(0);
    let mut ports: Vec<usize> = (0..run.peak_port.len()).filter(|&p| run.peak_port[p] * 10 > deepest).collect();
    ports.sort_by_key(|&p| std::cmp::Reverse(run.peak_port[p]));
    ports.truncate(8);
    ports.sort_unstable();
    for p in ports {
        series.push(Series {
            name: format!("port {p} (to h{p})"),
            points: run.samples.iter().map(|s| (s.time_ns as f64 / 1000.0, kb(s.port_depth[p]))).collect(),
        });
    }
    let red = run.config.red;
    Chart {
        title: title(run, "Switch queue"),
        x_label: "time (µs)".into(),
        y_label: "bytes queued (kB)".into(),
        series,
        guides: vec![("Kmin".into(), kb(red.kmin)), ("Kmax".into(), kb(red.kmax))],
    }
}
