//! Safe wrappers over the Verilated pacer (`csrc/pacer_shim.cpp`,
//! `rtl/roce_pacer.v`) and the whole pipeline top (`csrc/pipeline_shim.cpp`,
//! `rtl/roce_pipeline.v`).

use std::ffi::{c_char, c_void, CString};

use metaroce_golden::cc_params::CcRegisters;
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::pacer::{PacerCommand, Release};

use crate::rtl::{Handshake, ModelKind};
use crate::rtl_cn::{mac, RawCcConfig, RawOutputs as RawCnOutputs, RtlCnp, RtlRate, RtlRetx, CN_STALL_CYCLES};
use crate::sim_handle::{make_room, SimHandle, SimStop, CYCLES_PER_CALL, OUT_ROOM};

/// `mr_pacer_command`: one `s_cmd_*` transaction.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct RawCommand {
    time: u64,
    qp: u64,
    rate_valid: u64,
    rate: u64,
    send: u64,
    len: u64,
    pause: u64,
    pause_enable: u64,
    pause_quanta_hi: u64,
    pause_quanta_lo: u64,
}

/// `mr_pacer_release`: one `m_rel_*` transaction.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RtlRelease {
    pub cycle: u64,
    pub time: u64,
    pub qp: u64,
    pub len: u64,
    pub drop: u64,
}

impl RtlRelease {
    pub fn to_release(&self) -> Release {
        Release { time: self.time, qp: self.qp as u32, len: self.len as u32, dropped: self.drop != 0 }
    }
}

/// `mr_pipeline_config`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct RawPipelineConfig {
    cc: RawCcConfig,
    local_mac_valid: u64,
    local_mac: u64,
}

/// `mr_pipeline_out`: the top's output buffers for one call, the CN
/// block's and the releases.
#[repr(C)]
struct RawOutputs {
    cn: RawCnOutputs,
    rels: *mut RtlRelease,
    rel_cap: usize,
    rel_count: usize,
}

/// The top's output vectors, in `mr_pipeline_out` order.
type TopOuts<'a> = (&'a mut Vec<RtlCnp>, &'a mut Vec<RtlRate>, &'a mut Vec<RtlRetx>, &'a mut Vec<RtlRelease>);

/// Runs `call` on `OUT_ROOM` fresh records of each output buffer; keeps
/// what it filled; returns its result and the count of records produced.
fn with_room<R>(outs: TopOuts<'_>, call: impl FnOnce(&mut RawOutputs) -> R) -> (R, usize) {
    let (cnps, rates, retx, releases) = outs;
    let rel_base = make_room(releases);
    let mut raw = RawOutputs {
        cn: RawCnOutputs::room((&mut *cnps, &mut *rates, &mut *retx)),
        rels: releases[rel_base..].as_mut_ptr(),
        rel_cap: OUT_ROOM,
        rel_count: 0,
    };
    let result = call(&mut raw);
    releases.truncate(rel_base + raw.rel_count);
    (result, raw.cn.keep((cnps, rates, retx)) + raw.rel_count)
}

/// `mr_pipeline_frame`: a frame and its `s_axis_tuser` side band.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct RawFrame {
    data: *const u8,
    len: u64,
    mac_error: u64,
    tick: u64,
    tx: u64,
    tx_qp: u64,
}

extern "C" {
    fn mr_pacer_new(
        variant: *const c_char,
        seed: u64,
        idle_pct: u32,
        stall_pct: u32,
        cfg: *const RawCcConfig,
    ) -> *mut c_void;
    fn mr_pacer_push(
        sim: *mut c_void,
        cmds: *const RawCommand,
        n: usize,
        rels: *mut RtlRelease,
        rel_cap: usize,
        rel_count: *mut usize,
        max_cycles: u64,
    ) -> usize;
    fn mr_pipeline_new(
        variant: *const c_char,
        seed: u64,
        idle_pct: u32,
        stall_pct: u32,
        cfg: *const RawPipelineConfig,
    ) -> *mut c_void;
    fn mr_pipeline_push(
        sim: *mut c_void,
        frames: *const RawFrame,
        n: usize,
        out: *mut RawOutputs,
        max_cycles: u64,
    ) -> usize;
    fn mr_pipeline_advance(
        sim: *mut c_void,
        tick: u64,
        out: *mut RawOutputs,
        max_cycles: u64,
        next_busy_valid: *mut u64,
        next_busy_time: *mut u64,
    ) -> i32;
}

/// The pacer's stall limit: a rate change costs 44 cycles, a packet 2 or 3.
pub const PACER_STALL_CYCLES: u64 = 10_000_000;

/// One Verilated `roce_pacer`.
pub struct RtlPacer {
    pub sim: SimHandle,
    commands: Vec<RawCommand>,
    pub releases: Vec<RtlRelease>,
}

impl RtlPacer {
    /// A fresh pacer after reset and its RAM sweep.
    pub fn new(kind: ModelKind, handshake: Handshake, regs: &CcRegisters) -> Result<Self, String> {
        let prefix = match kind {
            ModelKind::Plain => "Vpacer",
            ModelKind::Coverage => "VpacerCov",
            ModelKind::InjectedBug => return Err("the pacer has no injected-bug build".into()),
        };
        let name = CString::new(prefix).expect("no NUL in a prefix");
        let cfg = RawCcConfig::from(regs);
        // SAFETY: a NUL-terminated name, plain values and a live config struct.
        let sim = unsafe { mr_pacer_new(name.as_ptr(), handshake.seed, handshake.idle_pct, handshake.stall_pct, &cfg) };
        let sim = SimHandle::new(sim, "pacer", || format!("no pacer RTL model {prefix}"))?;
        Ok(RtlPacer { sim, commands: Vec::new(), releases: Vec::new() })
    }

    /// Sends `commands` in order; releases append to `self.releases`.
    pub fn push(&mut self, commands: &[PacerCommand]) -> Result<(), SimStop> {
        let mut raw = std::mem::take(&mut self.commands);
        raw.clear();
        raw.extend(commands.iter().map(|c| RawCommand {
            time: c.time,
            qp: c.qp.into(),
            rate_valid: c.rate_kbps.is_some().into(),
            rate: c.rate_kbps.unwrap_or(0).into(),
            send: c.send_len.is_some().into(),
            len: c.send_len.unwrap_or(0).into(),
            pause: c.pause.is_some().into(),
            pause_enable: c.pause.map_or(0, |p| p.enable.into()),
            // Priority 0 in the top bits (bits 127:112), as the parser's
            // m_meta_pfc_quanta.
            pause_quanta_hi: c.pause.map_or(0, |p| join_quanta(&p.quanta[..4])),
            pause_quanta_lo: c.pause.map_or(0, |p| join_quanta(&p.quanta[4..])),
        }));
        let (sim, releases) = (&self.sim, &mut self.releases);
        let result = sim.feed(raw.len(), PACER_STALL_CYCLES, |from| pacer_call(sim, &raw[from..], releases));
        self.commands = raw;
        result
    }

    /// The end of the input: flushes until the pacer holds nothing.
    pub fn flush(&mut self) -> Result<(), SimStop> {
        let (sim, releases) = (&self.sim, &mut self.releases);
        sim.drain(PACER_STALL_CYCLES, || pacer_call(sim, &[], releases).1)
    }
}

/// Four pause times, the first in the top 16 bits.
fn join_quanta(quanta: &[u16]) -> u64 {
    quanta.iter().fold(0, |word, &q| word << 16 | u64::from(q))
}

fn pacer_call(sim: &SimHandle, cmds: &[RawCommand], releases: &mut Vec<RtlRelease>) -> (usize, usize) {
    let base = make_room(releases);
    let mut count = 0usize;
    // SAFETY: each pointer covers the count passed with it.
    let taken = unsafe {
        mr_pacer_push(
            sim.ptr(),
            cmds.as_ptr(),
            cmds.len(),
            releases[base..].as_mut_ptr(),
            OUT_ROOM,
            &mut count,
            CYCLES_PER_CALL,
        )
    };
    releases.truncate(base + count);
    (taken, count)
}

/// One frame into the top: its bytes and side band.
#[derive(Debug, Clone)]
pub struct TopFrame {
    pub data: Vec<u8>,
    pub mac_error: bool,
    pub tick: u64,
    /// The local QP the host sent it on, for a frame the host sent.
    pub tx_qp: Option<u32>,
}

/// One Verilated `roce_pipeline`.
pub struct RtlPipeline {
    pub sim: SimHandle,
    pub width: u32,
    pub cnps: Vec<RtlCnp>,
    pub rates: Vec<RtlRate>,
    pub retx: Vec<RtlRetx>,
    pub releases: Vec<RtlRelease>,
}

impl RtlPipeline {
    /// A fresh top after reset and its RAM sweeps.
    pub fn new(
        width: u32,
        handshake: Handshake,
        regs: &CcRegisters,
        local_mac: Option<[u8; 6]>,
    ) -> Result<Self, String> {
        let cfg = RawPipelineConfig {
            cc: RawCcConfig::from(regs),
            local_mac_valid: local_mac.is_some().into(),
            local_mac: local_mac.map_or(0, mac),
        };
        let name = CString::new(format!("Vpipeline{width}")).expect("no NUL in a prefix");
        // SAFETY: a NUL-terminated name, plain values and a live config struct.
        let sim =
            unsafe { mr_pipeline_new(name.as_ptr(), handshake.seed, handshake.idle_pct, handshake.stall_pct, &cfg) };
        let sim = SimHandle::new(sim, "pipeline top", || format!("no pipeline RTL model at DATA_WIDTH {width}"))?;
        Ok(RtlPipeline { sim, width, cnps: Vec::new(), rates: Vec::new(), retx: Vec::new(), releases: Vec::new() })
    }

    /// A fresh top with `nic`'s QP context table loaded.
    pub fn for_nic(
        width: u32,
        handshake: Handshake,
        regs: &CcRegisters,
        local_mac: Option<[u8; 6]>,
        nic: &NicConfig,
    ) -> Result<Self, String> {
        let mut top = Self::new(width, handshake, regs, local_mac)?;
        top.sim.load_qp_table(nic)?;
        Ok(top)
    }

    /// Sends `frames` in order; outputs append to the three vectors.
    pub fn push(&mut self, frames: &[TopFrame]) -> Result<(), SimStop> {
        let raw: Vec<RawFrame> = frames
            .iter()
            .map(|f| RawFrame {
                data: f.data.as_ptr(),
                len: f.data.len() as u64,
                mac_error: f.mac_error.into(),
                tick: f.tick,
                tx: f.tx_qp.is_some().into(),
                tx_qp: f.tx_qp.unwrap_or(0).into(),
            })
            .collect();
        let sim = &self.sim;
        let (cnps, rates, retx, releases) = (&mut self.cnps, &mut self.rates, &mut self.retx, &mut self.releases);
        sim.feed(raw.len(), CN_STALL_CYCLES, |from| {
            pipeline_call(sim, &raw[from..], (&mut *cnps, &mut *rates, &mut *retx, &mut *releases))
        })
    }

    /// Time moves on to `tick` once every frame pushed is in (`s_adv_*`):
    /// the releases due by then append to `self.releases`, and the
    /// retransmit requests of timers run out by then to `self.retx`.
    /// Returns the NIC's next busy tick (`next_busy_*`: the pacer's next
    /// slot or the requester's next timer).
    pub fn advance(&mut self, tick: u64) -> Result<Option<u64>, SimStop> {
        let (mut next_valid, mut next_time) = (0u64, 0u64);
        let sim = &self.sim;
        let (cnps, rates, retx, releases) = (&mut self.cnps, &mut self.rates, &mut self.retx, &mut self.releases);
        sim.settle(CN_STALL_CYCLES, || {
            let outs = (&mut *cnps, &mut *rates, &mut *retx, &mut *releases);
            let (settled, produced) = with_room(outs, |out| {
                // SAFETY: the buffers cover the room `out` gives.
                unsafe {
                    mr_pipeline_advance(sim.ptr(), tick, out, CYCLES_PER_CALL, &mut next_valid, &mut next_time) != 0
                }
            });
            (produced, settled)
        })?;
        Ok((next_valid != 0).then_some(next_time))
    }

    /// The end of the input: flushes until nothing is inside.
    pub fn flush(&mut self) -> Result<(), SimStop> {
        let sim = &self.sim;
        let (cnps, rates, retx, releases) = (&mut self.cnps, &mut self.rates, &mut self.retx, &mut self.releases);
        sim.drain(CN_STALL_CYCLES, || pipeline_call(sim, &[], (&mut *cnps, &mut *rates, &mut *retx, &mut *releases)).1)
    }
}

fn pipeline_call(sim: &SimHandle, frames: &[RawFrame], outs: TopOuts<'_>) -> (usize, usize) {
    with_room(outs, |out| {
        // SAFETY: the buffers cover the room `out` gives; the frames' bytes
        // outlive the call.
        unsafe { mr_pipeline_push(sim.ptr(), frames.as_ptr(), frames.len(), out, CYCLES_PER_CALL) }
    })
}
