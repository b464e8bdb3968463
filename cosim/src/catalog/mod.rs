//! The regression catalog: every capture under `pcaps/` that `metaroce
//! gen` writes, with what each frame must classify as (`SPEC.md` §5).
//! Valid captures are in [`parser`], one capture per error class in
//! [`errors`], the congestion-notification captures in [`cn`].
//!
//! Error captures start from a valid frame and break exactly one thing,
//! keeping every other length and checksum right so that the intended
//! error class is the one that fires.

mod cn;
mod errors;
mod parser;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::Context;
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::opcode;
use metaroce_golden::ParseError;

use crate::capture::{write_capture, GenFrame};
use crate::dice::seq_value;
use crate::stimuli::RoceFrame;

/// A generated capture and what every frame of it must classify as.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Path under `pcaps/`; `.pcapng` files are written as pcapng.
    pub name: String,
    pub frames: Vec<GenFrame>,
    /// For the error captures: the class each frame must get.
    pub expect_error: Option<ParseError>,
    /// The NIC of a congestion-notification capture, written beside it
    /// as `NAME.nic.json`.
    pub nic: Option<NicConfig>,
}

/// All generated captures.
pub fn all_captures() -> Vec<Capture> {
    let mut captures = parser::captures();
    captures.extend(errors::captures());
    captures.extend(cn::captures());
    captures
}

/// Writes every generated capture under `dir`; returns paths and frame counts.
pub fn write_all(dir: &Path) -> anyhow::Result<Vec<(PathBuf, usize)>> {
    let mut written = Vec::new();
    for capture in all_captures() {
        let path = dir.join(&capture.name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("{}", parent.display()))?;
        }
        write_capture(&path, &capture.frames).with_context(|| format!("{}", path.display()))?;
        if let Some(nic) = &capture.nic {
            let nic_path = crate::cn::nic_file_of(&path);
            let json = serde_json::to_string_pretty(nic)? + "\n";
            fs::write(&nic_path, json).with_context(|| format!("{}", nic_path.display()))?;
            written.push((nic_path, 0));
        }
        written.push((path, capture.frames.len()));
    }
    Ok(written)
}

/// Writes the generated captures to a fresh directory and compares them
/// with `dir`; returns the names that differ or are missing.
pub fn stale_captures(dir: &Path, scratch: &Path) -> io::Result<Vec<String>> {
    let written = write_all(scratch).map_err(|e| io::Error::other(format!("{e:#}")))?;
    let mut stale = Vec::new();
    for (path, _) in written {
        let name = path.strip_prefix(scratch).unwrap_or(&path).to_path_buf();
        let fresh = fs::read(&path)?;
        if fs::read(dir.join(&name)).ok().as_deref() != Some(&fresh[..]) {
            stale.push(name.display().to_string());
        }
    }
    Ok(stale)
}

/// A payload length that suits an opcode: CNPs, ACKs and READ requests
/// carry none.
fn payload_for(op: u8, seq: u32) -> usize {
    let h = opcode::ext_headers(op).unwrap_or_default();
    let bare = h.cnp || (h.aeth && op != 0x0D && op != 0x0F && op != 0x10) || op == 0x0C || h.atomic;
    if bare {
        0
    } else {
        (seq_value(seq, 99) % 300) as usize
    }
}

/// A frame of opcode `op` with fields and a payload from `seq`.
fn roce(op: u8, seq: u32) -> RoceFrame {
    RoceFrame::new(op, seq).with_payload(payload_for(op, seq), seq)
}
