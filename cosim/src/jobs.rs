//! A cosim regression as jobs: every (capture, width, block) run planned
//! from the block table, run on a pool of threads (one Verilated model
//! each), and printed in plan order as they finish.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use indicatif::{ProgressBar, ProgressStyle};
use metaroce_golden::ParserConfig;

use crate::coverage::{export_rtl_coverage, RtlCoverage};
use crate::harness::{CosimOptions, Ending, FrameRange};
use crate::nic::{CnOverrides, CnSetup};
use crate::nic_gaps::NicGaps;
use crate::rtl::{Handshake, Model, ModelKind};
use crate::run::{with_wave, Block, CaptureRun};
use crate::wave::WaveFormat;

/// How waveforms of divergences are written.
#[derive(Debug, Clone)]
pub struct WaveSpec {
    pub dir: PathBuf,
    pub format: WaveFormat,
    /// Cycles before and after the divergence.
    pub before: u64,
    pub after: u64,
}

/// What a regression runs: captures, widths, blocks, and the options every
/// run shares.
#[derive(Debug, Clone)]
pub struct Plan {
    pub captures: Vec<PathBuf>,
    pub widths: Vec<u32>,
    pub blocks: Vec<&'static dyn Block>,
    pub handshake: Handshake,
    pub frames: Option<FrameRange>,
    pub parser: ParserConfig,
    /// Coverage build: each run writes its data into this directory.
    pub coverage_dir: Option<PathBuf>,
    pub wave: Option<WaveSpec>,
    /// The NIC's setup on top of each capture's NIC file.
    pub overrides: CnOverrides,
}

/// One (capture, width, block) run of a regression.
pub struct Job {
    pub capture: PathBuf,
    pub block: &'static dyn Block,
    pub options: CosimOptions,
    /// Where its waveform goes, if it diverges.
    pub wave: Option<PathBuf>,
    /// The NIC's setup, for a block that uses it (one per capture).
    pub setup: Option<Arc<CnSetup>>,
}

impl Job {
    pub fn run(&self, wave: Option<&WaveSpec>) -> CaptureRun {
        let setup = self.setup.as_deref();
        let block_run = |o: &CosimOptions| self.block.cosim(&self.capture, o, setup);
        match (&self.wave, wave) {
            (Some(path), Some(w)) => with_wave(block_run, &self.options, path, w.format, w.before, w.after),
            _ => block_run(&self.options),
        }
    }
}

impl Plan {
    /// The jobs in order: by capture, then width, then block. A block
    /// without a data width runs at the first width only; one without a
    /// coverage build is left out of a coverage run. Errors name a bad NIC
    /// file or parameter.
    pub fn jobs(&self) -> Result<Vec<Job>, String> {
        let kind = if self.coverage_dir.is_some() { ModelKind::Coverage } else { ModelKind::Plain };
        let seed = self.handshake.seed;
        let mut jobs = Vec::new();
        for capture in &self.captures {
            let setup = match self.blocks.iter().any(|b| b.uses_nic()) {
                true => Some(Arc::new(CnSetup::for_capture(capture, &self.overrides)?)),
                false => None,
            };
            let stem = capture.file_stem().map_or("capture".into(), |s| s.to_string_lossy().into_owned());
            for (&width, &block) in self.widths.iter().flat_map(|w| self.blocks.iter().map(move |b| (w, b))) {
                let mut options = CosimOptions::new(Model { width, kind }, self.handshake);
                options.parser = self.parser;
                if let Some(range) = self.frames {
                    options.frames = range;
                }
                if let Some(dir) = &self.coverage_dir {
                    options.coverage_dat = Some(dir.join(format!("{}-{stem}-w{width}.dat", jobs.len())));
                }
                if (!block.has_coverage_build() && self.coverage_dir.is_some())
                    || (!block.has_width() && width != self.widths[0])
                {
                    continue;
                }
                let tag = block.file_tag();
                let wave = self
                    .wave
                    .as_ref()
                    .map(|w| w.dir.join(format!("{stem}{tag}-w{width}-{seed:x}.{}", w.format.extension())));
                let setup = setup.clone().filter(|_| block.uses_nic());
                jobs.push(Job { capture: capture.clone(), block, options, wave, setup });
            }
        }
        Ok(jobs)
    }
}

/// Runs the jobs on `threads` threads, printing each result in job order.
pub fn run_jobs(
    jobs: &[Job],
    threads: usize,
    wave: Option<&WaveSpec>,
    out: &mut dyn Write,
) -> io::Result<Vec<CaptureRun>> {
    let bar = if io::stderr().is_terminal() {
        let bar = ProgressBar::new(jobs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} runs  {msg}")
                .expect("template")
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::channel::<(usize, CaptureRun)>();
    let mut finished: Vec<Option<CaptureRun>> = (0..jobs.len()).map(|_| None).collect();
    let mut printed = 0;
    let mut warned: Vec<PathBuf> = Vec::new();
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..threads.min(jobs.len()) {
            let done_tx = done_tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                if done_tx.send((i, job.run(wave))).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        for (i, run) in done_rx {
            bar.inc(1);
            bar.set_message(format!("{} w{}", run.capture.display(), run.model.width));
            finished[i] = Some(run);
            while let Some(Some(run)) = finished.get(printed) {
                bar.suspend(|| print_run(run, out))?;
                // Once per capture: its runs are consecutive.
                let first_of_capture = warned.last() != Some(&run.capture);
                if let Some(warning) = run.nic_gaps.as_ref().and_then(|g| g.warning(&run.capture)) {
                    if first_of_capture {
                        bar.suspend(|| writeln!(out, "  {warning}"))?;
                        warned.push(run.capture.clone());
                    }
                }
                printed += 1;
            }
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(finished.into_iter().map(|r| r.expect("every job reports")).collect())
}

/// A run's PASS/FAIL line, then its report.
pub fn print_run(run: &CaptureRun, out: &mut dyn Write) -> io::Result<()> {
    let tag = if run.passed() { "PASS" } else { "FAIL" };
    let unanswered = run.nic_gaps.as_ref().map_or(0, NicGaps::ignored_frames);
    let unanswered = match unanswered {
        0 => String::new(),
        n => format!(", {n} frame(s) unanswered by the NIC setup"),
    };
    writeln!(
        out,
        "{tag}  {}  w{}  {:<6}  {}, {} cycles{unanswered}",
        run.capture.display(),
        run.model.width,
        run.block,
        run.block.counts(run),
        run.cycles
    )?;
    match &run.ending {
        Ending::Matched => {}
        Ending::Diverged(report) => writeln!(out, "{report}")?,
        Ending::CaptureError(e) => writeln!(out, "  capture error: {e}")?,
        Ending::Setup(e) => writeln!(out, "  cannot run: {e}")?,
    }
    if let Some(wave) = &run.wave {
        writeln!(out, "  waveform: {} (open with gtkwave or surfer)", wave.display())?;
    }
    out.flush()
}

/// Merges the coverage data the jobs wrote into an lcov file at `info`,
/// then removes `scratch`.
pub fn write_rtl_coverage(jobs: &[Job], info: &Path, scratch: &Path) -> Result<RtlCoverage, String> {
    let dats: Vec<&Path> =
        jobs.iter().filter_map(|job| job.options.coverage_dat.as_deref()).filter(|p| p.exists()).collect();
    if dats.is_empty() {
        return Err("no run wrote coverage data".into());
    }
    let merged = scratch.join("merged.dat");
    let coverage = export_rtl_coverage(&dats, &merged, info)?;
    std::fs::remove_dir_all(scratch).ok();
    Ok(coverage)
}
