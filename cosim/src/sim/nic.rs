//! One host's NIC in the closed loop: the pipeline top, golden model or
//! Verilated RTL, behind one interface. The simulator hands it frames (the
//! host's own sends with their QP, and what arrives from the wire) and moves
//! its time on; it answers with CNPs to send, rate changes and releases.

use metaroce_golden::cc_params::CcRegisters;
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::pacer::Release;
use metaroce_golden::pipeline::{Pipeline, PipelineOutputs};
use metaroce_golden::ParserConfig;

use crate::rtl::Handshake;
use crate::rtl_pacer::{RtlPipeline, TopFrame};
use crate::sim_handle::SimStop;

/// The data width of the Verilated top in the loop (the widest build:
/// fewest cycles per frame).
pub const RTL_WIDTH: u32 = 512;

/// What one step of a NIC produced, in golden terms.
#[derive(Debug, Default)]
pub struct NicOutputs {
    /// CNP frames (no FCS) and their emit ticks.
    pub cnps: Vec<(u64, Vec<u8>)>,
    /// (tick, local QP, rate kb/s) of every real rate change.
    pub rates: Vec<(u64, u32, u32)>,
    pub releases: Vec<Release>,
    /// When the pacer next has work: the NIC must be advanced then.
    pub next_busy: Option<u64>,
}

pub enum Nic {
    Golden { pipeline: Box<Pipeline>, out: PipelineOutputs },
    Rtl(Box<RtlPipeline>),
}

impl Nic {
    pub fn golden(nic: &NicConfig, regs: &CcRegisters) -> Result<Self, String> {
        let pipeline = Pipeline::new(nic, regs, ParserConfig::default())?;
        Ok(Nic::Golden { pipeline: Box::new(pipeline), out: PipelineOutputs::default() })
    }

    pub fn rtl(nic: &NicConfig, regs: &CcRegisters) -> Result<Self, String> {
        let mut top = RtlPipeline::new(RTL_WIDTH, Handshake::full_speed(0), regs, nic.mac()?)?;
        top.sim.load_qp_table(nic)?;
        Ok(Nic::Rtl(Box::new(top)))
    }

    pub fn is_rtl(&self) -> bool {
        matches!(self, Nic::Rtl(_))
    }

    /// One frame at `tick`: the host's own (sent on `tx_qp`) or received.
    pub fn frame(&mut self, data: &[u8], tick: u64, tx_qp: Option<u32>) -> Result<(), String> {
        match self {
            Nic::Golden { pipeline, out } => {
                pipeline.frame(data, false, tick, out);
                Ok(())
            }
            Nic::Rtl(top) => {
                let frame = TopFrame { data: data.to_vec(), mac_error: false, tick, tx_qp };
                top.push(std::slice::from_ref(&frame)).map_err(|stop| stopped(top, stop))
            }
        }
    }

    /// Moves time on to `tick` and hands out everything produced since the
    /// last step.
    pub fn advance(&mut self, tick: u64) -> Result<NicOutputs, String> {
        let mut result = NicOutputs::default();
        match self {
            Nic::Golden { pipeline, out } => {
                pipeline.advance(tick, out);
                result.next_busy = pipeline.next_busy_tick();
                result.cnps = out.cnps.drain(..).map(|c| (c.time, c.frame)).collect();
                result.rates =
                    out.rates.drain(..).filter(|r| r.is_change()).map(|r| (r.time, r.qp, r.rate_kbps)).collect();
                result.releases = std::mem::take(&mut out.releases);
            }
            Nic::Rtl(top) => {
                result.next_busy = top.advance(tick).map_err(|stop| stopped(top, stop))?;
                result.cnps = top.cnps.drain(..).map(|c| (c.tick, c.frame().to_vec())).collect();
                for rate in top.rates.drain(..) {
                    let change = rate.to_change()?;
                    if change.is_change() {
                        result.rates.push((change.time, change.qp, change.rate_kbps));
                    }
                }
                result.releases = top.releases.drain(..).map(|r| r.to_release()).collect();
            }
        }
        Ok(result)
    }
}

fn stopped(top: &RtlPipeline, stop: SimStop) -> String {
    match stop {
        SimStop::Assertion(message, cycle) => format!("RTL assertion at cycle {cycle}: {message}"),
        SimStop::Stalled(cycle) => {
            format!("the RTL top stalled at cycle {cycle} ({} cycles run)", top.sim.cycles())
        }
    }
}
