//! The congestion-notification block (`SPEC.md` §6): a capture's frames
//! become events, the golden model and the Verilated `roce_cn` take the
//! same events, and their CNPs, ACKs and NAKs, rate changes and retransmit
//! requests are compared in order, each stream on its own.

use std::path::Path;
use std::time::Instant;

use metaroce_golden::cc_params::CcRegisters;
use metaroce_golden::cn::{CnOutputs as GoldenOutputs, TimeBase};
use metaroce_golden::cn_event::{classify, CnEvent};
use metaroce_golden::notify::CnpSent;
use metaroce_golden::pacer::PacerCommand;
use metaroce_golden::pipeline::received_pause;
use metaroce_golden::reaction::{RateChange, RateStage, RateTrigger};
use metaroce_golden::requester::RetxRequest;
use metaroce_golden::responder::AckSent;
use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};

use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::compare::{drive, BatchModel, StreamComparator};
use crate::harness::{CosimOptions, Ending, FrameSource};
use crate::nic::CnSetup;
use crate::nic_gaps::NicGaps;
use crate::report::{CnRecord, Record, Transaction};
use crate::rtl::{Handshake, Model};
use crate::rtl_cn::{
    CnStop, RtlCn, RtlCnp, RtlRate, RtlRetx, CNP_BAD_TKEEP, CNP_TOO_LONG, CNP_TUSER_CHANGED, CN_STALL_CYCLES,
};
use crate::run::{finish_run, Block, BlockInfo, CaptureRun, ReplayParts, RunCounts};
use crate::sim_handle::SimStop;

/// The congestion-notification block in the block table.
pub struct Cn;

const CNP_STREAM: usize = 0;
const RATE_STREAM: usize = 1;
/// The responder's ACKs and NAKs, which leave on the CNPs' output.
const ACK_STREAM: usize = 2;
/// The requester's retransmit requests.
const RETX_STREAM: usize = 3;
const CN_STREAMS: &[&str] = &["cn.cnp", "cn.rate", "cn.ack", "cn.retx"];

const INFO: BlockInfo = BlockInfo::new("cn", CN_STREAMS)
    .about("Congestion notification: CNPs, ACKs and NAKs, per-QP rates and retransmit requests")
    .replays(ReplayParts::CN);

impl Block for Cn {
    fn info(&self) -> &'static BlockInfo {
        &INFO
    }
    fn cosim(&self, capture: &Path, options: &CosimOptions, setup: Option<&CnSetup>) -> CaptureRun {
        CaptureRun::with_setup(capture, options, &Cn, setup, |setup| cosim_cn_capture(capture, options, setup))
    }
    fn counts(&self, run: &CaptureRun) -> String {
        let cn = run.cn.unwrap_or_default();
        format!(
            "{} frame(s), {} event(s) -> {} CNP(s), {}, {} rate change(s), {}",
            run.frames_read,
            cn.events,
            cn.cnps,
            cn.acks_text(),
            cn.rate_changes,
            cn.retx_text()
        )
    }
}

/// The CN outputs of a model: its frames to the CNP or the ACK stream by
/// their opcode, rate changes and retransmit requests to theirs.
pub fn check_cn(
    compare: &mut StreamComparator,
    time: &TimeBase,
    frames: Vec<RtlCnp>,
    rates: Vec<RtlRate>,
    retx: Vec<RtlRetx>,
) -> Result<(), Ending> {
    for sent in frames {
        let record = CnRecord::sent_frame(sent.tick, sent.frame());
        let stream = if record.is_ack() { ACK_STREAM } else { CNP_STREAM };
        let record = match sent.fault() {
            Some(fault) => Err(fault),
            None => Ok(Record::Cn(record)),
        };
        compare.check(stream, record, Some(time.time_ns(sent.tick)), sent.cycle)?;
    }
    for rate in rates {
        let change = rate.to_change();
        let time_ns = change.as_ref().map_or(0, |c| time.time_ns(c.time));
        compare.check(RATE_STREAM, change.map(|c| Record::Cn(CnRecord::rate(&c))), Some(time_ns), rate.cycle)?;
    }
    for request in retx {
        let record = request.to_request().map(|r| Record::Cn(CnRecord::retx(&r)));
        compare.check(RETX_STREAM, record, Some(time.time_ns(request.time)), request.cycle)?;
    }
    Ok(())
}

/// One event and the frame it came from.
#[derive(Debug, Clone, Copy)]
pub struct CnInput {
    pub frame: u64,
    pub event: CnEvent,
}

/// A capture as the CN block sees it.
#[derive(Debug, Default, Clone)]
pub struct CnStimulus {
    pub time: TimeBase,
    pub inputs: Vec<CnInput>,
    pub frames_read: u64,
    /// Every frame's tick, in frame order (for `frame_at`).
    pub frame_ticks: Vec<u64>,
    /// The capture broke here; the frames before it are in.
    pub error: Option<CaptureError>,
    /// What the NIC setup leaves unanswered (frames added parsed).
    pub gaps: Option<NicGaps>,
    /// The PAUSE and PFC frames received, as pacer commands, each with its
    /// frame (they make no event; the pacer takes them, SPEC.md §7.5).
    pub pauses: Vec<(u64, PacerCommand)>,
}

impl CnStimulus {
    /// One more frame: its tick, and the event `event` makes of it at that
    /// tick, if any.
    pub fn add(&mut self, frame: &Frame, event: impl FnOnce(u64) -> Option<CnEvent>) {
        self.frames_read += 1;
        let tick = self.time.tick(frame.time_ns);
        self.frame_ticks.push(tick);
        if let Some(event) = event(tick) {
            self.inputs.push(CnInput { frame: frame.index, event });
        }
    }

    /// Events made up without a capture (fuzzing, scripted tests): one
    /// frame each, at its event's tick, numbered from 1.
    pub fn from_events(events: impl IntoIterator<Item = CnEvent>) -> Self {
        let mut stimulus = CnStimulus::default();
        for event in events {
            stimulus.frames_read += 1;
            stimulus.frame_ticks.push(event.time);
            stimulus.inputs.push(CnInput { frame: stimulus.frames_read, event });
        }
        stimulus
    }

    /// One more frame, parsed and classified.
    pub fn add_parsed(&mut self, frame: &Frame, record: &ParseRecord, setup: &CnSetup) {
        self.gaps.get_or_insert_with(|| NicGaps::new(setup)).add(record, setup);
        self.add(frame, |tick| classify(record, tick, setup.local_mac, &setup.nic));
        if let Some(pause) = received_pause(record, setup.local_mac) {
            let tick = *self.frame_ticks.last().expect("the frame just added");
            self.pauses.push((frame.index, PacerCommand::from_pause(tick, pause)));
        }
    }

    /// The last frame at or before `tick` (1-based; 0 before the first).
    pub fn frame_at(&self, tick: u64) -> u64 {
        frame_at(&self.frame_ticks, tick)
    }
}

/// The last frame (1-based) whose tick is at or before `tick`, given every
/// frame's tick in order; 0 before the first.
pub fn frame_at(frame_ticks: &[u64], tick: u64) -> u64 {
    frame_ticks.partition_point(|&t| t <= tick) as u64
}

/// Parses every frame with the golden parser and classifies it.
pub fn read_stimulus(source: &mut dyn FrameSource, setup: &CnSetup, parser: &ParserConfig) -> CnStimulus {
    let mut stimulus = CnStimulus::default();
    let mut frame = Frame::default();
    loop {
        match source.read_next(&mut frame) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                stimulus.error = Some(e);
                break;
            }
        }
        stimulus.add_parsed(&frame, &parse_frame(&frame.data, frame.mac_error, parser), setup);
    }
    stimulus
}

/// What the golden model made of a stimulus, each output with the frame
/// whose event produced it.
#[derive(Debug, Default)]
pub struct GoldenCn {
    pub cnps: Vec<(u64, CnpSent)>,
    pub acks: Vec<(u64, AckSent)>,
    pub rates: Vec<(u64, RateChange)>,
    pub retx: Vec<(u64, RetxRequest)>,
}

impl GoldenCn {
    /// Takes the block's outputs, each with `frame`, the frame whose event
    /// produced it.
    pub fn collect(&mut self, out: &mut GoldenOutputs, frame: u64) {
        self.cnps.extend(out.cnps.drain(..).map(|c| (frame, c)));
        self.acks.extend(out.acks.drain(..).map(|a| (frame, a)));
        self.rates.extend(out.rates.drain(..).map(|r| (frame, r)));
        self.retx.extend(out.retx.drain(..).map(|r| (frame, r)));
    }
}

pub fn run_golden(setup: &CnSetup, stimulus: &CnStimulus) -> GoldenCn {
    let mut cn = setup.golden();
    let mut outputs = GoldenOutputs::default();
    let mut out = GoldenCn::default();
    for input in &stimulus.inputs {
        cn.process(&input.event, &mut outputs);
        out.collect(&mut outputs, input.frame);
    }
    out
}

/// The golden CN outputs as the expected streams, in `CN_STREAMS` order.
pub fn golden_cn_streams(time: &TimeBase, golden: &GoldenCn) -> Vec<Vec<Transaction>> {
    vec![
        golden.cnps.iter().map(|(f, c)| golden_frame(time, *f, c.time, &c.frame)).collect(),
        golden.rates.iter().map(|(f, r)| golden_rate(time, *f, r)).collect(),
        golden.acks.iter().map(|(f, a)| golden_frame(time, *f, a.time, &a.frame)).collect(),
        golden.retx.iter().map(|(f, r)| golden_retx(time, *f, r)).collect(),
    ]
}

/// A golden frame sent at `tick` as a transaction; `frame` is the producing
/// frame.
fn golden_frame(time: &TimeBase, frame: u64, tick: u64, bytes: &[u8]) -> Transaction {
    Transaction {
        frame,
        time_ns: time.time_ns(tick),
        cycle: None,
        record: Record::Cn(CnRecord::sent_frame(tick, bytes)),
    }
}

fn golden_rate(time: &TimeBase, frame: u64, change: &RateChange) -> Transaction {
    Transaction { frame, time_ns: time.time_ns(change.time), cycle: None, record: Record::Cn(CnRecord::rate(change)) }
}

fn golden_retx(time: &TimeBase, frame: u64, request: &RetxRequest) -> Transaction {
    Transaction { frame, time_ns: time.time_ns(request.time), cycle: None, record: Record::Cn(CnRecord::retx(request)) }
}

impl RtlRate {
    /// The rate change in golden terms; `Err` names a code with no meaning.
    pub fn to_change(&self) -> Result<RateChange, String> {
        Ok(RateChange {
            time: self.time,
            qp: self.qp as u32,
            rate_kbps: self.rate as u32,
            target_kbps: self.target as u32,
            alpha: self.alpha as u16,
            stage: RateStage::from_code(self.stage as u8).ok_or_else(|| format!("m_rate_stage = {}", self.stage))?,
            trigger: RateTrigger::from_code(self.trigger as u8)
                .ok_or_else(|| format!("m_rate_trigger = {} is no trigger", self.trigger))?,
            sent_len: (self.sent != 0).then_some(self.len as u32),
        })
    }
}

impl RtlCnp {
    /// Protocol faults of the output stream itself.
    pub fn fault(&self) -> Option<String> {
        let mut faults = Vec::new();
        if self.flags & CNP_TUSER_CHANGED != 0 {
            faults.push("m_axis_tuser changed within the frame");
        }
        if self.flags & CNP_BAD_TKEEP != 0 {
            faults.push("m_axis_tkeep not all ones before tlast or not contiguous");
        }
        if self.flags & CNP_TOO_LONG != 0 {
            faults.push("CNP frame longer than 128 bytes");
        }
        (!faults.is_empty()).then(|| faults.join("; "))
    }
}

/// The command that repeats a cosim run of `block` with the CN setup.
pub fn cn_repro(capture: &Path, options: &CosimOptions, setup: &CnSetup, block: &dyn Block) -> String {
    format!(
        "metaroce cosim {} --block {} --width {} --seed {:#x} --idle {} --stall {}{}",
        capture.display(),
        block.name(),
        options.model.width,
        options.handshake.seed,
        options.handshake.idle_pct,
        options.handshake.stall_pct,
        setup.overrides.args()
    )
}

/// Runs one capture's events through golden model and RTL CN block.
pub fn cosim_cn_capture(capture: &Path, options: &CosimOptions, setup: &CnSetup) -> CaptureRun {
    let started = Instant::now();
    let stimulus = match CaptureReader::open(capture) {
        Ok(mut reader) => read_stimulus(&mut reader, setup, &options.parser),
        Err(e) => return CaptureRun::failed(capture, options, &Cn, Ending::CaptureError(e)),
    };
    let mut run = cosim_cn_stimulus(capture, stimulus, options, setup, &setup.regs);
    run.phases.capture_io.0 = started.elapsed() - run.elapsed;
    run.elapsed = started.elapsed();
    run
}

/// The CN cosim of a stimulus; the RTL gets `rtl_regs` (the setup's, but
/// for the harness's own tests, which give it others to see it diverge).
pub fn cosim_cn_stimulus(
    capture: &Path,
    stimulus: CnStimulus,
    options: &CosimOptions,
    setup: &CnSetup,
    rtl_regs: &CcRegisters,
) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(capture, options, &Cn);
    let clock = Instant::now();
    let golden = run_golden(setup, &stimulus);
    let clock = run.phases.golden.lap(clock);
    run.frames_read = stimulus.frames_read;
    run.cn = Some(
        RunCounts::new(stimulus.inputs.len(), golden.cnps.len(), golden.rates.len(), 0)
            .acks(&golden.acks)
            .retx(&golden.retx),
    );
    run.nic_gaps = stimulus.gaps.clone();
    let repro = cn_repro(capture, options, setup, &Cn);
    let expected = golden_cn_streams(&stimulus.time, &golden);
    let mut compare = StreamComparator::new(capture, options, Box::new(move |_| repro.clone()), CN_STREAMS, expected);
    run.phases.compare.lap(clock);
    let ending = cosim_cn_events(&stimulus, options, setup, rtl_regs, &mut compare, &mut run);
    run.wave = options.wave.as_ref().map(|w| w.path.clone()).filter(|p| p.exists());
    finish_run(&mut run, ending, stimulus.error, started);
    run
}

fn cosim_cn_events(
    stimulus: &CnStimulus,
    options: &CosimOptions,
    setup: &CnSetup,
    rtl_regs: &CcRegisters,
    compare: &mut StreamComparator,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut rtl = RtlCn::new(options.model, options.handshake, rtl_regs).map_err(Ending::Setup)?;
    rtl.load_qp_table(&setup.nic).map_err(Ending::Setup)?;
    if let Some(wave) = &options.wave {
        rtl.open_trace(&wave.path, wave.from, wave.to).map_err(Ending::Setup)?;
    }
    let events: Vec<CnEvent> = stimulus.inputs.iter().map(|i| i.event).collect();
    drive(&mut rtl, &events, RATE_STREAM, CN_STALL_CYCLES, compare, &stimulus.time, run)?;
    rtl.close_trace();
    if let Some(path) = &options.coverage_dat {
        rtl.write_coverage(path).map_err(Ending::Setup)?;
    }
    Ok(())
}

impl BatchModel for RtlCn {
    type Item = CnEvent;
    fn push(&mut self, items: &[CnEvent]) -> Result<(), SimStop> {
        RtlCn::push(self, items)
    }
    fn finish(&mut self) -> Result<(), SimStop> {
        self.drain()
    }
    fn cycles(&self) -> u64 {
        RtlCn::cycles(self)
    }
    fn check(&mut self, compare: &mut StreamComparator, time: &TimeBase) -> Result<(), Ending> {
        check_cn(
            compare,
            time,
            std::mem::take(&mut self.cnps),
            std::mem::take(&mut self.rates),
            std::mem::take(&mut self.retx),
        )
    }
}

/// A CN block's frames (CNPs, ACKs and NAKs, each at its tick), rate
/// transactions and retransmit requests.
pub type CnOutputs = (Vec<(u64, Vec<u8>)>, Vec<RateChange>, Vec<RetxRequest>);

/// The frames, rate transactions and retransmit requests of the golden CN
/// block (its CNPs, then its ACKs and NAKs; `cn_replay` puts them in time
/// order).
pub fn golden_outputs(setup: &CnSetup, stimulus: &CnStimulus) -> CnOutputs {
    let golden = run_golden(setup, stimulus);
    let mut frames: Vec<(u64, Vec<u8>)> = golden.cnps.into_iter().map(|(_, c)| (c.time, c.frame)).collect();
    frames.extend(golden.acks.into_iter().map(|(_, a)| (a.time, a.frame)));
    let rates = golden.rates.into_iter().map(|(_, r)| r).collect();
    (frames, rates, golden.retx.into_iter().map(|(_, r)| r).collect())
}

/// The frames (at their ticks), rate transactions and retransmit requests
/// of the RTL CN block at `width` on the stimulus's events.
pub fn rtl_outputs(width: u32, setup: &CnSetup, stimulus: &CnStimulus) -> Result<CnOutputs, String> {
    let mut rtl = RtlCn::new(Model::plain(width), Handshake::full_speed(0), &setup.regs)?;
    rtl.load_qp_table(&setup.nic)?;
    let events: Vec<CnEvent> = stimulus.inputs.iter().map(|i| i.event).collect();
    let stopped = |s: CnStop| format!("RTL congestion-notification block: {s:?}");
    rtl.push(&events).map_err(stopped)?;
    rtl.drain().map_err(stopped)?;
    let mut cnps = Vec::new();
    for cnp in &rtl.cnps {
        if let Some(fault) = cnp.fault() {
            return Err(format!("RTL frame output: {fault}"));
        }
        cnps.push((cnp.tick, cnp.frame().to_vec()));
    }
    let rates = rtl.rates.iter().map(RtlRate::to_change).collect::<Result<Vec<_>, _>>()?;
    let retx = rtl.retx.iter().map(RtlRetx::to_request).collect::<Result<Vec<_>, _>>()?;
    Ok((cnps, rates, retx))
}

/// Frames sent (tick, bytes), each with its record, in one order whichever
/// model sent them: by tick, a tick's CNPs before its ACKs and NAKs, each
/// kind in the order sent (the RTL's arbiter may let an ACK out before a
/// CNP that is still being built, SPEC.md §6.10).
pub fn replay_order(frames: Vec<(u64, Vec<u8>)>) -> Vec<(u64, Vec<u8>, CnRecord)> {
    let mut sent: Vec<(u64, Vec<u8>, CnRecord)> = frames
        .into_iter()
        .map(|(tick, frame)| {
            let record = CnRecord::sent_frame(tick, &frame);
            (tick, frame, record)
        })
        .collect();
    sent.sort_by_key(|(tick, _, record)| (*tick, record.is_ack()));
    sent
}

/// Frames sent, rate changes and retransmit requests as transactions,
/// frames first (in `replay_order`), each with the last frame at or before
/// its tick; and the frames at their emit times (ns since the epoch).
pub fn cn_replay(stimulus: &CnStimulus, (frames, rates, retx): CnOutputs) -> (Vec<Transaction>, Vec<(u64, Vec<u8>)>) {
    let sent = replay_order(frames);
    let transactions = sent
        .iter()
        .map(|(_, _, record)| record.clone())
        .chain(rates.iter().filter(|r| r.is_change()).map(CnRecord::rate))
        .chain(retx.iter().map(CnRecord::retx))
        .map(|record| {
            let tick = record.tick();
            Transaction {
                frame: stimulus.frame_at(tick),
                time_ns: stimulus.time.time_ns(tick),
                cycle: None,
                record: Record::Cn(record),
            }
        })
        .collect();
    let sent_frames = sent.into_iter().map(|(tick, frame, _)| (stimulus.time.time_ns(tick), frame)).collect();
    (transactions, sent_frames)
}
