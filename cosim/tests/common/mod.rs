//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use metaroce_cosim::harness::{CosimOptions, Ending};
use metaroce_cosim::nic::CnSetup;
use metaroce_cosim::run::{with_wave, CaptureRun};
use metaroce_cosim::wave::WaveFormat;

/// Runs the `metaroce` binary from the workspace root.
pub fn metaroce(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_metaroce")).args(args).current_dir(workspace()).output().expect("run metaroce")
}

/// Its stdout and stderr, one after the other.
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

pub fn pcaps() -> PathBuf {
    workspace().join("pcaps")
}

/// Every capture under pcaps/, sorted.
pub fn captures() -> Vec<PathBuf> {
    let found = metaroce_cosim::capture::find_captures(&[pcaps()]).unwrap();
    assert!(found.len() > 20, "pcaps/ holds the regression captures; run `metaroce gen`");
    found
}

/// The capture's path relative to pcaps/, with `/` as separator.
pub fn relative_name(capture: &Path) -> String {
    capture.strip_prefix(pcaps()).unwrap().to_string_lossy().replace('\\', "/")
}

/// The random seed of this test run: `METAROCE_SEED` (decimal or 0x hex)
/// when set, else fresh. Printed so a failure can be repeated.
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("METAROCE_SEED") {
        Ok(s) => {
            let s = s.trim();
            s.strip_prefix("0x").map_or_else(|| s.parse(), |h| u64::from_str_radix(h, 16)).expect("METAROCE_SEED")
        }
        Err(_) => {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
            t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(40)
        }
    };
    eprintln!("{test}: seed {seed:#x} (repeat with METAROCE_SEED={seed:#x})");
    seed
}

/// A path in this test process's scratch directory (created on first use).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("metaroce-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A capture under pcaps/ and its NIC setup with no overrides.
pub fn capture_setup(capture: &str) -> (PathBuf, CnSetup) {
    let path = pcaps().join(capture);
    let setup = CnSetup::for_capture(&path, &Default::default()).unwrap();
    (path, setup)
}

/// `--wave`: re-runs a diverging `run` with the same options; it diverges
/// again and writes a waveform around the divergence to `name` in scratch.
/// Returns the re-run.
pub fn rerun_writes_a_waveform(
    name: &str,
    options: &CosimOptions,
    run: impl Fn(&CosimOptions) -> CaptureRun,
) -> CaptureRun {
    let fst = scratch(name);
    let rerun = with_wave(run, options, &fst, WaveFormat::Fst, 50, 10);
    assert!(matches!(rerun.ending, Ending::Diverged(_)), "{:?}", rerun.ending);
    assert!(std::fs::metadata(&fst).unwrap().len() > 1000, "an empty waveform");
    rerun
}

/// Whether `run` matched; if not, its failure goes to `failures`: the
/// divergence report, or how the run `name` ended.
pub fn matched(run: &CaptureRun, name: impl std::fmt::Display, failures: &mut Vec<String>) -> bool {
    match &run.ending {
        Ending::Matched => return true,
        Ending::Diverged(report) => failures.push(report.to_string()),
        other => failures.push(format!("{name}: {other:?}")),
    }
    false
}
