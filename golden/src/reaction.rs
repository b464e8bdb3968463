//! The reaction point (`SPEC.md` §6.4): per-QP DCQCN, and the MetaRoCE cut,
//! in the fixed point of `rtl/dcqcn_rp.v`.
//!
//! Rates are kb/s in 32 bits; alpha and the CE extent are Q1.15. Timers do
//! not tick on their own: each QP keeps the tick of its next alpha update and
//! of its next timer increase, and when an event touches the QP the expiries
//! up to the event's tick are worked off first, in tick order (alpha first on
//! a tie), each rate change stamped with its own expiry tick. The alpha timer
//! stops at alpha 0, and a QP back at line rate with alpha 0 stops both
//! (nothing could change until the next CNP restarts them), so a quiet
//! second costs nothing.

use crate::cc_params::{CcRegisters, FRACTION_ONE, G_SCALE};
use crate::cn_event::{CnEvent, CnEventKind};

/// Which DCQCN step produced a rate change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RateStage {
    Cut = 0,
    FastRecovery = 1,
    AdditiveIncrease = 2,
    HyperIncrease = 3,
}

impl RateStage {
    pub const ALL: [RateStage; 4] =
        [RateStage::Cut, RateStage::FastRecovery, RateStage::AdditiveIncrease, RateStage::HyperIncrease];
    pub fn name(self) -> &'static str {
        match self {
            RateStage::Cut => "cut",
            RateStage::FastRecovery => "fast_recovery",
            RateStage::AdditiveIncrease => "additive_increase",
            RateStage::HyperIncrease => "hyper_increase",
        }
    }
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
}

/// What set the step off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RateTrigger {
    Cnp = 0,
    Timer = 1,
    ByteCounter = 2,
    /// No rate change: a sent packet handed on to the pacer.
    Sent = 3,
}

impl RateTrigger {
    pub const ALL: [RateTrigger; 4] =
        [RateTrigger::Cnp, RateTrigger::Timer, RateTrigger::ByteCounter, RateTrigger::Sent];
    pub fn name(self) -> &'static str {
        match self {
            RateTrigger::Cnp => "cnp",
            RateTrigger::Timer => "timer",
            RateTrigger::ByteCounter => "byte_counter",
            RateTrigger::Sent => "sent",
        }
    }
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
}

/// One output transaction: a QP's rates after a step. Every sent packet
/// also ends in one (after the expiries it caught up), carrying its length
/// on to the pacer: the byte-counter step it set off, or trigger `Sent`
/// (stage `Cut`, nothing changed) when there was none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateChange {
    pub time: u64,
    pub qp: u32,
    pub rate_kbps: u32,
    pub target_kbps: u32,
    /// Q1.15.
    pub alpha: u16,
    pub stage: RateStage,
    pub trigger: RateTrigger,
    /// The packet a sent-bytes event handed on, bytes.
    pub sent_len: Option<u32>,
}

impl RateChange {
    /// Whether the rates changed (not a bare hand-over).
    pub fn is_change(&self) -> bool {
        self.trigger != RateTrigger::Sent
    }
}

/// Per-QP state of the reaction point (one RAM word in the RTL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RpEntry {
    /// Current rate Rc and target rate Rt, kb/s.
    pub rate: u32,
    pub target: u32,
    pub alpha: u16,
    /// Timers run from the first CNP until the QP is back at line rate with alpha 0.
    pub running: bool,
    pub cut_seen: bool,
    pub alpha_due: u64,
    pub increase_due: u64,
    /// Bytes sent since the last byte-counter step (or CNP).
    pub bytes: u32,
    pub timer_stage: u8,
    pub byte_stage: u8,
}

impl RpEntry {
    /// A QP before its first CNP: line rate, initial alpha, timers stopped.
    pub fn initial(regs: &CcRegisters) -> Self {
        RpEntry {
            rate: regs.line_rate_kbps,
            target: regs.line_rate_kbps,
            alpha: regs.initial_alpha,
            ..Default::default()
        }
    }
}

/// alpha * (1 - g), with the product rounded up so alpha reaches 0.
pub fn alpha_decay(alpha: u16, g: u16) -> u16 {
    let drop = (u32::from(alpha) * u32::from(g)).div_ceil(G_SCALE);
    alpha - drop as u16
}

/// rate * (1 - fraction / 2), fraction Q1.15, the cut rounded down.
pub fn cut_rate(rate: u32, fraction: u16) -> u32 {
    rate - ((u64::from(rate) * u64::from(fraction)) >> 16) as u32
}

/// rate * factor, factor Q1.15, rounded down.
pub fn scale_rate(rate: u32, factor: u16) -> u32 {
    ((u64::from(rate) * u64::from(factor)) >> 15) as u32
}

/// How many alpha-table entries there are: (1 - g)^(2^j) for j = 0..15;
/// from j = 14 on it is 0 for every g > 0 (1 for g = 0), so a chunk of 2^j
/// decays with j >= 15 uses the last entry.
pub const ALPHA_KEEP_STEPS: usize = 16;

/// What a chunk of 2^j alpha decays keeps, (1 - g)^(2^j) in Q16: entry 0 is
/// exact ((1024 - g) * 64), each next one the square of the one before,
/// rounded to nearest. Entry 0 makes `alpha_decay_chunk` the single decay
/// `alpha_decay`.
pub fn alpha_keep_table(g: u16) -> [u32; ALPHA_KEEP_STEPS] {
    let mut keep = [0u32; ALPHA_KEEP_STEPS];
    keep[0] = (G_SCALE - u32::from(g)) << 6;
    for j in 1..ALPHA_KEEP_STEPS {
        keep[j] = ((u64::from(keep[j - 1]) * u64::from(keep[j - 1]) + (1 << 15)) >> 16) as u32;
    }
    keep
}

/// alpha after a chunk of decays that keeps `keep` (Q16), rounded down so
/// alpha reaches 0.
pub fn alpha_decay_chunk(alpha: u16, keep: u32) -> u16 {
    ((u64::from(alpha) * u64::from(keep)) >> 16) as u16
}

/// How many expiries of a timer due at `due`, every `period` ns, are at or
/// before `now` (`due <= now`).
fn expiries(now: u64, due: u64, period: u64) -> u128 {
    u128::from((now - due) / period) + 1
}

/// The chunks, as j for 2^j expiries, in which the RTL works off `count`
/// expiries: 1, 2, 4, ... while the rest holds the next, then down the
/// binary digits of what is left. So a catch-up takes about 2 log2(count)
/// chunks, one expiry costs one.
pub fn catch_up_chunks(count: u128) -> impl Iterator<Item = u32> {
    let (mut rest, mut j, mut climbing) = (count, 0u32, true);
    std::iter::from_fn(move || {
        if climbing && rest >= 1u128 << j {
            rest -= 1u128 << j;
            j += 1;
            return Some(j - 1);
        }
        climbing = false;
        while j > 0 {
            j -= 1;
            if rest >= 1u128 << j {
                rest -= 1u128 << j;
                return Some(j);
            }
        }
        None
    })
}

/// The kind of an increase made at these stage counts (before it counts,
/// so fast recovery takes F steps) and what it adds to the target before
/// the line-rate limit: 0, R_AI, or (low - F) * R_HAI.
fn increase_kind(timer_stage: u8, byte_stage: u8, r: &CcRegisters) -> (RateStage, u64) {
    let (high, low) = (timer_stage.max(byte_stage), timer_stage.min(byte_stage));
    if high < r.threshold {
        (RateStage::FastRecovery, 0)
    } else if low > r.threshold {
        (RateStage::HyperIncrease, u64::from(low - r.threshold) * u64::from(r.hai_kbps))
    } else {
        (RateStage::AdditiveIncrease, u64::from(r.ai_kbps))
    }
}

/// How many timer increases from timer stage `t` on are of the same kind
/// and add; None: all of them (the byte stage is fixed meanwhile).
fn like_increases(t: u8, byte_stage: u8, r: &CcRegisters) -> Option<u128> {
    let f = r.threshold;
    match increase_kind(t, byte_stage, r).0 {
        RateStage::FastRecovery => Some(u128::from(f - t)),
        // t <= F here: additive until t passes F, then hyper.
        RateStage::AdditiveIncrease => (byte_stage > f).then(|| u128::from(f - t) + 1),
        // low = t grows the step by R_HAI each time until t reaches the byte stage.
        RateStage::HyperIncrease => (t < byte_stage).then_some(1),
        RateStage::Cut => None,
    }
}

/// `count` timer increases, as runs of like steps that do not cross line
/// rate: m steps adding `inc` each leave Rt + m * inc and Rt - Rc =
/// inc + floor((Rt - Rc - inc) / 2^m), as each step halves the distance
/// to the new target rounding down. A step that would cross line rate adds
/// the headroom alone. Exactly `count` single steps, in few runs.
fn timer_increases(e: &mut RpEntry, r: &CcRegisters, count: u128) {
    let line = u64::from(r.line_rate_kbps);
    let mut rest = count;
    while rest > 0 {
        let (_, add) = increase_kind(e.timer_stage, e.byte_stage, r);
        let like = like_increases(e.timer_stage, e.byte_stage, r);
        let headroom = line - u64::from(e.target);
        if e.rate == e.target && (headroom == 0 || (add == 0 && like.is_none())) {
            // Nothing moves any more: the rest only count.
            e.timer_stage = (u128::from(e.timer_stage) + rest).min(255) as u8;
            return;
        }
        let mut run = like.map_or(rest, |n| n.min(rest));
        let inc = if add == 0 || headroom == 0 {
            0
        } else if add > headroom {
            run = 1;
            headroom
        } else {
            run = run.min(u128::from(headroom / add));
            add
        };
        let gap = (i128::from(e.target) - i128::from(e.rate) - i128::from(inc)) >> run.min(127);
        let target = i128::from(e.target) + i128::from(inc) * run as i128;
        e.target = target as u32;
        e.rate = (target - i128::from(inc) - gap) as u32;
        e.timer_stage = (u128::from(e.timer_stage) + run).min(255) as u8;
        rest -= run;
    }
}

/// The reaction point for `entries.len()` local QPs.
#[derive(Debug, Clone)]
pub struct ReactionPoint {
    pub entries: Vec<RpEntry>,
}

impl ReactionPoint {
    pub fn new(qp_count: usize, regs: &CcRegisters) -> Self {
        ReactionPoint { entries: vec![RpEntry::initial(regs); qp_count] }
    }

    /// One event for the reaction point (RxCnp or TxData); rate changes are
    /// appended to `out` in the order the RTL emits them.
    pub fn handle(&mut self, ev: &CnEvent, regs: &CcRegisters, out: &mut Vec<RateChange>) {
        let Some(entry) = self.entries.get_mut(ev.qp as usize) else { return };
        // A MetaRoCE CNP of extent 0 says no packet was marked: it is no
        // congestion signal, so it neither cuts nor restarts anything.
        if ev.kind == CnEventKind::RxCnp && regs.metaroce && ev.extent == Some(0) {
            return;
        }
        let mut qp = QpStep { qp: ev.qp, entry, regs, out };
        qp.catch_up(ev.time);
        match ev.kind {
            CnEventKind::RxCnp => qp.cnp(ev.time, ev.extent),
            CnEventKind::TxData => qp.bytes_sent(ev.time, ev.len),
            CnEventKind::RxData | CnEventKind::Time => {}
        }
    }
}

/// One QP's state while an event is applied.
struct QpStep<'a> {
    qp: u32,
    entry: &'a mut RpEntry,
    regs: &'a CcRegisters,
    out: &'a mut Vec<RateChange>,
}

impl QpStep<'_> {
    fn emit(&mut self, time: u64, stage: RateStage, trigger: RateTrigger, sent_len: Option<u32>) {
        let e = &self.entry;
        self.out.push(RateChange {
            time,
            qp: self.qp,
            rate_kbps: e.rate,
            target_kbps: e.target,
            alpha: e.alpha,
            stage,
            trigger,
            sent_len,
        });
    }

    fn converged(&self) -> bool {
        let line = self.regs.line_rate_kbps;
        self.entry.rate == line && self.entry.target == line && self.entry.alpha == 0
    }

    /// Works off the timer expiries at or before `now` in closed form
    /// (SPEC.md §6.4 step 1): the alpha updates in chunks of 2^j decays, the
    /// timer increases as runs of like steps, then one rate change if the
    /// rates moved.
    fn catch_up(&mut self, now: u64) {
        if !self.entry.running {
            return;
        }
        let r = self.regs;
        let e = &mut *self.entry;
        if e.alpha != 0 && e.alpha_due <= now {
            let keep = alpha_keep_table(r.g);
            let period = u64::from(r.alpha_period_ns);
            for j in catch_up_chunks(expiries(now, e.alpha_due, period)) {
                if e.alpha == 0 {
                    break;
                }
                e.alpha = alpha_decay_chunk(e.alpha, keep[(j as usize).min(ALPHA_KEEP_STEPS - 1)]);
                e.alpha_due = e.alpha_due.wrapping_add(period << j);
            }
        }
        if e.increase_due <= now {
            let period = u64::from(r.time_reset_ns);
            let count = expiries(now, e.increase_due, period);
            let before = (e.rate, e.target);
            let last_count = (u128::from(e.timer_stage) + count - 1).min(255) as u8;
            timer_increases(e, r, count);
            e.increase_due = e.increase_due.wrapping_add((count as u64).wrapping_mul(period));
            if (e.rate, e.target) != before {
                let (stage, _) = increase_kind(last_count, e.byte_stage, r);
                self.emit(self.entry.increase_due.wrapping_sub(period), stage, RateTrigger::Timer, None);
            }
        }
        if self.converged() {
            self.entry.running = false;
        }
    }

    /// One increase step, then its stage count goes up; whether it emitted.
    /// The step's kind comes from the counts before this step, so fast
    /// recovery takes F steps (ns-3 `RateIncEventTimerMlx` counts after
    /// `UpdateRateMlx`; the paper's Fig. 5 compares before counting).
    fn increase(&mut self, time: u64, trigger: RateTrigger, sent_len: Option<u32>) -> bool {
        let (r, e) = (self.regs, &mut *self.entry);
        let before = (e.rate, e.target);
        let (stage, add) = increase_kind(e.timer_stage, e.byte_stage, r);
        match trigger {
            RateTrigger::Timer => e.timer_stage = e.timer_stage.saturating_add(1),
            RateTrigger::ByteCounter => e.byte_stage = e.byte_stage.saturating_add(1),
            RateTrigger::Cnp | RateTrigger::Sent => {}
        }
        e.target = (u64::from(e.target) + add).min(r.line_rate_kbps.into()) as u32;
        // (Rt + Rc) / 2 rounded up, so the rate reaches the target.
        e.rate = ((u64::from(e.target) + u64::from(e.rate) + 1) >> 1) as u32;
        let changed = (e.rate, e.target) != before;
        if changed {
            self.emit(time, stage, trigger, sent_len);
        }
        changed
    }

    fn cnp(&mut self, now: u64, extent: Option<u16>) {
        let (r, e) = (self.regs, &mut *self.entry);
        // An extent above 1.0 (a malformed CNP) counts as 1.0.
        let extent = extent.filter(|_| r.metaroce).map(|x| x.min(FRACTION_ONE as u16));
        // alpha = (1 - g) alpha + g * (extent, or 1 for a plain CNP); the cut
        // below still takes the alpha from before this CNP (paper, Fig. 5).
        let gain = match extent {
            Some(x) => u32::from(x) * u32::from(r.g) / G_SCALE,
            None => FRACTION_ONE * u32::from(r.g) / G_SCALE,
        };
        let alpha = alpha_decay(e.alpha, r.g) + gain as u16;
        // rp_rate_reduce_monitor_period: at most one cut per period. A CNP
        // within the period of the QP's last cut still counts for alpha, as
        // ns-3's `cnp_received_mlx` sets the alpha flag for every CNP, but
        // does not cut. Until the first timer increase after a cut,
        // increase_due - T is that cut's tick; the period is at most T, so a
        // CNP after that increase is past it.
        if e.cut_seen
            && e.timer_stage == 0
            && now + u64::from(r.time_reset_ns) < e.increase_due + u64::from(r.reduce_period_ns)
        {
            e.alpha = alpha;
            e.alpha_due = now + u64::from(r.alpha_period_ns);
            return;
        }
        let first = !e.cut_seen && r.first_cnp_kbps != 0;
        let rate = if first {
            r.first_cnp_kbps.min(e.rate)
        } else {
            cut_rate(e.rate, extent.unwrap_or(e.alpha)).max(scale_rate(e.rate, r.min_dec_q15))
        };
        let rate = rate.max(r.min_rate_kbps);
        // The first CNP's rate is both rates (ns-3 `cnp_received_mlx` sets
        // m_targetRate = m_rate); later cuts keep Rt at the old Rc.
        if first {
            e.target = rate;
        } else if r.clamp_tgt || e.timer_stage != 0 || e.byte_stage != 0 {
            e.target = e.rate;
        }
        e.rate = rate;
        e.alpha = alpha;
        e.running = true;
        e.cut_seen = true;
        e.timer_stage = 0;
        e.byte_stage = 0;
        e.bytes = 0;
        e.alpha_due = now + u64::from(r.alpha_period_ns);
        e.increase_due = now + u64::from(r.time_reset_ns);
        self.emit(now, RateStage::Cut, RateTrigger::Cnp, None);
    }

    /// Bytes sent: the byte counter, and the packet handed on either way.
    fn bytes_sent(&mut self, now: u64, len: u32) {
        let sum = u64::from(self.entry.bytes) + u64::from(len);
        if self.entry.running && sum >= u64::from(self.regs.byte_reset) {
            self.entry.bytes = 0;
            let emitted = self.increase(now, RateTrigger::ByteCounter, Some(len));
            if self.converged() {
                self.entry.running = false;
            }
            if emitted {
                return;
            }
        } else if self.entry.running {
            self.entry.bytes = sum as u32;
        }
        self.emit(now, RateStage::Cut, RateTrigger::Sent, Some(len));
    }
}
