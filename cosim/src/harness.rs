//! Golden-vs-RTL cosimulation of one capture at one data width.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::report::{field_diffs, Divergence, DivergenceKind, Transaction};
use crate::rtl::{Handshake, RtlParser, RtlParserRecord};

/// An inclusive range of 1-based frame numbers, written `A:B`, `A:` or `A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRange {
    pub first: u64,
    pub last: u64,
}

impl FrameRange {
    pub const ALL: FrameRange = FrameRange {
        first: 1,
        last: u64::MAX,
    };
    pub fn contains(&self, frame: u64) -> bool {
        (self.first..=self.last).contains(&frame)
    }
}

impl FromStr for FrameRange {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let number = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{t}` is not a frame number"))
        };
        let (first, last) = match s.split_once(':') {
            Some((a, "")) => (number(a)?, u64::MAX),
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(s)?, number(s)?),
        };
        if first == 0 || last < first {
            return Err(format!(
                "`{s}`: frames count from 1 and the range must not be empty"
            ));
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

#[derive(Debug, Clone)]
pub struct CosimOptions {
    pub width: u32,
    pub handshake: Handshake,
    pub frames: FrameRange,
    pub parser: ParserConfig,
    /// Frames per FFI call.
    pub batch: usize,
    /// Matched transactions kept for the report.
    pub history: usize,
}

impl CosimOptions {
    pub fn new(width: u32, handshake: Handshake) -> Self {
        CosimOptions {
            width,
            handshake,
            frames: FrameRange::ALL,
            parser: ParserConfig::default(),
            batch: 256,
            history: 4,
        }
    }

    /// The command line that re-runs this cosim up to `frame`.
    pub fn repro(&self, capture: &Path, frame: u64) -> String {
        let mut cmd = format!(
            "metaroce cosim {} --width {} --seed {:#x} --idle {} --stall {} --frames {}:{}",
            capture.display(),
            self.width,
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
    /// The harness could not start (no model for the width, say).
    Setup(String),
}

#[derive(Debug)]
pub struct CaptureRun {
    pub capture: PathBuf,
    pub width: u32,
    pub seed: u64,
    pub frames_read: u64,
    pub frames_matched: u64,
    pub cycles: u64,
    pub elapsed: Duration,
    pub ending: Ending,
}

impl CaptureRun {
    pub fn passed(&self) -> bool {
        matches!(self.ending, Ending::Matched)
    }
}

/// Runs one capture through golden model and RTL; stops at the first
/// divergence.
pub fn cosim_capture(capture: &Path, options: &CosimOptions) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun {
        capture: capture.to_path_buf(),
        width: options.width,
        seed: options.handshake.seed,
        frames_read: 0,
        frames_matched: 0,
        cycles: 0,
        elapsed: Duration::ZERO,
        ending: Ending::Matched,
    };
    run.ending = match cosim_frames(capture, options, &mut run) {
        Ok(()) => Ending::Matched,
        Err(ending) => ending,
    };
    run.elapsed = started.elapsed();
    run
}

fn cosim_frames(
    capture: &Path,
    options: &CosimOptions,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut reader = CaptureReader::open(capture).map_err(Ending::CaptureError)?;
    let mut rtl = RtlParser::new(options.width, options.handshake).map_err(Ending::Setup)?;
    let mut compare = Comparator::new(capture, options);
    let mut batch: Vec<Frame> = vec![Frame::default(); options.batch.max(1)];
    let mut capture_error = None;
    loop {
        let mut filled = 0;
        while filled < batch.len() {
            match reader.read_next(&mut batch[filled]) {
                Ok(true) if options.frames.contains(batch[filled].index) => filled += 1,
                Ok(true) if batch[filled].index > options.frames.last => break,
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    capture_error = Some(e);
                    break;
                }
            }
        }
        run.frames_read = reader.frames_read();
        for frame in &batch[..filled] {
            compare.expect(
                frame,
                parse_frame(&frame.data, frame.mac_error, &options.parser),
            );
        }
        let records = rtl.push(&batch[..filled]);
        run.cycles = records.last().map_or(run.cycles, |r| r.cycle);
        for record in records {
            compare.check(record, run)?;
        }
        run.cycles = rtl.cycles();
        if filled < batch.len() {
            break;
        }
    }
    let want = compare.pending.len();
    let records = rtl.drain(want);
    run.cycles = records.last().map_or(run.cycles, |r| r.cycle);
    for record in records {
        compare.check(record, run)?;
    }
    run.cycles = rtl.cycles();
    if let Some(expected) = compare.pending.front() {
        let detail = format!(
            "no RTL record for {} cycles; {} frame(s) without a record",
            crate::rtl::STALL_CYCLES,
            compare.pending.len()
        );
        let (frame, time_ns) = (expected.frame, expected.time_ns);
        return Err(compare.diverged(
            DivergenceKind::RtlStalled,
            frame,
            time_ns,
            run.cycles,
            detail,
            vec![],
        ));
    }
    match capture_error {
        Some(e) => Err(Ending::CaptureError(e)),
        None => Ok(()),
    }
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
            record,
        });
    }

    fn check(&mut self, rtl: &RtlParserRecord, run: &mut CaptureRun) -> Result<(), Ending> {
        let Some(golden) = self.pending.pop_front() else {
            let detail = "the RTL produced a record with no frame left to match it".to_string();
            let (frame, time) = self
                .golden_last
                .back()
                .map_or((0, 0), |t| (t.frame, t.time_ns));
            return Err(self.diverged(
                DivergenceKind::ExtraRtlTransaction,
                frame,
                time,
                rtl.cycle,
                detail,
                vec![],
            ));
        };
        let record = match rtl.to_parse_record() {
            Ok(record) => record,
            Err(detail) => {
                let (frame, time) = (golden.frame, golden.time_ns);
                self.golden_last.push_back(golden);
                return Err(self.diverged(
                    DivergenceKind::InvalidRtlOutput,
                    frame,
                    time,
                    rtl.cycle,
                    detail,
                    vec![],
                ));
            }
        };
        let observed = Transaction {
            frame: golden.frame,
            time_ns: golden.time_ns,
            cycle: Some(rtl.cycle),
            record,
        };
        let diffs = field_diffs(&golden.record, &observed.record);
        let (frame, time) = (golden.frame, golden.time_ns);
        self.remember(golden, observed);
        if diffs.is_empty() {
            run.frames_matched += 1;
            Ok(())
        } else {
            Err(self.diverged(
                DivergenceKind::Mismatch,
                frame,
                time,
                rtl.cycle,
                String::new(),
                diffs,
            ))
        }
    }

    fn remember(&mut self, golden: Transaction, rtl: Transaction) {
        for (list, t) in [(&mut self.golden_last, golden), (&mut self.rtl_last, rtl)] {
            list.push_back(t);
            while list.len() > self.options.history + 1 {
                list.pop_front();
            }
        }
    }

    fn diverged(
        &self,
        kind: DivergenceKind,
        frame: u64,
        time_ns: u64,
        cycle: u64,
        detail: String,
        diffs: Vec<crate::report::FieldDiff>,
    ) -> Ending {
        Ending::Diverged(Box::new(Divergence {
            kind,
            block: "parser",
            capture: self.capture.to_path_buf(),
            width: self.options.width,
            seed: self.options.handshake.seed,
            frame,
            time_ns,
            cycle,
            detail,
            diffs,
            golden_last: self.golden_last.iter().cloned().collect(),
            rtl_last: self.rtl_last.iter().cloned().collect(),
            repro: self.options.repro(self.capture, frame.max(1)),
        }))
    }
}
