//! Captures on disk: the streaming reader ([`reader`]), the writer
//! ([`writer`]), and the search for captures under a path.

pub mod reader;
pub mod writer;

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub use reader::{CaptureError, CaptureReader, Frame};
pub use writer::{write_capture, GenFrame, START_NS};

/// Captures `metaroce cosim` and the tests pick up.
pub const CAPTURE_EXTENSIONS: [&str; 2] = ["pcap", "pcapng"];

/// The captures named by `paths`: files as given, directories searched
/// recursively; sorted, so runs and shards are deterministic.
pub fn find_captures(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        let meta = fs::metadata(path).with_context(|| format!("{}", path.display()))?;
        if meta.is_dir() {
            let mut dirs = vec![path.clone()];
            while let Some(dir) = dirs.pop() {
                for entry in fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
                    let entry = entry.with_context(|| format!("{}", dir.display()))?;
                    let p = entry.path();
                    if p.is_dir() {
                        dirs.push(p);
                    } else if is_capture_name(&p) {
                        found.push(p);
                    }
                }
            }
        } else {
            found.push(path.clone());
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn is_capture_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| CAPTURE_EXTENSIONS.contains(&e))
}
