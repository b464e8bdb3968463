//! The regression catalog: every capture under `pcaps/` that `metaroce
//! gen` writes, with what each frame must classify as (`SPEC.md` §5).
//! Valid captures are in [`parser`], one capture per error class in
//! [`errors`], the congestion-notification captures in [`cn`], the
//! responder's in [`responder`], the requester's in [`requester`].
//!
//! Error captures start from a valid frame and break exactly one thing,
//! keeping every other length and checksum right so that the intended
//! error class is the one that fires.

mod cn;
mod entry;
mod errors;
mod parser;
mod requester;
mod responder;
mod side;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::capture::write_capture;
pub use entry::Capture;

/// All generated captures.
pub fn all_captures() -> Vec<Capture> {
    let mut captures = parser::captures();
    captures.extend(errors::captures());
    captures.extend(cn::captures());
    captures.extend(responder::captures());
    captures.extend(requester::captures());
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
            let nic_path = crate::nic::nic_file_of(&path);
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
