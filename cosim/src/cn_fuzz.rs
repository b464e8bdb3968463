//! Differential fuzzing of the congestion-notification block: random
//! parameters within their ranges, random QP tables and random event streams
//! (received data with and without CE, RC requests whose PSNs arrive in
//! order, dropped, duplicated, reordered or far off, answered by go-back-N
//! or by selective ACKs, ACKs and NAKs of this
//! NIC's own requests within, behind and beyond its window, CNPs with
//! extents in and out of range, sent requests new and retransmitted, sent
//! bytes, gaps from nanoseconds to tens of
//! milliseconds), golden
//! model against RTL at both widths under random handshakes. Scenario *k* of
//! seed *S* is a function of (S, k) alone, so one failing scenario re-runs
//! with `metaroce fuzz --block cn --seed S --first K --scenarios 1`.

use std::path::{Path, PathBuf};

use metaroce_golden::cc_params::{AckMode, CcMode, CcParams};
use metaroce_golden::cn::DEFAULT_QP_COUNT;
use metaroce_golden::cn_event::{CnEvent, CnEventKind, NicConfig, QpContext};
use metaroce_golden::responder::{AETH_ACK, AETH_NAK_PSN_SEQ, PSN_MASK};
use metaroce_golden::wire::SackRepr;

use crate::blocks::cn::{cosim_cn_stimulus, CnStimulus};
use crate::dice::Dice;
use crate::harness::{CosimOptions, Ending};
use crate::nic::{CnOverrides, CnSetup};
use crate::rtl::{Handshake, Model, DATA_WIDTHS};
use crate::run::{FuzzPlan, RunCounts};
use std::io::Write;
use std::time::Instant;

/// Events per scenario.
pub const EVENTS_PER_SCENARIO: u64 = 400;

/// One random scenario: its setup, events, width and handshake.
pub struct CnScenario {
    pub setup: CnSetup,
    pub stimulus: CnStimulus,
    pub width: u32,
    pub handshake: Handshake,
}

/// Scenario `scenario` of `seed`.
#[allow(clippy::needless_update)]
pub fn random_scenario(seed: u64, scenario: u64) -> CnScenario {
    let mut dice = Dice(seed ^ scenario.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    let line = [25_000, 100_000, 400_000][dice.below(3) as usize];
    let mut cc = CcParams {
        mode: if dice.chance(50) { CcMode::Metaroce } else { CcMode::Dcqcn },
        line_rate_mbps: line,
        np_min_time_between_cnps: 1 + dice.below(60) as u32,
        np_cnp_dscp: dice.below(64) as u32,
        np_cnp_prio: dice.below(8) as u32,
        rp_min_rate: 1 + dice.below(u64::from(line) / 2) as u32,
        rp_min_dec_fac: dice.below(101) as u32,
        // g = 1 + the draw, as mlx5's weight 1024 − g.
        rp_dce_tcp_g: 1023 - dice.below(1024) as u32,
        rp_dce_tcp_rtt: 1 + dice.below(100) as u32,
        rp_time_reset: 10 + dice.below(300) as u32,
        rp_byte_reset: 1 + dice.below(200_000) as u32,
        rp_threshold: dice.below(12) as u32,
        rp_ai_rate: dice.below(u64::from(line) / 50) as u32,
        rp_hai_rate: dice.below(u64::from(line) / 10) as u32,
        rp_initial_alpha_value: dice.below(1024) as u32,
        rp_rate_to_set_on_first_cnp: if dice.chance(30) { dice.below(u64::from(line)) as u32 } else { 0 },
        rp_clamp_tgt_rate: dice.below(2) as u32,
        pacer_burst_bytes: if dice.chance(50) { 0 } else { dice.below(16_384) as u32 },
        pacer_min_gap_ns: if dice.chance(70) { 0 } else { dice.below(2_000) as u32 },
        pacer_start_rate: if dice.chance(70) { 0 } else { 1 + dice.below(u64::from(line)) as u32 },
        // A parameter added to the register table keeps its default here
        // until the fuzz draws it.
        ..CcParams::default()
    };
    if dice.chance(30) {
        cc.rp_rate_reduce_monitor_period = dice.below(u64::from(cc.rp_time_reset) + 1) as u32;
    }
    if dice.chance(70) {
        cc.ack_mode = AckMode::Rocev2;
        cc.ack_coalesce_pkts = if dice.chance(50) { 1 + dice.below(8) as u32 } else { 1 + dice.below(255) as u32 };
        cc.ack_dscp = dice.below(64) as u32;
        cc.ack_prio = dice.below(8) as u32;
    }
    let mut qps = Vec::new();
    // Each QP's next PSN as its requester would send it; near the 24-bit
    // wrap for some.
    let mut next_psn = [0u32; 14];
    let mut requester = RequesterDraws::new(seed, scenario);
    cc.retry_cnt = requester.retry_cnt;
    cc.retx_timeout = requester.retx_timeout;
    if cc.ack_mode == AckMode::Rocev2 && requester.dice.chance(40) {
        // MetaRoCE's selective ACKs, now and then coalesced by time too.
        cc.ack_mode = AckMode::Metaroce;
        cc.ack_coalesce_ns = if requester.dice.chance(50) { 0 } else { 1 + requester.dice.below(50_000) as u32 };
        if requester.dice.chance(50) {
            // No timer and every retry: QPs stay out of error, so that
            // rules 8 and 9's requests (holes, lost resends) are many.
            cc.retx_timeout = 0;
            cc.retry_cnt = 7;
        }
    }
    for (local, psn) in next_psn.iter_mut().enumerate() {
        *psn = if dice.chance(20) { (1 << 24) - dice.below(8) as u32 } else { dice.below(1 << 24) as u32 } & PSN_MASK;
        if local < 12 && dice.chance(70) {
            let rq_psn = dice.chance(30).then(|| (*psn + dice.below(3) as u32) & PSN_MASK);
            qps.push(QpContext { local: local as u32, remote: dice.below(1 << 24) as u32, priority: 0, rq_psn });
        }
    }
    let nic = NicConfig { local_mac: None, qps, cc };
    let setup = CnSetup {
        regs: cc.registers().expect("the generator draws every parameter within its range"),
        nic,
        local_mac: None,
        qp_count: DEFAULT_QP_COUNT,
        nic_file: None,
        overrides: CnOverrides::default(),
    };
    let mut events = Vec::with_capacity(EVENTS_PER_SCENARIO as usize);
    let mut tick = 0u64;
    for _ in 0..EVENTS_PER_SCENARIO {
        tick += match dice.below(100) {
            0..=69 => dice.below(2_000),
            70..=97 => dice.below(100_000),
            _ => dice.below(30_000_000),
        };
        let qp = if dice.chance(3) { 1024 + dice.below(1 << 20) as u32 } else { dice.below(14) as u32 };
        let kind = [CnEventKind::RxData, CnEventKind::RxCnp, CnEventKind::TxData][dice.below(3) as usize];
        let mut ev = CnEvent::new(tick, kind, qp);
        match kind {
            CnEventKind::RxData => {
                ev.ce = dice.chance(60);
                ev.ipv6 = dice.chance(40);
                ev.vlan_id = dice.chance(30).then(|| dice.below(4096) as u16);
                let (a, b) = (dice.next(), dice.next());
                ev.eth_dst.copy_from_slice(&a.to_be_bytes()[2..]);
                ev.eth_src.copy_from_slice(&b.to_be_bytes()[2..]);
                let (a, b) = (dice.next(), dice.next());
                let (ip_a, ip_b) = (u128::from(a) << 64 | u128::from(b), u128::from(b) << 64 | u128::from(a));
                ev.ip_src = if ev.ipv6 { ip_a.to_be_bytes() } else { u128::from(a as u32).to_be_bytes() };
                ev.ip_dst = if ev.ipv6 { ip_b.to_be_bytes() } else { u128::from(b as u32).to_be_bytes() };
                ev.udp_sport = dice.next() as u16;
                ev.src_qp = dice.chance(10).then(|| dice.below(1 << 24) as u32);
                ev.rc_req = dice.chance(70);
                ev.psn = match next_psn.get_mut(qp as usize) {
                    Some(next) => draw_psn(&mut dice, next),
                    None => dice.below(1 << 24) as u32,
                };
                ev.ack_req = dice.chance(25);
                ev.msg_end = ev.rc_req && dice.chance(40);
                requester.received(&mut ev);
            }
            CnEventKind::RxCnp => ev.extent = dice.chance(60).then(|| dice.below(40_000) as u16),
            CnEventKind::TxData => {
                ev.len = 60 + dice.below(9_000) as u32;
                requester.sent(&mut ev);
            }
            CnEventKind::Time => {}
        }
        events.push(ev);
        // Now and then the driver moves time on with no frame (the top's
        // s_adv): the requester's clock alone.
        if requester.dice.chance(5) {
            tick += requester.dice.below(8_192);
            events.push(CnEvent::new(tick, CnEventKind::Time, 0));
        }
    }
    let stimulus = CnStimulus::from_events(events);
    let width = DATA_WIDTHS[(scenario % DATA_WIDTHS.len() as u64) as usize];
    let mut handshake =
        Handshake { seed: dice.next(), idle_pct: dice.below(40) as u32, stall_pct: dice.below(60) as u32 };
    if requester.storm {
        // Requests pile up behind a slow sink: the requester's output
        // queue fills and holds the event input.
        handshake.stall_pct = 70 + requester.dice.below(25) as u32;
    }
    CnScenario { setup, stimulus, width, handshake }
}

/// A request's PSN from its QP's requester at `next`: mostly the next one,
/// else after a loss, a duplicate or reordered one, or one far off.
fn draw_psn(dice: &mut Dice, next: &mut u32) -> u32 {
    let psn = match dice.below(100) {
        0..=69 => *next,
        70..=79 => next.wrapping_add(1 + dice.below(4) as u32),
        80..=94 => next.wrapping_sub(1 + dice.below(4) as u32),
        _ => dice.below(1 << 24) as u32,
    } & PSN_MASK;
    // The requester goes on after what it sent (go-back-N restarts at the
    // duplicate's successor).
    *next = psn.wrapping_add(1) & PSN_MASK;
    psn
}

/// The draws for this NIC's own requester (`SPEC.md` §6.11), from a dice
/// of their own, so that every other draw of a scenario is what it was
/// before the requester: its sent requests' PSNs, and the ACKs and NAKs
/// that come back. One scenario in ten is a NAK storm under a slow sink.
struct RequesterDraws {
    dice: Dice,
    /// Each QP's next PSN as this NIC sends it; near the wrap for some.
    next: [u32; 14],
    storm: bool,
    /// Mostly few, so that QPs run out of retries and go to error.
    retry_cnt: u32,
    /// Mostly short (8 to 262 µs), so that timers run out between the
    /// scenario's events; now and then none or the default.
    retx_timeout: u32,
}

impl RequesterDraws {
    fn new(seed: u64, scenario: u64) -> Self {
        let mut dice = Dice(seed ^ scenario.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5245_5155_4553_5445);
        let mut next = [0u32; 14];
        for psn in next.iter_mut() {
            *psn =
                if dice.chance(20) { (1 << 24) - dice.below(8) as u32 } else { dice.below(1 << 24) as u32 } & PSN_MASK;
        }
        let storm = dice.chance(10);
        let retry_cnt = if dice.chance(70) { dice.below(3) as u32 } else { 3 + dice.below(5) as u32 };
        let retx_timeout = match dice.below(10) {
            0 => 0,
            1 => 7 + dice.below(17) as u32,
            _ => 1 + dice.below(6) as u32,
        };
        RequesterDraws { dice, next, storm, retry_cnt, retx_timeout }
    }

    /// A sent packet: mostly an RC request, its PSN mostly the QP's next,
    /// else a retransmission (go-back-N resends from an older PSN and goes
    /// on from there) or one far off.
    fn sent(&mut self, ev: &mut CnEvent) {
        let dice = &mut self.dice;
        ev.rc_req = dice.chance(80);
        let Some(next) = self.next.get_mut(ev.qp as usize) else {
            ev.psn = dice.below(1 << 24) as u32;
            return;
        };
        ev.psn = match dice.below(100) {
            0..=79 => *next,
            80..=94 => next.wrapping_sub(1 + dice.below(16) as u32),
            _ => dice.below(1 << 24) as u32,
        } & PSN_MASK;
        if dice.below(100) < 97 || ev.psn == *next {
            *next = ev.psn.wrapping_add(1) & PSN_MASK;
        }
    }

    /// Received data: now and then an ACK or NAK (opcode 0x11) of this
    /// NIC's own requests instead, the requester's input: an ACK, a PSN
    /// sequence error NAK or another syndrome, its PSN mostly among the
    /// last few sent, else anywhere; half of them with a selective-ACK
    /// extension (§6.10: read in metaroce mode, on an ACK syndrome), whose
    /// bitmap is empty, sparse, dense or full, beyond now and then.
    fn received(&mut self, ev: &mut CnEvent) {
        let dice = &mut self.dice;
        if !dice.chance(if self.storm { 60 } else { 25 }) {
            return;
        }
        ev.rc_req = false;
        ev.msg_end = false;
        ev.ack_req = false;
        let draw = if self.storm { dice.below(3) + 4 } else { dice.below(8) };
        ev.syndrome = Some(match draw {
            0..=3 => AETH_ACK,
            4..=5 => AETH_NAK_PSN_SEQ,
            // An RNR NAK, then any syndrome at all.
            6 => 0x20 | dice.below(32) as u8,
            _ => dice.below(256) as u8,
        });
        ev.psn = match self.next.get(ev.qp as usize) {
            Some(next) if dice.chance(85) => next.wrapping_sub(dice.below(24) as u32) & PSN_MASK,
            _ => dice.below(1 << 24) as u32,
        };
        if dice.chance(50) {
            let bits =
                |dice: &mut Dice, one_in: u64| (0..64).fold(0u64, |b, i| b | u64::from(dice.below(one_in) == 0) << i);
            let bitmap = match dice.below(4) {
                0 => 0,
                1 => bits(dice, 8),
                2 => !bits(dice, 8),
                _ => u64::MAX,
            };
            // Most holes near una: the bitmap's PSNs past the last few sent
            // are cut at nxt.
            let bitmap = if dice.chance(50) { bitmap >> dice.below(64) } else { bitmap };
            ev.sack = Some(SackRepr { bitmap, beyond: dice.chance(15) });
        }
    }
}

/// What a fuzz run compared, and its first failure (report and repro).
#[derive(Debug, Default)]
pub struct CnFuzzOutcome {
    pub scenarios: u64,
    /// The scenarios' counts, summed over those that matched.
    pub counts: RunCounts,
    pub failure: Option<String>,
}

/// Runs scenarios `first..first + count` of `seed`; stops at the first failure.
pub fn run_cn_fuzz(seed: u64, first: u64, count: u64) -> CnFuzzOutcome {
    let mut outcome = CnFuzzOutcome::default();
    for scenario in first..first + count {
        let CnScenario { setup, stimulus, width, handshake } = random_scenario(seed, scenario);
        let name = PathBuf::from(format!("cn fuzz scenario {scenario} of seed {seed:#x}"));
        let options = CosimOptions::new(Model::plain(width), handshake);
        let run = cosim_cn_stimulus(&name, stimulus, &options, &setup, &setup.regs);
        outcome.scenarios += 1;
        if let Some(failure) = scenario_failure("cn", seed, scenario, &name, &setup.nic.cc, &run.ending) {
            outcome.failure = Some(failure);
            break;
        }
        outcome.counts += run.cn.unwrap_or_default();
    }
    outcome
}

/// The command that runs scenario `scenario` of `seed` alone.
pub fn fuzz_repro(block: &str, seed: u64, scenario: u64) -> String {
    format!("metaroce fuzz --block {block} --seed {seed:#x} --first {scenario} --scenarios 1")
}

/// The report of fuzz scenario `scenario` of `seed` of `block` unless it
/// matched: the divergence and the parameters `cc`, or how the run `name`
/// ended; then the command that repeats it.
pub fn scenario_failure(
    block: &str,
    seed: u64,
    scenario: u64,
    name: &Path,
    cc: &CcParams,
    ending: &Ending,
) -> Option<String> {
    let repro = fuzz_repro(block, seed, scenario);
    match ending {
        Ending::Matched => None,
        Ending::Diverged(d) => Some(format!("{d}\n  parameters: {cc:?}\n  reproduce: {repro}")),
        other => Some(format!("{}: {other:?}\n  reproduce: {repro}", name.display())),
    }
}

/// `metaroce fuzz` of this block: runs `plan`, a line per run; `Ok(false)`
/// when something failed.
pub fn fuzz_block(plan: &FuzzPlan, out: &mut dyn Write) -> anyhow::Result<bool> {
    print_scenarios("cn", plan, out, |seed, first, count| {
        let o = run_cn_fuzz(seed, first, count);
        let c = o.counts;
        let counts = format!(
            "{} events -> {} CNPs, {}, {} rate changes, {}",
            c.events,
            c.cnps,
            c.acks_text(),
            c.rate_changes,
            c.retx_text()
        );
        (o.scenarios, counts, o.failure)
    })
}

/// Runs a scenario fuzzer for `metaroce fuzz`: a header, then PASS with the
/// counts `run` gives (scenarios run, counts, the first failure), or FAIL
/// with the failure's report.
pub fn print_scenarios(
    block: &str,
    plan: &FuzzPlan,
    out: &mut dyn Write,
    run: impl FnOnce(u64, u64, u64) -> (u64, String, Option<String>),
) -> anyhow::Result<bool> {
    let (seed, first, scenarios) = (plan.seed, plan.first, plan.scenarios);
    writeln!(out, "fuzz {block}: scenarios {first}..{}, seed {seed:#x}", first + scenarios)?;
    out.flush()?;
    let started = Instant::now();
    let (ran, counts, failure) = run(seed, first, scenarios);
    let secs = started.elapsed().as_secs_f64();
    match &failure {
        None => writeln!(out, "PASS  {block}  {ran} scenarios, {counts}, {secs:.1} s")?,
        Some(report) => writeln!(out, "FAIL  {block}  after {ran} scenarios\n{report}")?,
    }
    Ok(failure.is_none())
}
