//! The congestion-notification block in the harness (`SPEC.md` §6): a
//! capture's frames become events, the golden model and the Verilated
//! `roce_cn` take the same events, and their CNPs and rate changes are
//! compared in order, each stream on its own.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use metaroce_golden::cc_params::{CcMode, CcRegisters, FRACTION_ONE};
use metaroce_golden::cn::{CongestionNotifier, TimeBase, DEFAULT_QP_COUNT};
use metaroce_golden::cn_event::{classify, CnEvent, NicConfig};
use metaroce_golden::notify::CnpSent;
use metaroce_golden::pacer::Release;
use metaroce_golden::reaction::{RateChange, RateStage, RateTrigger};
use metaroce_golden::{parse_frame, ParserConfig};
use serde::{Deserialize, Serialize};

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::harness::{CaptureRun, CosimOptions, Ending, FrameSource};
use crate::report::{field_diffs, Divergence, DivergenceKind, FieldDiff, Record, Transaction};
use crate::rtl::{Handshake, Model};
use crate::rtl_cn::{CnStop, RtlCn, RtlCnp, RtlRate, CNP_BAD_TKEEP, CNP_TOO_LONG, CNP_TUSER_CHANGED, CN_STALL_CYCLES};
use crate::sim_handle::SimStop;

/// The NIC file of a capture: `name.nic.json` beside `name.pcap`.
pub fn nic_file_of(capture: &Path) -> PathBuf {
    capture.with_extension("nic.json")
}

/// What the command line sets for the CN block, on top of the NIC file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CnOverrides {
    /// Use this NIC file instead of the one beside the capture.
    pub nic: Option<PathBuf>,
    /// This NIC's MAC (which frames are ours), over the NIC file's.
    pub local_mac: Option<String>,
    pub mode: Option<CcMode>,
    /// `--cc-param NAME=VALUE`, in order.
    pub params: Vec<(String, String)>,
}

impl CnOverrides {
    /// The flags that give these overrides, for a repro command.
    pub fn args(&self) -> String {
        let mut s = String::new();
        if let Some(nic) = &self.nic {
            write!(s, " --nic {}", nic.display()).unwrap();
        }
        if let Some(mac) = &self.local_mac {
            write!(s, " --local-mac {mac}").unwrap();
        }
        if let Some(mode) = self.mode {
            write!(s, " --cc {}", mode.name()).unwrap();
        }
        for (name, value) in &self.params {
            write!(s, " --cc-param {name}={value}").unwrap();
        }
        s
    }
}

/// Everything the CN block of one capture's run is configured with.
#[derive(Debug, Clone)]
pub struct CnSetup {
    pub nic: NicConfig,
    pub local_mac: Option<[u8; 6]>,
    pub regs: CcRegisters,
    pub qp_count: usize,
    /// The NIC file read, if any.
    pub nic_file: Option<PathBuf>,
    pub overrides: CnOverrides,
}

impl CnSetup {
    /// The NIC file (`--nic`, else the one beside the capture, else none),
    /// then the overrides; refuses bad parameters naming them.
    pub fn for_capture(capture: &Path, overrides: &CnOverrides) -> Result<Self, String> {
        let path = overrides.nic.clone().or_else(|| Some(nic_file_of(capture)).filter(|p| p.exists()));
        let mut nic = match &path {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
                serde_json::from_str::<NicConfig>(&text).map_err(|e| format!("{}: {e}", p.display()))?
            }
            None => NicConfig::default(),
        };
        let named = |e: String| match &path {
            Some(p) => format!("{}: {e}", p.display()),
            None => e,
        };
        if let Some(mode) = overrides.mode {
            nic.cc.mode = mode;
        }
        if let Some(mac) = &overrides.local_mac {
            nic.local_mac = Some(mac.clone());
        }
        for (name, value) in &overrides.params {
            nic.cc.set(name, value).map_err(|e| e.to_string())?;
        }
        let regs = nic.cc.registers().map_err(|e| named(e.to_string()))?;
        let local_mac = nic.mac().map_err(named)?;
        if let Some(ctx) = nic.qps.iter().find(|c| c.local as usize >= DEFAULT_QP_COUNT || c.remote > 0xFF_FFFF) {
            return Err(named(format!(
                "QP context {} -> {}: local QPs are 0..{DEFAULT_QP_COUNT}, remote QPs 24 bits",
                ctx.local, ctx.remote
            )));
        }
        Ok(CnSetup { nic, local_mac, regs, qp_count: DEFAULT_QP_COUNT, nic_file: path, overrides: overrides.clone() })
    }

    fn golden(&self) -> CongestionNotifier {
        let mut cn = CongestionNotifier::new(self.qp_count, self.regs);
        cn.load_qp_table(&self.nic).expect("QP contexts checked by for_capture");
        cn
    }
}

/// A CNP or a rate change as both models report it (JSONL `event` lines).
/// Rates are Mb/s with kb/s precision; alpha and the extent are fractions
/// of 1 (Q1.15 exactly: value * 32768 is an integer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum CnRecord {
    Cnp {
        tick: u64,
        /// DestQP of the CNP: the remote QP it goes to.
        dest_qp: Option<u32>,
        extent: Option<f64>,
        len: usize,
        /// The frame, hex.
        frame: String,
    },
    Rate {
        qp: u32,
        tick: u64,
        rate_mbps: f64,
        target_mbps: f64,
        alpha: f64,
        stage: String,
        trigger: String,
        /// The sent packet the transaction handed on to the pacer, bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sent_len: Option<u32>,
    },
    /// A packet the pacer released (or refused, full).
    Release {
        qp: u32,
        len: u32,
        tick: u64,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        dropped: bool,
    },
}

fn fraction(q15: u16) -> f64 {
    f64::from(q15) / f64::from(FRACTION_ONE)
}

impl CnRecord {
    /// A CNP as seen on the wire: what it says is read back from its bytes.
    pub fn cnp(tick: u64, frame: &[u8]) -> Self {
        let parsed = parse_frame(frame, false, &ParserConfig::default());
        let hex = frame.iter().fold(String::with_capacity(2 * frame.len()), |mut s, b| {
            write!(s, "{b:02x}").unwrap();
            s
        });
        CnRecord::Cnp {
            tick,
            dest_qp: parsed.dest_qp,
            extent: parsed.cnp_extent.map(fraction),
            len: frame.len(),
            frame: hex,
        }
    }

    pub fn rate(change: &RateChange) -> Self {
        CnRecord::Rate {
            qp: change.qp,
            tick: change.time,
            rate_mbps: f64::from(change.rate_kbps) / 1000.0,
            target_mbps: f64::from(change.target_kbps) / 1000.0,
            alpha: fraction(change.alpha),
            stage: change.stage.name().into(),
            trigger: change.trigger.name().into(),
            sent_len: change.sent_len,
        }
    }

    pub fn release(release: &Release) -> Self {
        CnRecord::Release { qp: release.qp, len: release.len, tick: release.time, dropped: release.dropped }
    }

    pub fn tick(&self) -> u64 {
        match self {
            CnRecord::Cnp { tick, .. } | CnRecord::Rate { tick, .. } | CnRecord::Release { tick, .. } => *tick,
        }
    }
}

/// One event and the frame it came from.
#[derive(Debug, Clone, Copy)]
pub struct CnInput {
    pub frame: u64,
    pub event: CnEvent,
}

/// A capture as the CN block sees it.
#[derive(Debug, Default, Clone)]
pub struct CnStimulus {
    pub time: TimeBase,
    pub inputs: Vec<CnInput>,
    pub frames_read: u64,
    /// Every frame's tick, in frame order (for `frame_at`).
    pub frame_ticks: Vec<u64>,
    /// The capture broke here; the frames before it are in.
    pub error: Option<CaptureError>,
}

impl CnStimulus {
    /// The last frame at or before `tick` (1-based; 0 before the first).
    pub fn frame_at(&self, tick: u64) -> u64 {
        frame_at(&self.frame_ticks, tick)
    }
}

/// The last frame (1-based) whose tick is at or before `tick`, given every
/// frame's tick in order; 0 before the first.
pub fn frame_at(frame_ticks: &[u64], tick: u64) -> u64 {
    frame_ticks.partition_point(|&t| t <= tick) as u64
}

/// Parses every frame with the golden parser and classifies it.
pub fn read_stimulus(source: &mut dyn FrameSource, setup: &CnSetup, parser: &ParserConfig) -> CnStimulus {
    let mut stimulus = CnStimulus::default();
    let mut frame = Frame::default();
    loop {
        match source.read_next(&mut frame) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                stimulus.error = Some(e);
                break;
            }
        }
        stimulus.frames_read += 1;
        let tick = stimulus.time.tick(frame.time_ns);
        stimulus.frame_ticks.push(tick);
        let record = parse_frame(&frame.data, frame.mac_error, parser);
        if let Some(event) = classify(&record, tick, setup.local_mac, &setup.nic) {
            stimulus.inputs.push(CnInput { frame: frame.index, event });
        }
    }
    stimulus
}

/// What the golden model made of a stimulus, each output with the frame
/// whose event produced it.
#[derive(Debug, Default)]
pub struct GoldenCn {
    pub cnps: Vec<(u64, CnpSent)>,
    pub rates: Vec<(u64, RateChange)>,
}

pub fn run_golden(setup: &CnSetup, stimulus: &CnStimulus) -> GoldenCn {
    let mut cn = setup.golden();
    let (mut cnps, mut rates) = (Vec::new(), Vec::new());
    let mut out = GoldenCn::default();
    for input in &stimulus.inputs {
        cn.process(&input.event, &mut cnps, &mut rates);
        out.cnps.extend(cnps.drain(..).map(|c| (input.frame, c)));
        out.rates.extend(rates.drain(..).map(|r| (input.frame, r)));
    }
    out
}

/// The golden CN outputs as the two expected streams.
pub(crate) fn golden_cn_streams(time: &TimeBase, golden: &GoldenCn) -> Vec<Vec<Transaction>> {
    vec![
        golden.cnps.iter().map(|(f, c)| golden_cnp(time, *f, c)).collect(),
        golden.rates.iter().map(|(f, r)| golden_rate(time, *f, r)).collect(),
    ]
}

/// A golden CN output as a transaction; `frame` is the producing frame.
fn golden_cnp(time: &TimeBase, frame: u64, cnp: &CnpSent) -> Transaction {
    Transaction {
        frame,
        time_ns: time.time_ns(cnp.time),
        cycle: None,
        record: Record::Cn(CnRecord::cnp(cnp.time, &cnp.frame)),
    }
}

fn golden_rate(time: &TimeBase, frame: u64, change: &RateChange) -> Transaction {
    Transaction { frame, time_ns: time.time_ns(change.time), cycle: None, record: Record::Cn(CnRecord::rate(change)) }
}

impl RtlRate {
    /// The rate change in golden terms; `Err` names a code with no meaning.
    pub fn to_change(&self) -> Result<RateChange, String> {
        Ok(RateChange {
            time: self.time,
            qp: self.qp as u32,
            rate_kbps: self.rate as u32,
            target_kbps: self.target as u32,
            alpha: self.alpha as u16,
            stage: RateStage::from_code(self.stage as u8).ok_or_else(|| format!("m_rate_stage = {}", self.stage))?,
            trigger: RateTrigger::from_code(self.trigger as u8)
                .ok_or_else(|| format!("m_rate_trigger = {} is no trigger", self.trigger))?,
            sent_len: (self.sent != 0).then_some(self.len as u32),
        })
    }
}

impl RtlCnp {
    /// Protocol faults of the output stream itself.
    pub fn fault(&self) -> Option<String> {
        let mut faults = Vec::new();
        if self.flags & CNP_TUSER_CHANGED != 0 {
            faults.push("m_axis_tuser changed within the frame");
        }
        if self.flags & CNP_BAD_TKEEP != 0 {
            faults.push("m_axis_tkeep not all ones before tlast or not contiguous");
        }
        if self.flags & CNP_TOO_LONG != 0 {
            faults.push("CNP frame longer than 128 bytes");
        }
        (!faults.is_empty()).then(|| faults.join("; "))
    }
}

/// Counts of a CN run, for the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CnCounts {
    pub events: u64,
    pub cnps: u64,
    /// Rate transactions (changes, and sent packets handed on).
    pub rate_changes: u64,
    /// Pacer releases and drops.
    pub releases: u64,
}

/// Golden and RTL outputs compared stream by stream, each in its own order
/// (the CN block's CNPs and rate changes; the pacer's releases).
pub(crate) struct StreamComparator<'a> {
    pub capture: &'a Path,
    pub options: &'a CosimOptions,
    /// The command that repeats the run.
    pub repro: String,
    pub time: TimeBase,
    pub names: &'static [&'static str],
    /// Expected transactions of each stream, and the next one to match.
    pub expected: Vec<Vec<Transaction>>,
    next: Vec<usize>,
    rtl_last: Vec<VecDeque<Transaction>>,
}

const CNP_STREAM: usize = 0;
const RATE_STREAM: usize = 1;
pub(crate) const CN_STREAMS: &[&str] = &["cn.cnp", "cn.rate"];

impl<'a> StreamComparator<'a> {
    pub fn new(
        capture: &'a Path,
        options: &'a CosimOptions,
        repro: String,
        time: TimeBase,
        names: &'static [&'static str],
        expected: Vec<Vec<Transaction>>,
    ) -> Self {
        let n = names.len();
        StreamComparator {
            capture,
            options,
            repro,
            time,
            names,
            expected,
            next: vec![0; n],
            rtl_last: (0..n).map(|_| VecDeque::new()).collect(),
        }
    }

    pub fn check(&mut self, stream: usize, rtl: Result<(u64, CnRecord), String>, cycle: u64) -> Result<(), Ending> {
        let index = self.next[stream];
        let (tick, record) = match rtl {
            Ok(ok) => ok,
            Err(detail) => return Err(self.diverged(stream, DivergenceKind::InvalidRtlOutput, cycle, detail, vec![])),
        };
        let Some(golden) = self.expected[stream].get(index) else {
            let observed = Transaction {
                frame: 0,
                time_ns: self.time.time_ns(tick),
                cycle: Some(cycle),
                record: Record::Cn(record),
            };
            self.remember(stream, observed);
            let detail =
                format!("the RTL produced a {} transaction beyond the golden model's {}", self.names[stream], index);
            return Err(self.diverged(stream, DivergenceKind::ExtraRtlTransaction, cycle, detail, vec![]));
        };
        let observed = Transaction {
            frame: golden.frame,
            time_ns: self.time.time_ns(tick),
            cycle: Some(cycle),
            record: Record::Cn(record),
        };
        let matched = golden.record == observed.record;
        let diffs = if matched { Vec::new() } else { field_diffs(&golden.record, &observed.record) };
        self.remember(stream, observed);
        if matched {
            self.next[stream] += 1;
            Ok(())
        } else {
            Err(self.diverged(stream, DivergenceKind::Mismatch, cycle, String::new(), diffs))
        }
    }

    /// The CN outputs of a model, CNPs to stream 0 and rate changes to 1.
    pub fn check_cn(&mut self, cnps: Vec<RtlCnp>, rates: Vec<RtlRate>) -> Result<(), Ending> {
        for cnp in cnps {
            let result = match cnp.fault() {
                Some(fault) => Err(fault),
                None => Ok((cnp.tick, CnRecord::cnp(cnp.tick, cnp.frame()))),
            };
            self.check(CNP_STREAM, result, cnp.cycle)?;
        }
        for rate in rates {
            let result = rate.to_change().map(|c| (c.time, CnRecord::rate(&c)));
            self.check(RATE_STREAM, result, rate.cycle)?;
        }
        Ok(())
    }

    fn remember(&mut self, stream: usize, t: Transaction) {
        crate::report::remember(&mut self.rtl_last[stream], t, self.options.history);
    }

    pub fn diverged(
        &self,
        stream: usize,
        kind: DivergenceKind,
        cycle: u64,
        detail: String,
        diffs: Vec<FieldDiff>,
    ) -> Ending {
        let index = self.next[stream];
        let expected = &self.expected[stream];
        let at = expected.get(index).or(expected.last());
        let (frame, time_ns) = at.map_or((0, 0), |t| (t.frame, t.time_ns));
        let from = index.saturating_sub(self.options.history);
        let detail = if detail.is_empty() {
            format!("{} transaction {} (0-based) differs", self.names[stream], index)
        } else {
            detail
        };
        Ending::Diverged(Box::new(Divergence {
            kind,
            block: self.names[stream],
            capture: self.capture.to_path_buf(),
            width: self.options.model.width,
            seed: self.options.handshake.seed,
            frame,
            time_ns,
            cycle,
            detail,
            diffs,
            golden_last: expected[from..(index + 1).min(expected.len())].to_vec(),
            rtl_last: self.rtl_last[stream].iter().cloned().collect(),
            repro: self.repro.clone(),
            sides: ["golden".into(), "rtl".into()],
        }))
    }

    /// The RTL stopped on `stream`: an assertion or a stall.
    pub fn stopped(&self, stream: usize, stop: SimStop, stall_cycles: u64) -> Ending {
        match stop {
            SimStop::Assertion(message, cycle) => {
                self.diverged(stream, DivergenceKind::RtlAssertion, cycle, message, vec![])
            }
            SimStop::Stalled(cycle) => {
                let detail = format!("the RTL took no input and produced nothing for {stall_cycles} cycles");
                self.diverged(stream, DivergenceKind::RtlStalled, cycle, detail, vec![])
            }
        }
    }

    /// At the end: a golden transaction the RTL never produced.
    pub fn missing(&self, cycle: u64) -> Result<(), Ending> {
        for stream in 0..self.names.len() {
            let left = self.expected[stream].len() - self.next[stream];
            if left > 0 {
                let detail = format!(
                    "the RTL went idle with {left} {} transaction(s) of the golden model not produced",
                    self.names[stream]
                );
                return Err(self.diverged(stream, DivergenceKind::RtlStalled, cycle, detail, vec![]));
            }
        }
        Ok(())
    }
}

/// The command that repeats a cosim run of `block` with the CN setup.
pub fn cn_repro(capture: &Path, options: &CosimOptions, setup: &CnSetup, block: &str) -> String {
    format!(
        "metaroce cosim {} --block {block} --width {} --seed {:#x} --idle {} --stall {}{}",
        capture.display(),
        options.model.width,
        options.handshake.seed,
        options.handshake.idle_pct,
        options.handshake.stall_pct,
        setup.overrides.args()
    )
}

/// Events per FFI batch.
const EVENT_BATCH: usize = 1024;

/// Runs one capture's events through golden model and RTL CN block.
pub fn cosim_cn_capture(capture: &Path, options: &CosimOptions, setup: &CnSetup) -> CaptureRun {
    let started = Instant::now();
    let stimulus = match CaptureReader::open(capture) {
        Ok(mut reader) => read_stimulus(&mut reader, setup, &options.parser),
        Err(e) => {
            let mut run = CaptureRun::for_block(capture, options, "cn");
            run.ending = Ending::CaptureError(e);
            return run;
        }
    };
    let mut run = cosim_cn_stimulus(capture, stimulus, options, setup, &setup.regs);
    run.phases.capture_io.0 = started.elapsed() - run.elapsed;
    run.elapsed = started.elapsed();
    run
}

/// The CN cosim of a stimulus; the RTL gets `rtl_regs` (the setup's, but
/// for the harness's own tests, which give it others to see it diverge).
pub fn cosim_cn_stimulus(
    capture: &Path,
    stimulus: CnStimulus,
    options: &CosimOptions,
    setup: &CnSetup,
    rtl_regs: &CcRegisters,
) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(capture, options, "cn");
    let clock = Instant::now();
    let golden = run_golden(setup, &stimulus);
    let clock = run.phases.golden.lap(clock);
    run.frames_read = stimulus.frames_read;
    run.cn = Some(CnCounts {
        events: stimulus.inputs.len() as u64,
        cnps: golden.cnps.len() as u64,
        rate_changes: golden.rates.len() as u64,
        releases: 0,
    });
    let mut compare = StreamComparator::new(
        capture,
        options,
        cn_repro(capture, options, setup, "cn"),
        stimulus.time,
        CN_STREAMS,
        golden_cn_streams(&stimulus.time, &golden),
    );
    run.phases.compare.lap(clock);
    let ending = cosim_cn_events(&stimulus, options, setup, rtl_regs, &mut compare, &mut run);
    run.wave = options.wave.as_ref().map(|w| w.path.clone()).filter(|p| p.exists());
    finish_run(&mut run, ending, stimulus.error, started);
    run
}

/// A stream run's ending: the RTL's, else the capture's break, else matched
/// (every frame read); the frames before a divergence count as matched.
pub(crate) fn finish_run(
    run: &mut CaptureRun,
    ending: Result<(), Ending>,
    error: Option<CaptureError>,
    started: Instant,
) {
    run.ending = match (ending, error) {
        (Ok(()), Some(e)) => Ending::CaptureError(e),
        (Ok(()), None) => {
            run.frames_matched = run.frames_read;
            Ending::Matched
        }
        (Err(ending), _) => {
            if let Ending::Diverged(d) = &ending {
                run.frames_matched = d.frame.saturating_sub(1);
            }
            ending
        }
    };
    run.elapsed = started.elapsed();
}

fn cosim_cn_events(
    stimulus: &CnStimulus,
    options: &CosimOptions,
    setup: &CnSetup,
    rtl_regs: &CcRegisters,
    compare: &mut StreamComparator,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut rtl = RtlCn::new(options.model, options.handshake, rtl_regs).map_err(Ending::Setup)?;
    rtl.load_qp_table(&setup.nic).map_err(Ending::Setup)?;
    if let Some(wave) = &options.wave {
        rtl.open_trace(&wave.path, wave.from, wave.to).map_err(Ending::Setup)?;
    }
    let events: Vec<CnEvent> = stimulus.inputs.iter().map(|i| i.event).collect();
    drive(&mut rtl, &events, RATE_STREAM, CN_STALL_CYCLES, compare, run)?;
    rtl.close_trace();
    if let Some(path) = &options.coverage_dat {
        rtl.write_coverage(path).map_err(Ending::Setup)?;
    }
    Ok(())
}

/// A Verilated block the harness feeds in batches and checks after each.
pub(crate) trait BatchModel {
    type Item;
    fn push(&mut self, items: &[Self::Item]) -> Result<(), SimStop>;
    /// The end of the input: run until idle.
    fn finish(&mut self) -> Result<(), SimStop>;
    fn cycles(&self) -> u64;
    /// Hands the outputs collected so far to the comparator.
    fn check(&mut self, compare: &mut StreamComparator) -> Result<(), Ending>;
}

impl BatchModel for RtlCn {
    type Item = CnEvent;
    fn push(&mut self, items: &[CnEvent]) -> Result<(), SimStop> {
        RtlCn::push(self, items)
    }
    fn finish(&mut self) -> Result<(), SimStop> {
        self.drain()
    }
    fn cycles(&self) -> u64 {
        RtlCn::cycles(self)
    }
    fn check(&mut self, compare: &mut StreamComparator) -> Result<(), Ending> {
        compare.check_cn(std::mem::take(&mut self.cnps), std::mem::take(&mut self.rates))
    }
}

/// Feeds `items` by the batch, comparing the outputs after each, then
/// finishes the input and checks that nothing golden is left; a stop of the
/// RTL is reported on `stream`.
pub(crate) fn drive<M: BatchModel>(
    rtl: &mut M,
    items: &[M::Item],
    stream: usize,
    stall_cycles: u64,
    compare: &mut StreamComparator,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut clock = Instant::now();
    let batches = items.chunks(EVENT_BATCH).map(Some).chain(std::iter::once(None));
    for batch in batches {
        let result = match batch {
            Some(batch) => rtl.push(batch),
            None => rtl.finish(),
        };
        run.cycles = rtl.cycles();
        clock = run.phases.rtl.lap(clock);
        rtl.check(compare)?;
        result.map_err(|s| compare.stopped(stream, s, stall_cycles))?;
        clock = run.phases.compare.lap(clock);
    }
    compare.missing(run.cycles)
}

/// What one model's CN block made of a capture.
#[derive(Debug, Default)]
pub struct CnReplay {
    /// Every CNP and rate change in time order (ties: CNPs before rate
    /// changes, each stream in its own order), `frame` being the last frame
    /// at or before the transaction's tick.
    pub transactions: Vec<Transaction>,
    /// The CNPs as frames with their emit times (ns since the epoch).
    pub cnp_frames: Vec<(u64, Vec<u8>)>,
}

/// The CN transactions of a capture from the golden model, or from the RTL
/// at `rtl_width`.
pub fn replay_cn(
    capture: &Path,
    rtl_width: Option<u32>,
    setup: &CnSetup,
    parser: &ParserConfig,
) -> Result<CnReplay, String> {
    let mut reader = CaptureReader::open(capture).map_err(|e| e.to_string())?;
    let stimulus = read_stimulus(&mut reader, setup, parser);
    let (cnps, rates): (Vec<(u64, Vec<u8>)>, Vec<RateChange>) = match rtl_width {
        None => {
            let golden = run_golden(setup, &stimulus);
            (
                golden.cnps.into_iter().map(|(_, c)| (c.time, c.frame)).collect(),
                golden.rates.into_iter().map(|(_, r)| r).collect(),
            )
        }
        Some(width) => {
            let mut rtl = RtlCn::new(Model::plain(width), Handshake::full_speed(0), &setup.regs)?;
            rtl.load_qp_table(&setup.nic)?;
            let events: Vec<CnEvent> = stimulus.inputs.iter().map(|i| i.event).collect();
            let stopped = |s: CnStop| format!("RTL congestion-notification block: {s:?}");
            rtl.push(&events).map_err(stopped)?;
            rtl.drain().map_err(stopped)?;
            let mut cnps = Vec::new();
            for cnp in &rtl.cnps {
                if let Some(fault) = cnp.fault() {
                    return Err(format!("RTL CNP output: {fault}"));
                }
                cnps.push((cnp.tick, cnp.frame().to_vec()));
            }
            let rates = rtl.rates.iter().map(RtlRate::to_change).collect::<Result<Vec<_>, _>>()?;
            (cnps, rates)
        }
    };
    let mut out: Vec<Transaction> = cnps
        .iter()
        .map(|(tick, frame)| CnRecord::cnp(*tick, frame))
        .chain(rates.iter().filter(|r| r.is_change()).map(CnRecord::rate))
        .map(|record| {
            let tick = record.tick();
            Transaction {
                frame: stimulus.frame_at(tick),
                time_ns: stimulus.time.time_ns(tick),
                cycle: None,
                record: Record::Cn(record),
            }
        })
        .collect();
    out.sort_by_key(|t| t.time_ns);
    if let Some(e) = stimulus.error {
        return Err(e.to_string());
    }
    let cnp_frames = cnps.into_iter().map(|(tick, frame)| (stimulus.time.time_ns(tick), frame)).collect();
    Ok(CnReplay { transactions: out, cnp_frames })
}
