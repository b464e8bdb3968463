//! The switch of the closed loop: output-queued, one shared buffer, RED-style
//! ECN marking (on dequeue by default, as the HPCC ns-3 switch does; on
//! enqueue on request), tail drop when the buffer is full, and strict
//! priority for CNPs (as switches give the CNP traffic class); with `--pfc`,
//! lossless data behind priority flow control ([`super::pfc`]).

use std::collections::VecDeque;

use super::packet::Packet;
use super::pfc::{self, Pfc, PfcEvent};
use crate::addresses::switch_port_mac;
use crate::dice::Dice;

/// ECN marking: probability 0 up to `kmin` bytes of the egress queue,
/// rising linearly to `pmax` at `kmax`, 1 above (RED on the instantaneous
/// queue, as the HPCC ns-3 switch's `SwitchMmu::ShouldSendCN` does).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedProfile {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

impl RedProfile {
    /// The HPCC ns-3 simulator's DCQCN thresholds, which its `run.py`
    /// scales linearly with the link rate (`kmin_map` 100·bw/25 and
    /// `kmax_map` 400·bw/25 in units of 1000 B, `pmax_map` 0.2): 25G
    /// 100/400 kB, 100G 400/1600, 400G 1600/6400. Its `mix/config.txt`
    /// lists the same at 25, 50 and 100G.
    pub fn for_link(gbps: u32) -> Self {
        const KMIN_BYTES_PER_GBPS: u64 = 100_000 / 25;
        const KMAX_BYTES_PER_GBPS: u64 = 400_000 / 25;
        let gbps = u64::from(gbps);
        RedProfile { kmin: KMIN_BYTES_PER_GBPS * gbps, kmax: KMAX_BYTES_PER_GBPS * gbps, pmax: 0.2 }
    }

    /// The marking probability at queue depth `depth` bytes.
    pub fn probability(&self, depth: u64) -> f64 {
        if depth > self.kmax {
            1.0
        } else if depth > self.kmin {
            self.pmax * (depth - self.kmin) as f64 / (self.kmax - self.kmin) as f64
        } else {
            0.0
        }
    }
}

/// Where the switch decides a packet's ECN mark (`--mark`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarkPoint {
    /// When the packet joins its egress queue, on the depth it finds: the
    /// mark then waits behind the whole queue (DCTCP, SIGCOMM 2010, §3.1:
    /// marked if the queue exceeds K on arrival).
    Enqueue,
    /// When the packet leaves the queue for the wire, on the depth it
    /// leaves behind: the mark tells of the queue as it is now (HPCC
    /// ns-3, `SwitchNode::SwitchNotifyDequeue`).
    #[default]
    Dequeue,
}

impl MarkPoint {
    pub fn name(self) -> &'static str {
        match self {
            MarkPoint::Enqueue => "enqueue",
            MarkPoint::Dequeue => "dequeue",
        }
    }
}

impl std::str::FromStr for MarkPoint {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [MarkPoint::Enqueue, MarkPoint::Dequeue]
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("`{s}`: `enqueue` or `dequeue`"))
    }
}

/// What became of a packet offered to an egress queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    Queued { marked: bool },
    Dropped,
}

#[derive(Debug, Default)]
struct Port {
    /// PFC frames: before anything else, outside the buffer.
    control: VecDeque<Packet>,
    cnps: VecDeque<Packet>,
    data: VecDeque<Packet>,
    /// Bytes waiting (not yet on the wire).
    depth: u64,
    peak: u64,
    busy: bool,
}

pub struct Switch {
    ports: Vec<Port>,
    pub buffer_bytes: u64,
    /// Bytes held over all ports, and the most ever held.
    pub used: u64,
    pub peak_used: u64,
    pub red: RedProfile,
    pub mark: MarkPoint,
    /// Whether ECN is marked at all.
    pub ecn: bool,
    pub marks: u64,
    pub drops: u64,
    /// Priority flow control, with `--pfc`.
    pub pfc: Option<Pfc>,
    dice: Dice,
}

impl Switch {
    pub fn new(ports: usize, buffer_bytes: u64, red: RedProfile, mark: MarkPoint, seed: u64) -> Self {
        Switch {
            ports: (0..ports).map(|_| Port::default()).collect(),
            buffer_bytes,
            used: 0,
            peak_used: 0,
            red,
            mark,
            ecn: true,
            marks: 0,
            drops: 0,
            pfc: None,
            dice: Dice(seed),
        }
    }

    /// Marks an ECN-capable data packet CE with the RED probability of a
    /// queue `depth` bytes deep; whether it did.
    fn red_mark(&mut self, packet: &mut Packet, depth: u64) -> bool {
        let p = if self.ecn { self.red.probability(depth) } else { 0.0 };
        if p > 0.0 && !packet.is_cnp() && packet.ecn_capable() && self.dice.unit() < p {
            packet.mark_ce();
            self.marks += 1;
            return true;
        }
        false
    }

    /// A packet for egress `port` at `now` (ps): dropped when the shared
    /// buffer cannot hold it (with PFC: when PFC does not admit it, a
    /// lossless frame only once its queue's headroom is full), else queued
    /// (when marking on enqueue, an ECN-capable data packet marked CE with
    /// the RED probability of the queue it joins).
    pub fn enqueue(&mut self, port: usize, mut packet: Packet, now: u64) -> Enqueued {
        let len = packet.stored_len();
        let admitted = match &mut self.pfc {
            Some(pfc) => pfc.admit(packet.src_host(), packet.priority(), len, now),
            None => self.used + len <= self.buffer_bytes,
        };
        if !admitted {
            self.drops += 1;
            return Enqueued::Dropped;
        }
        let depth = self.ports[port].depth;
        let marked = self.mark == MarkPoint::Enqueue && self.red_mark(&mut packet, depth);
        let q = &mut self.ports[port];
        if packet.is_cnp() {
            q.cnps.push_back(packet);
        } else {
            q.data.push_back(packet);
        }
        q.depth += len;
        q.peak = q.peak.max(q.depth);
        self.used += len;
        self.peak_used = self.peak_used.max(self.used);
        Enqueued::Queued { marked }
    }

    /// The next packet onto `port`'s wire at `now` (ps), if the port is
    /// idle and has one (PFC frames first, then CNPs), with whether it was
    /// marked now (when marking on dequeue: by the depth the packet leaves
    /// behind, as ns-3 removes a packet from the egress count before
    /// `ShouldSendCN`); the port is busy until [`Switch::done`].
    pub fn start(&mut self, port: usize, now: u64) -> Option<(Packet, bool)> {
        let q = &mut self.ports[port];
        if q.busy {
            return None;
        }
        if let Some(frame) = q.control.pop_front() {
            q.busy = true;
            return Some((frame, false));
        }
        let mut packet = q.cnps.pop_front().or_else(|| q.data.pop_front())?;
        let len = packet.stored_len();
        q.depth -= len;
        self.used -= len;
        q.busy = true;
        let depth = q.depth;
        if let Some(pfc) = &mut self.pfc {
            pfc.release(packet.src_host(), packet.priority(), len, now);
        }
        let marked = self.mark == MarkPoint::Dequeue && self.red_mark(&mut packet, depth);
        Some((packet, marked))
    }

    /// The pause changes since the last call, each with its PFC frame
    /// queued on its port (the caller starts the port).
    pub fn take_pfc_events(&mut self) -> Vec<PfcEvent> {
        let Some(control) = &mut self.pfc else { return Vec::new() };
        let events = control.take_events();
        for &event in &events {
            let (PfcEvent::Pause { port, .. } | PfcEvent::Resume { port, .. }) = event;
            self.ports[port].control.push_back(pfc::frame(event, switch_port_mac(port)));
        }
        events
    }

    /// The PFC pauses begun so far (0 without PFC).
    pub fn pfc_pauses(&self) -> u64 {
        self.pfc.as_ref().map_or(0, |p| p.counts.iter().map(|c| c.pause_frames).sum())
    }

    /// `port` finished sending its packet.
    pub fn done(&mut self, port: usize) {
        self.ports[port].busy = false;
    }

    pub fn depth(&self, port: usize) -> u64 {
        self.ports[port].depth
    }

    pub fn peak_depth(&self, port: usize) -> u64 {
        self.ports[port].peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn red_profile_is_linear_between_the_thresholds() {
        let red = RedProfile::for_link(100);
        assert_eq!((red.kmin, red.kmax), (400_000, 1_600_000));
        assert_eq!(red.probability(400_000), 0.0);
        assert!((red.probability(1_000_000) - 0.1).abs() < 1e-12);
        // ns-3's ShouldSendCN: Pmax at Kmax itself, every packet above it.
        assert!((red.probability(1_600_000) - 0.2).abs() < 1e-12);
        assert_eq!(red.probability(1_600_001), 1.0);
    }

    /// HPCC's `run.py`: `kmin_map` 100·bw/25 and `kmax_map` 400·bw/25 kB,
    /// so 25G 100/400, 50G 200/800, 100G 400/1600, 200G 800/3200, 400G
    /// 1600/6400; and the rates between scale the same way.
    #[test]
    fn thresholds_scale_linearly_with_the_link_rate_as_hpccs_run_py() {
        let kb = |gbps| {
            let red = RedProfile::for_link(gbps);
            (red.kmin / 1000, red.kmax / 1000, red.pmax)
        };
        for (gbps, kmin, kmax) in
            [(25, 100, 400), (40, 160, 640), (50, 200, 800), (100, 400, 1600), (200, 800, 3200), (400, 1600, 6400)]
        {
            assert_eq!(kb(gbps), (kmin, kmax, 0.2), "{gbps}G");
        }
        assert_eq!(kb(800), (3200, 12_800, 0.2));
    }

    fn data(index: u64) -> Packet {
        Packet::data(0, 1, 0, 17, index, 64, 1024)
    }

    /// One packet queued behind others: on enqueue its mark depends on the
    /// queue it found, on dequeue on the queue it leaves behind.
    #[test]
    fn the_mark_is_decided_where_the_switch_is_told_to() {
        let red = RedProfile { kmin: 0, kmax: 1, pmax: 1.0 };
        for (mark, marks_at_enqueue) in [(MarkPoint::Enqueue, [false, true, true]), (MarkPoint::Dequeue, [false; 3])] {
            let mut switch = Switch::new(2, 1 << 20, red, mark, 1);
            let queued: Vec<_> = (0..3)
                .map(|i| match switch.enqueue(0, data(i), 0) {
                    Enqueued::Queued { marked } => marked,
                    Enqueued::Dropped => panic!("dropped"),
                })
                .collect();
            assert_eq!(queued, marks_at_enqueue, "{mark:?}");
            let mut left = Vec::new();
            while let Some((packet, marked)) = switch.start(0, 0) {
                switch.done(0);
                left.push((marked, packet.is_ce()));
            }
            // On dequeue the first two leave a queue behind, the last none.
            let expected = match mark {
                MarkPoint::Enqueue => vec![(false, false), (false, true), (false, true)],
                MarkPoint::Dequeue => vec![(true, true), (true, true), (false, false)],
            };
            assert_eq!(left, expected, "{mark:?}");
            assert_eq!(switch.marks, 2);
        }
    }
}
