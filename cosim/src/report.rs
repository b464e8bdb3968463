//! First-divergence reports: what a failing cosim prints, as text or JSON.

use std::fmt;
use std::fmt::Write as _;
use std::path::PathBuf;

use metaroce_golden::cc_params::FRACTION_ONE;
use metaroce_golden::frame::ICRC_LEN;
use metaroce_golden::opcode::RC_ACK;
use metaroce_golden::pacer::Release;
use metaroce_golden::reaction::RateChange;
use metaroce_golden::requester::{RetxCause, RetxRequest};
use metaroce_golden::wire::{SackExt, SackRepr};
use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One output transaction of either model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transaction {
    /// The frame it answers (1-based).
    pub frame: u64,
    /// Its time: the frame's capture time for a parse record, the step's
    /// own tick on the capture's clock for a CNP or a rate change.
    pub time_ns: u64,
    /// Output cycle (RTL only).
    pub cycle: Option<u64>,
    pub record: Record,
}

/// What a block outputs: a parse record, or a CNP, rate change or release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Record {
    Parse(Box<ParseRecord>),
    Cn(CnRecord),
}

impl Record {
    pub fn as_parse(&self) -> Option<&ParseRecord> {
        match self {
            Record::Parse(r) => Some(r),
            Record::Cn(_) => None,
        }
    }
}

/// An output of the tick-timed streams as both models report it (JSONL
/// `event` lines): a CNP, ACK or NAK, rate change or retransmit request of
/// the CN block, a release of the pacer; the top's streams carry them all. Rates are Mb/s with kb/s precision; alpha and the extent are fractions
/// of 1 (Q1.15 exactly: value * 32768 is an integer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum CnRecord {
    Cnp {
        tick: u64,
        /// DestQP of the CNP: the remote QP it goes to.
        dest_qp: Option<u32>,
        extent: Option<f64>,
        len: usize,
        /// The frame, hex.
        frame: String,
    },
    /// An ACK or NAK of the responder (`SPEC.md` §6.10).
    Ack {
        tick: u64,
        /// DestQP: the remote (requesting) QP.
        dest_qp: Option<u32>,
        psn: Option<u32>,
        /// AETH syndrome: 0x1F ACK, 0x60 NAK (PSN sequence error).
        syndrome: Option<u8>,
        msn: Option<u32>,
        /// A selective ACK's extension (`ack_mode` metaroce): the bitmap
        /// of PSNs received past the first missing one, and the flag of a
        /// drop past the window.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sack: Option<SackRepr>,
        len: usize,
        /// The frame, hex.
        frame: String,
    },
    Rate {
        qp: u32,
        tick: u64,
        rate_mbps: f64,
        target_mbps: f64,
        alpha: f64,
        stage: String,
        trigger: String,
        /// The sent packet the transaction handed on to the pacer, bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sent_len: Option<u32>,
    },
    /// A retransmit request of the requester (`SPEC.md` §6.11): re-post
    /// `count` packets of QP `qp` from PSN `psn` (go-back-N), or, cause
    /// `retry_exhausted`, the QP is in error and they are lost; cause
    /// `selective` re-posts only those `mask` names (bit i: `psn + i`, hex;
    /// every one from `psn + 64` on).
    Retx {
        qp: u32,
        tick: u64,
        psn: u32,
        count: u32,
        cause: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mask: Option<String>,
    },
    /// A packet the pacer released (or refused, full).
    Release {
        qp: u32,
        len: u32,
        tick: u64,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        dropped: bool,
    },
}

/// The selective-ACK extension of an ACK whose payload is exactly one (the
/// 12 bytes before the ICRC).
fn selective_ack(frame: &[u8], payload_len: Option<u16>) -> Option<SackRepr> {
    if payload_len != Some(SackRepr::LEN as u16) {
        return None;
    }
    let end = frame.len().checked_sub(ICRC_LEN)?;
    SackRepr::parse(&SackExt::new_checked(frame.get(end.checked_sub(SackRepr::LEN)?..end)?).ok()?)
}

fn fraction(q15: u16) -> f64 {
    f64::from(q15) / f64::from(FRACTION_ONE)
}

impl CnRecord {
    /// A frame of the CN block's output, a CNP or (BTH opcode 0x11) an ACK
    /// or NAK, as seen on the wire: what it says is read back from its bytes.
    pub fn sent_frame(tick: u64, frame: &[u8]) -> Self {
        let parsed = parse_frame(frame, false, &ParserConfig::default());
        let hex = frame.iter().fold(String::with_capacity(2 * frame.len()), |mut s, b| {
            write!(s, "{b:02x}").unwrap();
            s
        });
        if parsed.opcode == Some(RC_ACK) {
            return CnRecord::Ack {
                tick,
                dest_qp: parsed.dest_qp,
                psn: parsed.psn,
                syndrome: parsed.aeth_syndrome,
                msn: parsed.aeth_msn,
                sack: selective_ack(frame, parsed.payload_len),
                len: frame.len(),
                frame: hex,
            };
        }
        CnRecord::Cnp {
            tick,
            dest_qp: parsed.dest_qp,
            extent: parsed.cnp_extent.map(fraction),
            len: frame.len(),
            frame: hex,
        }
    }

    /// An ACK or NAK (else a CNP, a rate change or a release).
    pub fn is_ack(&self) -> bool {
        matches!(self, CnRecord::Ack { .. })
    }

    pub fn rate(change: &RateChange) -> Self {
        CnRecord::Rate {
            qp: change.qp,
            tick: change.time,
            rate_mbps: f64::from(change.rate_kbps) / 1000.0,
            target_mbps: f64::from(change.target_kbps) / 1000.0,
            alpha: fraction(change.alpha),
            stage: change.stage.name().into(),
            trigger: change.trigger.name().into(),
            sent_len: change.sent_len,
        }
    }

    pub fn retx(request: &RetxRequest) -> Self {
        CnRecord::Retx {
            qp: request.qp,
            tick: request.time,
            psn: request.psn,
            count: request.count,
            cause: request.cause.name().into(),
            mask: (request.cause == RetxCause::Selective).then(|| format!("{:#018x}", request.mask)),
        }
    }

    pub fn release(release: &Release) -> Self {
        CnRecord::Release { qp: release.qp, len: release.len, tick: release.time, dropped: release.dropped }
    }

    pub fn tick(&self) -> u64 {
        match self {
            CnRecord::Cnp { tick, .. }
            | CnRecord::Ack { tick, .. }
            | CnRecord::Rate { tick, .. }
            | CnRecord::Retx { tick, .. }
            | CnRecord::Release { tick, .. } => *tick,
        }
    }
}

/// Appends `t` to a report's recent transactions, keeping the last `history`
/// matched ones and the newest.
pub fn remember(list: &mut std::collections::VecDeque<Transaction>, t: Transaction, history: usize) {
    list.push_back(t);
    while list.len() > history + 1 {
        list.pop_front();
    }
}

/// One field on which the models disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldDiff {
    pub field: String,
    pub golden: Value,
    pub rtl: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DivergenceKind {
    /// Both models produced a transaction and they differ.
    Mismatch,
    /// The RTL produced nothing for `STALL_CYCLES` cycles while the golden
    /// model still had transactions to match.
    RtlStalled,
    /// The RTL produced a transaction the golden model did not.
    ExtraRtlTransaction,
    /// The RTL drove a code that has no meaning (e.g. an unknown error class).
    InvalidRtlOutput,
    /// An assertion in the RTL failed (`METAROCE_ASSERTIONS`).
    RtlAssertion,
    /// The golden model failed on a frame.
    GoldenModelError,
    /// One recording has a transaction the other lacks (`metaroce diff`).
    UnmatchedTransaction,
}

impl DivergenceKind {
    pub fn name(self) -> &'static str {
        match self {
            DivergenceKind::Mismatch => "mismatch",
            DivergenceKind::RtlStalled => "rtl_stalled",
            DivergenceKind::ExtraRtlTransaction => "extra_rtl_transaction",
            DivergenceKind::InvalidRtlOutput => "invalid_rtl_output",
            DivergenceKind::RtlAssertion => "rtl_assertion",
            DivergenceKind::GoldenModelError => "golden_model_error",
            DivergenceKind::UnmatchedTransaction => "unmatched_transaction",
        }
    }
}

/// Where and how the two models first parted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    pub kind: DivergenceKind,
    pub block: &'static str,
    pub capture: PathBuf,
    pub width: u32,
    pub seed: u64,
    /// Frame (1-based) and timestamp of the expected transaction.
    pub frame: u64,
    pub time_ns: u64,
    /// RTL cycle of the differing output, or of the give-up point.
    pub cycle: u64,
    pub detail: String,
    pub diffs: Vec<FieldDiff>,
    /// The last matched transactions before the divergence, oldest first,
    /// then the diverging ones.
    pub golden_last: Vec<Transaction>,
    pub rtl_last: Vec<Transaction>,
    pub repro: String,
    /// What the two sides are: "golden" and "rtl", or two recordings.
    pub sides: [String; 2],
}

/// The fields of two records that differ, in record order.
pub fn field_diffs<R: Serialize>(golden: &R, rtl: &R) -> Vec<FieldDiff> {
    let (Value::Object(g), Value::Object(r)) = (to_value(golden), to_value(rtl)) else {
        unreachable!("records serialize as objects")
    };
    g.into_iter()
        .zip(r)
        .filter(|((_, gv), (_, rv))| gv != rv)
        .map(|((field, golden), (_, rtl))| FieldDiff { field, golden, rtl })
        .collect()
}

fn to_value<R: Serialize>(record: &R) -> Value {
    serde_json::to_value(record).expect("records serialize")
}

/// A record as `key=value` for its non-null fields.
pub fn brief<R: Serialize>(record: &R) -> String {
    let Value::Object(map) = to_value(record) else { unreachable!() };
    map.iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "DIVERGENCE ({}) in block {} of {} at DATA_WIDTH {}, seed {:#x}",
            self.kind.name(),
            self.block,
            self.capture.display(),
            self.width,
            self.seed
        )?;
        writeln!(
            f,
            "  frame {}  time {}.{:09} s  RTL cycle {}",
            self.frame,
            self.time_ns / 1_000_000_000,
            self.time_ns % 1_000_000_000,
            self.cycle
        )?;
        if !self.detail.is_empty() {
            writeln!(f, "  {}", self.detail)?;
        }
        if !self.diffs.is_empty() {
            let width = self.diffs.iter().map(|d| d.field.len()).max().unwrap_or(5).max(5);
            writeln!(f, "  {:width$}  {:>22}  {:>22}", "field", self.sides[0], self.sides[1])?;
            for d in &self.diffs {
                writeln!(f, "  {:width$}  {:>22}  {:>22}", d.field, d.golden.to_string(), d.rtl.to_string())?;
            }
        }
        for (side, list) in [(&self.sides[0], &self.golden_last), (&self.sides[1], &self.rtl_last)] {
            writeln!(f, "  last {} transactions:", side)?;
            for t in list {
                let cycle = t.cycle.map(|c| format!(" @{c}")).unwrap_or_default();
                writeln!(f, "    frame {}{}: {}", t.frame, cycle, brief(&t.record))?;
            }
        }
        write!(f, "  reproduce: {}", self.repro)
    }
}
