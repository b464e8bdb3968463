//! What a run gives back: per-flow progress, the time series, the
//! counters, and each host's capture and releases; or why it stopped.

use std::collections::VecDeque;

use metaroce_golden::cc_params::CcMode;
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::pacer::Release;
use metaroce_golden::responder::SACK_WINDOW;
use metaroce_golden::wire::PFC_PRIORITIES;

use serde::Serialize;

use super::packet::Packet;
use super::pfc::PriorityCounts;
use super::scenario::{SimCc, SimConfig};
use crate::capture::GenFrame;

/// One flow's progress.
#[derive(Debug, Clone, Default)]
pub struct Flow {
    pub src: usize,
    pub dst: usize,
    pub start_ps: u64,
    /// The next new packet to hand over.
    pub next_index: u64,
    /// Packets to hand over again first: without `ack_mode`, dropped ones
    /// the sender was told of; with `metaroce`, those a selective request
    /// named; and any the pacer had no room for.
    pub resend: VecDeque<u64>,
    /// A packet of the flow is between hand-over and the host's wire.
    pub in_nic: bool,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Data copies the switch dropped or the lossy link lost.
    pub lost_packets: u64,
    /// What was sent again and why (every run); with `ack_mode` the
    /// receiver's order and the requester's requests.
    pub transport: FlowTransport,
    pub done_ps: Option<u64>,
    /// The sender NIC's rate for the flow's QP before its first change
    /// (the line rate), and every change after: (tick, kb/s), in tick
    /// order, each at the tick the reaction point stamped it with.
    pub start_rate_kbps: u32,
    pub rate_steps: Vec<(u64, u32)>,
    /// With PFC: the time its sender's priority was paused (XOFF to XON at
    /// the switch) while the flow ran, ps; of it, the pauses that began
    /// while the flow's own egress queue was at or below Kmin (the flow a
    /// victim); and the pause in force, from when, and whether a victim.
    pub paused_ps: u64,
    pub victim_ps: u64,
    pub pause_open: Option<(u64, bool)>,
}

impl Flow {
    /// Whether the flow has started and is not done at `now` (ps).
    pub fn running(&self, now: u64) -> bool {
        self.start_ps <= now && self.done_ps.is_none()
    }

    pub fn pause_starts(&mut self, now: u64, victim: bool) {
        self.pause_open.get_or_insert((now, victim));
    }

    /// Ends the pause in force at `now`, or at the flow's end if earlier.
    pub fn pause_ends(&mut self, now: u64) {
        let Some((since, victim)) = self.pause_open.take() else { return };
        let paused = self.done_ps.map_or(now, |d| d.min(now)).saturating_sub(since);
        self.paused_ps += paused;
        if victim {
            self.victim_ps += paused;
        }
    }
}

/// Frames lost on the lossy link (`--loss`) by kind: a data packet's copy,
/// a responder's ACK or NAK, a CNP (the switch's PFC frames are not lost).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LinkLosses {
    pub data: u64,
    pub acks: u64,
    pub cnps: u64,
}

impl LinkLosses {
    pub fn total(&self) -> u64 {
        self.data + self.acks + self.cnps
    }

    pub(super) fn count(&mut self, packet: &Packet) {
        if packet.flow.is_some() {
            self.data += 1;
        } else if packet.is_ack() {
            self.acks += 1;
        } else {
            debug_assert!(packet.is_cnp(), "a lost frame of no kind: {packet:?}");
            self.cnps += 1;
        }
    }
}

/// One flow's delivery: what was sent again and why (every run), and with
/// `ack_mode` the receiver's order and the requester's requests.
#[derive(Debug, Clone, Default)]
pub struct FlowTransport {
    /// The receiver's next packet in order (its responder's expected PSN).
    pub expected: u64,
    /// With `ack_mode` metaroce, the packets past `expected` the receiver
    /// took out of order: bit i is packet `expected + 1 + i` (its
    /// responder's bitmap, `SPEC.md` §6.10).
    pub held: u64,
    /// One past the highest packet the sender has put on its wire.
    pub wire_high: u64,
    /// Per packet: its latest copy was lost (dropped by the switch or lost
    /// on a link), and it has been neither sent again nor taken by the
    /// receiver since.
    pub lost: Vec<bool>,
    /// Per packet: the copies put on its sender's wire so far.
    pub sends: Vec<u32>,
    /// Packets sent again (on the sender's wire), and their frame bytes.
    pub retx_packets: u64,
    pub retx_bytes: u64,
    /// Of those, the packets whose copy before was lost, whether before
    /// they left or after (a copy lost behind a later copy already on its
    /// way); the rest are excess (their copy before arrived, or the packet
    /// already had: go-back-N's, a timeout's, a selective request's past
    /// the bitmap).
    pub retx_of_lost: u64,
    /// Lost copies of packets another copy delivered (an earlier copy,
    /// before the loss or after it): no copy sent again stands in for them.
    pub lost_of_delivered: u64,
    /// The requester's retransmit requests by cause: a NAK, a timeout, a
    /// selective ACK's holes.
    pub nak_requests: u64,
    pub timeout_requests: u64,
    pub selective_requests: u64,
    /// When the requester gave up (retry exhausted), ps.
    pub exhausted_ps: Option<u64>,
    /// Packets that reached the receiver out of order or again: dropped.
    pub discarded: u64,
}

impl FlowTransport {
    pub(super) fn new(packets: u64) -> Self {
        FlowTransport {
            lost: vec![false; packets as usize],
            sends: vec![0; packets as usize],
            ..FlowTransport::default()
        }
    }

    /// A data packet of `bytes` starts on the sender's wire: its copy.
    pub(super) fn on_wire(&mut self, index: u64, bytes: u64) -> u32 {
        let copy = self.sends[index as usize];
        self.sends[index as usize] += 1;
        if index < self.wire_high {
            self.retx_packets += 1;
            self.retx_bytes += bytes;
            if std::mem::take(&mut self.lost[index as usize]) {
                self.retx_of_lost += 1;
            }
        } else {
            self.wire_high = index + 1;
        }
        copy
    }

    /// Copy `copy` of packet `index` was lost. If the receiver already took
    /// the packet, nothing stands in for the copy; if a later copy has
    /// already left, that copy (counted as excess when it left) does;
    /// otherwise the next copy to leave, or an earlier one arriving, will.
    pub(super) fn lost_copy(&mut self, index: u64, copy: u32) {
        // With ack_mode off `expected` stays 0: only one copy of a packet is
        // ever on its way there.
        if self.delivered(index) {
            self.lost_of_delivered += 1;
        } else if copy + 1 < self.sends[index as usize] {
            self.retx_of_lost += 1;
        } else {
            self.lost[index as usize] = true;
        }
    }

    /// Whether the receiver has taken packet `index`.
    pub(super) fn delivered(&self, index: u64) -> bool {
        let past = index.checked_sub(self.expected + 1);
        index < self.expected || past.is_some_and(|i| i < u64::from(SACK_WINDOW) && self.held >> i & 1 != 0)
    }

    /// Packet `index` reaches the receiver (`ack_mode` on): whether its
    /// responder takes it, as `golden/src/responder.rs` decides. Go-back-N
    /// takes the expected packet alone; `selective` (metaroce) also one up
    /// to 64 past it, held until the gap before it fills. If the packet's
    /// latest copy was lost, an earlier one delivered it.
    pub(super) fn take(&mut self, index: u64, selective: bool) -> bool {
        if self.delivered(index) {
            return false;
        }
        let ahead = index - self.expected;
        if ahead == 0 {
            let run = self.held.trailing_ones();
            self.expected += 1 + u64::from(run);
            self.held = self.held.checked_shr(run + 1).unwrap_or(0);
        } else if selective && ahead <= u64::from(SACK_WINDOW) {
            self.held |= 1 << (ahead - 1);
        } else {
            return false;
        }
        if std::mem::take(&mut self.lost[index as usize]) {
            self.lost_of_delivered += 1;
        }
        true
    }

    /// Lost copies nothing stood in for by the end of the run: their
    /// packet was neither sent again nor delivered (its QP's retries ran
    /// out, or the run stopped first).
    pub fn lost_unrecovered(&self) -> u64 {
        self.lost.iter().filter(|&&lost| lost).count() as u64
    }
}

/// One row of the time series.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub time_ns: u64,
    pub delivered_bytes: Vec<u64>,
    pub port_depth: Vec<u64>,
    pub buffer_used: u64,
    pub marks: u64,
    pub drops: u64,
    pub cnps: u64,
    /// PFC pauses the switch began (XOFF frames, refreshes apart).
    pub pfc_pauses: u64,
}

/// Beyond this many flows a run's rates are shown as their spread over the
/// QPs (`rates.svg`) and written a row per change (`rates.csv`): a line or
/// a column per flow would be thousands.
pub const MANY_FLOWS: usize = 64;

/// Everything a run produced.
#[derive(Debug)]
pub struct SimRun {
    pub config: SimConfig,
    /// The mode `run` was given for every NIC (with `mixed`, each host's
    /// own instead: `SimConfig::nic_config`; see [`SimRun::cc`]).
    pub mode: CcMode,
    pub flows: Vec<Flow>,
    pub samples: Vec<Sample>,
    pub peak_buffer: u64,
    pub peak_port: Vec<u64>,
    pub marks: u64,
    pub drops: u64,
    pub cnps_sent: u64,
    pub cnps_received: u64,
    /// The responders' ACK and NAK frames sent and received (`ack_mode`).
    pub acks_sent: u64,
    pub acks_received: u64,
    /// Frames lost on the lossy link (`--loss`), by kind.
    pub link_losses: LinkLosses,
    /// With `--pfc`: per priority, the switch's PFC frames and pauses.
    pub pfc: Option<[PriorityCounts; PFC_PRIORITIES]>,
    /// PFC frames that reached a host's NIC.
    pub pfc_frames_received: u64,
    /// When the switch first marked a packet CE, and a NIC first sent a
    /// CNP, ps.
    pub first_mark_ps: Option<u64>,
    pub first_cnp_ps: Option<u64>,
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

impl SimRun {
    /// Flow `i` as `hSRC->hDST`.
    pub fn flow_name(&self, i: usize) -> String {
        let f = &self.flows[i];
        format!("h{}->h{}", f.src, f.dst)
    }

    /// Flow `flow`'s fair share under max-min fairness on a star, Gb/s.
    pub fn fair_share_gbps(&self, flow: usize) -> f64 {
        f64::from(self.config.link_gbps) * self.config.scenario.fair_share(flow)
    }

    /// What reacted to congestion.
    pub fn cc(&self) -> SimCc {
        match (self.config.ecn, self.config.mixed) {
            (false, _) => SimCc::None,
            (true, true) => SimCc::Mixed,
            (true, false) => SimCc::Nic(self.mode),
        }
    }

    /// Every flow's sender rate (kb/s) at every sample tick and at every
    /// tick where a rate changed, in tick order (each tick once): `row` is
    /// given the tick and the rates from that tick on. One row at a time: a
    /// 64-host all-to-all has 4,032 flows and 21,000 samples.
    pub fn for_each_rate_row(&self, mut row: impl FnMut(u64, &[u32])) {
        let mut ticks: Vec<u64> = self.samples.iter().map(|s| s.time_ns).collect();
        ticks.extend(self.flows.iter().flat_map(|f| f.rate_steps.iter().map(|&(t, _)| t)));
        ticks.sort_unstable();
        ticks.dedup();
        let mut next = vec![0; self.flows.len()];
        let mut rates: Vec<u32> = self.flows.iter().map(|f| f.start_rate_kbps).collect();
        for tick in ticks {
            for (i, f) in self.flows.iter().enumerate() {
                while let Some(&(_, rate)) = f.rate_steps.get(next[i]).filter(|&&(t, _)| t <= tick) {
                    rates[i] = rate;
                    next[i] += 1;
                }
            }
            row(tick, &rates);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FlowTransport;

    /// Each lost copy lands in one class, whatever the order of copies,
    /// losses and deliveries.
    #[test]
    fn every_lost_copy_is_counted_once() {
        let mut t = FlowTransport::new(4);
        let classes = |t: &FlowTransport| (t.retx_of_lost, t.lost_of_delivered, t.lost_unrecovered());
        // Packet 0: its copy lost, then a copy sent again for it.
        t.on_wire(0, 100);
        t.lost_copy(0, 0);
        assert_eq!(classes(&t), (0, 0, 1));
        t.on_wire(0, 100);
        assert_eq!(classes(&t), (1, 0, 0));
        // Packet 1: two copies on their way, the later lost, the earlier taken.
        t.on_wire(1, 100);
        t.on_wire(1, 100);
        t.lost_copy(1, 1);
        assert!(t.take(0, false) && t.take(1, false));
        assert_eq!(classes(&t), (1, 1, 0));
        // Packet 2: taken, then a copy sent again and lost.
        t.on_wire(2, 100);
        assert!(t.take(2, false));
        t.on_wire(2, 100);
        t.lost_copy(2, 1);
        assert_eq!(classes(&t), (1, 2, 0));
        // Packet 3: copy 1 lost, then copy 0 (copy 1 stood in for it),
        // then copy 2 sent for copy 1.
        t.on_wire(3, 100);
        t.on_wire(3, 100);
        t.lost_copy(3, 1);
        t.lost_copy(3, 0);
        t.on_wire(3, 100);
        assert_eq!(classes(&t), (3, 2, 0));
        assert_eq!((t.retx_packets, t.retx_bytes), (5, 500));
    }

    /// The receiver as its responder: go-back-N takes the expected packet
    /// alone; selective also holds up to 64 past it, until the gap fills.
    #[test]
    fn a_selective_receiver_holds_packets_past_a_gap() {
        let mut t = FlowTransport::new(80);
        assert!(!t.take(1, false));
        assert!(t.take(1, true) && t.take(3, true));
        assert!(!t.take(3, true), "again");
        assert!(!t.take(65, true), "past the window");
        assert!(t.take(64, true));
        assert!((t.delivered(3), t.delivered(2)) == (true, false));
        assert!(t.take(0, true));
        assert_eq!((t.expected, t.held), (2, 0b1 | 1 << 61));
        assert!(t.take(2, true));
        assert_eq!((t.expected, t.held), (4, 1 << 59));
        // A lost copy of a held packet was delivered by another.
        t.lost_copy(64, 0);
        assert_eq!(t.lost_of_delivered, 1);
    }
}
