//! `metaroce sim`: closed-loop congestion scenarios (`SPEC.md` §9). N hosts,
//! each with the pipeline top in its NIC (golden model or Verilated RTL),
//! on one switch: links with a rate and a propagation delay, a shared
//! buffer with RED-style ECN marking and tail drop. Receivers' NICs turn
//! CE marks into CNPs; senders' NICs cut their QPs' rates and pace.
//!
//! Discrete events in ps. A NIC sees ns ticks (`ps / 1000`); it is stepped
//! whenever a frame reaches it, its host posts a packet, or its pacer's next
//! busy slot starts or a retransmit timer may run out (the NIC tells
//! when), so no release or timeout is found late. A host keeps one packet
//! per QP between hand-over and the wire: the next is posted when the
//! previous one starts on the host's link. With `ack_mode` on
//! ([`transport`]) the NICs' ACKs and NAKs cross the switch and the
//! senders' requesters ask for what to send again; without it a packet the
//! switch drops is sent again (selective repeat) once the receiver's NAK
//! would reach the sender. With `--pfc` the switch drops no data: it pauses
//! the sending hosts' data priority instead, with PFC frames their NICs
//! parse and obey.
//!
//! The files: [`scenario`] (what runs: scenario, links, NICs), [`setup`]
//! (a run from it), [`world`] (the event loop), [`outputs`] (what a run
//! gives back), and the parts of the network: [`nic`], [`packet`], [`switch`] and its [`pfc`],
//! [`transport`]; [`report`],
//! [`pauses`], [`charts`] and [`plot`] turn runs into tables and charts, and [`readme`]
//! makes the README's figures (its runs on threads in [`readme_runs`],
//! issue 17's bar in [`goals`]).

pub mod charts;
pub mod goals;
pub mod nic;
pub mod outputs;
pub mod packet;
pub mod pauses;
pub mod pfc;
pub mod plot;
pub mod readme;
pub mod readme_runs;
pub mod reliability;
pub mod report;
pub mod scenario;
pub mod setup;
pub mod switch;
pub mod transport;
pub mod world;

pub use outputs::{Flow, FlowTransport, Sample, SimFailure, SimRun};
pub use scenario::{peer_of, qp_toward, LinkLoss, RtlPlacement, Scenario, SimCc, SimConfig, QP_BASE};
pub use setup::{run, run_cc};
pub use switch::MarkPoint;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::GenFrame;
    use metaroce_golden::cc_params::CcMode;
    use metaroce_golden::cn::TimeBase;
    use metaroce_golden::cn_event::NicConfig;
    use metaroce_golden::pipeline::{sent_qp, Pipeline, PipelineOutputs};
    use metaroce_golden::ParserConfig;

    /// A small, congested incast: CNPs every 4 µs, jittered starts.
    fn congested() -> SimConfig {
        let mut config = SimConfig::new(Scenario::Incast { senders: 4 }, 100);
        config.message_bytes = 512 << 10;
        config.mtu = 1024;
        config.jitter_ns = 3000;
        config.cc.np_min_time_between_cnps = 4;
        config
    }

    #[test]
    fn every_packet_arrives_or_is_dropped_and_the_buffer_drains() {
        for mode in [CcMode::Dcqcn, CcMode::Metaroce] {
            let run = run(&congested(), mode).unwrap();
            let count = congested().packets_per_message();
            assert!(run.flows.iter().all(|f| f.delivered_packets == count && f.done_ps.is_some()));
            assert!(run.marks > 0 && run.cnps_sent > 0 && run.cnps_sent == run.cnps_received);
            let last = run.samples.last().unwrap();
            assert_eq!((last.buffer_used, run.drops), (0, 0));
            assert!(run.samples.windows(2).all(|w| w[0].time_ns < w[1].time_ns));
            // The line-rate bound holds.
            let summary = report::summarize(&run);
            assert!(summary.completion_us.unwrap() >= summary.ideal_completion_us);
        }
    }

    #[test]
    fn dropped_packets_are_sent_again_until_every_one_arrives() {
        let mut config = congested();
        config.buffer_bytes = 64 << 10;
        let run = run(&config, CcMode::Dcqcn).unwrap();
        let count = config.packets_per_message();
        assert!(run.drops > 0);
        assert_eq!(run.flows.iter().map(|f| f.lost_packets).sum::<u64>(), run.drops);
        assert!(run.flows.iter().all(|f| f.delivered_packets == count && f.resend.is_empty()));
        // Every drop cost one more release at its sender.
        let releases: usize = run.releases.iter().map(Vec::len).sum();
        assert_eq!(releases as u64, count * run.flows.len() as u64 + run.drops);
    }

    /// A buffer that tail-drops the congested incast holds it without a
    /// loss behind PFC: the senders are paused instead, every pause frame
    /// reaches its NIC, and no packet is sent twice.
    #[test]
    fn pfc_loses_nothing_where_tail_drop_loses_packets() {
        let mut config = congested();
        config.buffer_bytes = 256 << 10;
        // Kmin below the queue that PFC holds, so that ECN still marks.
        config.red = switch::RedProfile { kmin: 20_000, kmax: 80_000, pmax: 0.2 };
        let count = config.packets_per_message();
        for cc in [SimCc::None, SimCc::DCQCN, SimCc::METAROCE] {
            let lossy = run_cc(&config, cc).unwrap();
            assert!(lossy.drops > 0 && lossy.pfc.is_none(), "{cc:?}: {} drops", lossy.drops);
            let run = run_cc(&SimConfig { pfc: true, ..config.clone() }, cc).unwrap();
            let counts = run.pfc.unwrap()[3];
            assert_eq!(run.drops, 0, "{cc:?}");
            assert!(counts.pause_frames > 0 && counts.resume_frames > 0 && counts.paused_ps > 0, "{cc:?}: {counts:?}");
            let sent = counts.pause_frames + counts.refresh_frames + counts.resume_frames;
            assert_eq!(run.pfc_frames_received, sent, "{cc:?}");
            assert!(counts.peak_headroom > 0 && counts.peak_headroom <= counts.peak_headroom_of, "{counts:?}");
            assert!(run.flows.iter().all(|f| f.delivered_packets == count && f.lost_packets == 0));
            let releases: usize = run.releases.iter().map(Vec::len).sum();
            assert_eq!(releases as u64, count * run.flows.len() as u64, "{cc:?}");
            // Without ECN nothing reacts; with it, CNPs flow (priority 6, never paused).
            assert_eq!(run.cnps_sent == 0, cc == SimCc::None, "{cc:?}: {} CNPs", run.cnps_sent);
        }
    }

    /// The victim scenario: PFC alone pauses host 1 for the incast, and
    /// with it the flow to a receiver that has no queue.
    #[test]
    fn a_pause_for_the_incast_stops_the_victim_flow_beside_it() {
        let mut config = SimConfig::new(Scenario::Victim { senders: 4 }, 100);
        (config.message_bytes, config.mtu, config.buffer_bytes) = (256 << 10, 1024, 256 << 10);
        config.pfc = true;
        let run = run_cc(&config, SimCc::None).unwrap();
        let victim = &run.flows[config.scenario.victim_flow().unwrap()];
        assert_eq!((victim.src, victim.dst), (1, 5));
        assert!(victim.paused_ps > 0 && victim.victim_ps == victim.paused_ps, "{victim:?}");
        assert_eq!(run.drops, 0);
        let summary = report::summarize(&run);
        let v = summary.victim.unwrap();
        assert_eq!(v.fair_gbps, 75.0);
        assert!(v.throughput_gbps < v.fair_gbps, "{v:?}");
        assert!(summary.pfc_priorities[0].victim_flows >= 1, "{:?}", summary.pfc_priorities);
    }

    /// `--cc mixed`: the even hosts' NICs run MetaRoCE, the odd ones DCQCN.
    /// The incast's receiver (host 0) sends MetaRoCE CNPs, whose extent a
    /// DCQCN sender does not read (it cuts as on a plain CNP): every sender
    /// cuts.
    #[test]
    fn mixed_runs_half_the_nics_in_each_mode() {
        use metaroce_golden::cc_params::CcMode::{Dcqcn, Metaroce};
        let run = run_cc(&congested(), SimCc::Mixed).unwrap();
        let modes: Vec<CcMode> = run.captures.iter().map(|(nic, _)| nic.cc.mode).collect();
        assert_eq!(modes, [Metaroce, Dcqcn, Metaroce, Dcqcn, Metaroce]);
        assert!(run.flows.iter().all(|f| !f.rate_steps.is_empty() && f.done_ps.is_some()));
        assert_eq!((run.cc(), report::summarize(&run).cc.as_str()), (SimCc::Mixed, "mixed"));
    }

    /// The golden top given a host's capture (frames at their ticks, then
    /// flush, no time advances between): its outputs, and the QP each
    /// frame was sent on (none: received).
    fn replay(nic: &NicConfig, frames: &[GenFrame]) -> (PipelineOutputs, Vec<Option<u32>>) {
        let regs = nic.cc.registers().unwrap();
        let mut pipeline = Pipeline::new(nic, &regs, ParserConfig::default()).unwrap();
        let mut out = PipelineOutputs::default();
        let mut time_base = TimeBase::default();
        let sent = frames
            .iter()
            .map(|frame| {
                let tick = time_base.tick(frame.time_ns.unwrap());
                sent_qp(pipeline.frame(&frame.data, false, tick, &mut out).as_ref())
            })
            .collect();
        pipeline.flush(&mut out);
        (out, sent)
    }

    /// Replaying a host's capture gives the releases of the closed loop:
    /// when the loop stepped the NIC changes nothing but when it saw them.
    #[test]
    fn a_host_capture_replays_to_the_same_releases() {
        let config = congested();
        let run = run(&config, CcMode::Metaroce).unwrap();
        for (host, (nic, frames)) in run.captures.iter().enumerate() {
            let (out, sent) = replay(nic, frames);
            assert!(host != 0 || sent.iter().all(Option::is_none));
            assert_eq!(out.releases, run.releases[host], "host {host}");
        }
        assert!(run.releases[1].len() as u64 == config.packets_per_message());
    }

    /// The golden top replaying a sender's capture stamps each rate change
    /// with its tick; `rates.csv` holds, at every row, the rate of the last
    /// change at or before the row's tick, and has a row at each such tick
    /// (a timer increase is told only at the QP's next event, so a row per
    /// sample of the last rate told would be late by up to that gap).
    #[test]
    fn rates_csv_steps_at_the_ticks_the_reaction_point_stamped() {
        let config = congested();
        let run = run(&config, CcMode::Dcqcn).unwrap();
        let hosts = config.scenario.hosts();
        // Per flow: (tick, kb/s) of every change, from the replays.
        let mut truth: Vec<Vec<(u64, u32)>> = vec![Vec::new(); run.flows.len()];
        for (host, (nic, frames)) in run.captures.iter().enumerate() {
            let (out, _) = replay(nic, frames);
            for change in out.cn.rates.iter().filter(|r| r.is_change()) {
                let peer = peer_of(host, change.qp, hosts).unwrap();
                let flow = run.flows.iter().position(|f| (f.src, f.dst) == (host, peer)).unwrap();
                truth[flow].push((change.time, change.rate_kbps));
            }
        }
        let changes: usize = truth.iter().map(Vec::len).sum();
        assert!(changes > 20, "{changes} rate changes");
        let line = config.link_gbps * 1_000_000;
        let rate_at = |flow: usize, tick: u64| {
            truth[flow].iter().take_while(|&&(t, _)| t <= tick).last().map_or(line, |&(_, r)| r)
        };
        let csv = report::rates_csv(&run);
        let mut rows = 0;
        let mut ticks = std::collections::HashSet::new();
        for line in csv.lines().skip(1) {
            let fields: Vec<&str> = line.split(',').collect();
            let tick: u64 = fields[0].parse().unwrap();
            ticks.insert(tick);
            for (flow, field) in fields[1..].iter().enumerate() {
                let expected = format!("{:.6}", f64::from(rate_at(flow, tick)) / 1e6);
                assert_eq!(*field, expected, "flow {flow} at {tick} ns");
            }
            rows += 1;
        }
        let missing: Vec<u64> = truth.iter().flatten().map(|&(t, _)| t).filter(|t| !ticks.contains(t)).collect();
        assert!(
            missing.is_empty(),
            "{} of {changes} change ticks have no row: {:?}",
            missing.len(),
            &missing[..5.min(missing.len())]
        );
        assert!(rows >= run.samples.len());
    }

    /// An 8:1 incast at 100G: the first packet the switch marks finds (on
    /// enqueue) or leaves (on dequeue) more than Kmin queued. Marked on
    /// enqueue, it waits out that queue before it reaches the receiver,
    /// so the first CNP comes at least Kmin's drain time (32 µs) after
    /// the first mark; marked on dequeue, it is on its way at once.
    #[test]
    fn a_mark_on_dequeue_reaches_a_cnp_without_waiting_out_the_queue() {
        let mut config = SimConfig::new(Scenario::Incast { senders: 8 }, 100);
        config.message_bytes = 512 << 10;
        config.max_time_ns = 150_000;
        config.record_captures = false;
        let kmin_drain_ps = config.red.kmin * 8 * 1000 / u64::from(config.link_gbps);
        let gap = |mark| {
            let config = SimConfig { mark, ..config.clone() };
            let run = run(&config, CcMode::Dcqcn).unwrap();
            run.first_cnp_ps.unwrap() - run.first_mark_ps.unwrap()
        };
        assert_eq!(SimConfig::new(Scenario::Incast { senders: 8 }, 100).mark, MarkPoint::Dequeue);
        let (dequeue, enqueue) = (gap(MarkPoint::Dequeue), gap(MarkPoint::Enqueue));
        // Wire time of the marked packet and one link delay, within 3 µs.
        assert!(dequeue < 3_000_000, "dequeue: first CNP {dequeue} ps after the first mark");
        assert!(enqueue >= kmin_drain_ps, "enqueue: first CNP {enqueue} ps after the first mark");
    }

    /// A chart of many flows draws, at every row of `rates.csv`, the
    /// lowest, median and highest rate of that row.
    #[test]
    fn rate_bands_hold_the_lowest_median_and_highest_rate_of_every_row() {
        let run = run(&congested(), CcMode::Dcqcn).unwrap();
        let bands = charts::rate_bands(&run);
        let level = |band: usize, x: f64| bands[band].points.iter().take_while(|p| p.0 <= x).last().unwrap().1;
        let mut rows = 0;
        run.for_each_rate_row(|tick, rates| {
            let mut sorted = rates.to_vec();
            sorted.sort_unstable();
            let x = tick as f64 / 1000.0;
            for (band, kbps) in [sorted[0], sorted[sorted.len() / 2], sorted[sorted.len() - 1]].into_iter().enumerate()
            {
                assert_eq!(level(band, x), f64::from(kbps) / 1e6, "band {band} at {tick} ns");
            }
            rows += 1;
        });
        assert!(rows > 20 && bands[0].points.len() > 4, "{rows} rows");
    }

    /// More than 64 flows: `rates.csv` is a row per rate change, each flow's
    /// start rate at 0, in time order (a column per flow would not fit).
    #[test]
    fn rates_csv_of_many_flows_is_a_row_per_change() {
        let mut config = SimConfig::new(Scenario::AllToAll { hosts: 9 }, 100);
        config.message_bytes = 64 << 10;
        config.mtu = 1024;
        config.red.kmin = 2_000;
        config.red.kmax = 8_000;
        config.record_captures = false;
        let run = run(&config, CcMode::Dcqcn).unwrap();
        assert_eq!(run.flows.len(), 72);
        let steps: usize = run.flows.iter().map(|f| f.rate_steps.len()).sum();
        assert!(steps > 0, "no rate changed");
        let csv = report::rates_csv(&run);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("time_ns,flow,gbps"));
        let rows: Vec<(u64, &str, &str)> = lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].parse().unwrap(), f[1], f[2])
            })
            .collect();
        assert_eq!(rows.len(), 72 + steps);
        assert!(rows.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        for (i, f) in run.flows.iter().enumerate() {
            let start = format!("{}.{:06}", f.start_rate_kbps / 1_000_000, f.start_rate_kbps % 1_000_000);
            let name = run.flow_name(i);
            assert_eq!(rows.iter().find(|r| r.1 == name).map(|r| (r.0, r.2)), Some((0, start.as_str())), "{name}");
        }
        let f = &run.flows[0];
        let (tick, kbps) = f.rate_steps.first().copied().unwrap_or((0, f.start_rate_kbps));
        let name = run.flow_name(0);
        let expected = format!("{}.{:06}", kbps / 1_000_000, kbps % 1_000_000);
        assert!(rows.contains(&(tick, name.as_str(), expected.as_str())), "{name} at {tick}");
    }

    /// Issue 17's bar: a row per goal and figure, a missed figure in bold.
    #[test]
    fn the_goals_table_marks_what_misses_the_bar() {
        let base = report::summarize(&run(&congested(), CcMode::Dcqcn).unwrap());
        let met = report::Summary {
            drops: 0,
            peak_buffer_bytes: 1000,
            completion_us: Some(base.ideal_completion_us),
            jain_fairness: 1.0,
            ..base.clone()
        };
        let missed = report::Summary {
            drops: 7,
            peak_buffer_bytes: 50_000_000,
            completion_us: None,
            jain_fairness: 0.5,
            ..base
        };
        let runs: Vec<Vec<&report::Summary>> = goals::GOALS.iter().map(|_| vec![&met, &missed]).collect();
        let table = goals::goals_table("goal", &["met", "missed"], &runs);
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert_eq!(rows.len(), 4 * goals::GOALS.len(), "{table}");
        for row in rows {
            let cells: Vec<&str> = row.split(" | ").collect();
            assert!(!cells[2].contains("missed") && cells[3].contains("(missed)"), "{row}");
        }
        assert!(
            table.contains("| incast 64:1 at 400G: peak shared buffer | ≤ 20000 kB | 1 kB | **50000 kB** (missed) |")
        );
        assert!(table.contains("| all-to-all, 8 hosts at 100G: peak shared buffer | ≤ 1600 kB |"), "Kmax at 100G");
    }

    #[test]
    fn qp_numbers_are_unique_both_ways_and_invert() {
        for hosts in [2, 3, 17, 65] {
            for h in 0..hosts {
                let peers: Vec<usize> = (0..hosts).filter(|&p| p != h).collect();
                let mut locals: Vec<u32> = peers.iter().map(|&p| qp_toward(h, p, hosts)).collect();
                let mut remotes: Vec<u32> = peers.iter().map(|&p| qp_toward(p, h, hosts)).collect();
                for &p in &peers {
                    assert_eq!(peer_of(h, qp_toward(h, p, hosts), hosts), Some(p));
                }
                locals.sort_unstable();
                locals.dedup();
                remotes.sort_unstable();
                remotes.dedup();
                assert_eq!((locals.len(), remotes.len()), (peers.len(), peers.len()));
                assert!(locals.iter().all(|&q| q < 4096));
            }
        }
    }
}
