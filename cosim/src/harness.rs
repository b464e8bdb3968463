//! Golden-vs-RTL cosimulation of one capture on one Verilated model.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::coverage::FunctionalCoverage;
use crate::report::{field_diffs, Divergence, DivergenceKind, FieldDiff, Record, Transaction};
use crate::rtl::{Handshake, Model, RtlParser, RtlParserRecord, STALL_CYCLES};
use crate::wave::{fst_to_vcd, WaveFormat};

/// An inclusive range of 1-based frame numbers, written `A:B`, `A:` or `A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRange {
    pub first: u64,
    pub last: u64,
}

impl FrameRange {
    pub const ALL: FrameRange = FrameRange { first: 1, last: u64::MAX };
    pub fn contains(&self, frame: u64) -> bool {
        (self.first..=self.last).contains(&frame)
    }
}

impl FromStr for FrameRange {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let number = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("`{t}` is not a frame number"));
        let (first, last) = match s.split_once(':') {
            Some((a, "")) => (number(a)?, u64::MAX),
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(s)?, number(s)?),
        };
        if first == 0 || last < first {
            return Err(format!("`{s}`: frames count from 1 and the range must not be empty"));
        }
        Ok(FrameRange { first, last })
    }
}

impl fmt::Display for FrameRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.last == u64::MAX {
            write!(f, "{}:", self.first)
        } else {
            write!(f, "{}:{}", self.first, self.last)
        }
    }
}

/// Dump the cycles `from..=to` into an FST at `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveWindow {
    pub path: PathBuf,
    pub from: u64,
    pub to: u64,
}

#[derive(Debug, Clone)]
pub struct CosimOptions {
    pub model: Model,
    pub handshake: Handshake,
    pub frames: FrameRange,
    pub parser: ParserConfig,
    /// Frames per FFI call.
    pub batch: usize,
    /// Matched transactions kept for the report.
    pub history: usize,
    /// Trace this window of cycles (the waveform re-run).
    pub wave: Option<WaveWindow>,
    /// Write Verilator coverage data here at the end (coverage builds).
    pub coverage_dat: Option<PathBuf>,
}

impl CosimOptions {
    pub fn new(model: Model, handshake: Handshake) -> Self {
        CosimOptions {
            model,
            handshake,
            frames: FrameRange::ALL,
            parser: ParserConfig::default(),
            batch: 256,
            history: 4,
            wave: None,
            coverage_dat: None,
        }
    }

    /// The command line that re-runs this cosim up to `frame`.
    pub fn repro(&self, capture: &Path, frame: u64) -> String {
        let mut cmd = format!(
            "metaroce cosim {} --width {} --seed {:#x} --idle {} --stall {} --frames {}:{}",
            capture.display(),
            self.model.width,
            self.handshake.seed,
            self.handshake.idle_pct,
            self.handshake.stall_pct,
            self.frames.first,
            frame
        );
        if self.parser != ParserConfig::default() {
            cmd += &format!(" --roce-port {}", self.parser.roce_udp_port);
        }
        cmd
    }
}

/// How a capture's cosim ended.
#[derive(Debug)]
pub enum Ending {
    Matched,
    Diverged(Box<Divergence>),
    /// The capture broke at some frame; the frames before it were compared.
    CaptureError(CaptureError),
    /// The harness could not start or finish (no model for the width, a
    /// trace or coverage file it could not write).
    Setup(String),
}

impl Ending {
    /// A one-word name of the ending (JSON and JUnit).
    pub fn name(&self) -> &'static str {
        match self {
            Ending::Matched => "matched",
            Ending::Diverged(d) => d.kind.name(),
            Ending::CaptureError(_) => "capture_error",
            Ending::Setup(_) => "setup_error",
        }
    }
}

#[derive(Debug)]
pub struct CaptureRun {
    pub capture: PathBuf,
    /// The block compared: "parser" or "cn".
    pub block: &'static str,
    pub model: Model,
    pub seed: u64,
    pub frames_read: u64,
    pub frames_matched: u64,
    pub cycles: u64,
    pub elapsed: Duration,
    pub ending: Ending,
    /// What the golden model saw: opcodes, ECN codepoints, error classes, ...
    pub functional: FunctionalCoverage,
    /// The waveform of the divergence, when one was written.
    pub wave: Option<PathBuf>,
    /// Where the wall-clock time went.
    pub phases: Phases,
    /// Events and outputs of a congestion-notification run.
    pub cn: Option<crate::cn::CnCounts>,
}

/// Wall-clock time of a run by phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Phases {
    /// Reading frames from the capture.
    pub capture_io: Stopwatch,
    /// The golden model.
    pub golden: Stopwatch,
    /// The Verilated RTL, FFI included.
    pub rtl: Stopwatch,
    /// Comparing records, functional counters and other bookkeeping.
    pub compare: Stopwatch,
}

/// Accumulated time of one phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stopwatch(pub Duration);

impl Stopwatch {
    /// Adds the time since `since`; returns now, the next phase's start.
    pub fn lap(&mut self, since: Instant) -> Instant {
        let now = Instant::now();
        self.0 += now - since;
        now
    }
}

impl CaptureRun {
    fn new(capture: &Path, options: &CosimOptions) -> Self {
        Self::for_block(capture, options, "parser")
    }

    pub fn for_block(capture: &Path, options: &CosimOptions, block: &'static str) -> Self {
        CaptureRun {
            capture: capture.to_path_buf(),
            block,
            model: options.model,
            seed: options.handshake.seed,
            frames_read: 0,
            frames_matched: 0,
            cycles: 0,
            elapsed: Duration::ZERO,
            ending: Ending::Matched,
            functional: FunctionalCoverage::default(),
            wave: None,
            phases: Phases::default(),
            cn: None,
        }
    }

    pub fn passed(&self) -> bool {
        matches!(self.ending, Ending::Matched)
    }
}

/// Where the frames of a run come from: a capture on disk or frames in
/// memory (the fuzzer).
pub trait FrameSource {
    /// Fills `frame` with the next frame; `Ok(false)` at the end.
    fn read_next(&mut self, frame: &mut Frame) -> Result<bool, CaptureError>;
    /// Frames delivered so far.
    fn frames_read(&self) -> u64;
}

impl FrameSource for CaptureReader {
    fn read_next(&mut self, frame: &mut Frame) -> Result<bool, CaptureError> {
        CaptureReader::read_next(self, frame)
    }
    fn frames_read(&self) -> u64 {
        CaptureReader::frames_read(self)
    }
}

/// Frames already in memory, numbered from 1 in slice order.
pub struct FrameSlice<'a> {
    frames: &'a [Frame],
    next: usize,
}

impl<'a> FrameSlice<'a> {
    pub fn new(frames: &'a [Frame]) -> Self {
        FrameSlice { frames, next: 0 }
    }
}

impl FrameSource for FrameSlice<'_> {
    fn read_next(&mut self, frame: &mut Frame) -> Result<bool, CaptureError> {
        let Some(source) = self.frames.get(self.next) else { return Ok(false) };
        self.next += 1;
        frame.clone_from(source);
        frame.index = self.next as u64;
        Ok(true)
    }
    fn frames_read(&self) -> u64 {
        self.next as u64
    }
}

/// Reads the next frames within `range` into `batch`; returns how many, and
/// the capture error that cut the batch short, if any. Fewer than
/// `batch.len()` frames means the source (or the range) is exhausted.
pub fn fill_batch(
    source: &mut dyn FrameSource,
    batch: &mut [Frame],
    range: FrameRange,
) -> (usize, Option<CaptureError>) {
    let mut filled = 0;
    while filled < batch.len() {
        match source.read_next(&mut batch[filled]) {
            Ok(true) if range.contains(batch[filled].index) => filled += 1,
            Ok(true) if batch[filled].index > range.last => break,
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return (filled, Some(e)),
        }
    }
    (filled, None)
}

/// Runs one capture through golden model and RTL; stops at the first
/// divergence.
pub fn cosim_capture(capture: &Path, options: &CosimOptions) -> CaptureRun {
    match CaptureReader::open(capture) {
        Ok(mut reader) => cosim_source(capture, &mut reader, options),
        Err(e) => {
            let mut run = CaptureRun::new(capture, options);
            run.ending = Ending::CaptureError(e);
            run
        }
    }
}

/// Runs `frames` (named `name` in reports) through golden model and RTL.
pub fn cosim_in_memory(name: &Path, frames: &[Frame], options: &CosimOptions) -> CaptureRun {
    cosim_source(name, &mut FrameSlice::new(frames), options)
}

fn cosim_source(name: &Path, source: &mut dyn FrameSource, options: &CosimOptions) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::new(name, options);
    run.ending = match RtlParser::new(options.model, options.handshake) {
        Err(e) => Ending::Setup(e),
        Ok(mut rtl) => {
            let mut ending = match start_outputs(&mut rtl, options) {
                Ok(()) => match cosim_frames(name, source, options, &mut rtl, &mut run) {
                    Ok(()) => Ending::Matched,
                    Err(ending) => ending,
                },
                Err(e) => Ending::Setup(e),
            };
            if let Err(e) = finish_outputs(&mut rtl, options, &mut run) {
                if matches!(ending, Ending::Matched) {
                    ending = Ending::Setup(e);
                }
            }
            ending
        }
    };
    run.elapsed = started.elapsed();
    run
}

/// [`with_wave`] for the parser's cosim of `capture`.
pub fn cosim_capture_with_wave(
    capture: &Path,
    options: &CosimOptions,
    wave_path: &Path,
    format: WaveFormat,
    before: u64,
    after: u64,
) -> CaptureRun {
    with_wave(|o| cosim_capture(capture, o), options, wave_path, format, before, after)
}

/// Runs `run` and, if it diverges, runs it again with the same options
/// while tracing `before` cycles before the divergence to `after` cycles
/// after it into `wave_path` (FST, or VCD written from the FST).
pub fn with_wave(
    run: impl Fn(&CosimOptions) -> CaptureRun,
    options: &CosimOptions,
    wave_path: &Path,
    format: WaveFormat,
    before: u64,
    after: u64,
) -> CaptureRun {
    let first = run(options);
    let Ending::Diverged(divergence) = &first.ending else { return first };
    let fst_path = match format {
        WaveFormat::Fst => wave_path.to_path_buf(),
        WaveFormat::Vcd => wave_path.with_extension("vcd.fst"),
    };
    let window = WaveWindow {
        path: fst_path.clone(),
        from: divergence.cycle.saturating_sub(before),
        to: divergence.cycle + after,
    };
    let rerun = CosimOptions { wave: Some(window), ..options.clone() };
    let mut second = run(&rerun);
    if let (Ending::Diverged(a), Ending::Diverged(b)) = (&first.ending, &second.ending) {
        if (a.frame, a.cycle) != (b.frame, b.cycle) {
            second.ending = Ending::Setup(format!(
                "the waveform re-run diverged at frame {} cycle {}, not frame {} cycle {}: the run is not deterministic",
                b.frame, b.cycle, a.frame, a.cycle
            ));
        }
    }
    if format == WaveFormat::Vcd && second.wave.is_some() {
        match fst_to_vcd(&fst_path, wave_path) {
            Ok(()) => second.wave = Some(wave_path.to_path_buf()),
            Err(e) => second.ending = Ending::Setup(format!("writing the VCD: {e}")),
        }
        std::fs::remove_file(&fst_path).ok();
    }
    second
}

fn start_outputs(rtl: &mut RtlParser, options: &CosimOptions) -> Result<(), String> {
    if let Some(window) = &options.wave {
        rtl.open_trace(&window.path, window.from, window.to)?;
    }
    Ok(())
}

fn finish_outputs(rtl: &mut RtlParser, options: &CosimOptions, run: &mut CaptureRun) -> Result<(), String> {
    if let Some(window) = &options.wave {
        // Clock on to the end of the window so the trace shows what followed.
        let now = rtl.cycles();
        if window.to >= now {
            rtl.idle(window.to + 1 - now);
        }
        rtl.close_trace();
        run.wave = Some(window.path.clone());
    }
    if let Some(path) = &options.coverage_dat {
        rtl.write_coverage(path)?;
    }
    Ok(())
}

fn cosim_frames(
    capture: &Path,
    reader: &mut dyn FrameSource,
    options: &CosimOptions,
    rtl: &mut RtlParser,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut compare = Comparator::new(capture, options);
    let mut batch: Vec<Frame> = vec![Frame::default(); options.batch.max(1)];
    let mut capture_error = None;
    loop {
        let clock = Instant::now();
        let (filled, error) = fill_batch(reader, &mut batch, options.frames);
        capture_error = capture_error.or(error);
        run.frames_read = reader.frames_read();
        let clock = run.phases.capture_io.lap(clock);
        let first_new = compare.pending.len();
        for frame in &batch[..filled] {
            let record = golden_record(frame, &options.parser)
                .map_err(|panic| compare.golden_failed(frame, panic, rtl.cycles()))?;
            compare.expect(frame, record);
        }
        let clock = run.phases.golden.lap(clock);
        rtl.push(&batch[..filled]);
        run.cycles = rtl.cycles();
        let clock = run.phases.rtl.lap(clock);
        for record in compare.pending.range(first_new..).filter_map(|t| t.record.as_parse()) {
            run.functional.observe(record);
        }
        compare.check_all(rtl, run)?;
        run.phases.compare.lap(clock);
        if filled < batch.len() {
            break;
        }
    }
    let clock = Instant::now();
    let want = compare.pending.len();
    rtl.drain(want);
    run.cycles = rtl.cycles();
    let clock = run.phases.rtl.lap(clock);
    compare.check_all(rtl, run)?;
    run.phases.compare.lap(clock);
    if let Some(expected) = compare.pending.front() {
        let detail =
            format!("no RTL record for {STALL_CYCLES} cycles; {} frame(s) without a record", compare.pending.len());
        let (frame, time_ns) = (expected.frame, expected.time_ns);
        return Err(compare.diverged(DivergenceKind::RtlStalled, frame, time_ns, run.cycles, detail, vec![]));
    }
    match capture_error {
        Some(e) => Err(Ending::CaptureError(e)),
        None => Ok(()),
    }
}

/// The golden record of a frame; a panic in the model becomes an error
/// message (the ending `golden_model_error`) instead of ending the process.
fn golden_record(frame: &Frame, parser: &ParserConfig) -> Result<ParseRecord, String> {
    catch_model_panic(|| parse_frame(&frame.data, frame.mac_error, parser))
}

fn catch_model_panic<T>(model: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(model)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the golden model panicked".into())
    })
}

/// Pairs RTL records with the golden records waiting for them.
struct Comparator<'a> {
    capture: &'a Path,
    options: &'a CosimOptions,
    pending: VecDeque<Transaction>,
    golden_last: VecDeque<Transaction>,
    rtl_last: VecDeque<Transaction>,
}

impl<'a> Comparator<'a> {
    fn new(capture: &'a Path, options: &'a CosimOptions) -> Self {
        Comparator {
            capture,
            options,
            pending: VecDeque::new(),
            golden_last: VecDeque::new(),
            rtl_last: VecDeque::new(),
        }
    }

    fn expect(&mut self, frame: &Frame, record: ParseRecord) {
        self.pending.push_back(Transaction {
            frame: frame.index,
            time_ns: frame.time_ns,
            cycle: None,
            record: Record::Parse(record),
        });
    }

    fn check(&mut self, rtl: &RtlParserRecord, run: &mut CaptureRun) -> Result<(), Ending> {
        let Some(golden) = self.pending.pop_front() else {
            let detail = "the RTL produced a record with no frame left to match it".to_string();
            let (frame, time) = self.golden_last.back().map_or((0, 0), |t| (t.frame, t.time_ns));
            return Err(self.diverged(DivergenceKind::ExtraRtlTransaction, frame, time, rtl.cycle, detail, vec![]));
        };
        let record = match rtl.to_parse_record() {
            Ok(record) => record,
            Err(detail) => {
                let (frame, time) = (golden.frame, golden.time_ns);
                self.golden_last.push_back(golden);
                return Err(self.diverged(DivergenceKind::InvalidRtlOutput, frame, time, rtl.cycle, detail, vec![]));
            }
        };
        let observed = Transaction {
            frame: golden.frame,
            time_ns: golden.time_ns,
            cycle: Some(rtl.cycle),
            record: Record::Parse(record),
        };
        // Equal records are the common case: only a mismatch is taken apart.
        let matched = golden.record == observed.record;
        let diffs = if matched { Vec::new() } else { field_diffs(&golden.record, &observed.record) };
        let (frame, time) = (golden.frame, golden.time_ns);
        self.remember(golden, observed);
        if matched {
            run.frames_matched += 1;
            Ok(())
        } else {
            Err(self.diverged(DivergenceKind::Mismatch, frame, time, rtl.cycle, String::new(), diffs))
        }
    }

    /// Compares the records of the last push or drain in cycle order; an
    /// RTL assertion ends the run at its cycle, after the records that came
    /// out before it. The frame it names is the oldest one still in the
    /// pipeline then (or the last one out).
    fn check_all(&mut self, rtl: &RtlParser, run: &mut CaptureRun) -> Result<(), Ending> {
        let assertion = rtl.assertion();
        let before = assertion.as_ref().map_or(u64::MAX, |(_, cycle)| *cycle);
        for record in rtl.records().iter().filter(|r| r.cycle < before) {
            self.check(record, run)?;
        }
        let Some((message, cycle)) = assertion else { return Ok(()) };
        let (frame, time) = self.pending.front().or(self.golden_last.back()).map_or((0, 0), |t| (t.frame, t.time_ns));
        Err(self.diverged(DivergenceKind::RtlAssertion, frame, time, cycle, message, vec![]))
    }

    fn golden_failed(&self, frame: &Frame, panic: String, cycle: u64) -> Ending {
        let detail = format!("the golden model failed on this frame: {panic}");
        self.diverged(DivergenceKind::GoldenModelError, frame.index, frame.time_ns, cycle, detail, vec![])
    }

    fn remember(&mut self, golden: Transaction, rtl: Transaction) {
        crate::report::remember(&mut self.golden_last, golden, self.options.history);
        crate::report::remember(&mut self.rtl_last, rtl, self.options.history);
    }

    fn diverged(
        &self,
        kind: DivergenceKind,
        frame: u64,
        time_ns: u64,
        cycle: u64,
        detail: String,
        diffs: Vec<FieldDiff>,
    ) -> Ending {
        Ending::Diverged(Box::new(Divergence {
            kind,
            block: "parser",
            capture: self.capture.to_path_buf(),
            width: self.options.model.width,
            seed: self.options.handshake.seed,
            frame,
            time_ns,
            cycle,
            detail,
            diffs,
            golden_last: self.golden_last.iter().cloned().collect(),
            rtl_last: self.rtl_last.iter().cloned().collect(),
            repro: self.options.repro(self.capture, frame.max(1)),
            sides: ["golden".into(), "rtl".into()],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_golden_model_panic_becomes_a_message() {
        assert_eq!(catch_model_panic(|| 7), Ok(7));
        let caught = catch_model_panic(|| -> u32 { panic!("index {} out of range", 99) });
        assert_eq!(caught, Err("index 99 out of range".to_string()));
    }

    #[test]
    fn frame_ranges_parse_and_print() {
        assert_eq!("3:9".parse::<FrameRange>(), Ok(FrameRange { first: 3, last: 9 }));
        assert_eq!("4".parse::<FrameRange>(), Ok(FrameRange { first: 4, last: 4 }));
        assert_eq!("2:".parse::<FrameRange>().unwrap().to_string(), "2:");
        assert!("0:3".parse::<FrameRange>().is_err() && "5:2".parse::<FrameRange>().is_err());
    }
}
