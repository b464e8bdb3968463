//! The pacer (`SPEC.md` §7): releases each QP's packets at the QP's rate,
//! in the fixed point and the order of `rtl/roce_pacer.v`.
//!
//! Carousel-style: a packet gets its eligible time when it is handed over
//! (GCRA on the QP's theoretical arrival time, with a burst allowance and a
//! minimum gap; a rate change re-times the QP's newest packet if it still
//! waits) and waits in a hierarchical timing wheel of [`LEVELS`]
//! levels. Level 0 has `slot_count` slots of `2^slot_shift` ns, each a
//! FIFO; each level above has as many slots, each as wide as the whole
//! level below (its horizon). A packet goes into the lowest level whose
//! horizon holds its eligible time (the top level's last slot beyond that);
//! when time reaches a slot above level 0, its packets cascade down. The
//! wheel is served in time order, higher levels first among slots of the
//! same start; a packet leaves at its eligible time or when the link is
//! free, whichever is later. Time is virtual: a slot is served once a
//! command at or after its start has arrived (or at the flush), so the
//! schedule does not depend on clock cycles.
//!
//! Times are ns in Q44.20 (`u64`), rates kb/s, byte times ns per byte in
//! Q20.20, rounded up so that no QP is ever paced faster than its rate.

use std::collections::{HashSet, VecDeque};

use crate::cc_params::CcRegisters;
use crate::reaction::{RateChange, RateTrigger};

mod egress;
use egress::Egress;
pub use egress::{PauseCommand, QUANTUM_BYTES};

// Byte times are the register table's conversion (`CcConv::ByteTime`).
pub use crate::cc_table::{byte_time, BYTE_TIME_NUMERATOR, MIN_PACED_KBPS, TIME_FRAC_BITS};

/// Levels of the timing wheel (`rtl/roce_pacer.v`).
pub const LEVELS: usize = 3;

/// The RTL parameters of the pacer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacerGeometry {
    pub qp_count: usize,
    /// log2 of the slot width in ns.
    pub slot_shift: u32,
    pub slot_count: usize,
    /// Packets the pacer holds at once.
    pub desc_count: usize,
}

impl Default for PacerGeometry {
    /// The default build of `rtl/roce_pacer.v`.
    fn default() -> Self {
        PacerGeometry { qp_count: 4096, slot_shift: 6, slot_count: 256, desc_count: 4096 }
    }
}

/// One input transaction (`s_cmd_*`): what the reaction point emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacerCommand {
    pub time: u64,
    pub qp: u32,
    /// A new rate for the QP, kb/s.
    pub rate_kbps: Option<u32>,
    /// A packet the QP sent: its length, bytes.
    pub send_len: Option<u32>,
    /// A PAUSE or PFC frame the NIC received (§7.5); `qp` is not used.
    pub pause: Option<PauseCommand>,
}

impl PacerCommand {
    /// The command a reaction-point transaction gives the pacer: its rate
    /// unless only a packet was handed over, and the packet if any.
    pub fn from_rate_change(change: &RateChange) -> Self {
        PacerCommand {
            time: change.time,
            qp: change.qp,
            rate_kbps: (change.trigger != RateTrigger::Sent).then_some(change.rate_kbps),
            send_len: change.sent_len,
            pause: None,
        }
    }

    /// The command a received PAUSE or PFC frame gives the pacer.
    pub fn from_pause(time: u64, pause: PauseCommand) -> Self {
        PacerCommand { time, qp: 0, rate_kbps: None, send_len: None, pause: Some(pause) }
    }
}

/// One output transaction (`m_rel_*`): a packet released, or refused because
/// the pacer was full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// Release tick (ns, rounded up), or the tick of the refused command.
    pub time: u64,
    pub qp: u32,
    pub len: u32,
    pub dropped: bool,
}

/// A QP's debt after one of its packets: its theoretical arrival time
/// (TAT) is `base + len · byte_time`, priced at the QP's byte time when it
/// is used, so a rate change re-prices the last packet (ns-3
/// `RdmaHw::ChangeRate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Debt {
    base: u64,
    len: u32,
    /// The next packet may not be eligible before this (minimum gap).
    gap_ready: u64,
}

/// Per-QP pacing state (the RTL's QP RAM word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct QpPace {
    byte_time: u64,
    /// After the QP's newest packet.
    last: Debt,
    /// Before it: what a rate change re-times that packet from.
    prev: Debt,
    /// The newest packet's descriptor (`Desc::seq`); it still waits while
    /// that is live.
    newest: Option<u64>,
    /// The priority its packets leave on (`Pacer::set_priority`).
    priority: u8,
}

/// A packet in the wheel.
#[derive(Debug, Clone, Copy)]
struct Desc {
    qp: u32,
    len: u32,
    eligible: u64,
    priority: u8,
    /// Which descriptor: one taken over by a re-timed copy is stale and
    /// leaves the wheel silently when served (the RTL's live bit).
    seq: u64,
}

#[derive(Debug, Clone)]
pub struct Pacer {
    pub geometry: PacerGeometry,
    regs: CcRegisters,
    qps: Vec<QpPace>,
    /// The slots of each level, and their busy bits (64 to a word).
    slots: [Vec<VecDeque<Desc>>; LEVELS],
    busy: [Vec<u64>; LEVELS],
    held: usize,
    /// The descriptors in the wheel not yet released or re-timed.
    live: HashSet<u64>,
    next_seq: u64,
    /// Packets moved by a re-time, for coverage reports.
    pub retimed: u64,
    /// The slot being served (absolute slot number).
    pointer: u64,
    /// Highest command tick seen.
    watermark: u64,
    /// Served packets on their way out, per priority.
    egress: Egress,
}

impl Pacer {
    pub fn new(geometry: PacerGeometry, regs: &CcRegisters) -> Self {
        let qp = QpPace {
            byte_time: regs.start_byte_time,
            last: Debt::default(),
            prev: Debt::default(),
            newest: None,
            priority: 0,
        };
        Pacer {
            geometry,
            regs: *regs,
            qps: vec![qp; geometry.qp_count],
            slots: std::array::from_fn(|_| vec![VecDeque::new(); geometry.slot_count]),
            busy: std::array::from_fn(|_| vec![0; geometry.slot_count.div_ceil(64)]),
            held: 0,
            live: HashSet::new(),
            next_seq: 0,
            retimed: 0,
            pointer: 0,
            watermark: 0,
            egress: Egress::default(),
        }
    }

    /// The priority a QP's packets leave on from its next packet (its PCP;
    /// the QP context table). False for a QP beyond the pacer or a
    /// priority beyond 7.
    pub fn set_priority(&mut self, qp: u32, priority: u8) -> bool {
        match self.qps.get_mut(qp as usize) {
            Some(entry) if usize::from(priority) < crate::wire::PFC_PRIORITIES => {
                entry.priority = priority;
                true
            }
            _ => false,
        }
    }

    fn slot_of(&self, time_fp: u64) -> u64 {
        time_fp >> (TIME_FRAC_BITS + self.geometry.slot_shift)
    }

    fn index(&self, slot: u64) -> usize {
        (slot % self.geometry.slot_count as u64) as usize
    }

    /// A level-0 slot number in `level`'s units.
    fn at_level(&self, slot: u64, level: usize) -> u64 {
        slot >> (level as u32 * self.geometry.slot_count.trailing_zeros())
    }

    /// The first busy slot of `level` at or after the pointer's (absolute,
    /// in that level's units).
    fn first_busy_of(&self, level: usize) -> Option<u64> {
        let from = self.at_level(self.pointer, level);
        let start = self.index(from);
        let words = &self.busy[level];
        // The rotated priority encoder of the RTL, a word at a time.
        let mut index = start;
        for step in 0..=words.len() {
            let word = index / 64;
            let mut bits = words[word] >> (index % 64);
            if step == words.len() {
                // Back at the first word: only the bits below the start.
                bits &= (1u64 << (start % 64)).wrapping_sub(1) >> (index % 64);
            }
            if bits != 0 {
                let found = index + bits.trailing_zeros() as usize;
                let offset = (found + self.geometry.slot_count - start) % self.geometry.slot_count;
                return Some(from + offset as u64);
            }
            index = ((word + 1) * 64) % self.geometry.slot_count;
        }
        None
    }

    fn push(&mut self, level: usize, index: usize, desc: Desc) {
        self.slots[level][index].push_back(desc);
        self.busy[level][index / 64] |= 1 << (index % 64);
    }

    fn pop(&mut self, level: usize, index: usize) -> Desc {
        let desc = self.slots[level][index].pop_front().expect("a busy slot");
        if self.slots[level][index].is_empty() {
            self.busy[level][index / 64] &= !(1 << (index % 64));
        }
        desc
    }

    /// The next thing to do: the level and the slot (in that level's
    /// units) that starts first, the higher level on a tie; the start as a
    /// level-0 slot number.
    fn next_event(&self) -> Option<(usize, u64, u64)> {
        if self.held == 0 {
            return None;
        }
        let bits = self.geometry.slot_count.trailing_zeros();
        (0..LEVELS)
            .rev()
            .filter_map(|level| self.first_busy_of(level).map(|slot| (level, slot, slot << (level as u32 * bits))))
            .min_by_key(|&(level, _, start)| (start, LEVELS - level))
    }

    /// A packet into the wheel: the lowest level whose horizon holds it,
    /// or the top level's last slot (parked). No packet may go ahead of a
    /// QP's earlier one still to come down from a higher level or back
    /// from parking (SPEC.md §7.4). So below the top, a level's horizon
    /// ends with the pointer's slot of the level above; the top's ends
    /// with the pointer's half of the level (the next half's end when the
    /// pointer is on the last slot of one): it stays put until its last
    /// slot, where packets are parked, is served.
    fn insert(&mut self, desc: Desc) {
        let slot = self.slot_of(desc.eligible);
        let last = self.geometry.slot_count as u64 - 1;
        for level in 0..LEVELS {
            let pointer = self.at_level(self.pointer, level);
            let horizon = if level == LEVELS - 1 { (pointer + 1) | (last / 2) } else { pointer | last };
            let at = self.at_level(slot, level);
            if at <= horizon || level == LEVELS - 1 {
                self.push(level, self.index(at.min(horizon)), desc);
                return;
            }
        }
    }

    /// Serves slots that start at or before `until` (all with `None`): a
    /// packet served goes on to the egress.
    fn serve(&mut self, until: Option<u64>) {
        while let Some((level, slot, start)) = self.next_event() {
            if until.is_some_and(|tick| start > tick >> self.geometry.slot_shift) {
                return;
            }
            self.pointer = self.pointer.max(start);
            let desc = self.pop(level, self.index(slot));
            if level > 0 {
                // Down to the level that holds it now.
                self.insert(desc);
                continue;
            }
            self.held -= 1;
            if !self.live.remove(&desc.seq) {
                // Stale: its packet was re-timed into another descriptor.
                continue;
            }
            self.egress.push(usize::from(desc.priority), desc.qp, desc.len, desc.eligible);
        }
    }

    /// Time moves on to `time`: every slot that starts by then is served,
    /// and every packet whose leave time has come leaves (what a command
    /// does before it is applied). Returns the new now.
    pub fn advance(&mut self, time: u64, out: &mut Vec<Release>) -> u64 {
        let now = self.watermark.max(time);
        self.serve(Some(now));
        self.egress.drain(Some(now), self.regs.line_byte_time, out);
        self.watermark = now;
        self.pointer = self.pointer.max(now >> self.geometry.slot_shift);
        now
    }

    /// The next time the pacer has work (for event-driven drivers): the
    /// start tick of the first slot holding a packet, or the tick the next
    /// served packet leaves at, whichever is first.
    pub fn next_busy_tick(&self) -> Option<u64> {
        let slot = self.next_event().map(|(_, _, start)| start << self.geometry.slot_shift);
        [slot, self.egress.next_tick()].into_iter().flatten().min()
    }

    /// The GCRA of SPEC.md §7.3: the eligible time of a packet of `len`
    /// bytes after `debt` at `byte_time`, handed over at `now_fp`, and the
    /// QP's debt after it (`max(TAT, eligible)` is `max(TAT, now,
    /// gap_ready)`, as `TAT - tau <= TAT`; `rtl/pacer_gcra.v`).
    fn gcra(&self, debt: Debt, len: u32, byte_time: u64, now_fp: u64) -> (u64, Debt) {
        let tat = debt.base.wrapping_add(u64::from(debt.len) * byte_time);
        let burst = u64::from(self.regs.burst_bytes) * byte_time;
        let eligible = now_fp.max(tat.saturating_sub(burst)).max(debt.gap_ready);
        let base = tat.max(now_fp).max(debt.gap_ready);
        let gap_ready = eligible.wrapping_add(u64::from(self.regs.min_gap_ns) << TIME_FRAC_BITS);
        (eligible, Debt { base, len, gap_ready })
    }

    /// Every descriptor is in use (packets in the wheel, stale ones, and
    /// served ones not yet gone).
    fn pool_full(&self) -> bool {
        self.held + self.egress.len() == self.geometry.desc_count
    }

    /// A packet into the wheel in a new descriptor: the QP's newest, with
    /// the QP's debt after it.
    fn hand_over(&mut self, qp: u32, eligible: u64, debt: Debt) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.held += 1;
        self.live.insert(seq);
        let priority = self.qps[qp as usize].priority;
        self.insert(Desc { qp, len: debt.len, eligible, priority, seq });
        let entry = &mut self.qps[qp as usize];
        entry.last = debt;
        entry.newest = Some(seq);
    }

    /// One command, after serving every slot that starts by its tick.
    pub fn command(&mut self, cmd: &PacerCommand, out: &mut Vec<Release>) {
        let now = self.advance(cmd.time, out);
        if let Some(pause) = &cmd.pause {
            self.egress.pause(now, pause, self.regs.line_byte_time);
        }
        let Some(qp) = self.qps.get(cmd.qp as usize).copied() else { return };
        if let Some(len) = cmd.send_len {
            if self.pool_full() {
                out.push(Release { time: now, qp: cmd.qp, len, dropped: true });
            } else {
                let (eligible, debt) = self.gcra(qp.last, len, qp.byte_time, now << TIME_FRAC_BITS);
                self.qps[cmd.qp as usize].prev = qp.last;
                self.hand_over(cmd.qp, eligible, debt);
            }
        }
        if let Some(rate) = cmd.rate_kbps {
            self.qps[cmd.qp as usize].byte_time = byte_time(rate);
            self.retime(cmd.qp, now);
        }
    }

    /// A new rate re-times the QP's newest packet if it still waits (SPEC.md
    /// §7.3): its eligible time again from the debt before it, at the new
    /// byte time, as if handed over now. If that time is earlier (compared
    /// as gap_ready, `eligible + min_gap`, as the RTL does), the packet
    /// moves to a new descriptor and the old one goes stale; with no
    /// descriptor free it keeps its time. A cut never delays a packet
    /// already handed over: the reaction point tells a rate's recovery only
    /// at the QP's next event, which a delayed packet would hold back. Only
    /// the newest packet moves, never ahead of the QP's packet before it
    /// (its eligible time is at least that one's gap_ready), so the QP's
    /// order holds.
    fn retime(&mut self, q: u32, now: u64) {
        let qp = self.qps[q as usize];
        let Some(seq) = qp.newest.filter(|seq| self.live.contains(seq)) else { return };
        if self.pool_full() {
            return;
        }
        let (eligible, debt) = self.gcra(qp.prev, qp.last.len, qp.byte_time, now << TIME_FRAC_BITS);
        if debt.gap_ready >= qp.last.gap_ready {
            return;
        }
        self.live.remove(&seq);
        self.retimed += 1;
        self.hand_over(q, eligible, debt);
    }

    /// The end of the input: every packet held leaves (a paused one at
    /// the end of its pause).
    pub fn flush(&mut self, out: &mut Vec<Release>) {
        self.serve(None);
        self.egress.drain(None, self.regs.line_byte_time, out);
    }
}

/// A Q44.20 time rounded up to whole ns.
pub fn ceil_ns(time_fp: u64) -> u64 {
    (time_fp >> TIME_FRAC_BITS) + u64::from(time_fp & ((1 << TIME_FRAC_BITS) - 1) != 0)
}

#[cfg(test)]
mod tests;
