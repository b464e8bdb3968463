//! The switch of the closed loop: output-queued, one shared buffer, RED-style
//! ECN marking on enqueue, tail drop when the buffer is full, and strict
//! priority for CNPs (as switches give the CNP traffic class).

use std::collections::VecDeque;

use super::packet::Packet;
use crate::dice::Dice;

/// ECN marking: probability 0 below `kmin` bytes of the egress queue,
/// rising linearly to `pmax` at `kmax`, 1 above (RED on the instantaneous
/// queue, as DCQCN's switches do).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedProfile {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

impl RedProfile {
    /// The defaults of the HPCC ns-3 simulator's DCQCN runs (`KMIN_MAP`,
    /// `KMAX_MAP`, `PMAX_MAP` in its `mix/config.txt`, thresholds in units
    /// of 1000 bytes): the first entry at or above the link rate.
    pub fn for_link(gbps: u32) -> Self {
        const MAP: [(u32, u64, u64); 5] =
            [(25, 100, 400), (40, 200, 800), (100, 400, 1600), (200, 600, 2400), (400, 800, 3200)];
        let &(_, kmin, kmax) = MAP.iter().find(|&&(rate, _, _)| rate >= gbps).unwrap_or(&MAP[MAP.len() - 1]);
        RedProfile { kmin: kmin * 1000, kmax: kmax * 1000, pmax: 0.2 }
    }

    /// The marking probability at queue depth `depth` bytes.
    pub fn probability(&self, depth: u64) -> f64 {
        if depth <= self.kmin {
            0.0
        } else if depth >= self.kmax {
            1.0
        } else {
            self.pmax * (depth - self.kmin) as f64 / (self.kmax - self.kmin) as f64
        }
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
    pub marks: u64,
    pub drops: u64,
    dice: Dice,
}

impl Switch {
    pub fn new(ports: usize, buffer_bytes: u64, red: RedProfile, seed: u64) -> Self {
        Switch {
            ports: (0..ports).map(|_| Port::default()).collect(),
            buffer_bytes,
            used: 0,
            peak_used: 0,
            red,
            marks: 0,
            drops: 0,
            dice: Dice(seed),
        }
    }

    /// A packet for egress `port`: dropped when the shared buffer cannot
    /// hold it, else queued, an ECN-capable data packet marked CE with the
    /// RED probability of the queue it joins.
    pub fn enqueue(&mut self, port: usize, mut packet: Packet) -> Enqueued {
        let len = packet.stored_len();
        if self.used + len > self.buffer_bytes {
            self.drops += 1;
            return Enqueued::Dropped;
        }
        let q = &mut self.ports[port];
        let mut marked = false;
        if packet.is_cnp() {
            q.cnps.push_back(packet);
        } else {
            let p = self.red.probability(q.depth);
            if p > 0.0 && packet.ecn_capable() && self.dice.unit() < p {
                packet.mark_ce();
                marked = true;
                self.marks += 1;
            }
            q.data.push_back(packet);
        }
        q.depth += len;
        q.peak = q.peak.max(q.depth);
        self.used += len;
        self.peak_used = self.peak_used.max(self.used);
        Enqueued::Queued { marked }
    }

    /// The next packet onto `port`'s wire, if the port is idle and has one
    /// (CNPs first); the port is busy until [`Switch::done`].
    pub fn start(&mut self, port: usize) -> Option<Packet> {
        let q = &mut self.ports[port];
        if q.busy {
            return None;
        }
        let packet = q.cnps.pop_front().or_else(|| q.data.pop_front())?;
        let len = packet.stored_len();
        q.depth -= len;
        self.used -= len;
        q.busy = true;
        Some(packet)
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
        assert_eq!(red.probability(1_600_000), 1.0);
        assert_eq!(RedProfile::for_link(400).kmax, 3_200_000);
        assert_eq!(RedProfile::for_link(800).kmax, 3_200_000);
    }
}
