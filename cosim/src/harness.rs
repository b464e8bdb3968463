//! What every block's cosim takes and gives: the options of a run, how it
//! ended, where its time went, and where its frames come from.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use metaroce_golden::ParserConfig;

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::report::Divergence;
use crate::rtl::{Handshake, Model};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ranges_parse_and_print() {
        assert_eq!("3:9".parse::<FrameRange>(), Ok(FrameRange { first: 3, last: 9 }));
        assert_eq!("4".parse::<FrameRange>(), Ok(FrameRange { first: 4, last: 4 }));
        assert_eq!("2:".parse::<FrameRange>().unwrap().to_string(), "2:");
        assert!("0:3".parse::<FrameRange>().is_err() && "5:2".parse::<FrameRange>().is_err());
    }
}
