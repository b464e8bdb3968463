//! One cosim run of one block on one capture, and the [`Block`] every
//! block of the harness is: its name, streams, both sides and its report.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use metaroce_golden::requester::{RetxCause, RetxRequest};
use metaroce_golden::responder::AckSent;

use crate::capture::CaptureError;
use crate::coverage::FunctionalCoverage;
use crate::harness::{CosimOptions, Ending, Phases, WaveWindow};
use crate::nic::CnSetup;
use crate::nic_gaps::NicGaps;
use crate::wave::{fst_to_vcd, WaveFormat};

/// What the harness knows of a block besides how to run it: one row of
/// the block table.
#[derive(Debug, Clone, Copy)]
pub struct BlockInfo {
    /// Its name on the command line (`--block`), in run lines and reports.
    pub name: &'static str,
    /// One line of `--block`'s help, if its name needs one.
    pub about: Option<&'static str>,
    /// Its output streams, as divergence reports name them.
    pub streams: &'static [&'static str],
    /// Whether a run needs the NIC's setup (NIC file and overrides).
    pub uses_nic: bool,
    /// Whether its RTL has a data width; without one, one run covers all.
    pub has_width: bool,
    /// Whether its RTL has a coverage build.
    pub has_coverage_build: bool,
    /// Whether its waveform files carry `-NAME` after the capture's name.
    pub tags_files: bool,
    /// The transactions `metaroce replay --block NAME` prints.
    pub replays: ReplayParts,
}

impl BlockInfo {
    /// A block with a NIC setup, a data width and a coverage build, whose
    /// waveform files carry its name and which replays nothing.
    pub const fn new(name: &'static str, streams: &'static [&'static str]) -> Self {
        BlockInfo {
            name,
            about: None,
            streams,
            uses_nic: true,
            has_width: true,
            has_coverage_build: true,
            tags_files: true,
            replays: ReplayParts { parser: false, cn: false, pacer: false },
        }
    }
    pub const fn about(self, about: &'static str) -> Self {
        BlockInfo { about: Some(about), ..self }
    }
    pub const fn replays(self, replays: ReplayParts) -> Self {
        BlockInfo { replays, ..self }
    }
    /// The parser: no NIC setup, and its files carry no block name.
    pub const fn parser_like(self) -> Self {
        BlockInfo { uses_nic: false, tags_files: false, ..self }
    }
    pub const fn without_width(self) -> Self {
        BlockInfo { has_width: false, ..self }
    }
    pub const fn without_coverage_build(self) -> Self {
        BlockInfo { has_coverage_build: false, ..self }
    }
}

/// A block of the pipeline as the harness runs it: its table row, and how
/// one capture runs through both models.
pub trait Block: Sync {
    fn info(&self) -> &'static BlockInfo;
    /// Runs one capture through the golden model and the RTL and compares
    /// them; `setup` is there when [`BlockInfo::uses_nic`].
    fn cosim(&self, capture: &Path, options: &CosimOptions, setup: Option<&CnSetup>) -> CaptureRun;
    /// What a run compared, for its PASS/FAIL line.
    fn counts(&self, run: &CaptureRun) -> String;

    fn name(&self) -> &'static str {
        self.info().name
    }
    fn about(&self) -> Option<&'static str> {
        self.info().about
    }
    fn streams(&self) -> &'static [&'static str] {
        self.info().streams
    }
    fn uses_nic(&self) -> bool {
        self.info().uses_nic
    }
    fn has_width(&self) -> bool {
        self.info().has_width
    }
    fn has_coverage_build(&self) -> bool {
        self.info().has_coverage_build
    }
    fn replays(&self) -> ReplayParts {
        self.info().replays
    }
    /// What its waveform files carry after the capture's name.
    fn file_tag(&self) -> String {
        match self.info().tags_files {
            true => format!("-{}", self.name()),
            false => String::new(),
        }
    }
}

impl fmt::Debug for dyn Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl fmt::Display for dyn Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl PartialEq<str> for dyn Block {
    fn eq(&self, name: &str) -> bool {
        self.name() == name
    }
}

/// Which transactions a replay prints: parse records, then the CN block's
/// CNPs and rate changes and the pipeline's releases, in time order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayParts {
    pub parser: bool,
    pub cn: bool,
    pub pacer: bool,
}

impl ReplayParts {
    pub const PARSER: ReplayParts = ReplayParts { parser: true, cn: false, pacer: false };
    pub const CN: ReplayParts = ReplayParts { parser: false, cn: true, pacer: false };
    pub const PACER: ReplayParts = ReplayParts { parser: false, cn: false, pacer: true };
    pub const TOP: ReplayParts = ReplayParts { parser: false, cn: true, pacer: true };
}

impl ReplayParts {
    pub fn union(self, other: ReplayParts) -> ReplayParts {
        ReplayParts { parser: self.parser || other.parser, cn: self.cn || other.cn, pacer: self.pacer || other.pacer }
    }
}

/// A block's differential fuzzer: runs `plan`, printing a line per run;
/// `Ok(false)` when something failed.
pub type Fuzzer = fn(&FuzzPlan, &mut dyn Write) -> anyhow::Result<bool>;

/// What `metaroce fuzz` asks of each block's fuzzer.
#[derive(Debug, Clone)]
pub struct FuzzPlan {
    pub seed: u64,
    /// Parser: frames to try at each width.
    pub frames: u64,
    pub widths: Vec<u32>,
    /// Where a shrunk failing capture goes.
    pub out: PathBuf,
    /// Scenario fuzzers: the first scenario and how many.
    pub first: u64,
    pub scenarios: u64,
}

#[derive(Debug)]
pub struct CaptureRun {
    pub capture: PathBuf,
    /// The block compared.
    pub block: &'static dyn Block,
    pub model: crate::rtl::Model,
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
    /// Events and outputs of a congestion-notification, pacer or top run.
    pub cn: Option<RunCounts>,
    /// What the NIC setup left unanswered, for a block that uses it.
    pub nic_gaps: Option<NicGaps>,
}

/// Counts of a CN, pacer or top run, for the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunCounts {
    pub events: u64,
    pub cnps: u64,
    /// The responder's ACKs and NAKs.
    pub acks: u64,
    /// ... of which selective ACKs (`ack_mode` metaroce).
    pub selective_acks: u64,
    /// The requester's retransmit requests.
    pub retx: u64,
    /// ... of which retry exhausted (no go-back: the QP is in error).
    pub retry_exhausted: u64,
    /// ... of which the retransmit timer's go-backs.
    pub timeouts: u64,
    /// ... of which selective ACKs' holes (`ack_mode` metaroce).
    pub selective_retx: u64,
    /// Rate transactions (changes, and sent packets handed on).
    pub rate_changes: u64,
    /// Pacer releases and drops.
    pub releases: u64,
}

impl RunCounts {
    pub fn new(events: usize, cnps: usize, rates: usize, releases: usize) -> Self {
        RunCounts {
            events: events as u64,
            cnps: cnps as u64,
            acks: 0,
            selective_acks: 0,
            retx: 0,
            retry_exhausted: 0,
            timeouts: 0,
            selective_retx: 0,
            rate_changes: rates as u64,
            releases: releases as u64,
        }
    }

    /// The counts with the responder's ACKs and NAKs (each with its frame).
    pub fn acks(self, acks: &[(u64, AckSent)]) -> Self {
        let selective = acks.iter().filter(|(_, a)| a.sack.is_some()).count();
        RunCounts { acks: acks.len() as u64, selective_acks: selective as u64, ..self }
    }

    /// The ACKs and NAKs as the run and fuzz lines give them.
    pub fn acks_text(&self) -> String {
        match self.selective_acks {
            0 => format!("{} ACK/NAK(s)", self.acks),
            selective => format!("{} ACK/NAK(s) ({selective} selective)", self.acks),
        }
    }

    /// The counts with the requester's retransmit requests (each with its
    /// frame).
    pub fn retx(self, retx: &[(u64, RetxRequest)]) -> Self {
        let of = |cause| retx.iter().filter(|(_, r)| r.cause == cause).count() as u64;
        RunCounts {
            retx: retx.len() as u64,
            retry_exhausted: of(RetxCause::RetryExhausted),
            timeouts: of(RetxCause::Timeout),
            selective_retx: of(RetxCause::Selective),
            ..self
        }
    }

    /// The retransmit requests as the run and fuzz lines give them.
    pub fn retx_text(&self) -> String {
        let selective = match self.selective_retx {
            0 => String::new(),
            n => format!("{n} selective, "),
        };
        format!(
            "{} retransmit request(s) ({selective}{} timeout, {} retry exhausted)",
            self.retx, self.timeouts, self.retry_exhausted
        )
    }
}

/// Several runs' counts summed (a fuzz run's scenarios).
impl std::ops::AddAssign for RunCounts {
    fn add_assign(&mut self, run: RunCounts) {
        self.events += run.events;
        self.cnps += run.cnps;
        self.acks += run.acks;
        self.selective_acks += run.selective_acks;
        self.retx += run.retx;
        self.retry_exhausted += run.retry_exhausted;
        self.timeouts += run.timeouts;
        self.selective_retx += run.selective_retx;
        self.rate_changes += run.rate_changes;
        self.releases += run.releases;
    }
}

impl CaptureRun {
    pub fn for_block(capture: &Path, options: &CosimOptions, block: &'static dyn Block) -> Self {
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
            nic_gaps: None,
        }
    }

    /// `run` with the NIC's setup, which a block that uses it needs.
    pub fn with_setup(
        capture: &Path,
        options: &CosimOptions,
        block: &'static dyn Block,
        setup: Option<&CnSetup>,
        run: impl FnOnce(&CnSetup) -> CaptureRun,
    ) -> Self {
        match setup {
            Some(setup) => run(setup),
            None => Self::failed(capture, options, block, Ending::Setup("no NIC setup for this block".into())),
        }
    }

    /// A run that ended before it began.
    pub fn failed(capture: &Path, options: &CosimOptions, block: &'static dyn Block, ending: Ending) -> Self {
        CaptureRun { ending, ..Self::for_block(capture, options, block) }
    }

    pub fn passed(&self) -> bool {
        matches!(self.ending, Ending::Matched)
    }
}

/// A stream run's ending: the RTL's, else the capture's break, else matched
/// (every frame read); the frames before a divergence count as matched.
pub fn finish_run(run: &mut CaptureRun, ending: Result<(), Ending>, error: Option<CaptureError>, started: Instant) {
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
