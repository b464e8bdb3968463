//! What a NIC setup makes the CN block ignore without a word: CE-marked
//! frames to local QPs with no QP context (no CNP can answer them), sent
//! frames to remote QPs in no context (the reaction point never counts
//! them), RC requests to local QPs with no context while the responder is
//! on (no ACK answers them), and a `local_mac` that no frame carries. Counted from the golden
//! side's parse records as a run reads them, and said once per capture.

use std::path::{Path, PathBuf};

use metaroce_golden::cc_params::AckMode;
use metaroce_golden::opcode::{rc_request, CNP};
use metaroce_golden::{FrameClass, ParseRecord};
use serde::{Deserialize, Serialize};

use crate::nic::{nic_file_of, CnSetup};

/// How many QPs a warning names.
pub const QPS_NAMED: usize = 4;

/// The frames of one capture the NIC setup leaves unanswered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NicGaps {
    /// RoCE frames (class `roce`, with a BTH).
    pub roce_frames: u64,
    /// Of them, those to or from `local_mac` (all, without one).
    pub local_frames: u64,
    /// The setup's `local_mac`, if any.
    pub local_mac: Option<String>,
    /// The NIC file the setup read, if any.
    pub nic_file: Option<PathBuf>,
    /// Received CE-marked frames to a local QP with no context (and no
    /// DETH source QP): no CNP answers them.
    pub ce_unknown_qp: UnknownQps,
    /// Sent frames to a remote QP in no context: no local QP is known, so
    /// the reaction point does not count them.
    pub sent_unknown_qp: UnknownQps,
    /// Received RC requests (not CE-marked: those count above) to a local QP
    /// with no context while `ack_mode` is on: no ACK or NAK answers them
    /// (`SPEC.md` §6.10).
    #[serde(default)]
    pub request_unknown_qp: UnknownQps,
}

/// Frames to QPs with no context, and the first few of those QPs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownQps {
    pub frames: u64,
    /// The first QPs seen, at most [`QPS_NAMED`].
    pub qps: Vec<u32>,
    /// Whether more QPs than those were seen.
    pub more: bool,
}

impl UnknownQps {
    fn note(&mut self, qp: u32) {
        self.frames += 1;
        if !self.qps.contains(&qp) {
            match self.qps.len() < QPS_NAMED {
                true => self.qps.push(qp),
                false => self.more = true,
            }
        }
    }

    /// "17, 18, 19, 20, ..." (in order; the dots when more were seen).
    fn list(&self) -> String {
        let mut qps = self.qps.clone();
        qps.sort_unstable();
        let mut list: Vec<String> = qps.iter().map(u32::to_string).collect();
        if self.more {
            list.push("...".into());
        }
        list.join(", ")
    }
}

impl NicGaps {
    /// Counts for `setup`, nothing seen yet.
    pub fn new(setup: &CnSetup) -> Self {
        NicGaps { local_mac: setup.nic.local_mac.clone(), nic_file: setup.nic_file.clone(), ..NicGaps::default() }
    }

    /// One frame's parse record, read as `classify` (`SPEC.md` §6.1) reads it.
    pub fn add(&mut self, record: &ParseRecord, setup: &CnSetup) {
        if record.class != FrameClass::Roce {
            return;
        }
        let (Some(dst), Some(src), Some(opcode), Some(qp)) =
            (record.eth_dst, record.eth_src, record.opcode, record.dest_qp)
        else {
            return;
        };
        self.roce_frames += 1;
        let received = setup.local_mac.is_none_or(|mac| dst.0 == mac);
        let sent = setup.local_mac.is_some_and(|mac| src.0 == mac);
        if !received && !sent {
            return;
        }
        self.local_frames += 1;
        if opcode == CNP {
            return;
        }
        if sent && !received {
            if setup.nic.local_qp_of(qp).is_none() {
                self.sent_unknown_qp.note(qp);
            }
        } else if !has_context(setup, qp) {
            // Each frame counted once: a CE-marked request under the CE mark.
            if record.ecn == Some(3) && record.deth_src_qp.is_none() {
                self.ce_unknown_qp.note(qp);
            } else if setup.nic.cc.ack_mode != AckMode::Off && rc_request(opcode) {
                self.request_unknown_qp.note(qp);
            }
        }
    }

    /// Whether no RoCE frame is to or from a `local_mac` that is set.
    pub fn no_local_frames(&self) -> bool {
        self.local_mac.is_some() && self.local_frames == 0 && self.roce_frames > 0
    }

    /// Frames the setup leaves unanswered (0: nothing to say).
    pub fn ignored_frames(&self) -> u64 {
        let stray = if self.no_local_frames() { self.roce_frames } else { 0 };
        self.ce_unknown_qp.frames + self.sent_unknown_qp.frames + self.request_unknown_qp.frames + stray
    }

    /// The one-line warning for `capture`, or `None` when all is answered.
    pub fn warning(&self, capture: &Path) -> Option<String> {
        let mut parts = Vec::new();
        if self.no_local_frames() {
            parts.push(format!(
                "none of its {} RoCE frame(s) is to or from local_mac {}, so nothing is received or sent",
                self.roce_frames,
                self.local_mac.as_deref().unwrap_or_default()
            ));
        }
        let unknown = [
            (&self.ce_unknown_qp, "CE-marked frame(s) to local", "get no CNP"),
            (&self.sent_unknown_qp, "sent frame(s) to remote", "are not counted"),
            (&self.request_unknown_qp, "RC request(s) to local", "get no ACK or NAK"),
        ];
        for (qps, what, outcome) in unknown.into_iter().filter(|(qps, ..)| qps.frames > 0) {
            parts.push(format!("{} {what} QP(s) {} not in the NIC's QP table {outcome}", qps.frames, qps.list()));
        }
        if parts.is_empty() {
            return None;
        }
        let fix = match &self.nic_file {
            Some(file) => format!(
                "fix the NIC file {} (`metaroce nic init {}` lists what the capture holds)",
                file.display(),
                capture.display()
            ),
            None => format!(
                "write a NIC file: metaroce nic init {} -o {}",
                capture.display(),
                nic_file_of(capture).display()
            ),
        };
        Some(format!("warning: {}: {}; {fix}", capture.display(), parts.join("; ")))
    }
}

/// Whether the NP has a remote QP for local QP `qp`.
fn has_context(setup: &CnSetup, qp: u32) -> bool {
    (qp as usize) < setup.qp_count && setup.nic.qps.iter().any(|c| c.local == qp)
}
