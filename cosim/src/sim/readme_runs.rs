//! The runs of `sim readme`'s tables on a pool of threads: each run once
//! (tables that share a run share its name), its charts written, its
//! summary kept for the tables.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use super::charts::{queue_chart, rates_chart};
use super::report::{summarize, Summary};
use super::scenario::{SimCc, SimConfig};

/// One run of a table: `config` under `cc`, its charts named
/// `<name>-<kind>.svg`; `label` names it among the table's charts.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub label: String,
    pub config: SimConfig,
    pub cc: SimCc,
}

/// A run's summary and its charts' links (kind, link from the README).
#[derive(Debug, Clone)]
pub struct Charted {
    pub summary: Summary,
    pub links: Vec<(&'static str, String)>,
}

/// Runs every column once (by name) on `threads` threads, its charts into
/// `dir` linked from `readme`; logs each run's time as it ends. The first
/// failing run's error (in plan order) fails the lot.
pub fn run_columns<'a>(
    columns: impl IntoIterator<Item = &'a Column>,
    dir: &Path,
    readme: &Path,
    threads: usize,
    log: &mut dyn Write,
) -> Result<HashMap<String, Charted>> {
    let mut jobs: Vec<&Column> = Vec::new();
    for column in columns {
        match jobs.iter().find(|j| j.name == column.name) {
            None => jobs.push(column),
            // One name, one run: a second configuration under it would
            // silently take the first one's figures.
            Some(j) if (&j.config, j.cc) != (&column.config, column.cc) => {
                bail!("sim readme: two runs named {} differ in their configuration", column.name)
            }
            Some(_) => {}
        }
    }
    let next = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::channel();
    let mut results: Vec<Option<Result<Charted>>> = jobs.iter().map(|_| None).collect();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            let (done_tx, next, jobs) = (done_tx.clone(), &next, &jobs);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let started = Instant::now();
                let result = run_and_chart(job, dir, readme);
                if done_tx.send((i, result, started.elapsed())).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        for (i, result, took) in done_rx {
            writeln!(log, "{}: {:.1} s", jobs[i].name, took.as_secs_f64())?;
            log.flush()?;
            results[i] = Some(result);
        }
        Ok(())
    })?;
    let mut charted = HashMap::new();
    for (job, result) in jobs.iter().zip(results) {
        charted.insert(job.name.clone(), result.expect("every run reports")?);
    }
    Ok(charted)
}

/// One run: its summary, and its rates and queue charts written as
/// `dir/<name>-<kind>.svg`, with their links from `readme`.
fn run_and_chart(column: &Column, dir: &Path, readme: &Path) -> Result<Charted> {
    let name = &column.name;
    let run = super::setup::run_cc(&column.config, column.cc).map_err(|e| anyhow!("{name}: {e}"))?;
    let mut links = Vec::new();
    for (kind, chart) in [("rates", rates_chart(&run)), ("queue", queue_chart(&run))] {
        let path = dir.join(format!("{name}-{kind}.svg"));
        fs::write(&path, chart.svg()).with_context(|| format!("cannot write {}", path.display()))?;
        links.push((kind, relative_link(readme, &path)));
    }
    Ok(Charted { summary: summarize(&run), links })
}

/// `path` as a link from the directory of `from`.
fn relative_link(from: &Path, path: &Path) -> String {
    let base = from.parent().unwrap_or(Path::new(""));
    path.strip_prefix(base).unwrap_or(path).display().to_string()
}
