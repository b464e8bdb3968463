//! `metaroce replay`: what one model makes of a capture, in one pass over
//! it. Parse records come frame by frame; the CN block's frames (CNPs, ACKs
//! and NAKs) and rate changes and the pipeline's releases follow, merged in
//! time order.

use std::collections::VecDeque;
use std::io;
use std::path::Path;

use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};

use crate::blocks::cn::{cn_replay, golden_outputs, rtl_outputs, CnStimulus};
use crate::blocks::top::{release_replay, rtl_releases, GoldenTop};
use crate::capture::{CaptureError, CaptureReader, Frame};
use crate::harness::{fill_batch, FrameRange};
use crate::nic::CnSetup;
use crate::nic_gaps::NicGaps;
use crate::report::{Record, Transaction};
use crate::rtl::{Handshake, Model as RtlModel, RtlParser, RtlParserRecord, STALL_CYCLES};
use crate::run::ReplayParts;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    Golden,
    Rtl { width: u32 },
}

impl Model {
    fn rtl_width(self) -> Option<u32> {
        match self {
            Model::Golden => None,
            Model::Rtl { width } => Some(width),
        }
    }
}

#[derive(Debug)]
pub enum ReplayError {
    /// The capture broke; the records of the frames before it were written.
    Capture(CaptureError),
    /// The RTL parser failed.
    Rtl(String),
    Io(io::Error),
    /// The CN block or the pipeline could not replay the capture.
    Block(String),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Capture(e) => write!(f, "{e}"),
            ReplayError::Rtl(e) => write!(f, "RTL: {e}"),
            ReplayError::Io(e) => write!(f, "writing output: {e}"),
            ReplayError::Block(e) => write!(f, "{e}"),
        }
    }
}
impl std::error::Error for ReplayError {}
impl From<io::Error> for ReplayError {
    fn from(e: io::Error) -> Self {
        ReplayError::Io(e)
    }
}

/// What a replay made besides the parse records.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Parse records handed to the sink.
    pub records: u64,
    /// Frames sent and rate changes, then releases, merged in time order
    /// (ties: frames, rate changes, releases, each in its own order); `frame`
    /// is the last frame at or before the transaction.
    pub transactions: Vec<Transaction>,
    /// What the NIC transmits: the CNPs, ACKs and NAKs at their emit times and the sent
    /// frames at their release times (ns since the epoch), in time order.
    pub sent: Vec<(u64, Vec<u8>)>,
    /// What the NIC setup left unanswered (with the CN block or pipeline).
    pub gaps: Option<NicGaps>,
}

/// The golden side of one pass: what the CN block and the pipeline need.
struct GoldenPass<'a> {
    setup: &'a CnSetup,
    cn: Option<CnStimulus>,
    top: Option<Result<GoldenTop, String>>,
    gaps: NicGaps,
}

impl GoldenPass<'_> {
    fn frame(&mut self, frame: &Frame, record: Option<&ParseRecord>, parser: &ParserConfig) {
        let parsed;
        let record = match record {
            Some(record) => record,
            None => {
                parsed = parse_frame(&frame.data, frame.mac_error, parser);
                &parsed
            }
        };
        self.gaps.add(record, self.setup);
        let event = match &mut self.top {
            Some(Ok(top)) => Some(top.frame(frame, record)),
            _ => None,
        };
        let Some(cn) = &mut self.cn else { return };
        match event {
            Some(event) => cn.add(frame, |_| event),
            None => cn.add_parsed(frame, record, self.setup),
        }
    }

    /// The CN block's and the pipeline's transactions from `model`.
    fn finish(self, model: Model, replayed: &mut Replayed) -> Result<(), String> {
        replayed.gaps = Some(self.gaps);
        if let Some(stimulus) = &self.cn {
            let outputs = match model.rtl_width() {
                None => golden_outputs(self.setup, stimulus),
                Some(width) => rtl_outputs(width, self.setup, stimulus)?,
            };
            let (transactions, cnps) = cn_replay(stimulus, outputs);
            replayed.transactions.extend(transactions);
            replayed.sent.extend(cnps);
        }
        if let Some(top) = self.top {
            let top = top?.finish();
            let releases = match model.rtl_width() {
                None => top.releases.iter().map(|(_, r)| *r).collect(),
                Some(width) => rtl_releases(width, self.setup, &top)?,
            };
            let (transactions, paced) = release_replay(&top, &releases);
            replayed.transactions.extend(transactions);
            replayed.sent.extend(paced);
        }
        replayed.transactions.sort_by_key(|t| t.time_ns);
        replayed.sent.sort_by_key(|(time_ns, _)| *time_ns);
        Ok(())
    }
}

/// Runs `capture` once through `model`: the parse records (with
/// `parts.parser`) go to `sink` frame by frame; the CN block's and the
/// pipeline's transactions (with `parts.cn`, `parts.pacer` and a `setup`)
/// come back at the end. A failure of the parse records is reported as
/// such; with no parse records asked for, every failure is a `Block` one.
pub fn replay_blocks(
    capture: &Path,
    model: Model,
    parts: ReplayParts,
    setup: Option<&CnSetup>,
    parser: &ParserConfig,
    sink: &mut dyn FnMut(Transaction) -> io::Result<()>,
) -> Result<Replayed, ReplayError> {
    let broken = |e: CaptureError| match parts.parser {
        true => ReplayError::Capture(e),
        false => ReplayError::Block(e.to_string()),
    };
    let mut reader = CaptureReader::open(capture).map_err(broken)?;
    let mut golden = setup.filter(|_| parts.cn || parts.pacer).map(|setup| GoldenPass {
        setup,
        cn: parts.cn.then(CnStimulus::default),
        top: parts.pacer.then(|| GoldenTop::new(setup, parser)),
        gaps: NicGaps::new(setup),
    });
    let mut rtl = match model.rtl_width().filter(|_| parts.parser) {
        Some(width) => {
            Some(RtlParser::new(RtlModel::plain(width), Handshake::full_speed(0)).map_err(ReplayError::Rtl)?)
        }
        None => None,
    };
    let mut replayed = Replayed::default();
    let mut batch = vec![Frame::default(); 256];
    let mut waiting: VecDeque<(u64, u64)> = VecDeque::new();
    let mut capture_error = None;
    loop {
        let (filled, error) = fill_batch(&mut reader, &mut batch, FrameRange::ALL);
        capture_error = capture_error.or(error);
        for frame in &batch[..filled] {
            let record = (parts.parser && rtl.is_none()).then(|| parse_frame(&frame.data, frame.mac_error, parser));
            if let Some(golden) = &mut golden {
                golden.frame(frame, record.as_ref(), parser);
            }
            if let Some(record) = record {
                let (frame, time_ns) = (frame.index, frame.time_ns);
                sink(Transaction { frame, time_ns, cycle: None, record: Record::Parse(Box::new(record)) })?;
                replayed.records += 1;
            }
        }
        if let Some(rtl) = &mut rtl {
            waiting.extend(batch[..filled].iter().map(|f| (f.index, f.time_ns)));
            let records = rtl.push(&batch[..filled]);
            replayed.records += rtl_transactions(sink, &mut waiting, records)?;
            check_assertion(rtl)?;
        }
        if filled < batch.len() {
            break;
        }
    }
    if let Some(rtl) = &mut rtl {
        let records = rtl.drain(waiting.len());
        replayed.records += rtl_transactions(sink, &mut waiting, records)?;
        check_assertion(rtl)?;
        if let Some((frame, _)) = waiting.front() {
            return Err(ReplayError::Rtl(format!("stalled: no record for frame {frame} within {STALL_CYCLES} cycles")));
        }
    }
    if let Some(e) = capture_error {
        return Err(broken(e));
    }
    if let Some(golden) = golden {
        golden.finish(model, &mut replayed).map_err(ReplayError::Block)?;
    }
    Ok(replayed)
}

fn check_assertion(rtl: &RtlParser) -> Result<(), ReplayError> {
    match rtl.assertion() {
        Some((message, _)) => Err(ReplayError::Rtl(format!("assertion fired: {message}"))),
        None => Ok(()),
    }
}

fn rtl_transactions(
    sink: &mut dyn FnMut(Transaction) -> io::Result<()>,
    waiting: &mut VecDeque<(u64, u64)>,
    records: &[RtlParserRecord],
) -> Result<u64, ReplayError> {
    for rtl_record in records {
        let (frame, time_ns) =
            waiting.pop_front().ok_or_else(|| ReplayError::Rtl("a record with no frame to match it".into()))?;
        let record = rtl_record.to_parse_record().map_err(|e| ReplayError::Rtl(format!("frame {frame}: {e}")))?;
        sink(Transaction { frame, time_ns, cycle: Some(rtl_record.cycle), record: Record::Parse(Box::new(record)) })?;
    }
    Ok(records.len() as u64)
}

/// Runs `capture` through one model's parser and hands each record, in
/// frame order, to `sink`; returns the number of frames.
pub fn replay(
    capture: &Path,
    model: Model,
    parser: &ParserConfig,
    sink: &mut dyn FnMut(Transaction) -> io::Result<()>,
) -> Result<u64, ReplayError> {
    let parts = ReplayParts::PARSER;
    replay_blocks(capture, model, parts, None, parser, sink).map(|r| r.records)
}

/// What one model's CN block made of a capture.
#[derive(Debug, Default)]
pub struct CnReplay {
    /// Every frame sent (CNP, ACK, NAK), rate change and retransmit request
    /// in time order (ties: frames, then rate changes, then retransmit
    /// requests, each in its own order), `frame` being the last frame at or
    /// before the transaction's tick.
    pub transactions: Vec<Transaction>,
    /// The frames sent with their emit times (ns since the epoch).
    pub cnp_frames: Vec<(u64, Vec<u8>)>,
}

/// The CN transactions of a capture from the golden model, or from the RTL
/// at `rtl_width`.
pub fn replay_cn(
    capture: &Path,
    rtl_width: Option<u32>,
    setup: &CnSetup,
    parser: &ParserConfig,
) -> Result<CnReplay, String> {
    let model = rtl_width.map_or(Model::Golden, |width| Model::Rtl { width });
    let parts = ReplayParts::CN;
    let replayed =
        replay_blocks(capture, model, parts, Some(setup), parser, &mut |_| Ok(())).map_err(|e| e.to_string())?;
    Ok(CnReplay { transactions: replayed.transactions, cnp_frames: replayed.sent })
}
