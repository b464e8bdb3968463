//! One Verilated model behind the C ABI every shim shares (`mr_sim_*` in
//! `csrc/sim_common.cpp`): its cycle count, its first failed assertion, its
//! waveform and its coverage. Each block's wrapper holds one.

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;
use std::ptr::NonNull;

use metaroce_golden::cn_event::NicConfig;

extern "C" {
    fn mr_sim_free(sim: *mut c_void);
    fn mr_sim_cycles(sim: *mut c_void) -> u64;
    fn mr_sim_assertion(sim: *mut c_void) -> *const c_char;
    fn mr_sim_assertion_cycle(sim: *mut c_void) -> u64;
    fn mr_sim_trace_open(sim: *mut c_void, path: *const c_char, from: u64, to: u64) -> bool;
    fn mr_sim_trace_close(sim: *mut c_void);
    fn mr_sim_coverage_write(sim: *mut c_void, path: *const c_char) -> bool;
    fn mr_sim_load_qp(sim: *mut c_void, local: u64, remote: u64, priority: u64, psn_valid: u64, psn: u64) -> bool;
}

/// A live model; freed on drop.
pub struct SimHandle {
    sim: NonNull<c_void>,
    /// What the model is, for messages ("congestion-notification block").
    what: &'static str,
}

// The model belongs to one handle and is only touched through it.
unsafe impl Send for SimHandle {}

impl SimHandle {
    /// Takes a model an `mr_*_new` returned; `Err(missing)` for null.
    pub fn new(sim: *mut c_void, what: &'static str, missing: impl FnOnce() -> String) -> Result<Self, String> {
        NonNull::new(sim).map(|sim| SimHandle { sim, what }).ok_or_else(missing)
    }

    pub fn ptr(&self) -> *mut c_void {
        self.sim.as_ptr()
    }

    /// Rising clock edges since reset.
    pub fn cycles(&self) -> u64 {
        // SAFETY: `sim` is live until drop.
        unsafe { mr_sim_cycles(self.ptr()) }
    }

    /// The first RTL assertion that failed: its message and cycle.
    pub fn assertion(&self) -> Option<(String, u64)> {
        // SAFETY: `sim` is live; the string lives in it until the next call.
        let message = unsafe { mr_sim_assertion(self.ptr()) };
        if message.is_null() {
            return None;
        }
        let text = unsafe { CStr::from_ptr(message) }.to_string_lossy().into_owned();
        Some((text, unsafe { mr_sim_assertion_cycle(self.ptr()) }))
    }

    /// Dumps cycles `from..=to` into an FST file at `path`, until
    /// `close_trace` or drop; `untraced` explains a build without tracing.
    pub fn open_trace(&mut self, path: &Path, from: u64, to: u64, untraced: Option<&str>) -> Result<(), String> {
        let c_path = path_to_c(path)?;
        // SAFETY: a NUL-terminated path.
        if unsafe { mr_sim_trace_open(self.ptr(), c_path.as_ptr(), from, to) } {
            Ok(())
        } else if let Some(why) = untraced {
            Err(why.to_string())
        } else {
            Err(format!("cannot open {} for the waveform", path.display()))
        }
    }

    pub fn close_trace(&mut self) {
        // SAFETY: `sim` is live.
        unsafe { mr_sim_trace_close(self.ptr()) }
    }

    /// Loads the NIC's QP context table through `s_qpctx_*`.
    pub fn load_qp_table(&mut self, nic: &NicConfig) -> Result<(), String> {
        for ctx in &nic.qps {
            // SAFETY: `sim` is live.
            let (psn_valid, psn) = (u64::from(ctx.rq_psn.is_some()), u64::from(ctx.rq_psn.unwrap_or(0)));
            // SAFETY: `sim` is live.
            if !unsafe {
                mr_sim_load_qp(self.ptr(), ctx.local.into(), ctx.remote.into(), ctx.priority.into(), psn_valid, psn)
            } {
                return Err(format!("the {} did not take QP context {} -> {}", self.what, ctx.local, ctx.remote));
            }
        }
        Ok(())
    }

    /// Writes Verilator coverage data (`coverage.dat` format) to `path`.
    pub fn write_coverage(&mut self, path: &Path) -> Result<(), String> {
        let c_path = path_to_c(path)?;
        // SAFETY: a NUL-terminated path.
        if unsafe { mr_sim_coverage_write(self.ptr(), c_path.as_ptr()) } {
            Ok(())
        } else {
            Err(format!("this build of the {} records no coverage", self.what))
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        // SAFETY: made by an mr_*_new, freed once.
        unsafe { mr_sim_free(self.ptr()) }
    }
}

pub(crate) fn path_to_c(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| format!("{}: NUL in path", path.display()))
}

/// Why a model stopped before its work was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimStop {
    /// An assertion failed: message and cycle.
    Assertion(String, u64),
    /// Nothing moved for the block's stall limit; the cycle.
    Stalled(u64),
}

/// Cycles per FFI call of the batch-driven blocks.
pub const CYCLES_PER_CALL: u64 = 1 << 20;
/// Output buffer room per call, per output.
pub const OUT_ROOM: usize = 4096;

impl SimHandle {
    /// Feeds `total` inputs through `call(from) -> (taken, produced)`, one
    /// FFI call at a time, until all are taken; stalled after `stall_cycles`
    /// cycles in which nothing was taken or produced.
    pub fn feed(
        &self,
        total: usize,
        stall_cycles: u64,
        mut call: impl FnMut(usize) -> (usize, usize),
    ) -> Result<(), SimStop> {
        let (mut sent, mut quiet) = (0usize, 0u64);
        while sent < total {
            let (taken, produced) = call(sent);
            self.check()?;
            sent += taken;
            quiet = if taken + produced == 0 { quiet + CYCLES_PER_CALL } else { 0 };
            if quiet >= stall_cycles {
                return Err(SimStop::Stalled(self.cycles()));
            }
        }
        Ok(())
    }

    /// Calls `call() -> produced` (a drain: no inputs) until a call returns
    /// before its cycle budget with room to spare: the block is idle.
    pub fn drain(&self, stall_cycles: u64, mut call: impl FnMut() -> usize) -> Result<(), SimStop> {
        self.settle(stall_cycles, || (call(), false))
    }

    /// Calls `call() -> (produced, settled)` until it says settled, or
    /// returns before its cycle budget with room to spare (a call stops
    /// early only then, when full, or on an assertion); stalled after
    /// `stall_cycles` cycles with nothing produced.
    pub fn settle(&self, stall_cycles: u64, mut call: impl FnMut() -> (usize, bool)) -> Result<(), SimStop> {
        let mut quiet = 0u64;
        loop {
            let before = self.cycles();
            let (produced, settled) = call();
            self.check()?;
            let ran = self.cycles() - before;
            if settled || (ran < CYCLES_PER_CALL && produced < OUT_ROOM) {
                return Ok(());
            }
            quiet = if produced == 0 { quiet + ran } else { 0 };
            if quiet >= stall_cycles {
                return Err(SimStop::Stalled(self.cycles()));
            }
        }
    }

    fn check(&self) -> Result<(), SimStop> {
        match self.assertion() {
            Some((message, cycle)) => Err(SimStop::Assertion(message, cycle)),
            None => Ok(()),
        }
    }
}

/// Grows `out` by `OUT_ROOM` records for one call; returns the base index.
pub fn make_room<T: Default + Clone>(out: &mut Vec<T>) -> usize {
    let base = out.len();
    out.resize(base + OUT_ROOM, T::default());
    base
}
