//! Safe wrapper over the Verilated parser (`csrc/parser_shim.cpp`).

use std::ffi::{c_char, c_void, CString};
use std::path::Path;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use metaroce_golden::record::MacAddr;
use metaroce_golden::wire::{ethertype, FairShare, SackRepr};
use metaroce_golden::{FrameClass, ParseError, ParseRecord};

use crate::capture::Frame;
use crate::sim_handle::SimHandle;

include!(concat!(env!("OUT_DIR"), "/parser_record.rs"));

extern "C" {
    fn mr_parser_new(variant: *const c_char, seed: u64, idle_pct: u32, stall_pct: u32) -> *mut c_void;
    fn mr_parser_push(
        sim: *mut c_void,
        bytes: *const u8,
        lens: *const u32,
        user: *const u8,
        nframes: usize,
        out: *mut RtlParserRecord,
        out_cap: usize,
        out_count: *mut usize,
        last_beat_cycle: *mut u64,
    ) -> usize;
    fn mr_parser_drain(
        sim: *mut c_void,
        out: *mut RtlParserRecord,
        out_cap: usize,
        want: usize,
        max_idle_cycles: u64,
    ) -> usize;
    fn mr_parser_idle(sim: *mut c_void, cycles: u64);
    fn mr_parser_bare_run(
        sim: *mut c_void,
        bytes: *const u8,
        lens: *const u32,
        nframes: usize,
        records: *mut u64,
    ) -> u64;
}

/// AXI-Stream data widths the harness has a Verilated model for.
pub const DATA_WIDTHS: [u32; 2] = [64, 512];

/// Which build of the parser (cosim/build.rs `VARIANTS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelKind {
    /// Assertions on, FST tracing available.
    #[default]
    Plain,
    /// Verilator line and toggle coverage (no tracing).
    Coverage,
    /// A deliberate bug (`METAROCE_INJECT_BUG`, 64 bits only), for testing
    /// the harness itself.
    InjectedBug,
}

impl ModelKind {
    /// Why a build cannot trace, if it cannot.
    pub fn untraced(self) -> Option<&'static str> {
        (self == ModelKind::Coverage).then_some("the coverage build has no tracing; run --wave without --coverage")
    }
}

/// A Verilated parser: data width and build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    pub width: u32,
    pub kind: ModelKind,
}

impl Model {
    pub fn plain(width: u32) -> Self {
        Model { width, kind: ModelKind::Plain }
    }

    /// The Verilated class prefix of this build.
    pub fn prefix(&self) -> String {
        let suffix = match self.kind {
            ModelKind::Plain => "",
            ModelKind::Coverage => "Cov",
            ModelKind::InjectedBug => "Bug",
        };
        format!("Vparser{}{suffix}", self.width)
    }
}

/// Cycles without any record before a drain calls the RTL stalled; far
/// above the parser's latency of 10 cycles (SPEC.md §3.1).
pub const STALL_CYCLES: u64 = 1000;

/// How the harness paces the RTL's handshakes (`csrc/parser_shim.cpp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handshake {
    /// Seed of the idle/backpressure/null-lane sequence.
    pub seed: u64,
    /// Percent of cycles the source idles before presenting a beat.
    pub idle_pct: u32,
    /// Percent of cycles the record sink holds `m_meta_ready` low.
    pub stall_pct: u32,
}

impl Handshake {
    /// Full speed: a beat every cycle, the sink always ready.
    pub fn full_speed(seed: u64) -> Self {
        Handshake { seed, idle_pct: 0, stall_pct: 0 }
    }
}

/// Frames whose record arrives later than this after the frame went in
/// cannot be in the output buffer at once: the pipeline holds 3.
const RECORDS_IN_FLIGHT: usize = 8;

/// One Verilated `roce_parser`.
pub struct RtlParser {
    sim: SimHandle,
    model: Model,
    bytes: Vec<u8>,
    lens: Vec<u32>,
    user: Vec<u8>,
    out: Vec<RtlParserRecord>,
    out_count: usize,
    last_beat_cycles: Vec<u64>,
}

impl RtlParser {
    /// A fresh model after reset. The handshake seed also seeds the
    /// randomisation of X and initial values.
    pub fn new(model: Model, handshake: Handshake) -> Result<Self, String> {
        let prefix = CString::new(model.prefix()).expect("no NUL in a prefix");
        // SAFETY: a NUL-terminated name and plain values in; null for an unknown variant.
        let sim = unsafe { mr_parser_new(prefix.as_ptr(), handshake.seed, handshake.idle_pct, handshake.stall_pct) };
        let sim = SimHandle::new(sim, "parser", || {
            format!("no RTL model {:?} at DATA_WIDTH {}; built widths: {DATA_WIDTHS:?}", model.kind, model.width)
        })?;
        Ok(RtlParser {
            sim,
            model,
            bytes: Vec::new(),
            lens: Vec::new(),
            user: Vec::new(),
            out: Vec::new(),
            out_count: 0,
            last_beat_cycles: Vec::new(),
        })
    }

    pub fn model(&self) -> Model {
        self.model
    }

    /// The first RTL assertion that failed: its message and cycle.
    pub fn assertion(&self) -> Option<(String, u64)> {
        self.sim.assertion()
    }

    /// The model's speed limit: `frames` (concatenated in `bytes`) back to
    /// back in a C++ loop with no Rust, no golden model and no record
    /// copies. Returns (cycles, records seen).
    pub fn bare_run(&mut self, bytes: &[u8], lens: &[u32]) -> (u64, u64) {
        assert_eq!(bytes.len(), lens.iter().map(|&l| l as usize).sum::<usize>());
        let mut records = 0;
        // SAFETY: `lens` describes `bytes` exactly (checked above).
        let cycles =
            unsafe { mr_parser_bare_run(self.sim.ptr(), bytes.as_ptr(), lens.as_ptr(), lens.len(), &mut records) };
        (cycles, records)
    }

    /// Clocks `cycles` cycles with no input (records handed out are dropped).
    pub fn idle(&mut self, cycles: u64) {
        // SAFETY: `sim` is live.
        unsafe { mr_parser_idle(self.sim.ptr(), cycles) }
    }

    /// Dumps cycles `from..=to` into an FST file at `path`, until
    /// `close_trace` or drop.
    pub fn open_trace(&mut self, path: &Path, from: u64, to: u64) -> Result<(), String> {
        self.sim.open_trace(path, from, to, self.model.kind.untraced())
    }

    pub fn close_trace(&mut self) {
        self.sim.close_trace()
    }

    /// Writes Verilator coverage data (`coverage.dat` format) to `path`.
    pub fn write_coverage(&mut self, path: &Path) -> Result<(), String> {
        self.sim.write_coverage(path)
    }

    /// Rising clock edges since reset.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// Sends every frame of `frames` (fewer if an RTL assertion fails);
    /// returns the records that came out meanwhile (they may belong to
    /// earlier frames: the pipeline lags).
    pub fn push<'a>(&mut self, frames: impl IntoIterator<Item = &'a Frame>) -> &[RtlParserRecord] {
        self.bytes.clear();
        self.lens.clear();
        self.user.clear();
        for frame in frames {
            self.bytes.extend_from_slice(&frame.data);
            self.lens.push(frame.data.len() as u32);
            self.user.push(frame.mac_error as u8);
        }
        let n = self.lens.len();
        self.out.clear();
        self.out.resize(n + RECORDS_IN_FLIGHT, RtlParserRecord::default());
        self.last_beat_cycles.clear();
        self.last_beat_cycles.resize(n, 0);
        let (mut sent, mut byte_offset, mut produced) = (0usize, 0usize, 0usize);
        while sent < n {
            let mut got = 0usize;
            // SAFETY: every pointer covers the counts passed with it.
            let done = unsafe {
                mr_parser_push(
                    self.sim.ptr(),
                    self.bytes[byte_offset..].as_ptr(),
                    self.lens[sent..].as_ptr(),
                    self.user[sent..].as_ptr(),
                    n - sent,
                    self.out[produced..].as_mut_ptr(),
                    self.out.len() - produced,
                    &mut got,
                    self.last_beat_cycles[sent..].as_mut_ptr(),
                )
            };
            byte_offset += self.lens[sent..sent + done].iter().map(|&l| l as usize).sum::<usize>();
            sent += done;
            produced += got;
            if self.assertion().is_some() {
                // The model stops at a failed assertion; the caller reports it.
                break;
            }
            if produced == self.out.len() {
                self.out.resize(self.out.len() + RECORDS_IN_FLIGHT, RtlParserRecord::default());
            }
        }
        self.out_count = produced;
        &self.out[..produced]
    }

    /// The records the last `push` or `drain` returned.
    pub fn records(&self) -> &[RtlParserRecord] {
        &self.out[..self.out_count]
    }

    /// Cycle on which each frame of the last `push` had its last beat taken.
    pub fn last_beat_cycles(&self) -> &[u64] {
        &self.last_beat_cycles
    }

    /// Clocks with no input until `want` records came out or none came for
    /// `STALL_CYCLES` cycles; returns those that came.
    pub fn drain(&mut self, want: usize) -> &[RtlParserRecord] {
        self.out.clear();
        self.out.resize(want, RtlParserRecord::default());
        // SAFETY: `out` holds `want` records.
        let got = unsafe { mr_parser_drain(self.sim.ptr(), self.out.as_mut_ptr(), want, want, STALL_CYCLES) };
        self.out_count = got;
        &self.out[..got]
    }
}

impl RtlParserRecord {
    /// The record in the golden model's terms; `Err` names a code the RTL
    /// must never drive.
    pub fn to_parse_record(&self) -> Result<ParseRecord, String> {
        let class = FrameClass::from_code(self.frame_class as u8)
            .ok_or_else(|| format!("m_meta_frame_class = {} is no class", self.frame_class))?;
        let error = match self.error {
            0 => None,
            code => {
                Some(ParseError::from_code(code as u8).ok_or_else(|| format!("m_meta_error = {code} is no error"))?)
            }
        };
        let on = |valid: u64| valid != 0;
        let eth = on(self.eth_valid);
        let tagged = eth && self.vlan_count > 0;
        let ip = on(self.ip_valid);
        let udp = on(self.udp_valid);
        let bth = on(self.bth_valid);
        let icrc = on(self.icrc_valid);
        let reth = on(self.reth_valid);
        let aeth = on(self.aeth_valid);
        let atomic = on(self.atomic_valid);
        let deth = on(self.deth_valid);
        let pfc = on(self.pfc_valid);
        // A 128-bit port (PARSER_WIDE_FIELDS) from its two halves.
        let wide = |hi: u64, lo: u64| u128::from(hi) << 64 | u128::from(lo);
        // The address layout follows the EtherType, as the parser's does.
        let ip_addr = |hi: u64, lo: u64| match self.eth_type as u16 {
            ethertype::IPV6 => IpAddr::from(Ipv6Addr::from(wide(hi, lo))),
            _ => IpAddr::from(Ipv4Addr::from(lo as u32)),
        };
        Ok(ParseRecord {
            class,
            error,
            frame_len: self.frame_len as u32,
            eth_type: eth.then_some(self.eth_type as u16),
            vlan_count: eth.then_some(self.vlan_count as u8),
            vlan_pcp: tagged.then_some(self.vlan_pcp as u8),
            vlan_id: tagged.then_some(self.vlan_id as u16),
            eth_dst: eth.then_some(MacAddr::from_u64(self.eth_dst)),
            eth_src: eth.then_some(MacAddr::from_u64(self.eth_src)),
            ip_version: ip.then_some(self.ip_version as u8),
            dscp: ip.then_some(self.dscp as u8),
            ecn: ip.then_some(self.ecn as u8),
            ip_src: ip.then(|| ip_addr(self.ip_src_hi, self.ip_src_lo)),
            ip_dst: ip.then(|| ip_addr(self.ip_dst_hi, self.ip_dst_lo)),
            udp_sport: udp.then_some(self.udp_sport as u16),
            udp_dport: udp.then_some(self.udp_dport as u16),
            opcode: bth.then_some(self.opcode as u8),
            se: bth.then_some(self.se as u8),
            mig_req: bth.then_some(self.mig_req as u8),
            pad_cnt: bth.then_some(self.pad_cnt as u8),
            tver: bth.then_some(self.tver as u8),
            pkey: bth.then_some(self.pkey as u16),
            fecn: bth.then_some(self.fecn as u8),
            becn: bth.then_some(self.becn as u8),
            dest_qp: bth.then_some(self.dest_qp as u32),
            ack_req: bth.then_some(self.ack_req as u8),
            psn: bth.then_some(self.psn as u32),
            icrc: icrc.then_some(self.icrc as u32),
            icrc_ok: icrc.then_some(self.icrc_ok != 0),
            payload_len: icrc.then_some(self.payload_len as u16),
            reth_va: reth.then_some(self.reth_va),
            reth_rkey: reth.then_some(self.reth_rkey as u32),
            reth_dma_len: reth.then_some(self.reth_dma_len as u32),
            aeth_syndrome: aeth.then_some(self.aeth_syndrome as u8),
            aeth_msn: aeth.then_some(self.aeth_msn as u32),
            imm_data: on(self.imm_valid).then_some(self.imm_data as u32),
            ieth_rkey: on(self.ieth_valid).then_some(self.ieth_rkey as u32),
            deth_qkey: deth.then_some(self.deth_qkey as u32),
            deth_src_qp: deth.then_some(self.deth_src_qp as u32),
            atomic_va: atomic.then_some(self.atomic_va),
            atomic_rkey: atomic.then_some(self.atomic_rkey as u32),
            atomic_swap_add: atomic.then_some(self.atomic_swap_add),
            atomic_compare: atomic.then_some(self.atomic_compare),
            atomic_ack_orig: on(self.atomic_ack_valid).then_some(self.atomic_ack_orig),
            cnp_extent: on(self.cnp_valid).then_some(self.cnp_extent as u16),
            cnp_share: on(self.cnp_v2).then(|| {
                FairShare::from_fields(
                    self.cnp_flags as u8,
                    self.cnp_share as u16,
                    self.cnp_active as u16,
                    self.cnp_seq as u16,
                )
            }),
            sack: on(self.sack_valid).then_some(SackRepr { bitmap: self.sack_bitmap, beyond: on(self.sack_beyond) }),
            mac_control_opcode: on(self.mac_control_valid).then_some(self.mac_control_opcode as u16),
            pause_time: on(self.pause_valid).then_some(self.pause_time as u16),
            pfc_enable: pfc.then_some(self.pfc_enable as u16),
            // Priority 0 in the port's top bits.
            pfc_quanta: pfc.then(|| {
                let quanta = wide(self.pfc_quanta_hi, self.pfc_quanta_lo);
                std::array::from_fn(|p| (quanta >> (16 * (7 - p))) as u16)
            }),
        })
    }
}
