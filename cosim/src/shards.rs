//! A regression split over machines: what makes shards of one regression
//! (shard K/N, seed, source tree, corpus) and `metaroce report merge`,
//! which joins the shards' JSON summaries into the report an unsharded run
//! would have written, refusing shards that do not belong together.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use serde_json::Value;

use crate::summary::{junit_cases, JunitCase, RegressionId};

/// FNV-1a, 64 bits: stable across machines and toolchains.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        // A length mark, so ("ab", "c") and ("a", "bc") differ.
        self.0 = (self.0 ^ bytes.len() as u64).wrapping_mul(0x0100_0000_01b3);
    }
}

/// The corpus hash: every capture (name, bytes, the NIC file beside it)
/// and `options`, the settings every run shares.
pub fn corpus_hash(captures: &[PathBuf], options: &str) -> Result<String, String> {
    let mut hash = Fnv::default();
    hash.write(options.as_bytes());
    for capture in captures {
        hash.write(capture.to_string_lossy().as_bytes());
        hash.write(&std::fs::read(capture).map_err(|e| format!("{}: {e}", capture.display()))?);
        if let Ok(nic) = std::fs::read(crate::nic::nic_file_of(capture)) {
            hash.write(&nic);
        }
    }
    Ok(format!("{:016x}", hash.0))
}

/// The source tree this binary was built from: its git commit, if the
/// checkout is still there, else the version.
pub fn tree_identity() -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("."));
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(workspace)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(commit) if !commit.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            format!("git:{commit}{}", if dirty { "-dirty" } else { "" })
        }
        _ => format!("metaroce {}", env!("CARGO_PKG_VERSION")),
    }
}

/// One shard's JSON summary as read.
struct ShardFile {
    path: PathBuf,
    id: RegressionId,
    summary: serde_json::Map<String, Value>,
}

fn read_shard(path: &Path) -> Result<ShardFile, String> {
    let named = |e: String| format!("{}: {e}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| named(e.to_string()))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| named(e.to_string()))?;
    let Value::Object(summary) = value else { return Err(named("not a cosim JSON summary".into())) };
    let id = summary
        .get("regression")
        .filter(|r| !r.is_null())
        .ok_or_else(|| named("no `regression` key: written by an older metaroce, or not by `cosim --json`".into()))?;
    let id: RegressionId = serde_json::from_value(id.clone()).map_err(|e| named(format!("regression: {e}")))?;
    Ok(ShardFile { path: path.to_path_buf(), id, summary })
}

/// The merged report: the JSON summary and the JUnit XML.
#[derive(Debug)]
pub struct Merged {
    pub json: String,
    pub junit: String,
    pub runs: usize,
    pub failed_runs: usize,
    /// Notes for the user (e.g. RTL coverage not merged).
    pub notes: Vec<String>,
}

/// The merged summary, in the summary's own key order.
#[derive(Serialize)]
struct MergedSummary {
    runs: Vec<Value>,
    frames: u64,
    matched: u64,
    failed_runs: u64,
    seconds: f64,
    frames_per_second: f64,
    functional: Value,
    rtl_coverage: Value,
    nic_warnings: Vec<Value>,
    regression: RegressionId,
}

/// Joins the shards' JSON summaries. Refuses a shard of another seed, tree,
/// corpus or shard count, or an unsharded one, naming its file; names a
/// missing or repeated shard by number.
pub fn merge(paths: &[PathBuf]) -> Result<Merged, String> {
    let shards = paths.iter().map(|p| read_shard(p)).collect::<Result<Vec<_>, _>>()?;
    let first = shards.first().ok_or("no shard to merge")?;
    let shard_of =
        |s: &ShardFile| s.id.shard.ok_or_else(|| format!("{}: not a shard (run with --shard K/N)", s.path.display()));
    let count = shard_of(first)?.count;
    let mut by_index: BTreeMap<usize, &ShardFile> = BTreeMap::new();
    for s in &shards {
        let shard = shard_of(s)?;
        let foreign = |what: &str, theirs: &str, ours: &str| {
            format!(
                "{}: {what} {theirs}, but {} has {ours}: not a shard of the same regression",
                s.path.display(),
                first.path.display()
            )
        };
        if shard.count != count {
            return Err(foreign("shard count", &shard.count.to_string(), &count.to_string()));
        }
        for (what, theirs, ours) in [
            ("seed", &s.id.seed, &first.id.seed),
            ("tree", &s.id.tree, &first.id.tree),
            ("corpus", &s.id.corpus, &first.id.corpus),
        ] {
            if theirs != ours {
                return Err(foreign(what, theirs, ours));
            }
        }
        if let Some(other) = by_index.insert(shard.index, s) {
            return Err(format!(
                "shard {}/{count} given twice: {} and {}",
                shard.index,
                other.path.display(),
                s.path.display()
            ));
        }
    }
    let missing: Vec<String> = (1..=count).filter(|k| !by_index.contains_key(k)).map(|k| k.to_string()).collect();
    if !missing.is_empty() {
        return Err(format!("missing shard(s) {} of {count}", missing.join(", ")));
    }
    merge_summaries(&by_index.into_values().collect::<Vec<_>>())
}

fn number(summary: &serde_json::Map<String, Value>, key: &str) -> f64 {
    summary.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

fn merge_summaries(shards: &[&ShardFile]) -> Result<Merged, String> {
    let mut runs: Vec<(u64, usize, Value)> = Vec::new();
    let mut warnings: Vec<(u64, usize, Value)> = Vec::new();
    let mut functional = Value::Null;
    let mut notes = Vec::new();
    for s in shards {
        let items = |key: &str| s.summary.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        // A run's place in the unsharded order: its capture's, then its own.
        for run in items("runs") {
            let index = run.get("capture_index").and_then(Value::as_u64).ok_or_else(|| {
                format!("{}: a run without `capture_index`: not written by `cosim --shard`", s.path.display())
            })?;
            runs.push((index, runs.len(), run));
        }
        for warning in items("nic_warnings") {
            let index = warning.get("capture_index").and_then(Value::as_u64).unwrap_or(u64::MAX);
            warnings.push((index, warnings.len(), warning));
        }
        add_counts(&mut functional, s.summary.get("functional").unwrap_or(&Value::Null));
        if s.summary.get("rtl_coverage").is_some_and(|c| !c.is_null()) && notes.is_empty() {
            notes.push("RTL coverage is not merged: join the shards' lcov files with `lcov -a`".to_string());
        }
    }
    runs.sort_by_key(|(index, order, _)| (*index, *order));
    warnings.sort_by_key(|(index, order, _)| (*index, *order));
    let runs: Vec<Value> = runs.into_iter().map(|(_, _, run)| run).collect();
    let cases = runs
        .iter()
        .map(|run| serde_json::from_value::<JunitCase>(run.clone()).map_err(|e| format!("a run: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let sum = |key: &str| shards.iter().map(|s| number(&s.summary, key)).sum::<f64>();
    let frames = sum("frames") as u64;
    let seconds = sum("seconds");
    let merged = MergedSummary {
        failed_runs: cases.iter().filter(|c| c.message.is_some()).count() as u64,
        runs,
        frames,
        matched: sum("matched") as u64,
        seconds,
        frames_per_second: frames as f64 / seconds.max(1e-9),
        functional,
        rtl_coverage: Value::Null,
        nic_warnings: warnings.into_iter().map(|(_, _, w)| w).collect(),
        regression: RegressionId { shard: None, ..shards[0].id.clone() },
    };
    let json = serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())? + "\n";
    let failed_runs = merged.failed_runs as usize;
    Ok(Merged { json, junit: junit_cases(&cases), runs: cases.len(), failed_runs, notes })
}

/// Adds `from`'s counters into `into` (objects key by key, numbers summed).
fn add_counts(into: &mut Value, from: &Value) {
    match (into, from) {
        (into @ Value::Null, from) => *into = from.clone(),
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                add_counts(into.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
                *a = (x + y).into();
            }
        }
        _ => {}
    }
}
