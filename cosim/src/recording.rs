//! Recordings of `metaroce replay --record`, compared by `metaroce diff`,
//! and the record lines replay prints (JSONL or text).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::replay::Model;
use crate::report::{brief, field_diffs, Divergence, DivergenceKind, Record, Transaction};

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
    pub record: &'a Record,
}

/// First line of a recording (`metaroce replay --record`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordingHeader {
    /// Format version, 1.
    pub metaroce_recording: u32,
    pub block: String,
    /// `golden` or `rtl`.
    pub model: String,
    pub width: Option<u32>,
    pub capture: PathBuf,
}

impl RecordingHeader {
    /// `block`: "parser", "cn" or "all" (parse records, then CN transactions).
    pub fn new(model: Model, capture: &Path, block: &str) -> Self {
        let (name, width) = match model {
            Model::Golden => ("golden", None),
            Model::Rtl { width } => ("rtl", Some(width)),
        };
        RecordingHeader {
            metaroce_recording: 1,
            block: block.into(),
            model: name.into(),
            width,
            capture: capture.to_path_buf(),
        }
    }
}

/// Reads a recording; errors name the file and line.
pub fn read_recording(path: &Path) -> Result<(RecordingHeader, Vec<Transaction>), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: cannot open: {e}", path.display()))?;
    let mut lines = io::BufRead::lines(io::BufReader::new(file)).enumerate();
    let at = |n: usize, e: &dyn std::fmt::Display| format!("{}: line {}: {e}", path.display(), n + 1);
    let (_, first) = lines.next().ok_or_else(|| format!("{}: empty, not a recording", path.display()))?;
    let first = first.map_err(|e| at(0, &e))?;
    let header: RecordingHeader =
        serde_json::from_str(&first).map_err(|e| at(0, &format!("not a metaroce recording header ({e})")))?;
    if header.metaroce_recording != 1 {
        return Err(at(0, &format!("recording format {} (this metaroce reads 1)", header.metaroce_recording)));
    }
    let mut transactions = Vec::new();
    for (n, line) in lines {
        let line = line.map_err(|e| at(n, &e))?;
        transactions.push(serde_json::from_str(&line).map_err(|e| at(n, &e))?);
    }
    Ok((header, transactions))
}

/// Compares two recordings transaction by transaction; `None` when equal.
pub fn diff_recordings(a: &Path, b: &Path, history: usize) -> Result<Option<Divergence>, String> {
    let (header_a, left) = read_recording(a)?;
    let (_, right) = read_recording(b)?;
    let mismatch = (0..left.len().max(right.len())).find(|&i| match (left.get(i), right.get(i)) {
        (Some(x), Some(y)) => x.frame != y.frame || x.record != y.record,
        _ => true,
    });
    let Some(i) = mismatch else { return Ok(None) };
    let from = i.saturating_sub(history);
    let last = |list: &[Transaction]| list[from.min(list.len())..(i + 1).min(list.len())].to_vec();
    let (kind, diffs, detail) = match (left.get(i), right.get(i)) {
        (Some(x), Some(y)) if x.frame == y.frame => {
            (DivergenceKind::Mismatch, field_diffs(&x.record, &y.record), String::new())
        }
        (Some(x), Some(y)) => (
            DivergenceKind::Mismatch,
            vec![],
            format!("transaction {} is frame {} in A, frame {} in B", i + 1, x.frame, y.frame),
        ),
        (Some(_), None) => {
            (DivergenceKind::UnmatchedTransaction, vec![], format!("B ends after {} transactions", right.len()))
        }
        (None, _) => {
            (DivergenceKind::UnmatchedTransaction, vec![], format!("A ends after {} transactions", left.len()))
        }
    };
    let here = left.get(i).or(right.get(i)).expect("one side has transaction i");
    Ok(Some(Divergence {
        kind,
        block: "parser",
        capture: header_a.capture.clone(),
        width: header_a.width.unwrap_or(0),
        seed: 0,
        frame: here.frame,
        time_ns: here.time_ns,
        cycle: here.cycle.unwrap_or(0),
        detail,
        diffs,
        golden_last: last(&left),
        rtl_last: last(&right),
        repro: format!("metaroce diff {} {}", a.display(), b.display()),
        sides: [format!("A {}", a.display()), format!("B {}", b.display())],
    }))
}

pub fn write_record(
    out: &mut dyn Write,
    format: OutputFormat,
    frame: u64,
    time_ns: u64,
    record: &Record,
) -> io::Result<()> {
    match format {
        OutputFormat::Jsonl => {
            serde_json::to_writer(&mut *out, &FrameRecord { frame, time_ns, record })?;
            writeln!(out)
        }
        OutputFormat::Text => {
            writeln!(out, "{frame:>7}  {}.{:09}  {}", time_ns / 1_000_000_000, time_ns % 1_000_000_000, brief(record))
        }
    }
}
