//! The pacer (`SPEC.md` §7): a capture goes through the golden parser and
//! CN block; the reaction point's transactions become the pacer's
//! commands, which the golden pacer and the Verilated `roce_pacer` both
//! take; their releases are compared in order.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Instant;

use metaroce_golden::cc_params::CcRegisters;
use metaroce_golden::cn::TimeBase;
use metaroce_golden::pacer::{Pacer, PacerCommand, PacerGeometry, Release, QUANTUM_BYTES, TIME_FRAC_BITS};
use metaroce_golden::wire::PFC_PRIORITIES;

use crate::blocks::cn::{cn_repro, read_stimulus, run_golden, CnStimulus, GoldenCn};
use crate::capture::{CaptureError, CaptureReader};
use crate::compare::{drive, BatchModel, StreamComparator};
use crate::harness::{CosimOptions, Ending};
use crate::nic::CnSetup;
use crate::report::{CnRecord, Record, Transaction};
use crate::rtl::ModelKind;
use crate::rtl_pacer::{RtlPacer, RtlRelease, PACER_STALL_CYCLES};
use crate::run::{finish_run, Block, BlockInfo, CaptureRun, ReplayParts, RunCounts};
use crate::sim_handle::SimStop;

/// The pacer in the block table.
pub struct PacerBlock;

const RELEASE_STREAM: &[&str] = &["pacer.release"];

const INFO: BlockInfo = BlockInfo::new("pacer", RELEASE_STREAM)
    .about("The pacer: releases of the reaction point's packets")
    .without_width()
    .replays(ReplayParts::PACER);

impl Block for PacerBlock {
    fn info(&self) -> &'static BlockInfo {
        &INFO
    }
    fn cosim(&self, capture: &Path, options: &CosimOptions, setup: Option<&CnSetup>) -> CaptureRun {
        CaptureRun::with_setup(capture, options, &PacerBlock, setup, |setup| {
            cosim_pacer_capture(capture, options, setup)
        })
    }
    fn counts(&self, run: &CaptureRun) -> String {
        let cn = run.cn.unwrap_or_default();
        format!("{} frame(s), {} command(s) -> {} release(s)", run.frames_read, cn.events, cn.releases)
    }
}

/// The pacer's commands of a capture: the reaction point's transactions
/// and the PAUSE and PFC frames received, in frame order, each with the
/// frame that made it.
pub fn pacer_commands(golden: &GoldenCn, stimulus: &CnStimulus) -> Vec<(u64, PacerCommand)> {
    let rates = golden.rates.iter().map(|(frame, change)| (*frame, PacerCommand::from_rate_change(change)));
    let mut commands: Vec<_> = rates.chain(stimulus.pauses.iter().copied()).collect();
    // Stable: a frame's rate transactions keep their order.
    commands.sort_by_key(|(frame, _)| *frame);
    commands
}

/// The golden pacer of a NIC setup: its geometry, registers and each QP's
/// priority (the QP context table).
pub fn golden_pacer(setup: &CnSetup) -> Pacer {
    let mut pacer = Pacer::new(PacerGeometry::default(), &setup.regs);
    for ctx in &setup.nic.qps {
        pacer.set_priority(ctx.local, ctx.priority);
    }
    pacer
}

/// The golden pacer over `commands`, flushed at the end: each release with
/// the index of the command it came out at (`commands.len()` for the
/// flush). A command's own drop comes after the releases it served first.
fn golden_releases(setup: &CnSetup, commands: &[(u64, PacerCommand)]) -> (Vec<(usize, Release)>, Pacer) {
    let mut pacer = golden_pacer(setup);
    let (mut out, mut releases) = (Vec::new(), Vec::new());
    for (index, (_, cmd)) in commands.iter().enumerate() {
        pacer.command(cmd, &mut releases);
        out.extend(releases.drain(..).map(|r| (index, r)));
    }
    pacer.flush(&mut releases);
    out.extend(releases.drain(..).map(|r| (commands.len(), r)));
    (out, pacer)
}

/// The golden pacer over `commands`, flushed at the end (releases of the
/// flush belong to `last_frame`).
pub fn run_golden_pacer(setup: &CnSetup, commands: &[(u64, PacerCommand)], last_frame: u64) -> Vec<(u64, Release)> {
    let frame_of = |index: usize| commands.get(index).map_or(last_frame, |(frame, _)| *frame);
    golden_releases(setup, commands).0.into_iter().map(|(index, r)| (frame_of(index), r)).collect()
}

/// SPEC.md §7.3: a QP's packets leave in the order they were handed over,
/// and (§7.5) no packet leaves during a pause of its priority. The golden
/// pacer over `commands`: `Err` with the first release that breaks either
/// (or a packet that never leaves), by command number (1-based); else `Ok`
/// with how many packets a rate change re-timed in that run.
pub fn check_release_order(setup: &CnSetup, commands: &[(u64, PacerCommand)]) -> Result<u64, String> {
    let qp_count = PacerGeometry::default().qp_count;
    // Per QP, its packets in the wheel: (command number, length).
    let mut waiting: HashMap<u32, VecDeque<(usize, u32)>> = HashMap::new();
    let mut dropped = vec![false; commands.len()];
    // Commands `from..to` hand their packets over, those not dropped.
    let hand_over = |from: usize, to: usize, dropped: &[bool], waiting: &mut HashMap<u32, VecDeque<(usize, u32)>>| {
        for (index, (_, cmd)) in commands.iter().enumerate().take(to).skip(from) {
            if let Some(len) = cmd.send_len.filter(|_| !dropped[index] && (cmd.qp as usize) < qp_count) {
                waiting.entry(cmd.qp).or_default().push_back((index + 1, len));
            }
        }
    };
    // Commands before `handed` have handed their packets over: a release at
    // command `index` follows those before it, and comes before its own.
    let mut handed = 0;
    let (releases, pacer) = golden_releases(setup, commands);
    let paused = pause_windows(setup, commands);
    for (index, r) in releases {
        if index > handed {
            hand_over(handed, index, &dropped, &mut waiting);
            handed = index;
        }
        if r.dropped {
            dropped[index] = true;
            continue;
        }
        if let Some(broken) = paused(&r) {
            return Err(broken);
        }
        let queue = waiting.entry(r.qp).or_default();
        match queue.iter().position(|&(_, len)| len == r.len) {
            Some(0) => drop(queue.pop_front()),
            found => {
                let first = queue.front().map_or("none".into(), |(n, len)| format!("command {n} ({len} bytes)"));
                let this = found.map_or("no packet handed over".into(), |i| format!("command {}", queue[i].0));
                return Err(format!(
                    "QP {}: a {}-byte packet ({this}) left at tick {} ahead of the QP's first waiting packet, {first}",
                    r.qp, r.len, r.time
                ));
            }
        }
    }
    hand_over(handed, commands.len(), &dropped, &mut waiting);
    match waiting.iter().find_map(|(qp, queue)| {
        queue.front().map(|(n, len)| format!("QP {qp}: the {len}-byte packet of command {n} never left"))
    }) {
        Some(lost) => Err(lost),
        None => Ok(pacer.retimed),
    }
}

/// The pauses `commands` ask for, worked out on their own (not by the
/// pacer's code): per priority, from each PAUSE/PFC command at now t (the
/// highest command tick so far, SPEC.md §7.3), the ticks after t and before the pause's end (quanta x 64 bytes at the line
/// rate, rounded down) or the priority's next pause command, whichever is
/// first. Returns a check of one release: the pause it falls in, if any.
fn pause_windows(setup: &CnSetup, commands: &[(u64, PacerCommand)]) -> impl Fn(&Release) -> Option<String> {
    let line_byte_time = setup.regs.line_byte_time;
    let mut windows: Vec<Vec<(u64, u64, usize)>> = vec![Vec::new(); PFC_PRIORITIES];
    let mut now = 0;
    for (index, (_, cmd)) in commands.iter().enumerate() {
        now = cmd.time.max(now);
        let Some(pause) = cmd.pause else { continue };
        for (p, list) in windows.iter_mut().enumerate() {
            if pause.enable & (1 << p) == 0 {
                continue;
            }
            // The pause before ends where this one starts.
            if let Some(last) = list.last_mut() {
                last.1 = last.1.min(now);
            }
            let length = u64::from(pause.quanta[p]) * QUANTUM_BYTES * line_byte_time;
            list.push((now, now + (length >> TIME_FRAC_BITS), index + 1));
        }
    }
    let priority: HashMap<u32, u8> = setup.nic.qps.iter().map(|c| (c.local, c.priority)).collect();
    move |r: &Release| {
        let p = priority.get(&r.qp).copied().unwrap_or(0);
        windows[usize::from(p)].iter().find(|&&(start, end, _)| start < r.time && r.time < end).map(
            |(start, end, n)| {
                format!(
                    "QP {} (priority {p}): a {}-byte packet left at tick {} inside the pause of command {n} ({start} to {end})",
                    r.qp, r.len, r.time
                )
            },
        )
    }
}

pub fn release_transaction(time: &TimeBase, frame: u64, release: &Release) -> Transaction {
    Transaction {
        frame,
        time_ns: time.time_ns(release.time),
        cycle: None,
        record: Record::Cn(CnRecord::release(release)),
    }
}

/// Runs one capture through the golden and the RTL pacer.
pub fn cosim_pacer_capture(capture: &Path, options: &CosimOptions, setup: &CnSetup) -> CaptureRun {
    let started = Instant::now();
    let stimulus = match CaptureReader::open(capture) {
        Ok(mut reader) => read_stimulus(&mut reader, setup, &options.parser),
        Err(e) => return CaptureRun::failed(capture, options, &PacerBlock, Ending::CaptureError(e)),
    };
    let commands = PacerStimulus {
        commands: pacer_commands(&run_golden(setup, &stimulus), &stimulus),
        frames_read: stimulus.frames_read,
        time: stimulus.time,
        error: stimulus.error,
    };
    let mut run = cosim_pacer_stimulus(capture, commands, options, setup, &setup.regs);
    run.nic_gaps = stimulus.gaps;
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
    rtl_regs: &CcRegisters,
) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(capture, options, &PacerBlock);
    let clock = Instant::now();
    let golden = run_golden_pacer(setup, &stimulus.commands, stimulus.frames_read);
    let clock = run.phases.golden.lap(clock);
    run.frames_read = stimulus.frames_read;
    run.cn = Some(RunCounts::new(stimulus.commands.len(), 0, 0, golden.len()));
    let expected = vec![golden.iter().map(|(f, r)| release_transaction(&stimulus.time, *f, r)).collect()];
    let repro = cn_repro(capture, options, setup, &PacerBlock);
    let mut compare =
        StreamComparator::new(capture, options, Box::new(move |_| repro.clone()), RELEASE_STREAM, expected);
    run.phases.compare.lap(clock);
    let ending = cosim_commands(setup, &stimulus.commands, &stimulus.time, options, rtl_regs, &mut compare, &mut run);
    // After the model is gone, so a divergence's trace is closed and named too.
    run.wave = options.wave.as_ref().map(|w| w.path.clone()).filter(|p| p.exists());
    finish_run(&mut run, ending, stimulus.error, started);
    run
}

/// The RTL's releases on `stream`.
pub fn check_releases(
    compare: &mut StreamComparator,
    stream: usize,
    time: &TimeBase,
    rtl: &mut Vec<RtlRelease>,
) -> Result<(), Ending> {
    for r in std::mem::take(rtl) {
        let release = r.to_release();
        let record = Ok(Record::Cn(CnRecord::release(&release)));
        compare.check(stream, record, Some(time.time_ns(release.time)), r.cycle)?;
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
    fn check(&mut self, compare: &mut StreamComparator, time: &TimeBase) -> Result<(), Ending> {
        check_releases(compare, 0, time, &mut self.releases)
    }
}

fn cosim_commands(
    setup: &CnSetup,
    commands: &[(u64, PacerCommand)],
    time: &TimeBase,
    options: &CosimOptions,
    rtl_regs: &CcRegisters,
    compare: &mut StreamComparator,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let kind = if options.coverage_dat.is_some() { ModelKind::Coverage } else { ModelKind::Plain };
    let mut rtl = RtlPacer::new(kind, options.handshake, rtl_regs).map_err(Ending::Setup)?;
    rtl.sim.load_qp_table(&setup.nic).map_err(Ending::Setup)?;
    if let Some(wave) = &options.wave {
        rtl.sim.open_trace(&wave.path, wave.from, wave.to, None).map_err(Ending::Setup)?;
    }
    let cmds: Vec<PacerCommand> = commands.iter().map(|(_, c)| *c).collect();
    drive(&mut rtl, &cmds, 0, PACER_STALL_CYCLES, compare, time, run)?;
    rtl.sim.close_trace();
    if let Some(path) = &options.coverage_dat {
        rtl.sim.write_coverage(path).map_err(Ending::Setup)?;
    }
    Ok(())
}
