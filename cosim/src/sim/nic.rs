//! One host's NIC in the closed loop: the golden pipeline top, and with
//! `--rtl` the Verilated top beside it. The simulator hands it frames (the
//! host's own sends with their QP, and what arrives from the wire) and moves
//! its time on; it answers with CNPs, ACKs and NAKs to send, rate changes,
//! retransmit requests and releases.
//! With the RTL in, the RTL's answers drive the loop, and every step is
//! held to the golden model's (difftest): the first difference stops the run.

use std::fmt::Debug;

use metaroce_golden::cc_params::CcRegisters;
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::opcode::RC_ACK;
use metaroce_golden::pacer::Release;
use metaroce_golden::pipeline::{Pipeline, PipelineOutputs};
use metaroce_golden::requester::RetxRequest;
use metaroce_golden::{parse_frame, ParserConfig};

use crate::rtl::Handshake;
use crate::rtl_pacer::{RtlPipeline, TopFrame};
use crate::sim_handle::SimStop;

/// The data width of the Verilated top in the loop (the widest build:
/// fewest cycles per frame).
pub const RTL_WIDTH: u32 = 512;

/// What one step of a NIC produced, in golden terms.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct NicOutputs {
    /// CNP frames (no FCS) and their emit ticks.
    pub cnps: Vec<(u64, Vec<u8>)>,
    /// The responder's ACK and NAK frames (no FCS) and their emit ticks.
    pub acks: Vec<(u64, Vec<u8>)>,
    /// (tick, local QP, rate kb/s) of every real rate change.
    pub rates: Vec<(u64, u32, u32)>,
    pub releases: Vec<Release>,
    /// The requester's retransmit requests (with `ack_mode`, `SPEC.md`
    /// §6.11): the host sends those packets again.
    pub retx: Vec<RetxRequest>,
    /// When the NIC next has work (the pacer's next slot, a retransmit
    /// timer): it must be advanced then.
    pub next_busy: Option<u64>,
}

pub struct Nic {
    golden: Box<Pipeline>,
    golden_out: PipelineOutputs,
    rtl: Option<Box<RtlPipeline>>,
}

impl Nic {
    /// The golden top, and the RTL beside it when `with_rtl`.
    pub fn new(nic: &NicConfig, regs: &CcRegisters, with_rtl: bool) -> Result<Self, String> {
        let golden = Box::new(Pipeline::new(nic, regs, ParserConfig::default())?);
        let rtl = if with_rtl {
            Some(Box::new(RtlPipeline::for_nic(RTL_WIDTH, Handshake::full_speed(0), regs, nic.mac()?, nic)?))
        } else {
            None
        };
        Ok(Nic { golden, golden_out: PipelineOutputs::default(), rtl })
    }

    /// One frame at `tick`: the host's own (sent on `tx_qp`) or received.
    pub fn frame(&mut self, data: &[u8], tick: u64, tx_qp: Option<u32>) -> Result<(), String> {
        self.golden.frame(data, false, tick, &mut self.golden_out);
        if let Some(top) = &mut self.rtl {
            let frame = TopFrame { data: data.to_vec(), mac_error: false, tick, tx_qp };
            top.push(std::slice::from_ref(&frame)).map_err(|stop| stopped(top, stop))?;
        }
        Ok(())
    }

    /// Moves time on to `tick` and hands out everything produced since the
    /// last step: the RTL's, once it equals the golden model's.
    pub fn advance(&mut self, tick: u64) -> Result<NicOutputs, String> {
        self.golden.advance(tick, &mut self.golden_out);
        let out = &mut self.golden_out;
        let golden = NicOutputs {
            cnps: out.cn.cnps.drain(..).map(|c| (c.time, c.frame)).collect(),
            acks: out.cn.acks.drain(..).map(|a| (a.time, a.frame)).collect(),
            rates: out.cn.rates.drain(..).filter(|r| r.is_change()).map(|r| (r.time, r.qp, r.rate_kbps)).collect(),
            releases: std::mem::take(&mut out.releases),
            retx: std::mem::take(&mut out.cn.retx),
            next_busy: self.golden.next_busy_tick(),
        };
        let Some(top) = &mut self.rtl else { return Ok(golden) };
        let next_busy = top.advance(tick).map_err(|stop| stopped(top, stop))?;
        // One frame output: CNPs and ACKs apart by opcode, each stream in
        // its order (the arbiter's order between them is not the model's,
        // SPEC.md §6.10).
        let (acks, cnps) = top.cnps.drain(..).map(|c| (c.tick, c.frame().to_vec())).partition(|(_, f)| is_ack(f));
        let mut rtl = NicOutputs {
            next_busy,
            cnps,
            acks,
            releases: top.releases.drain(..).map(|r| r.to_release()).collect(),
            retx: top.retx.drain(..).map(|r| r.to_request()).collect::<Result<_, _>>()?,
            rates: Vec::new(),
        };
        for rate in top.rates.drain(..) {
            let change = rate.to_change()?;
            if change.is_change() {
                rtl.rates.push((change.time, change.qp, change.rate_kbps));
            }
        }
        match first_difference(&rtl, &golden) {
            None => Ok(rtl),
            Some(diff) => Err(format!("RTL and golden part at cycle {}: {diff}", top.sim.cycles())),
        }
    }
}

/// Where two steps' outputs part: the stream, the index, and both sides.
pub fn first_difference(rtl: &NicOutputs, golden: &NicOutputs) -> Option<String> {
    fn stream<T: PartialEq + Debug>(name: &str, rtl: &[T], golden: &[T]) -> Option<String> {
        let at = (0..rtl.len().max(golden.len())).find(|&i| rtl.get(i) != golden.get(i))?;
        Some(format!("{name} #{at} of this step: RTL {:?}, golden {:?}", rtl.get(at), golden.get(at)))
    }
    stream("release", &rtl.releases, &golden.releases)
        .or_else(|| stream("rate change (tick, qp, kb/s)", &rtl.rates, &golden.rates))
        .or_else(|| stream("CNP (tick, frame)", &rtl.cnps, &golden.cnps))
        .or_else(|| stream("ACK or NAK (tick, frame)", &rtl.acks, &golden.acks))
        .or_else(|| stream("retransmit request", &rtl.retx, &golden.retx))
        .or_else(|| {
            (rtl.next_busy != golden.next_busy)
                .then(|| format!("next busy tick: RTL {:?}, golden {:?}", rtl.next_busy, golden.next_busy))
        })
}

/// An RC ACKNOWLEDGE (an ACK or NAK), as the parser reads it.
fn is_ack(frame: &[u8]) -> bool {
    parse_frame(frame, false, &ParserConfig::default()).opcode == Some(RC_ACK)
}

fn stopped(top: &RtlPipeline, stop: SimStop) -> String {
    match stop {
        SimStop::Assertion(message, cycle) => format!("RTL assertion at cycle {cycle}: {message}"),
        SimStop::Stalled(cycle) => {
            format!("the RTL top stalled at cycle {cycle} ({} cycles run)", top.sim.cycles())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_names_the_stream_and_both_sides() {
        let release = |time| Release { time, qp: 17, len: 1082, dropped: false };
        let golden = NicOutputs { releases: vec![release(10), release(20)], next_busy: Some(64), ..Default::default() };
        let same = NicOutputs { releases: vec![release(10), release(20)], next_busy: Some(64), ..Default::default() };
        assert_eq!(first_difference(&same, &golden), None);
        let late = NicOutputs { releases: vec![release(10), release(21)], next_busy: Some(64), ..Default::default() };
        let diff = first_difference(&late, &golden).unwrap();
        assert!(diff.starts_with("release #1 of this step: RTL Some(Release { time: 21"), "{diff}");
        assert!(diff.contains("golden Some(Release { time: 20"), "{diff}");
        let short = NicOutputs { releases: vec![release(10)], next_busy: Some(64), ..Default::default() };
        assert!(first_difference(&short, &golden).unwrap().contains("RTL None"));
        let wake = NicOutputs { releases: vec![release(10), release(20)], next_busy: None, ..Default::default() };
        assert_eq!(first_difference(&wake, &golden).unwrap(), "next busy tick: RTL None, golden Some(64)");
    }
}
