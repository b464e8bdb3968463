//! The pacer and the whole pipeline top in the harness (`SPEC.md` §7–8).
//!
//! Block alone: a capture goes through the golden parser and CN block; the
//! reaction point's transactions become the pacer's commands, which the
//! golden pacer and the Verilated `roce_pacer` both take; their releases
//! are compared in order. Top: the capture's frames go into the golden
//! pipeline and the Verilated `roce_pipeline`, which are compared on three
//! streams: CNPs, the reaction point's transactions, releases.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Instant;

use metaroce_golden::cn::TimeBase;
use metaroce_golden::pacer::{Pacer, PacerCommand, PacerGeometry, Release};
use metaroce_golden::pipeline::{sent_qp, Pipeline, PipelineOutputs};
use metaroce_golden::ParserConfig;

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::cn::{
    cn_repro, drive, finish_run, frame_at, golden_cn_streams, read_stimulus, run_golden, BatchModel, CnCounts,
    CnRecord, CnSetup, GoldenCn, StreamComparator,
};
use crate::harness::{CaptureRun, CosimOptions, Ending, FrameSource};
use crate::report::{Record, Transaction};
use crate::rtl::{Handshake, ModelKind};
use crate::rtl_cn::CN_STALL_CYCLES;
use crate::rtl_pacer::{RtlPacer, RtlPipeline, RtlRelease, TopFrame, PACER_STALL_CYCLES};
use crate::sim_handle::SimStop;

const RELEASE_STREAM: &[&str] = &["pacer.release"];
const TOP_STREAMS: &[&str] = &["top.cnp", "top.rate", "top.release"];

/// The pacer's commands of a capture: the reaction point's transactions
/// in order, each with the frame whose event made it.
pub fn pacer_commands(golden: &GoldenCn) -> Vec<(u64, PacerCommand)> {
    golden.rates.iter().map(|(frame, change)| (*frame, PacerCommand::from_rate_change(change))).collect()
}

/// The golden pacer over `commands`, flushed at the end (releases of the
/// flush belong to `last_frame`).
pub fn run_golden_pacer(setup: &CnSetup, commands: &[(u64, PacerCommand)], last_frame: u64) -> Vec<(u64, Release)> {
    let mut pacer = Pacer::new(PacerGeometry::default(), &setup.regs);
    let (mut out, mut releases) = (Vec::new(), Vec::new());
    for (frame, cmd) in commands {
        pacer.command(cmd, &mut releases);
        out.extend(releases.drain(..).map(|r| (*frame, r)));
    }
    pacer.flush(&mut releases);
    out.extend(releases.drain(..).map(|r| (last_frame, r)));
    out
}

fn release_transaction(time: &TimeBase, frame: u64, release: &Release) -> Transaction {
    Transaction {
        frame,
        time_ns: time.time_ns(release.time),
        cycle: None,
        record: Record::Cn(CnRecord::release(release)),
    }
}

/// Counts of a pacer or top run, for the summary line.
fn counts(events: usize, cnps: usize, rates: usize, releases: usize) -> CnCounts {
    CnCounts { events: events as u64, cnps: cnps as u64, rate_changes: rates as u64, releases: releases as u64 }
}

/// Runs one capture through the golden and the RTL pacer.
pub fn cosim_pacer_capture(capture: &Path, options: &CosimOptions, setup: &CnSetup) -> CaptureRun {
    let started = Instant::now();
    let stimulus = match CaptureReader::open(capture) {
        Ok(mut reader) => read_stimulus(&mut reader, setup, &options.parser),
        Err(e) => {
            let mut run = CaptureRun::for_block(capture, options, "pacer");
            run.ending = Ending::CaptureError(e);
            return run;
        }
    };
    let commands = PacerStimulus {
        commands: pacer_commands(&run_golden(setup, &stimulus)),
        frames_read: stimulus.frames_read,
        time: stimulus.time,
        error: stimulus.error,
    };
    let mut run = cosim_pacer_stimulus(capture, commands, options, setup, &setup.regs);
    run.elapsed = started.elapsed();
    run
}

/// The pacer's input from a capture (or a generator).
#[derive(Debug, Default)]
pub struct PacerStimulus {
    /// Commands in order, each with the frame whose event made it.
    pub commands: Vec<(u64, PacerCommand)>,
    pub frames_read: u64,
    pub time: TimeBase,
    pub error: Option<CaptureError>,
}

/// The pacer cosim of a command stream; the RTL gets `rtl_regs` (the
/// setup's, but for the harness's own tests, which give it others).
pub fn cosim_pacer_stimulus(
    capture: &Path,
    stimulus: PacerStimulus,
    options: &CosimOptions,
    setup: &CnSetup,
    rtl_regs: &metaroce_golden::cc_params::CcRegisters,
) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(capture, options, "pacer");
    let clock = Instant::now();
    let golden = run_golden_pacer(setup, &stimulus.commands, stimulus.frames_read);
    let clock = run.phases.golden.lap(clock);
    run.frames_read = stimulus.frames_read;
    run.cn = Some(counts(stimulus.commands.len(), 0, 0, golden.len()));
    let expected = vec![golden.iter().map(|(f, r)| release_transaction(&stimulus.time, *f, r)).collect()];
    let repro = cn_repro(capture, options, setup, "pacer");
    let mut compare = StreamComparator::new(capture, options, repro, stimulus.time, RELEASE_STREAM, expected);
    run.phases.compare.lap(clock);
    let ending = cosim_commands(&stimulus.commands, options, rtl_regs, &mut compare, &mut run);
    finish_run(&mut run, ending, stimulus.error, started);
    run
}

fn check_releases(compare: &mut StreamComparator, stream: usize, rtl: &mut Vec<RtlRelease>) -> Result<(), Ending> {
    for r in std::mem::take(rtl) {
        let release = r.to_release();
        compare.check(stream, Ok((release.time, CnRecord::release(&release))), r.cycle)?;
    }
    Ok(())
}

impl BatchModel for RtlPacer {
    type Item = PacerCommand;
    fn push(&mut self, items: &[PacerCommand]) -> Result<(), SimStop> {
        RtlPacer::push(self, items)
    }
    fn finish(&mut self) -> Result<(), SimStop> {
        self.flush()
    }
    fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
    fn check(&mut self, compare: &mut StreamComparator) -> Result<(), Ending> {
        check_releases(compare, 0, &mut self.releases)
    }
}

impl BatchModel for RtlPipeline {
    type Item = TopFrame;
    fn push(&mut self, items: &[TopFrame]) -> Result<(), SimStop> {
        RtlPipeline::push(self, items)
    }
    fn finish(&mut self) -> Result<(), SimStop> {
        self.flush()
    }
    fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
    fn check(&mut self, compare: &mut StreamComparator) -> Result<(), Ending> {
        compare.check_cn(std::mem::take(&mut self.cnps), std::mem::take(&mut self.rates))?;
        check_releases(compare, 2, &mut self.releases)
    }
}

fn cosim_commands(
    commands: &[(u64, PacerCommand)],
    options: &CosimOptions,
    rtl_regs: &metaroce_golden::cc_params::CcRegisters,
    compare: &mut StreamComparator,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let kind = if options.coverage_dat.is_some() { ModelKind::Coverage } else { ModelKind::Plain };
    let mut rtl = RtlPacer::new(kind, options.handshake, rtl_regs).map_err(Ending::Setup)?;
    if let Some(wave) = &options.wave {
        rtl.sim.open_trace(&wave.path, wave.from, wave.to, None).map_err(Ending::Setup)?;
    }
    let cmds: Vec<PacerCommand> = commands.iter().map(|(_, c)| *c).collect();
    drive(&mut rtl, &cmds, 0, PACER_STALL_CYCLES, compare, run)?;
    rtl.sim.close_trace();
    run.wave = options.wave.as_ref().map(|w| w.path.clone()).filter(|p| p.exists());
    if let Some(path) = &options.coverage_dat {
        rtl.sim.write_coverage(path).map_err(Ending::Setup)?;
    }
    Ok(())
}

/// A capture as the top sees it: every frame with its tick and the host's
/// side band, and the golden pipeline's outputs.
#[derive(Debug, Default)]
pub struct TopStimulus {
    pub time: TimeBase,
    pub frames: Vec<TopFrame>,
    /// The golden outputs, each with the frame that produced it (the
    /// flush's with the last frame).
    pub cnps: Vec<(u64, metaroce_golden::notify::CnpSent)>,
    pub rates: Vec<(u64, metaroce_golden::reaction::RateChange)>,
    pub releases: Vec<(u64, Release)>,
    pub events: usize,
    pub error: Option<CaptureError>,
}

/// Reads every frame and runs the golden pipeline over them.
pub fn golden_top(source: &mut dyn FrameSource, setup: &CnSetup, parser: &ParserConfig) -> Result<TopStimulus, String> {
    let mut pipeline = Pipeline::new(&setup.nic, &setup.regs, *parser)?;
    let mut top = TopStimulus::default();
    let mut out = PipelineOutputs::default();
    let mut frame = Frame::default();
    loop {
        match source.read_next(&mut frame) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                top.error = Some(e);
                break;
            }
        }
        let tick = top.time.tick(frame.time_ns);
        let event = pipeline.frame(&frame.data, frame.mac_error, tick, &mut out);
        top.events += usize::from(event.is_some());
        let tx_qp = sent_qp(event.as_ref());
        top.frames.push(TopFrame { data: frame.data.clone(), mac_error: frame.mac_error, tick, tx_qp });
        collect(&mut top, &mut out, frame.index);
    }
    pipeline.flush(&mut out);
    let last = top.frames.len() as u64;
    collect(&mut top, &mut out, last);
    Ok(top)
}

fn collect(top: &mut TopStimulus, out: &mut PipelineOutputs, frame: u64) {
    top.cnps.extend(out.cnps.drain(..).map(|c| (frame, c)));
    top.rates.extend(out.rates.drain(..).map(|r| (frame, r)));
    top.releases.extend(out.releases.drain(..).map(|r| (frame, r)));
}

/// Runs one capture through the golden and the RTL pipeline top.
pub fn cosim_top_capture(capture: &Path, options: &CosimOptions, setup: &CnSetup) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(capture, options, "top");
    let top = match CaptureReader::open(capture) {
        Ok(mut reader) => match golden_top(&mut reader, setup, &options.parser) {
            Ok(top) => top,
            Err(e) => {
                run.ending = Ending::Setup(e);
                return run;
            }
        },
        Err(e) => {
            run.ending = Ending::CaptureError(e);
            return run;
        }
    };
    let clock = Instant::now();
    run.frames_read = top.frames.len() as u64;
    run.cn = Some(counts(top.events, top.cnps.len(), top.rates.len(), top.releases.len()));
    let golden = GoldenCn { cnps: top.cnps.clone(), rates: top.rates.clone() };
    let mut expected = golden_cn_streams(&top.time, &golden);
    expected.push(top.releases.iter().map(|(f, r)| release_transaction(&top.time, *f, r)).collect());
    let repro = cn_repro(capture, options, setup, "top");
    let mut compare = StreamComparator::new(capture, options, repro, top.time, TOP_STREAMS, expected);
    run.phases.compare.lap(clock);
    let ending = cosim_frames(&top, options, setup, &mut compare, &mut run);
    finish_run(&mut run, ending, top.error, started);
    run
}

fn cosim_frames(
    top: &TopStimulus,
    options: &CosimOptions,
    setup: &CnSetup,
    compare: &mut StreamComparator,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut rtl = new_top(options.model.width, options.handshake, setup).map_err(Ending::Setup)?;
    if let Some(wave) = &options.wave {
        rtl.sim.open_trace(&wave.path, wave.from, wave.to, None).map_err(Ending::Setup)?;
    }
    drive(&mut rtl, &top.frames, 2, CN_STALL_CYCLES, compare, run)?;
    rtl.sim.close_trace();
    run.wave = options.wave.as_ref().map(|w| w.path.clone()).filter(|p| p.exists());
    Ok(())
}

/// A Verilated top configured for `setup`, its QP table loaded.
fn new_top(width: u32, handshake: Handshake, setup: &CnSetup) -> Result<RtlPipeline, String> {
    RtlPipeline::for_nic(width, handshake, &setup.regs, setup.local_mac, &setup.nic)
}

/// What one model's pipeline did with a capture's sent frames.
#[derive(Debug, Default)]
pub struct PacerReplay {
    /// Every release (and drop) in release order.
    pub transactions: Vec<Transaction>,
    /// The sent frames at their release times (ns since the epoch).
    pub paced_frames: Vec<(u64, Vec<u8>)>,
}

/// The releases of a capture from the golden pipeline, or from the RTL top
/// at `rtl_width`.
pub fn replay_pacer(
    capture: &Path,
    rtl_width: Option<u32>,
    setup: &CnSetup,
    parser: &ParserConfig,
) -> Result<PacerReplay, String> {
    let mut reader = CaptureReader::open(capture).map_err(|e| e.to_string())?;
    let mut top = golden_top(&mut reader, setup, parser)?;
    if let Some(e) = top.error.take() {
        return Err(e.to_string());
    }
    let releases: Vec<Release> = match rtl_width {
        None => top.releases.iter().map(|(_, r)| *r).collect(),
        Some(width) => {
            let mut rtl = new_top(width, Handshake::full_speed(0), setup)?;
            let stopped = |s| format!("RTL pipeline top: {s:?}");
            rtl.push(&top.frames).map_err(stopped)?;
            rtl.flush().map_err(stopped)?;
            rtl.releases.iter().map(|r| r.to_release()).collect()
        }
    };
    // A QP's releases and drops answer its sent frames in order.
    let mut sent: HashMap<u32, VecDeque<&[u8]>> = HashMap::new();
    for f in &top.frames {
        if let Some(qp) = f.tx_qp {
            sent.entry(qp).or_default().push_back(&f.data);
        }
    }
    let frame_ticks: Vec<u64> = top.frames.iter().map(|f| f.tick).collect();
    let mut replay = PacerReplay::default();
    for release in &releases {
        let frame = sent.get_mut(&release.qp).and_then(VecDeque::pop_front);
        if let (false, Some(bytes)) = (release.dropped, frame) {
            replay.paced_frames.push((top.time.time_ns(release.time), bytes.to_vec()));
        }
        replay.transactions.push(Transaction {
            frame: frame_at(&frame_ticks, release.time),
            time_ns: top.time.time_ns(release.time),
            cycle: None,
            record: Record::Cn(CnRecord::release(release)),
        });
    }
    Ok(replay)
}
