//! `metaroce replay`: one record per frame from one model, JSONL or text.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::Path;

use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};
use serde::Serialize;

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::report::brief;
use crate::rtl::{Handshake, RtlParser};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    Golden,
    Rtl { width: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Jsonl,
    Text,
}

/// A JSONL line: the frame number and timestamp, then the record's fields.
#[derive(Serialize)]
pub struct FrameRecord<'a> {
    pub frame: u64,
    pub time_ns: u64,
    #[serde(flatten)]
    pub record: &'a ParseRecord,
}

#[derive(Debug)]
pub enum ReplayError {
    /// The capture broke; the records of the frames before it were written.
    Capture(CaptureError),
    Rtl(String),
    Io(io::Error),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Capture(e) => write!(f, "{e}"),
            ReplayError::Rtl(e) => write!(f, "RTL: {e}"),
            ReplayError::Io(e) => write!(f, "writing output: {e}"),
        }
    }
}
impl std::error::Error for ReplayError {}
impl From<io::Error> for ReplayError {
    fn from(e: io::Error) -> Self {
        ReplayError::Io(e)
    }
}

/// Writes one line per frame of `capture`; returns the number of frames.
pub fn replay(
    capture: &Path,
    model: Model,
    format: OutputFormat,
    parser: &ParserConfig,
    out: &mut dyn Write,
) -> Result<u64, ReplayError> {
    let mut reader = CaptureReader::open(capture).map_err(ReplayError::Capture)?;
    let mut rtl = match model {
        Model::Golden => None,
        Model::Rtl { width } => {
            Some(RtlParser::new(width, Handshake::full_speed(0)).map_err(ReplayError::Rtl)?)
        }
    };
    let mut batch = vec![Frame::default(); 256];
    let mut waiting: VecDeque<(u64, u64)> = VecDeque::new();
    let mut written = 0u64;
    let mut capture_error = None;
    loop {
        let mut filled = 0;
        while filled < batch.len() {
            match reader.read_next(&mut batch[filled]) {
                Ok(true) => filled += 1,
                Ok(false) => break,
                Err(e) => {
                    capture_error = Some(e);
                    break;
                }
            }
        }
        match &mut rtl {
            None => {
                for frame in &batch[..filled] {
                    let record = parse_frame(&frame.data, frame.mac_error, parser);
                    write_record(out, format, frame.index, frame.time_ns, &record)?;
                    written += 1;
                }
            }
            Some(rtl) => {
                waiting.extend(batch[..filled].iter().map(|f| (f.index, f.time_ns)));
                let records = rtl.push(&batch[..filled]);
                written += write_rtl(out, format, &mut waiting, records)?;
            }
        }
        if filled < batch.len() {
            break;
        }
    }
    if let Some(rtl) = &mut rtl {
        let want = waiting.len();
        let records = rtl.drain(want);
        written += write_rtl(out, format, &mut waiting, records)?;
        if let Some((frame, _)) = waiting.front() {
            return Err(ReplayError::Rtl(format!(
                "stalled: no record for frame {frame} within {} cycles",
                crate::rtl::STALL_CYCLES
            )));
        }
    }
    match capture_error {
        Some(e) => Err(ReplayError::Capture(e)),
        None => Ok(written),
    }
}

fn write_rtl(
    out: &mut dyn Write,
    format: OutputFormat,
    waiting: &mut VecDeque<(u64, u64)>,
    records: &[crate::rtl::RtlParserRecord],
) -> Result<u64, ReplayError> {
    for rtl_record in records {
        let (frame, time_ns) = waiting
            .pop_front()
            .ok_or_else(|| ReplayError::Rtl("a record with no frame to match it".into()))?;
        let record = rtl_record
            .to_parse_record()
            .map_err(|e| ReplayError::Rtl(format!("frame {frame}: {e}")))?;
        write_record(out, format, frame, time_ns, &record)?;
    }
    Ok(records.len() as u64)
}

pub fn write_record(
    out: &mut dyn Write,
    format: OutputFormat,
    frame: u64,
    time_ns: u64,
    record: &ParseRecord,
) -> io::Result<()> {
    match format {
        OutputFormat::Jsonl => {
            serde_json::to_writer(
                &mut *out,
                &FrameRecord {
                    frame,
                    time_ns,
                    record,
                },
            )?;
            writeln!(out)
        }
        OutputFormat::Text => writeln!(
            out,
            "{frame:>7}  {}.{:09}  {}",
            time_ns / 1_000_000_000,
            time_ns % 1_000_000_000,
            brief(record)
        ),
    }
}
