//! Differential fuzzing of the pacer: golden model against the Verilated
//! `roce_pacer` under random handshakes, on command streams of three kinds
//! (scenario k % 3):
//! * 0: the reaction point's output for a random CN scenario (`cn_fuzz`);
//! * 1: random commands: rates from 0 to beyond 1 Tb/s, packets of 1 to
//!   16 KB, pure time advances, QPs in and beyond the block, gaps from 0
//!   to 50 ms;
//! * 2: a flood: more packets than descriptors at low rates, so the pacer
//!   refuses some and parks others beyond the horizon.
//!
//! Every QP of a scenario gets a random priority, and PAUSE/PFC commands
//! (SPEC.md §7.5) come between the others: random priorities, pause times
//! 0 (resume), short, long and 0xFFFF, refreshes.
//!
//! Scenario k of seed S is a function of (S, k) alone:
//! `metaroce fuzz --block pacer --seed S --first K --scenarios 1` repeats it.

use std::path::PathBuf;

use metaroce_golden::cn::TimeBase;
use metaroce_golden::cn_event::QpContext;
use metaroce_golden::pacer::{PacerCommand, PacerGeometry, PauseCommand};

use crate::blocks::cn::run_golden;
use crate::blocks::pacer::{check_release_order, cosim_pacer_stimulus, pacer_commands, PacerStimulus};
use crate::cn_fuzz::{fuzz_repro, print_scenarios, random_scenario, scenario_failure, CnScenario};
use crate::dice::Dice;
use crate::harness::CosimOptions;
use crate::rtl::Model;
use crate::run::FuzzPlan;
use std::io::Write;

/// Scenario `scenario` of `seed`: setup, commands and handshake.
pub fn random_pacer_scenario(seed: u64, scenario: u64) -> (CnScenario, PacerStimulus) {
    let mut cn = random_scenario(seed, scenario);
    let mut dice = Dice(seed.rotate_left(17) ^ scenario.wrapping_mul(0xA076_1D64_78BD_642F));
    let qp_count = PacerGeometry::default().qp_count as u64;
    let mut commands = Vec::new();
    match scenario % 3 {
        0 => commands = pacer_commands(&run_golden(&cn.setup, &cn.stimulus), &cn.stimulus),
        1 => {
            let mut tick = 0u64;
            for i in 0..600u64 {
                tick += match dice.below(100) {
                    0..=39 => 0,
                    40..=89 => dice.below(3_000),
                    90..=98 => dice.below(200_000),
                    _ => dice.below(50_000_000),
                };
                let qp =
                    if dice.chance(3) { qp_count as u32 + dice.below(1 << 20) as u32 } else { dice.below(24) as u32 };
                let rate = dice.chance(35).then(|| match dice.below(4) {
                    0 => dice.below(20) as u32,
                    1 => dice.below(10_000_000) as u32,
                    2 => dice.below(1_600_000_000) as u32,
                    _ => dice.next() as u32,
                });
                let send = match rate {
                    // Neither: a pure time advance (the top's s_adv).
                    None if dice.chance(8) => None,
                    _ => (rate.is_none() || dice.chance(40)).then(|| 1 + dice.below(16_384) as u32),
                };
                commands.push((i + 1, PacerCommand { time: tick, qp, rate_kbps: rate, send_len: send, pause: None }));
            }
        }
        _ => {
            for qp in 0..8u32 {
                let rate = 10 + dice.below(2_000) as u32;
                commands.push((1, PacerCommand { time: 0, qp, rate_kbps: Some(rate), send_len: None, pause: None }));
            }
            let mut tick = 0u64;
            for i in 0..(PacerGeometry::default().desc_count as u64 + 300) {
                tick += dice.below(50);
                let send = Some(64 + dice.below(1_500) as u32);
                commands.push((
                    i + 2,
                    PacerCommand { time: tick, qp: dice.below(8) as u32, rate_kbps: None, send_len: send, pause: None },
                ));
            }
        }
    }
    add_priorities(&mut dice, &mut cn);
    add_pauses(&mut dice, &mut commands);
    let frames_read = commands.last().map_or(0, |(f, _)| *f);
    let stimulus = PacerStimulus { commands, frames_read, time: TimeBase::default(), error: None };
    (cn, stimulus)
}

/// A random priority for every QP of the context table, and contexts for
/// the QPs the random commands use (0 to 23).
fn add_priorities(dice: &mut Dice, cn: &mut CnScenario) {
    let qps = &mut cn.setup.nic.qps;
    for local in 0..24 {
        if !qps.iter().any(|c| c.local == local) {
            qps.push(QpContext { local, remote: dice.below(1 << 24) as u32, priority: 0, rq_psn: None });
        }
    }
    for ctx in qps.iter_mut() {
        ctx.priority = dice.below(8) as u8;
    }
}

/// PAUSE and PFC commands among `commands`: after about one in 25, at its
/// tick or a little later.
fn add_pauses(dice: &mut Dice, commands: &mut Vec<(u64, PacerCommand)>) {
    let mut out = Vec::with_capacity(commands.len() + commands.len() / 20);
    for &(frame, cmd) in commands.iter() {
        out.push((frame, cmd));
        if !dice.chance(4) {
            continue;
        }
        let mut pause = PauseCommand { enable: dice.next() as u8, quanta: [0; 8] };
        if dice.chance(20) {
            // 802.3x PAUSE: every priority, one time.
            pause.enable = 0xFF;
        }
        let one = dice.below(0x1_0000) as u16;
        for quanta in pause.quanta.iter_mut() {
            *quanta = match dice.below(10) {
                0..=1 => 0,
                2..=5 => dice.below(64) as u16,
                6..=7 => dice.below(4_096) as u16,
                8 => 0xFFFF,
                _ => one,
            };
        }
        out.push((frame, PacerCommand::from_pause(cmd.time + dice.below(2_000), pause)));
    }
    *commands = out;
}

/// What a pacer fuzz run compared, and its first failure.
#[derive(Debug, Default)]
pub struct PacerFuzzOutcome {
    pub scenarios: u64,
    pub commands: u64,
    pub releases: u64,
    /// Packets a rate change re-timed (SPEC.md §7.3), in the golden runs.
    pub retimed: u64,
    /// PAUSE and PFC commands given (SPEC.md §7.5).
    pub pauses: u64,
    pub failure: Option<String>,
}

/// Runs scenarios `first..first + count` of `seed`; stops at the first failure.
pub fn run_pacer_fuzz(seed: u64, first: u64, count: u64) -> PacerFuzzOutcome {
    let mut outcome = PacerFuzzOutcome::default();
    for scenario in first..first + count {
        let (cn, stimulus) = random_pacer_scenario(seed, scenario);
        outcome.commands += stimulus.commands.len() as u64;
        outcome.pauses += stimulus.commands.iter().filter(|(_, c)| c.pause.is_some()).count() as u64;
        let name = PathBuf::from(format!("pacer fuzz scenario {scenario} of seed {seed:#x}"));
        match check_release_order(&cn.setup, &stimulus.commands) {
            Ok(retimed) => outcome.retimed += retimed,
            Err(broken) => {
                let repro = fuzz_repro("pacer", seed, scenario);
                outcome.failure = Some(format!(
                    "{}: the golden pacer breaks a QP's order: {broken}\n  reproduce: {repro}",
                    name.display()
                ));
                break;
            }
        }
        let options = CosimOptions::new(Model::plain(64), cn.handshake);
        let run = cosim_pacer_stimulus(&name, stimulus, &options, &cn.setup, &cn.setup.regs);
        outcome.scenarios += 1;
        if let Some(failure) = scenario_failure("pacer", seed, scenario, &name, &cn.setup.nic.cc, &run.ending) {
            outcome.failure = Some(failure);
            break;
        }
        outcome.releases += run.cn.unwrap_or_default().releases;
    }
    outcome
}

/// `metaroce fuzz` of this block: runs `plan`, a line per run; `Ok(false)`
/// when something failed.
pub fn fuzz_block(plan: &FuzzPlan, out: &mut dyn Write) -> anyhow::Result<bool> {
    print_scenarios("pacer", plan, out, |seed, first, count| {
        let o = run_pacer_fuzz(seed, first, count);
        let counts =
            format!("{} commands ({} pauses) -> {} releases, {} re-timed", o.commands, o.pauses, o.releases, o.retimed);
        (o.scenarios, counts, o.failure)
    })
}
