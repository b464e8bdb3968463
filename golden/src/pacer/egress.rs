//! The pacer's egress (`SPEC.md` §7.5): the packets the wheel has served
//! wait here, one FIFO per priority, until their leave time has come; the
//! link takes them at line rate and never takes a paused priority's.
//!
//! A packet served from the wheel leaves at `max(eligible, link_free)`,
//! pushed to the end of its priority's pause when that time falls inside
//! it. Of the priorities' head packets the one with the earliest leave
//! time goes first (the one served first on a tie), so a paused priority
//! holds up no other, and a priority's own packets keep their order. A
//! leave is decided only once time has reached it (`now`), because a PFC
//! frame received before then can still pause it: the pacer never
//! releases a packet at a time it already knows to be paused.

use std::collections::VecDeque;

use super::{ceil_ns, TIME_FRAC_BITS};
use crate::record::{FrameClass, ParseRecord};
use crate::wire::{mac_control_opcode, PFC_PRIORITIES as PRIORITIES};

/// Bytes in one pause quantum: 512 bit times (802.3 Annex 31B, 802.1Qbb).
pub const QUANTUM_BYTES: u64 = 64;

/// A PAUSE or PFC frame the NIC received, as the pacer takes it: the
/// priorities it names and each one's pause time in quanta (a PAUSE frame
/// names all eight with its one time). A time of 0 resumes at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PauseCommand {
    /// Bit p: priority p's time is in `quanta[p]`.
    pub enable: u8,
    pub quanta: [u16; PRIORITIES],
}

impl PauseCommand {
    /// What a parsed PAUSE or PFC frame asks (`SPEC.md` §7.5): PFC's
    /// enable bits 0-7 with its eight times (the vector's top byte is
    /// reserved, IEEE 802.3 Annex 31D), PAUSE every priority with its one
    /// time (802.3x stops the whole link). None for any other frame.
    pub fn from_record(record: &ParseRecord) -> Option<Self> {
        if record.class != FrameClass::FlowControl {
            return None;
        }
        match record.mac_control_opcode? {
            mac_control_opcode::PAUSE => Some(PauseCommand { enable: 0xFF, quanta: [record.pause_time?; PRIORITIES] }),
            mac_control_opcode::PFC => {
                Some(PauseCommand { enable: record.pfc_enable? as u8, quanta: record.pfc_quanta? })
            }
            _ => None,
        }
    }
}

/// A packet the wheel has served.
#[derive(Debug, Clone, Copy)]
pub(super) struct Served {
    pub qp: u32,
    pub len: u32,
    pub eligible: u64,
    /// Serve order: the tie-break between priorities.
    pub seq: u64,
}

/// One priority's pause: no packet of it leaves strictly between `start`
/// and `resume` (Q44.20 ns). Empty when `resume <= start`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pause {
    start: u64,
    resume: u64,
}

impl Pause {
    fn holds(&self, time: u64) -> bool {
        self.start < time && time < self.resume
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct Egress {
    queues: [VecDeque<Served>; PRIORITIES],
    pauses: [Pause; PRIORITIES],
    next_seq: u64,
    /// When the link is free again (the aggregate line-rate cap).
    link_free: u64,
}

impl Egress {
    /// Packets waiting (they keep their descriptors: `Pacer::pool_full`).
    pub fn len(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    pub fn push(&mut self, priority: usize, qp: u32, len: u32, eligible: u64) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queues[priority].push_back(Served { qp, len, eligible, seq });
    }

    /// A priority's head packet's leave time: when the link takes it, or
    /// the end of its pause if that time is paused.
    fn leave_of(&self, priority: usize, head: &Served) -> u64 {
        let leave = head.eligible.max(self.link_free);
        let pause = self.pauses[priority];
        if pause.holds(leave) {
            pause.resume
        } else {
            leave
        }
    }

    /// The packet to leave next: its priority and leave time (earliest
    /// leave, then first served).
    fn next(&self) -> Option<(usize, u64)> {
        (0..PRIORITIES)
            .filter_map(|p| self.queues[p].front().map(|head| (p, self.leave_of(p, head), head.seq)))
            .min_by_key(|&(_, leave, seq)| (leave, seq))
            .map(|(p, leave, _)| (p, leave))
    }

    /// The next leave time, rounded up to its tick: when a driver must
    /// move time on for the egress.
    pub fn next_tick(&self) -> Option<u64> {
        self.next().map(|(_, leave)| ceil_ns(leave))
    }

    /// Releases every packet whose leave time is at or before `now` (ns;
    /// all of them with `None`), in leave order; `line_byte_time` prices
    /// each on the link.
    pub fn drain(&mut self, now: Option<u64>, line_byte_time: u64, out: &mut Vec<super::Release>) {
        while let Some((priority, leave)) = self.next() {
            if now.is_some_and(|now| leave > now << TIME_FRAC_BITS) {
                return;
            }
            let head = self.queues[priority].pop_front().expect("a head packet");
            self.link_free = leave.wrapping_add(u64::from(head.len) * line_byte_time);
            out.push(super::Release { time: ceil_ns(leave), qp: head.qp, len: head.len, dropped: false });
        }
    }

    /// A PAUSE or PFC frame received at `now` (ns): each priority it names
    /// is paused from now for its quanta at the line rate (`line_byte_time`
    /// per byte), replacing the pause it had (802.1Qbb: a new frame
    /// restarts the timer). A pause still in force at `now` keeps its
    /// start, so what it held stays held until now.
    pub fn pause(&mut self, now: u64, cmd: &PauseCommand, line_byte_time: u64) {
        let now_fp = now << TIME_FRAC_BITS;
        for (p, pause) in self.pauses.iter_mut().enumerate() {
            if cmd.enable & (1 << p) == 0 {
                continue;
            }
            if !pause.holds(now_fp) {
                pause.start = now_fp;
            }
            pause.resume = now_fp + u64::from(cmd.quanta[p]) * QUANTUM_BYTES * line_byte_time;
        }
    }
}
