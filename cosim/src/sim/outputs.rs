//! What a run gives back: per-flow progress, the time series, the
//! counters, and each host's capture and releases; or why it stopped.

use std::collections::VecDeque;

use metaroce_golden::cc_params::CcMode;
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::pacer::Release;

use super::scenario::SimConfig;
use crate::capture::GenFrame;

/// One flow's progress.
#[derive(Debug, Clone, Default)]
pub struct Flow {
    pub src: usize,
    pub dst: usize,
    pub start_ps: u64,
    /// The next new packet to hand over.
    pub next_index: u64,
    /// Dropped packets the sender was told of, to send again first.
    pub resend: VecDeque<u64>,
    /// A packet of the flow is between hand-over and the host's wire.
    pub in_nic: bool,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Packets the switch dropped (each was sent again).
    pub lost_packets: u64,
    pub done_ps: Option<u64>,
    /// The sender NIC's current rate for the flow's QP, kb/s.
    pub rate_kbps: u32,
}

/// One row of the time series.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub time_ns: u64,
    pub rate_kbps: Vec<u32>,
    pub delivered_bytes: Vec<u64>,
    pub port_depth: Vec<u64>,
    pub buffer_used: u64,
    pub marks: u64,
    pub drops: u64,
    pub cnps: u64,
}

/// Everything a run produced.
#[derive(Debug)]
pub struct SimRun {
    pub config: SimConfig,
    pub mode: CcMode,
    pub flows: Vec<Flow>,
    pub samples: Vec<Sample>,
    pub peak_buffer: u64,
    pub peak_port: Vec<u64>,
    pub marks: u64,
    pub drops: u64,
    pub cnps_sent: u64,
    pub cnps_received: u64,
    /// The collective finished (every packet delivered), ps.
    pub completion_ps: Option<u64>,
    /// Per host: the NIC's input stream (the replayable capture) and file.
    pub captures: Vec<(NicConfig, Vec<GenFrame>)>,
    /// Per host: every release of its pacer, in order.
    pub releases: Vec<Vec<Release>>,
    pub events: u64,
}

/// Why a run stopped: the message, and the host whose NIC failed (an RTL
/// assertion, stall or difference from the golden model), if one did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimFailure {
    pub host: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for SimFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for SimFailure {
    fn from(message: String) -> Self {
        SimFailure { host: None, message }
    }
}
