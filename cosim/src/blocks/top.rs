//! The pipeline top (`SPEC.md` §8): the capture's frames go into the
//! golden pipeline and the Verilated `roce_pipeline`, which are compared on
//! five streams: CNPs, ACKs and NAKs, the reaction point's transactions,
//! retransmit requests, releases.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Instant;

use metaroce_golden::cn::TimeBase;
use metaroce_golden::cn_event::CnEvent;
use metaroce_golden::pacer::Release;
use metaroce_golden::pipeline::{sent_qp, Pipeline, PipelineOutputs};
use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};

use crate::blocks::cn::{check_cn, cn_repro, frame_at, golden_cn_streams, GoldenCn};
use crate::blocks::pacer::{check_releases, release_transaction};
use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::compare::{drive, BatchModel, StreamComparator};
use crate::harness::{CosimOptions, Ending, FrameSource};
use crate::nic::CnSetup;
use crate::nic_gaps::NicGaps;
use crate::report::{CnRecord, Record, Transaction};
use crate::rtl::Handshake;
use crate::rtl_cn::CN_STALL_CYCLES;
use crate::rtl_pacer::{RtlPipeline, TopFrame};
use crate::run::{finish_run, Block, BlockInfo, CaptureRun, ReplayParts, RunCounts};
use crate::sim_handle::SimStop;

/// The pipeline top in the block table.
pub struct Top;

/// The CN block's streams (`blocks::cn`, in its order), then the releases.
const TOP_STREAMS: &[&str] = &["top.cnp", "top.rate", "top.ack", "top.retx", "top.release"];
const RELEASE_STREAM: usize = 4;

const INFO: BlockInfo = BlockInfo::new("top", TOP_STREAMS)
    .about("The pipeline top: CNPs, ACKs and NAKs, rate transactions, retransmit requests and releases")
    .without_coverage_build()
    .replays(ReplayParts::TOP);

impl Block for Top {
    fn info(&self) -> &'static BlockInfo {
        &INFO
    }
    fn cosim(&self, capture: &Path, options: &CosimOptions, setup: Option<&CnSetup>) -> CaptureRun {
        CaptureRun::with_setup(capture, options, &Top, setup, |setup| cosim_top_capture(capture, options, setup))
    }
    fn counts(&self, run: &CaptureRun) -> String {
        let cn = run.cn.unwrap_or_default();
        format!(
            "{} frame(s), {} event(s) -> {} CNP(s), {}, {} rate transaction(s), {}, {} release(s)",
            run.frames_read,
            cn.events,
            cn.cnps,
            cn.acks_text(),
            cn.rate_changes,
            cn.retx_text(),
            cn.releases
        )
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
    fn check(&mut self, compare: &mut StreamComparator, time: &TimeBase) -> Result<(), Ending> {
        let (cnps, rates, retx) =
            (std::mem::take(&mut self.cnps), std::mem::take(&mut self.rates), std::mem::take(&mut self.retx));
        check_cn(compare, time, cnps, rates, retx)?;
        check_releases(compare, RELEASE_STREAM, time, &mut self.releases)
    }
}

/// A capture as the top sees it: every frame with its tick and the host's
/// side band, and the golden pipeline's outputs.
#[derive(Debug, Default)]
pub struct TopStimulus {
    pub time: TimeBase,
    pub frames: Vec<TopFrame>,
    /// The golden outputs, each with the frame that produced it (the
    /// flush's with the last frame).
    pub cn: GoldenCn,
    pub releases: Vec<(u64, Release)>,
    pub events: usize,
    pub error: Option<CaptureError>,
    /// What the NIC setup leaves unanswered (counted by `golden_top`).
    pub gaps: Option<NicGaps>,
}

/// The golden pipeline fed one frame at a time, its outputs collected.
pub struct GoldenTop {
    pipeline: Pipeline,
    out: PipelineOutputs,
    pub stimulus: TopStimulus,
}

impl GoldenTop {
    pub fn new(setup: &CnSetup, parser: &ParserConfig) -> Result<Self, String> {
        let pipeline = Pipeline::new(&setup.nic, &setup.regs, *parser)?;
        Ok(GoldenTop { pipeline, out: PipelineOutputs::default(), stimulus: TopStimulus::default() })
    }

    /// One frame through the pipeline; returns the event it made, if any.
    pub fn frame(&mut self, frame: &Frame, record: &ParseRecord) -> Option<CnEvent> {
        let top = &mut self.stimulus;
        let tick = top.time.tick(frame.time_ns);
        let event = self.pipeline.record(record, tick, &mut self.out);
        top.events += usize::from(event.is_some());
        let tx_qp = sent_qp(event.as_ref());
        top.frames.push(TopFrame { data: frame.data.clone(), mac_error: frame.mac_error, tick, tx_qp });
        collect(top, &mut self.out, frame.index);
        event
    }

    /// The end of the input: the pacer's flush, its releases given to the
    /// last frame.
    pub fn finish(mut self) -> TopStimulus {
        self.pipeline.flush(&mut self.out);
        let last = self.stimulus.frames.len() as u64;
        collect(&mut self.stimulus, &mut self.out, last);
        self.stimulus
    }
}

/// Reads every frame and runs the golden pipeline over them.
pub fn golden_top(source: &mut dyn FrameSource, setup: &CnSetup, parser: &ParserConfig) -> Result<TopStimulus, String> {
    let mut golden = GoldenTop::new(setup, parser)?;
    let mut gaps = NicGaps::new(setup);
    let mut frame = Frame::default();
    loop {
        match source.read_next(&mut frame) {
            Ok(true) => {
                let record = parse_frame(&frame.data, frame.mac_error, parser);
                gaps.add(&record, setup);
                golden.frame(&frame, &record)
            }
            Ok(false) => break,
            Err(e) => {
                golden.stimulus.error = Some(e);
                break;
            }
        };
    }
    let mut top = golden.finish();
    top.gaps = Some(gaps);
    Ok(top)
}

fn collect(top: &mut TopStimulus, out: &mut PipelineOutputs, frame: u64) {
    top.cn.collect(&mut out.cn, frame);
    top.releases.extend(out.releases.drain(..).map(|r| (frame, r)));
}

/// Runs one capture through the golden and the RTL pipeline top.
pub fn cosim_top_capture(capture: &Path, options: &CosimOptions, setup: &CnSetup) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(capture, options, &Top);
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
    let cn = &top.cn;
    run.cn = Some(
        RunCounts::new(top.events, cn.cnps.len(), cn.rates.len(), top.releases.len()).acks(&cn.acks).retx(&cn.retx),
    );
    run.nic_gaps = top.gaps.clone();
    let mut expected = golden_cn_streams(&top.time, cn);
    expected.push(top.releases.iter().map(|(f, r)| release_transaction(&top.time, *f, r)).collect());
    let repro = cn_repro(capture, options, setup, &Top);
    let mut compare = StreamComparator::new(capture, options, Box::new(move |_| repro.clone()), TOP_STREAMS, expected);
    run.phases.compare.lap(clock);
    let ending = cosim_frames(&top, options, setup, &mut compare, &mut run);
    // After the model is gone, so a divergence's trace is closed and named too.
    run.wave = options.wave.as_ref().map(|w| w.path.clone()).filter(|p| p.exists());
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
    drive(&mut rtl, &top.frames, RELEASE_STREAM, CN_STALL_CYCLES, compare, &top.time, run)?;
    rtl.sim.close_trace();
    Ok(())
}

/// A Verilated top configured for `setup`, its QP table loaded.
pub fn new_top(width: u32, handshake: Handshake, setup: &CnSetup) -> Result<RtlPipeline, String> {
    RtlPipeline::for_nic(width, handshake, &setup.regs, setup.local_mac, &setup.nic)
}

/// The releases of the RTL top at `width` on the golden pipeline's frames.
pub fn rtl_releases(width: u32, setup: &CnSetup, top: &TopStimulus) -> Result<Vec<Release>, String> {
    let mut rtl = new_top(width, Handshake::full_speed(0), setup)?;
    let stopped = |s| format!("RTL pipeline top: {s:?}");
    rtl.push(&top.frames).map_err(stopped)?;
    rtl.flush().map_err(stopped)?;
    Ok(rtl.releases.iter().map(|r| r.to_release()).collect())
}

/// Releases as transactions, in release order, and the sent frames they
/// release at their release times (ns since the epoch): a QP's releases and
/// drops answer its sent frames in order.
pub fn release_replay(top: &TopStimulus, releases: &[Release]) -> (Vec<Transaction>, Vec<(u64, Vec<u8>)>) {
    let mut sent: HashMap<u32, VecDeque<&[u8]>> = HashMap::new();
    for f in &top.frames {
        if let Some(qp) = f.tx_qp {
            sent.entry(qp).or_default().push_back(&f.data);
        }
    }
    let frame_ticks: Vec<u64> = top.frames.iter().map(|f| f.tick).collect();
    let (mut transactions, mut paced) = (Vec::new(), Vec::new());
    for release in releases {
        let frame = sent.get_mut(&release.qp).and_then(VecDeque::pop_front);
        if let (false, Some(bytes)) = (release.dropped, frame) {
            paced.push((top.time.time_ns(release.time), bytes.to_vec()));
        }
        transactions.push(Transaction {
            frame: frame_at(&frame_ticks, release.time),
            time_ns: top.time.time_ns(release.time),
            cycle: None,
            record: Record::Cn(CnRecord::release(release)),
        });
    }
    (transactions, paced)
}
