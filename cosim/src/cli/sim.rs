//! `metaroce sim`: closed-loop congestion scenarios, hosts with the
//! pipeline in their NICs on one switch, every cc mode side by side;
//! `readme` regenerates the README's figures.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::ValueEnum;
use metaroce_cosim::sim::readme::{write_readme_figures, ReadmeSet};
use metaroce_cosim::sim::report::run_modes;
use metaroce_cosim::sim::{LinkLoss, MarkPoint, RtlPlacement, Scenario, SimCc, SimConfig};
use metaroce_golden::cc_params::CcSetting;
use metaroce_golden::cc_presets::CcPreset;

use super::{default_jobs, parse_u64};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimScenario {
    /// N senders (`--hosts`, default 16) each send a message to one receiver.
    Incast,
    /// Every one of `--hosts` hosts (default 8) sends a message to every other.
    AllToAll,
    /// An incast of `--hosts` senders (default 16) to host 0, and a flow from
    /// host 1 to a host of its own: the victim when host 1 is paused.
    Victim,
    /// The README's sets (`--set`): core (16:1 incast and 8-host
    /// all-to-all at 100 and 400 Gb/s, each mode and mixed under each
    /// preset; lossy against PFC with each reaction, victim scenario and a
    /// shallow buffer too) and scale (64:1 incast and 64-host all-to-all,
    /// minutes in a release build): charts and tables into --out
    /// (docs/sim) and README.md.
    Readme,
}

/// What reacts to congestion.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimCcChoice {
    /// Nothing: the switch marks no ECN (with --pfc: PFC alone).
    None,
    /// DCQCN: standard CNPs, alpha-driven cuts.
    Dcqcn,
    /// MetaRoCE: CNPs carry the CE extent, the cut follows it.
    Metaroce,
    /// Half the NICs in each mode: even hosts MetaRoCE (an incast's
    /// receiver too), odd hosts DCQCN.
    Mixed,
}

impl SimCcChoice {
    fn cc(self) -> SimCc {
        match self {
            SimCcChoice::None => SimCc::None,
            SimCcChoice::Dcqcn => SimCc::DCQCN,
            SimCcChoice::Metaroce => SimCc::METAROCE,
            SimCcChoice::Mixed => SimCc::Mixed,
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[arg(value_enum)]
    scenario: SimScenario,
    /// Incast: senders (2..64, default 16). All-to-all: hosts (2..64,
    /// default 8). Victim: the incast's senders (2..62, default 16).
    #[arg(long)]
    hosts: Option<usize>,
    #[arg(long, default_value_t = 100)]
    link_gbps: u32,
    /// Propagation delay of each host-switch link.
    #[arg(long, default_value_t = 1000)]
    link_delay_ns: u64,
    /// Message of each flow, KiB.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    message_kib: u64,
    /// Payload bytes per packet.
    #[arg(long, default_value_t = 4096)]
    mtu: u32,
    /// Each flow starts at a random time in [0, jitter].
    #[arg(long, default_value_t = 0)]
    jitter_ns: u64,
    /// The switch's shared buffer, KiB.
    #[arg(long, default_value_t = 32 * 1024)]
    buffer_kib: u64,
    /// ECN marking starts above this egress queue depth, kB (1000 B);
    /// default by link rate as HPCC's run.py (`SPEC.md` §9.2: 4 kB per
    /// Gb/s, 400 at 100G).
    #[arg(long)]
    kmin_kb: Option<u64>,
    /// Every packet is marked above this depth, kB (16 per Gb/s, 1600 at 100G).
    #[arg(long)]
    kmax_kb: Option<u64>,
    /// The marking probability at Kmax (0.2).
    #[arg(long)]
    pmax: Option<f64>,
    /// Where the switch marks ECN: `dequeue` (on the queue a packet leaves
    /// behind, as HPCC's ns-3 switch) or `enqueue` (on the queue it joins).
    #[arg(long, value_name = "enqueue|dequeue", default_value = "dequeue")]
    mark: MarkPoint,
    /// Congestion control of every NIC, half in each (mixed), or none (no
    /// ECN marking); several run side by side.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "dcqcn,metaroce")]
    cc: Vec<SimCcChoice>,
    /// Lossless data: the switch pauses the senders' data priority with
    /// PFC frames (XOFF/XON per ingress port, headroom computed from the
    /// link) instead of dropping (SPEC.md §9.6).
    #[arg(long)]
    pfc: bool,
    /// Congestion-control defaults of one source: `paper`, `ns3` or `mlx5`
    /// (SPEC.md §6.8), at --link-gbps.
    #[arg(long = "cc-preset", value_name = "paper|ns3|mlx5")]
    cc_preset: Option<CcPreset>,
    /// Set one congestion-control parameter by its mlx5 name (repeatable;
    /// after the preset).
    #[arg(long = "cc-param", value_name = "NAME=VALUE")]
    cc_params: Vec<CcSetting>,
    /// Random loss on one link: each RoCE frame the switch sends to
    /// --loss-port is lost with this probability (0.01: 1 %). Recovered by
    /// the NICs with `--cc-param ack_mode=rocev2` (SPEC.md §9.7), else by
    /// the loop's stand-in resend.
    #[arg(long, default_value_t = 0.0, value_name = "FRACTION")]
    loss: f64,
    /// The host whose link from the switch is lossy (--loss).
    #[arg(long, default_value_t = 0)]
    loss_port: usize,
    /// Put the Verilated top in host N's NIC, or `all` in every NIC.
    #[arg(long, value_name = "N|all", value_parser = parse_rtl_placement)]
    rtl: Option<RtlPlacement>,
    /// Seed of the marking dice and the start jitter.
    #[arg(long, default_value_t = 1, value_parser = parse_u64)]
    seed: u64,
    /// Time-series sample interval.
    #[arg(long, default_value_t = 1000)]
    sample_ns: u64,
    /// Stop here even if flows are left (simulated time).
    #[arg(long, default_value_t = 100_000)]
    max_time_us: u64,
    /// Do not write the per-host captures.
    #[arg(long)]
    no_captures: bool,
    /// Output directory; default sim-out/SCENARIO (readme: docs/sim).
    #[arg(long)]
    out: Option<PathBuf>,
    /// readme: the README to fill.
    #[arg(long, default_value = "README.md")]
    readme: PathBuf,
    /// readme: the sets to regenerate, each its own block of the README.
    #[arg(long = "set", value_enum, value_delimiter = ',', default_value = "core,scale")]
    sets: Vec<SetChoice>,
    /// readme: runs at once (one per core by default; a 64-host run of the
    /// scale set holds up to about 0.9 GB).
    #[arg(long, short = 'j', default_value_t = default_jobs())]
    jobs: usize,
}

/// A measurement set of `sim readme`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SetChoice {
    /// 16:1 incast, 8-host all-to-all, lossy against lossless (CI
    /// regenerates it).
    Core,
    /// 64:1 incast and 64-host all-to-all at 100 and 400 Gb/s.
    Scale,
}

impl SetChoice {
    fn set(self) -> ReadmeSet {
        match self {
            SetChoice::Core => ReadmeSet::Core,
            SetChoice::Scale => ReadmeSet::Scale,
        }
    }
}

fn parse_rtl_placement(s: &str) -> Result<RtlPlacement, String> {
    match s {
        "all" => Ok(RtlPlacement::Everywhere),
        n => n.parse().map(RtlPlacement::Host).map_err(|_| format!("`{s}`: a host number or `all`")),
    }
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    if args.scenario == SimScenario::Readme {
        let dir = args.out.unwrap_or_else(|| PathBuf::from("docs/sim"));
        // Each set once, in the README's order, however the flag named them.
        let sets: Vec<ReadmeSet> =
            ReadmeSet::ALL.into_iter().filter(|set| args.sets.iter().any(|s| s.set() == *set)).collect();
        write_readme_figures(&sets, &dir, &args.readme, args.jobs.max(1), out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let scenario = match args.scenario {
        SimScenario::Incast => Scenario::Incast { senders: args.hosts.unwrap_or(16) },
        SimScenario::Victim => Scenario::Victim { senders: args.hosts.unwrap_or(16) },
        _ => Scenario::AllToAll { hosts: args.hosts.unwrap_or(8) },
    };
    let mut config = SimConfig::new(scenario, args.link_gbps);
    config.link_delay_ns = args.link_delay_ns;
    config.message_bytes = args.message_kib * 1024;
    config.mtu = args.mtu;
    config.jitter_ns = args.jitter_ns;
    config.buffer_bytes = args.buffer_kib * 1024;
    config.red.kmin = args.kmin_kb.map_or(config.red.kmin, |k| k * 1000);
    config.red.kmax = args.kmax_kb.map_or(config.red.kmax, |k| k * 1000);
    config.red.pmax = args.pmax.unwrap_or(config.red.pmax);
    config.mark = args.mark;
    config.pfc = args.pfc;
    config.loss = LinkLoss { port: args.loss_port, rate: args.loss };
    if let Some(preset) = args.cc_preset {
        config.apply_preset(preset).map_err(anyhow::Error::msg)?;
    }
    for setting in &args.cc_params {
        config.cc.apply(*setting)?;
    }
    config.rtl = args.rtl.unwrap_or_default();
    config.seed = args.seed;
    config.sample_ns = args.sample_ns;
    config.max_time_ns = args.max_time_us.saturating_mul(1000);
    config.record_captures = !args.no_captures;
    config.validate().map_err(|e| anyhow::anyhow!(e))?;
    let mut modes: Vec<SimCc> = args.cc.iter().map(|c| c.cc()).collect();
    modes.dedup();
    let dir = args.out.unwrap_or_else(|| {
        PathBuf::from("sim-out").join(args.scenario.to_possible_value().expect("a named scenario").get_name())
    });
    run_modes(&config, &modes, &dir, out)?;
    Ok(ExitCode::SUCCESS)
}
