//! `metaroce sim`: closed-loop congestion scenarios (`SPEC.md` §9). N hosts,
//! each with the pipeline top in its NIC (golden model or Verilated RTL),
//! on one switch: links with a rate and a propagation delay, a shared
//! buffer with RED-style ECN marking and tail drop. Receivers' NICs turn
//! CE marks into CNPs; senders' NICs cut their QPs' rates and pace.
//!
//! Discrete events in ps. A NIC sees ns ticks (`ps / 1000`); it is stepped
//! whenever a frame reaches it, its host posts a packet, or its pacer's next
//! busy slot starts (the pacer tells when), so no release is found late.
//! A host keeps one packet per QP between hand-over and the wire: the next
//! is posted when the previous one starts on the host's link. A packet the
//! switch drops is sent again (selective repeat) once the receiver's NAK
//! would reach the sender.

//!
//! The files: [`scenario`] (what runs: scenario, links, NICs), [`world`]
//! (the event loop), [`outputs`] (what a run gives back), and the parts of
//! the network: [`nic`], [`packet`], [`switch`]; [`report`] and [`plot`]
//! turn runs into tables, charts and the README's figures.

pub mod nic;
pub mod outputs;
pub mod packet;
pub mod plot;
pub mod report;
pub mod scenario;
pub mod switch;
pub mod world;

pub use outputs::{Flow, Sample, SimFailure, SimRun};
pub use scenario::{peer_of, qp_toward, RtlPlacement, Scenario, SimConfig, QP_BASE};
pub use world::run;

#[cfg(test)]
mod tests {
    use super::*;
    use metaroce_golden::cc_params::CcMode;
    use metaroce_golden::cn::TimeBase;
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

    /// Replaying a host's capture (frames at their ticks, then flush, no
    /// time advances between) gives the releases of the closed loop: when
    /// the loop stepped the NIC changes nothing but when it saw them.
    #[test]
    fn a_host_capture_replays_to_the_same_releases() {
        let config = congested();
        let run = run(&config, CcMode::Metaroce).unwrap();
        for (host, (nic, frames)) in run.captures.iter().enumerate() {
            let regs = nic.cc.registers().unwrap();
            let mut pipeline = Pipeline::new(nic, &regs, ParserConfig::default()).unwrap();
            let mut out = PipelineOutputs::default();
            let mut time_base = TimeBase::default();
            for frame in frames {
                let tick = time_base.tick(frame.time_ns.unwrap());
                let event = pipeline.frame(&frame.data, false, tick, &mut out);
                assert!(host != 0 || sent_qp(event.as_ref()).is_none());
            }
            pipeline.flush(&mut out);
            assert_eq!(out.releases, run.releases[host], "host {host}");
        }
        assert!(run.releases[1].len() as u64 == config.packets_per_message());
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
