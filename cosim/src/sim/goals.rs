//! Issue 17's bar for MetaRoCE v2 in the closed loop, and the README's
//! table that holds each mode's figures against it (`SPEC.md` §9.5):
//! drops, the shared buffer's peak, completion against the line-rate
//! bound, and Jain's index while every flow is active, with a 32 MiB
//! shared buffer.

use std::fmt::Write as _;

use super::report::{kb, Summary};
use super::scenario::Scenario;
use super::switch::RedProfile;

/// The most the shared buffer may hold at its peak.
#[derive(Debug, Clone, Copy)]
pub enum PeakBar {
    Bytes(u64),
    /// The egress queue's Kmax (the RED profile's, by link rate).
    Kmax,
}

/// One scenario's bar: no drops, and these.
#[derive(Debug, Clone, Copy)]
pub struct Goal {
    pub scenario: Scenario,
    pub gbps: u32,
    pub peak: PeakBar,
    /// Completion over the line-rate bound, at most.
    pub completion: f64,
    /// Jain's index over the active window, at least.
    pub jain: f64,
}

const fn goal(scenario: Scenario, gbps: u32, peak: PeakBar, completion: f64, jain: f64) -> Goal {
    Goal { scenario, gbps, peak, completion, jain }
}

/// Issue 17's table ("Goals (the bar)"), in its order.
pub const GOALS: [Goal; 6] = [
    goal(Scenario::Incast { senders: 16 }, 100, PeakBar::Bytes(1_500_000), 1.02, 0.99),
    goal(Scenario::Incast { senders: 64 }, 100, PeakBar::Bytes(6_000_000), 1.02, 0.99),
    goal(Scenario::Incast { senders: 16 }, 400, PeakBar::Bytes(6_000_000), 1.02, 0.99),
    // The first round trip alone can put 64 x W0 in flight.
    goal(Scenario::Incast { senders: 64 }, 400, PeakBar::Bytes(20_000_000), 1.05, 0.98),
    goal(Scenario::AllToAll { hosts: 8 }, 100, PeakBar::Kmax, 1.02, 0.99),
    goal(Scenario::AllToAll { hosts: 64 }, 100, PeakBar::Kmax, 1.05, 0.95),
];

/// A figure against its bar: the cell, marked where it misses.
fn cell(value: String, met: bool) -> String {
    if met {
        value
    } else {
        format!("**{value}** (missed)")
    }
}

/// The table: a row per goal and figure, the bar, then one column per
/// mode (`modes[i]` heads `runs[g][i]`, goal `g`'s run in that mode).
pub fn goals_table(title: &str, modes: &[&str], runs: &[Vec<&Summary>]) -> String {
    let mut t = format!("| {title} | bar |");
    for mode in modes {
        let _ = write!(t, " {mode} |");
    }
    let _ = writeln!(t, "\n|---|---|{}", "---|".repeat(modes.len()));
    for (goal, runs) in GOALS.iter().zip(runs) {
        let peak_bar = match goal.peak {
            PeakBar::Bytes(b) => b,
            PeakBar::Kmax => RedProfile::for_link(goal.gbps).kmax,
        };
        type Figure<'a> = (&'static str, String, Box<dyn Fn(&Summary) -> String + 'a>);
        let figures: [Figure; 4] = [
            ("drops", "0".into(), Box::new(|s: &Summary| cell(s.drops.to_string(), s.drops == 0))),
            (
                "peak shared buffer",
                format!("≤ {}", kb(peak_bar)),
                Box::new(move |s: &Summary| cell(kb(s.peak_buffer_bytes), s.peak_buffer_bytes <= peak_bar)),
            ),
            (
                "completion / line-rate bound",
                format!("≤ {:.2}×", goal.completion),
                Box::new(|s: &Summary| match s.completion_us {
                    Some(us) => {
                        let ratio = us / s.ideal_completion_us;
                        cell(format!("{ratio:.3}×"), ratio <= goal.completion)
                    }
                    None => cell(format!("stopped, {} of {} flows done", s.flows_done, s.flows), false),
                }),
            ),
            (
                "Jain's fairness",
                format!("≥ {:.2}", goal.jain),
                Box::new(|s: &Summary| cell(format!("{:.3}", s.jain_fairness), s.jain_fairness >= goal.jain)),
            ),
        ];
        for (name, bar, value) in &figures {
            let _ = write!(t, "| {} at {}G: {name} | {bar} |", goal.scenario.name(), goal.gbps);
            for s in runs {
                let _ = write!(t, " {} |", value(s));
            }
            t.push('\n');
        }
    }
    t
}
