//! Safe wrapper over the Verilated congestion-notification block
//! (`csrc/cn_shim.cpp`, `rtl/roce_cn.v`).

use std::ffi::{c_char, c_void, CString};
use std::path::Path;

use metaroce_golden::cc_params::CcRegisters;
use metaroce_golden::cn_event::{CnEvent, NicConfig};
use metaroce_golden::requester::{RetxCause, RetxRequest};

use crate::rtl::{Handshake, Model, ModelKind};
use crate::sim_handle::{make_room, SimHandle, SimStop, CYCLES_PER_CALL, OUT_ROOM};

// `RawCcConfig`: `mr_cc_config`, the `cfg` bus registers, generated from the
// register table (golden/src/cc_table.rs) by build.rs.
include!(concat!(env!("OUT_DIR"), "/cc_config.rs"));

/// `mr_cn_event`: one `s_evt_*` transaction.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct RawEvent {
    kind: u64,
    time: u64,
    qp: u64,
    ce: u64,
    len: u64,
    ipv6: u64,
    vlan_valid: u64,
    vlan_id: u64,
    eth_dst: u64,
    eth_src: u64,
    ip_src_hi: u64,
    ip_src_lo: u64,
    ip_dst_hi: u64,
    ip_dst_lo: u64,
    udp_sport: u64,
    src_qp_valid: u64,
    src_qp: u64,
    extent_valid: u64,
    extent: u64,
    psn: u64,
    ack_req: u64,
    rc_req: u64,
    msg_end: u64,
    syndrome_valid: u64,
    syndrome: u64,
    sack_valid: u64,
    sack_beyond: u64,
    sack_bitmap: u64,
}

/// `MR_CN_CNP_MAX` of `csrc/cn_abi.h`.
const CNP_MAX: usize = 128;
/// `flags` bits of a collected CNP (`csrc/cn_abi.h`).
pub const CNP_TUSER_CHANGED: u64 = 1;
pub const CNP_BAD_TKEEP: u64 = 2;
pub const CNP_TOO_LONG: u64 = 4;

/// `mr_cn_cnp`: one CNP frame from `m_axis_*`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RtlCnp {
    /// Cycle of the last beat.
    pub cycle: u64,
    /// `m_axis_tuser`: the emit tick.
    pub tick: u64,
    pub len: u64,
    pub flags: u64,
    pub bytes: [u8; CNP_MAX],
}

impl Default for RtlCnp {
    fn default() -> Self {
        RtlCnp { cycle: 0, tick: 0, len: 0, flags: 0, bytes: [0; CNP_MAX] }
    }
}

impl RtlCnp {
    pub fn frame(&self) -> &[u8] {
        &self.bytes[..(self.len as usize).min(CNP_MAX)]
    }
}

/// `mr_cn_rate`: one `m_rate_*` transaction.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RtlRate {
    pub cycle: u64,
    pub time: u64,
    pub qp: u64,
    pub rate: u64,
    pub target: u64,
    pub alpha: u64,
    pub stage: u64,
    pub trigger: u64,
    /// `m_rate_sent`: the transaction hands a sent packet on.
    pub sent: u64,
    pub len: u64,
}

/// `mr_cn_retx`: one `m_retx_*` transaction, the requester's retransmit
/// request (`SPEC.md` §6.11).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RtlRetx {
    pub cycle: u64,
    pub time: u64,
    pub qp: u64,
    pub psn: u64,
    pub count: u64,
    pub cause: u64,
    pub mask: u64,
}

impl RtlRetx {
    /// The request in golden terms; `Err` names a cause code with no meaning.
    pub fn to_request(&self) -> Result<RetxRequest, String> {
        Ok(RetxRequest {
            time: self.time,
            qp: self.qp as u32,
            psn: self.psn as u32,
            count: self.count as u32,
            cause: RetxCause::from_code(self.cause as u8)
                .ok_or_else(|| format!("m_retx_cause = {} is no cause", self.cause))?,
            mask: self.mask,
        })
    }
}

/// `mr_cn_outputs`: the block's three output buffers for one call (also
/// the first part of the top's, `rtl_pacer.rs`).
#[repr(C)]
pub(crate) struct RawOutputs {
    cnps: *mut RtlCnp,
    cnp_cap: usize,
    cnp_count: usize,
    rates: *mut RtlRate,
    rate_cap: usize,
    rate_count: usize,
    retx: *mut RtlRetx,
    retx_cap: usize,
    retx_count: usize,
}

/// The block's output vectors, in `mr_cn_outputs` order.
pub(crate) type CnOuts<'a> = (&'a mut Vec<RtlCnp>, &'a mut Vec<RtlRate>, &'a mut Vec<RtlRetx>);

impl RawOutputs {
    /// `OUT_ROOM` fresh records at the end of each vector, for one call.
    pub(crate) fn room((cnps, rates, retx): CnOuts<'_>) -> Self {
        let (cnp_base, rate_base, retx_base) = (make_room(cnps), make_room(rates), make_room(retx));
        RawOutputs {
            cnps: cnps[cnp_base..].as_mut_ptr(),
            cnp_cap: OUT_ROOM,
            cnp_count: 0,
            rates: rates[rate_base..].as_mut_ptr(),
            rate_cap: OUT_ROOM,
            rate_count: 0,
            retx: retx[retx_base..].as_mut_ptr(),
            retx_cap: OUT_ROOM,
            retx_count: 0,
        }
    }

    /// Keeps what the call filled of the room `room` gave; returns how many.
    pub(crate) fn keep(&self, (cnps, rates, retx): CnOuts<'_>) -> usize {
        cnps.truncate(cnps.len() - OUT_ROOM + self.cnp_count);
        rates.truncate(rates.len() - OUT_ROOM + self.rate_count);
        retx.truncate(retx.len() - OUT_ROOM + self.retx_count);
        self.cnp_count + self.rate_count + self.retx_count
    }
}

extern "C" {
    fn mr_cn_new(
        variant: *const c_char,
        seed: u64,
        idle_pct: u32,
        stall_pct: u32,
        cfg: *const RawCcConfig,
    ) -> *mut c_void;
    fn mr_cn_push(sim: *mut c_void, events: *const RawEvent, n: usize, out: *mut RawOutputs, max_cycles: u64) -> usize;
}

/// Cycles the block may spend on one batch without taking an event or
/// producing anything before the harness calls it stalled. The reaction
/// point works off one timer expiry per cycle; after seconds of quiet a QP
/// below line rate can owe hundreds of thousands of them.
pub const CN_STALL_CYCLES: u64 = 50_000_000;
/// Why the RTL block stopped before its work was done.
pub type CnStop = SimStop;

/// One Verilated `roce_cn`.
pub struct RtlCn {
    sim: SimHandle,
    pub width: u32,
    events: Vec<RawEvent>,
    pub cnps: Vec<RtlCnp>,
    pub rates: Vec<RtlRate>,
    pub retx: Vec<RtlRetx>,
}

/// The Verilated class of the CN block: `width` bits, plain or with coverage.
pub fn cn_prefix(width: u32, kind: ModelKind) -> Result<String, String> {
    match kind {
        ModelKind::Plain => Ok(format!("Vcn{width}")),
        ModelKind::Coverage => Ok(format!("Vcn{width}Cov")),
        ModelKind::InjectedBug => Err("the congestion-notification block has no injected-bug build".into()),
    }
}

impl RtlCn {
    /// A fresh block after reset and its RAM-clearing sweep, configured.
    pub fn new(model: Model, handshake: Handshake, regs: &CcRegisters) -> Result<Self, String> {
        let width = model.width;
        let cfg = RawCcConfig::from(regs);
        let prefix = CString::new(cn_prefix(width, model.kind)?).expect("no NUL in a prefix");
        // SAFETY: a NUL-terminated name, plain values and a live config struct.
        let sim = unsafe { mr_cn_new(prefix.as_ptr(), handshake.seed, handshake.idle_pct, handshake.stall_pct, &cfg) };
        let sim = SimHandle::new(sim, "congestion-notification block", || {
            format!("no congestion-notification RTL model at DATA_WIDTH {width}")
        })?;
        Ok(RtlCn { sim, width, events: Vec::new(), cnps: Vec::new(), rates: Vec::new(), retx: Vec::new() })
    }

    pub fn load_qp_table(&mut self, nic: &NicConfig) -> Result<(), String> {
        self.sim.load_qp_table(nic)
    }

    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    pub fn assertion(&self) -> Option<(String, u64)> {
        self.sim.assertion()
    }

    pub fn open_trace(&mut self, path: &Path, from: u64, to: u64) -> Result<(), String> {
        self.sim.open_trace(path, from, to, None)
    }

    pub fn close_trace(&mut self) {
        self.sim.close_trace()
    }

    /// Writes Verilator coverage data (`coverage.dat` format) to `path`.
    pub fn write_coverage(&mut self, path: &Path) -> Result<(), String> {
        self.sim.write_coverage(path)
    }

    /// Sends `events` in order; outputs append to `self.cnps`, `self.rates`
    /// and `self.retx`.
    pub fn push(&mut self, events: &[CnEvent]) -> Result<(), CnStop> {
        let mut raw = std::mem::take(&mut self.events);
        raw.clear();
        raw.extend(events.iter().map(raw_event));
        let sim = &self.sim;
        let (cnps, rates, retx) = (&mut self.cnps, &mut self.rates, &mut self.retx);
        let result =
            sim.feed(raw.len(), CN_STALL_CYCLES, |from| call(sim, &raw[from..], (&mut *cnps, &mut *rates, &mut *retx)));
        self.events = raw;
        result
    }

    /// Clocks until the block is idle, collecting the outputs.
    pub fn drain(&mut self) -> Result<(), CnStop> {
        let sim = &self.sim;
        let (cnps, rates, retx) = (&mut self.cnps, &mut self.rates, &mut self.retx);
        sim.drain(CN_STALL_CYCLES, || call(sim, &[], (&mut *cnps, &mut *rates, &mut *retx)).1)
    }
}

/// One FFI call with `events`; returns (events taken, outputs).
fn call(sim: &SimHandle, events: &[RawEvent], outs: CnOuts<'_>) -> (usize, usize) {
    let (cnps, rates, retx) = outs;
    let mut out = RawOutputs::room((&mut *cnps, &mut *rates, &mut *retx));
    // SAFETY: each buffer covers the room `out` gives.
    let taken = unsafe { mr_cn_push(sim.ptr(), events.as_ptr(), events.len(), &mut out, CYCLES_PER_CALL) };
    (taken, out.keep((cnps, rates, retx)))
}

pub(crate) fn mac(bytes: [u8; 6]) -> u64 {
    bytes.iter().fold(0, |acc, &b| acc << 8 | u64::from(b))
}

fn raw_event(e: &CnEvent) -> RawEvent {
    let (src, dst) = (u128::from_be_bytes(e.ip_src), u128::from_be_bytes(e.ip_dst));
    RawEvent {
        kind: e.kind as u64,
        time: e.time,
        qp: e.qp.into(),
        ce: e.ce.into(),
        len: e.len.into(),
        ipv6: e.ipv6.into(),
        vlan_valid: e.vlan_id.is_some().into(),
        vlan_id: e.vlan_id.unwrap_or(0).into(),
        eth_dst: mac(e.eth_dst),
        eth_src: mac(e.eth_src),
        ip_src_hi: (src >> 64) as u64,
        ip_src_lo: src as u64,
        ip_dst_hi: (dst >> 64) as u64,
        ip_dst_lo: dst as u64,
        udp_sport: e.udp_sport.into(),
        src_qp_valid: e.src_qp.is_some().into(),
        src_qp: e.src_qp.unwrap_or(0).into(),
        extent_valid: e.extent.is_some().into(),
        extent: e.extent.unwrap_or(0).into(),
        psn: e.psn.into(),
        ack_req: e.ack_req.into(),
        rc_req: e.rc_req.into(),
        msg_end: e.msg_end.into(),
        syndrome_valid: e.syndrome.is_some().into(),
        syndrome: e.syndrome.unwrap_or(0).into(),
        sack_valid: e.sack.is_some().into(),
        sack_beyond: e.sack.is_some_and(|s| s.beyond).into(),
        sack_bitmap: e.sack.map_or(0, |s| s.bitmap),
    }
}
