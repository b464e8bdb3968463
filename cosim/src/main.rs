//! `metaroce`: cosim regression, capture replay, recording diff and
//! stimulus generation.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use metaroce_cosim::cn::{cosim_cn_capture, replay_cn, CnOverrides, CnSetup};
use metaroce_cosim::coverage::{export_rtl_coverage, FunctionalCoverage, RtlCoverage};
use metaroce_cosim::harness::{
    cosim_capture, cosim_capture_with_wave, with_wave, CaptureRun, CosimOptions, Ending, FrameRange,
};
use metaroce_cosim::pacer::{cosim_pacer_capture, cosim_top_capture, replay_pacer};
use metaroce_cosim::replay::{diff_recordings, replay, write_record, Model, OutputFormat, RecordingHeader};
use metaroce_cosim::rtl::{Handshake, Model as RtlModel, ModelKind, DATA_WIDTHS};
use metaroce_cosim::sim::report::{run_modes, write_readme_figures};
use metaroce_cosim::sim::{RtlPlacement, Scenario, SimConfig};
use metaroce_cosim::summary::{junit_xml, CosimSummary};
use metaroce_cosim::wave::WaveFormat;
use metaroce_cosim::{capture, catalog};
use metaroce_golden::cc_params::{CcMode, CcParams};
use metaroce_golden::ParserConfig;

#[derive(Parser)]
#[command(name = "metaroce", version, about = "RoCEv2 NIC pipeline: Verilator RTL against the golden model")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run captures through RTL and golden model and compare every record.
    Cosim(CosimArgs),
    /// Print one record per frame of a capture from one model.
    Replay(ReplayArgs),
    /// Compare two recordings (`replay --record`) and report the first difference.
    Diff {
        a: PathBuf,
        b: PathBuf,
        /// Transactions shown before the difference.
        #[arg(long, default_value_t = 4)]
        history: usize,
    },
    /// Differential fuzzing: random and mutated frames through the parser,
    /// random event streams through the congestion-notification block.
    Fuzz {
        /// Which blocks to fuzz.
        #[arg(long, value_enum, default_value = "all")]
        block: BlockChoice,
        /// Parser: frames to try at each width.
        #[arg(long, default_value_t = 20_000)]
        frames: u64,
        /// Congestion notification: random scenarios (400 events each, widths alternating).
        #[arg(long, default_value_t = 200)]
        scenarios: u64,
        /// Congestion notification: the first scenario (to re-run one).
        #[arg(long, default_value_t = 0)]
        first: u64,
        /// Seed (random and printed if absent).
        #[arg(long, value_parser = parse_u64)]
        seed: Option<u64>,
        #[arg(long, default_value = "all", value_parser = parse_width_choice)]
        width: WidthChoice,
        /// Where a shrunk failing capture goes.
        #[arg(long, default_value = "fuzz-failures")]
        out: PathBuf,
    },
    /// Measure cosim, bare-RTL and golden-model speed and the RTL's cycle figures.
    Bench {
        /// Frames in the generated mixed capture.
        #[arg(long, default_value_t = 1_000_000)]
        frames: u64,
        /// Where to write the capture (deleted afterwards); default: a temp file.
        #[arg(long)]
        capture: Option<PathBuf>,
        /// Rounds of the cosim and bare-loop runs, alternated; the best of each is reported.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
        rounds: u32,
        /// Only one benchmark: parser (speed) or pacing (accuracy).
        #[arg(long, value_enum)]
        only: Option<BenchChoice>,
    },
    /// Closed-loop congestion scenarios: hosts with the pipeline in their
    /// NICs on one switch (incast, all-to-all), every cc mode side by side;
    /// `readme` regenerates the README's figures.
    Sim(SimArgs),
    /// Write the regression captures (deterministic).
    Gen {
        /// Directory to write into.
        #[arg(long, default_value = "pcaps")]
        out: PathBuf,
    },
}

#[derive(clap::Args)]
struct CosimArgs {
    /// Captures or directories (searched for .pcap/.pcapng); default: pcaps/.
    paths: Vec<PathBuf>,
    /// AXI-Stream data width of the RTL, or `all`.
    #[arg(long, default_value = "all", value_parser = parse_width_choice)]
    width: WidthChoice,
    /// Seed of the handshake sequence and of the RTL's X/initial values;
    /// random (and printed) if absent.
    #[arg(long, value_parser = parse_u64)]
    seed: Option<u64>,
    /// Percent of cycles the source idles before a beat.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=90))]
    idle: u32,
    /// Percent of cycles the record sink is not ready.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=90))]
    stall: u32,
    /// Only these frames (1-based, inclusive): `A:B`, `A:` or `A`.
    #[arg(long)]
    frames: Option<FrameRange>,
    /// Runs at once (one Verilated model per thread).
    #[arg(long, short = 'j', default_value_t = default_jobs())]
    jobs: usize,
    /// Take shard K of N of the captures (1-based): `--shard 2/4`.
    #[arg(long, value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// On a divergence, re-run it and write an FST waveform around it into DIR.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "waves")]
    wave: Option<PathBuf>,
    /// Waveform format.
    #[arg(long, value_enum, default_value = "fst")]
    wave_format: WaveFormat,
    /// Cycles of waveform before the divergence.
    #[arg(long, default_value_t = 200)]
    wave_before: u64,
    /// Cycles of waveform after the divergence.
    #[arg(long, default_value_t = 20)]
    wave_after: u64,
    /// Build with Verilator line and toggle coverage; write lcov to FILE.
    #[arg(long, value_name = "FILE")]
    coverage: Option<PathBuf>,
    /// Write JUnit XML (one testcase per capture, width and seed).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a JSON summary.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Which blocks to compare.
    #[arg(long, value_enum, default_value = "all")]
    block: BlockChoice,
    #[command(flatten)]
    parser: ParserArgs,
    #[command(flatten)]
    cn: CnArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchChoice {
    Parser,
    Pacing,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BlockChoice {
    /// Every block alone, then the whole top.
    All,
    Parser,
    /// Congestion notification: CNPs and per-QP rates.
    Cn,
    /// The pacer: releases of the reaction point's packets.
    Pacer,
    /// The pipeline top: CNPs, rate transactions and releases.
    Top,
}

#[derive(clap::Args)]
struct CnArgs {
    /// NIC configuration (JSON: local_mac, qps, cc); default: NAME.nic.json
    /// beside each capture, else defaults.
    #[arg(long, value_name = "FILE")]
    nic: Option<PathBuf>,
    /// This NIC's MAC, aa:bb:cc:dd:ee:ff (overrides the NIC file's): frames
    /// to it are received, frames from it sent (and paced). Without one,
    /// every frame counts as received.
    #[arg(long, value_name = "MAC", value_parser = parse_mac)]
    local_mac: Option<String>,
    /// Congestion control: dcqcn or metaroce (overrides the NIC file).
    #[arg(long, value_enum)]
    cc: Option<CcChoice>,
    /// Set one congestion-control parameter by its mlx5 name, e.g.
    /// `--cc-param np_min_time_between_cnps=4` (repeatable).
    #[arg(long = "cc-param", value_name = "NAME=VALUE", value_parser = parse_cc_param)]
    cc_params: Vec<(String, String)>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CcChoice {
    Dcqcn,
    Metaroce,
}

impl CnArgs {
    fn overrides(&self) -> CnOverrides {
        CnOverrides {
            nic: self.nic.clone(),
            local_mac: self.local_mac.clone(),
            mode: self.cc.map(CcChoice::mode),
            params: self.cc_params.clone(),
        }
    }
}

fn parse_mac(s: &str) -> Result<String, String> {
    s.parse::<metaroce_golden::record::MacAddr>().map(|_| s.to_string())
}

fn parse_cc_param(s: &str) -> Result<(String, String), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| format!("`{s}`: write NAME=VALUE"))?;
    // Check it now, so a typo is refused before any run starts.
    CcParams::default().set(name.trim(), value.trim()).map_err(|e| e.to_string())?;
    Ok((name.trim().to_string(), value.trim().to_string()))
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SimScenario {
    /// N senders (`--hosts`, default 16) each send a message to one receiver.
    Incast,
    /// Every one of `--hosts` hosts (default 8) sends a message to every other.
    AllToAll,
    /// The README's set (16:1 incast at 100 and 400 Gb/s, 8-host
    /// all-to-all), both modes at CNP intervals of 50 and 4 µs: charts and
    /// tables into --out (docs/sim) and README.md.
    Readme,
}

#[derive(clap::Args)]
struct SimArgs {
    #[arg(value_enum)]
    scenario: SimScenario,
    /// Incast: senders (2..64, default 16). All-to-all: hosts (2..64, default 8).
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
    /// default by link rate (`SPEC.md` §9.2: 400 at 100G).
    #[arg(long)]
    kmin_kb: Option<u64>,
    /// Every packet is marked from this depth on, kB (1600 at 100G).
    #[arg(long)]
    kmax_kb: Option<u64>,
    /// The marking probability just below Kmax (0.2).
    #[arg(long)]
    pmax: Option<f64>,
    /// Congestion control of every NIC; several run side by side.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "dcqcn,metaroce")]
    cc: Vec<CcChoice>,
    /// Set one congestion-control parameter by its mlx5 name (repeatable).
    #[arg(long = "cc-param", value_name = "NAME=VALUE", value_parser = parse_cc_param)]
    cc_params: Vec<(String, String)>,
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
}

fn parse_rtl_placement(s: &str) -> Result<RtlPlacement, String> {
    match s {
        "all" => Ok(RtlPlacement::Everywhere),
        n => n.parse().map(RtlPlacement::Host).map_err(|_| format!("`{s}`: a host number or `all`")),
    }
}

impl CcChoice {
    fn mode(self) -> CcMode {
        match self {
            CcChoice::Dcqcn => CcMode::Dcqcn,
            CcChoice::Metaroce => CcMode::Metaroce,
        }
    }
}

fn run_sim(args: SimArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if args.scenario == SimScenario::Readme {
        let dir = args.out.unwrap_or_else(|| PathBuf::from("docs/sim"));
        write_readme_figures(&dir, &args.readme, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let scenario = match args.scenario {
        SimScenario::Incast => Scenario::Incast { senders: args.hosts.unwrap_or(16) },
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
    for (name, value) in &args.cc_params {
        config.cc.set(name, value)?;
    }
    config.rtl = args.rtl.unwrap_or_default();
    config.seed = args.seed;
    config.sample_ns = args.sample_ns;
    config.max_time_ns = args.max_time_us.saturating_mul(1000);
    config.record_captures = !args.no_captures;
    config.validate().map_err(|e| anyhow::anyhow!(e))?;
    let mut modes: Vec<CcMode> = args.cc.iter().map(|c| c.mode()).collect();
    modes.dedup();
    let dir = args.out.unwrap_or_else(|| {
        PathBuf::from("sim-out").join(if matches!(scenario, Scenario::Incast { .. }) { "incast" } else { "all-to-all" })
    });
    run_modes(&config, &modes, &dir, out)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
struct ReplayArgs {
    capture: PathBuf,
    #[arg(long, value_enum, default_value = "golden")]
    model: ModelChoice,
    /// RTL data width (with --model rtl).
    #[arg(long, default_value_t = 64, value_parser = parse_width)]
    width: u32,
    #[arg(long, value_enum, default_value = "jsonl")]
    format: OutputFormat,
    /// Also save the transaction stream to FILE, for `metaroce diff`.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Which blocks' transactions to print: parse records, then the CNPs,
    /// rate changes and releases in time order (top: CNPs, rates, releases).
    #[arg(long, value_enum, default_value = "all")]
    block: BlockChoice,
    /// Write what the NIC transmits as a pcap: the CNPs at their emit times
    /// (cn) and the sent frames at their release times (pacer), by --block.
    #[arg(long, value_name = "FILE")]
    out_pcap: Option<PathBuf>,
    #[command(flatten)]
    parser: ParserArgs,
    #[command(flatten)]
    cn: CnArgs,
}

#[derive(clap::Args)]
struct ParserArgs {
    /// UDP destination port that marks RoCEv2 (RTL parameter ROCE_UDP_PORT).
    #[arg(long, default_value_t = 4791)]
    roce_port: u16,
}

impl ParserArgs {
    fn config(&self) -> ParserConfig {
        ParserConfig { roce_udp_port: self.roce_port }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ModelChoice {
    Golden,
    Rtl,
}

#[derive(Clone)]
enum WidthChoice {
    All,
    One(u32),
}

impl WidthChoice {
    fn widths(&self) -> Vec<u32> {
        match self {
            WidthChoice::All => DATA_WIDTHS.to_vec(),
            WidthChoice::One(w) => vec![*w],
        }
    }
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_width(s: &str) -> Result<u32, String> {
    let width: u32 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if DATA_WIDTHS.contains(&width) {
        Ok(width)
    } else {
        Err(format!("no RTL model for width {width}; choose one of {DATA_WIDTHS:?}"))
    }
}

fn parse_width_choice(s: &str) -> Result<WidthChoice, String> {
    if s == "all" {
        Ok(WidthChoice::All)
    } else {
        parse_width(s).map(WidthChoice::One)
    }
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("`{s}` is not a 64-bit number (decimal or 0x hex)"))
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("`{s}`: write the shard as K/N, e.g. 1/4"))?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| format!("`{k}` is not a number"))?,
        n.trim().parse().map_err(|_| format!("`{n}` is not a number"))?,
    );
    if n == 0 || k == 0 || k > n {
        return Err(format!("`{s}`: need 1 <= K <= N"));
    }
    Ok((k, n))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Cosim(args) => run_cosim(args, &mut out),
        Command::Replay(args) => run_replay(args, &mut out),
        Command::Diff { a, b, history } => run_diff(&a, &b, history, &mut out),
        Command::Fuzz { block, frames, scenarios, first, seed, width, out: dir } => {
            run_fuzz_blocks(block, frames, scenarios, first, seed, width, &dir, &mut out)
        }
        Command::Bench { frames, capture, rounds, only } => {
            let parser = only.is_none_or(|o| o == BenchChoice::Parser);
            let pacing = only.is_none_or(|o| o == BenchChoice::Pacing);
            let mut result = Ok(());
            if parser {
                result = metaroce_cosim::bench::run_bench(frames, capture, rounds, &mut out);
            }
            if pacing && result.is_ok() {
                result = metaroce_cosim::pacing_bench::run_pacing_bench(&mut out);
            }
            result.map(|()| ExitCode::SUCCESS)
        }
        Command::Sim(args) => run_sim(args, &mut out),
        Command::Gen { out: dir } => run_gen(&dir, &mut out),
    };
    let flushed = out.flush();
    match result.and_then(|code| flushed.map(|()| code).map_err(Into::into)) {
        Ok(code) => code,
        // A reader that went away (`| head`) ends the output, not in a panic.
        Err(e) if is_broken_pipe(&e) => ExitCode::from(141),
        Err(e) => {
            eprintln!("metaroce: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

/// The default captures: `pcaps/` here, else the workspace's own.
fn default_pcaps() -> PathBuf {
    let here = PathBuf::from("pcaps");
    if here.is_dir() {
        here
    } else {
        // cosim/ sits in the workspace, beside pcaps/.
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("pcaps")
    }
}

/// One (capture, model, block) run of a regression.
struct Job {
    capture: PathBuf,
    options: CosimOptions,
    wave: Option<PathBuf>,
    /// The congestion-notification block's setup, for a CN, pacer or top run.
    cn: Option<CnSetup>,
    block: BlockChoice,
}

fn run_cosim(args: CosimArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let paths = if args.paths.is_empty() { vec![default_pcaps()] } else { args.paths.clone() };
    let mut captures = capture::find_captures(&paths)?;
    if captures.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        bail!("no .pcap or .pcapng files in {}", names.join(", "));
    }
    if let Some((k, n)) = args.shard {
        captures = captures.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, c)| c).collect();
    }
    let widths = args.width.widths();
    if args.wave.is_some() && args.coverage.is_some() {
        bail!("--wave and --coverage use different RTL builds; run them separately");
    }
    let seed = args.seed.unwrap_or_else(random_seed);
    let kind = if args.coverage.is_some() { ModelKind::Coverage } else { ModelKind::Plain };
    let scratch = std::env::temp_dir().join(format!("metaroce-cosim-{}", std::process::id()));
    if let Some(dir) = &args.wave {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    if args.coverage.is_some() {
        std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    }

    let all = [BlockChoice::Parser, BlockChoice::Cn, BlockChoice::Pacer, BlockChoice::Top];
    let blocks: &[BlockChoice] = match args.block {
        BlockChoice::All => &all,
        _ => std::slice::from_ref(&args.block),
    };
    if args.coverage.is_some() && args.block == BlockChoice::Top {
        bail!("--coverage: the top has no coverage build; its blocks have (--block parser|cn|pacer)");
    }
    let overrides = args.cn.overrides();
    let mut jobs = Vec::new();
    for capture in &captures {
        let cn_setup = if blocks.iter().any(|b| *b != BlockChoice::Parser) {
            Some(CnSetup::for_capture(capture, &overrides).map_err(anyhow::Error::msg)?)
        } else {
            None
        };
        for (&width, &block) in widths.iter().flat_map(|w| blocks.iter().map(move |b| (w, b))) {
            let handshake = Handshake { seed, idle_pct: args.idle, stall_pct: args.stall };
            let mut options = CosimOptions::new(RtlModel { width, kind }, handshake);
            options.parser = args.parser.config();
            if let Some(range) = args.frames {
                options.frames = range;
            }
            let stem = capture.file_stem().map_or("capture".into(), |s| s.to_string_lossy().into_owned());
            if args.coverage.is_some() {
                options.coverage_dat = Some(scratch.join(format!("{}-{stem}-w{width}.dat", jobs.len())));
            }
            // The top has no coverage build; the pacer has no data width.
            if (block == BlockChoice::Top && args.coverage.is_some())
                || (block == BlockChoice::Pacer && width != widths[0])
            {
                continue;
            }
            let cn = (block != BlockChoice::Parser).then(|| cn_setup.clone()).flatten();
            let block_tag = match block {
                BlockChoice::Cn => "-cn",
                BlockChoice::Pacer => "-pacer",
                BlockChoice::Top => "-top",
                _ => "",
            };
            let wave = args
                .wave
                .as_ref()
                .map(|dir| dir.join(format!("{stem}{block_tag}-w{width}-{seed:x}.{}", args.wave_format.extension())));
            jobs.push(Job { capture: capture.clone(), options, wave, cn, block });
        }
    }
    writeln!(
        out,
        "cosim: {} capture(s), width(s) {widths:?}, seed {seed:#x}, idle {}%, stall {}%, {} job(s)",
        captures.len(),
        args.idle,
        args.stall,
        args.jobs.max(1)
    )?;
    out.flush()?;

    let started = Instant::now();
    let wave = WaveSpec { format: args.wave_format, before: args.wave_before, after: args.wave_after };
    let runs = run_jobs(&jobs, args.jobs.max(1), wave, out)?;
    let seconds = started.elapsed().as_secs_f64();

    let mut functional = FunctionalCoverage::default();
    for run in &runs {
        functional.merge(&run.functional);
    }
    let rtl_coverage = match &args.coverage {
        Some(info) => Some(write_rtl_coverage(&jobs, info, &scratch)?),
        None => None,
    };
    let summary = CosimSummary::new(&runs, seconds, &functional, rtl_coverage.as_ref());
    for line in functional.summary() {
        writeln!(out, "functional: {line}")?;
    }
    if let (Some(cov), Some(info)) = (&rtl_coverage, &args.coverage) {
        writeln!(out, "rtl coverage ({}):", info.display())?;
        for ((module, kind), p) in cov {
            writeln!(out, "  {module:<22} {kind:<7} {:>6.1}%  {:>5}/{:<5}", p.percent(), p.covered, p.total)?;
        }
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, junit_xml(&runs)).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    writeln!(
        out,
        "cosim: {} frames, {} matched, {} failed run(s), {:.1} s, {:.0} frames/s",
        summary.frames, summary.matched, summary.failed_runs, seconds, summary.frames_per_second
    )?;
    let all_matched = summary.failed_runs == 0 && summary.matched == summary.frames;
    Ok(if all_matched { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Runs the jobs on `threads` threads, printing each result in job order.
/// How waveforms of divergences are written.
#[derive(Clone, Copy)]
struct WaveSpec {
    format: WaveFormat,
    before: u64,
    after: u64,
}

fn run_jobs(jobs: &[Job], threads: usize, wave: WaveSpec, out: &mut dyn Write) -> Result<Vec<CaptureRun>> {
    let bar = if io::stderr().is_terminal() {
        let bar = ProgressBar::new(jobs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} runs  {msg}")
                .expect("template")
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::channel::<(usize, CaptureRun)>();
    let mut finished: Vec<Option<CaptureRun>> = (0..jobs.len()).map(|_| None).collect();
    let mut printed = 0;
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads.min(jobs.len()) {
            let done_tx = done_tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let block_run = |o: &CosimOptions, setup: &CnSetup| match job.block {
                    BlockChoice::Pacer => cosim_pacer_capture(&job.capture, o, setup),
                    BlockChoice::Top => cosim_top_capture(&job.capture, o, setup),
                    _ => cosim_cn_capture(&job.capture, o, setup),
                };
                let run = match (&job.wave, &job.cn) {
                    (Some(path), Some(setup)) => {
                        with_wave(|o| block_run(o, setup), &job.options, path, wave.format, wave.before, wave.after)
                    }
                    (None, Some(setup)) => block_run(&job.options, setup),
                    (Some(path), None) => {
                        cosim_capture_with_wave(&job.capture, &job.options, path, wave.format, wave.before, wave.after)
                    }
                    (None, None) => cosim_capture(&job.capture, &job.options),
                };
                if done_tx.send((i, run)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        for (i, run) in done_rx {
            bar.inc(1);
            bar.set_message(format!("{} w{}", run.capture.display(), run.model.width));
            finished[i] = Some(run);
            while let Some(Some(run)) = finished.get(printed) {
                bar.suspend(|| print_run(run, out))?;
                printed += 1;
            }
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(finished.into_iter().map(|r| r.expect("every job reports")).collect())
}

fn print_run(run: &CaptureRun, out: &mut dyn Write) -> io::Result<()> {
    let tag = if run.passed() { "PASS" } else { "FAIL" };
    let counts = match (run.cn, run.block) {
        (Some(cn), "pacer") => {
            format!("{} frame(s), {} command(s) -> {} release(s)", run.frames_read, cn.events, cn.releases)
        }
        (Some(cn), "top") => format!(
            "{} frame(s), {} event(s) -> {} CNP(s), {} rate transaction(s), {} release(s)",
            run.frames_read, cn.events, cn.cnps, cn.rate_changes, cn.releases
        ),
        (Some(cn), _) => format!(
            "{} frame(s), {} event(s) -> {} CNP(s), {} rate change(s)",
            run.frames_read, cn.events, cn.cnps, cn.rate_changes
        ),
        (None, _) => format!("{} frame(s) read, {} matched", run.frames_read, run.frames_matched),
    };
    writeln!(
        out,
        "{tag}  {}  w{}  {:<6}  {counts}, {} cycles",
        run.capture.display(),
        run.model.width,
        run.block,
        run.cycles
    )?;
    match &run.ending {
        Ending::Matched => {}
        Ending::Diverged(report) => writeln!(out, "{report}")?,
        Ending::CaptureError(e) => writeln!(out, "  capture error: {e}")?,
        Ending::Setup(e) => writeln!(out, "  cannot run: {e}")?,
    }
    if let Some(wave) = &run.wave {
        writeln!(out, "  waveform: {} (open with gtkwave or surfer)", wave.display())?;
    }
    out.flush()
}

fn write_rtl_coverage(jobs: &[Job], info: &Path, scratch: &Path) -> Result<RtlCoverage> {
    let dats: Vec<&Path> =
        jobs.iter().filter_map(|job| job.options.coverage_dat.as_deref()).filter(|p| p.exists()).collect();
    if dats.is_empty() {
        bail!("no run wrote coverage data");
    }
    let merged = scratch.join("merged.dat");
    let coverage = export_rtl_coverage(&dats, &merged, info).map_err(anyhow::Error::msg)?;
    std::fs::remove_dir_all(scratch).ok();
    Ok(coverage)
}

fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ (std::process::id() as u64).rotate_left(32)
}

fn run_replay(args: ReplayArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let model = match args.model {
        ModelChoice::Golden => Model::Golden,
        ModelChoice::Rtl => Model::Rtl { width: args.width },
    };
    let parser_block = matches!(args.block, BlockChoice::All | BlockChoice::Parser);
    let cn_block = matches!(args.block, BlockChoice::All | BlockChoice::Cn | BlockChoice::Top);
    let pacer_block = matches!(args.block, BlockChoice::All | BlockChoice::Pacer | BlockChoice::Top);
    if args.out_pcap.is_some() && !cn_block && !pacer_block {
        bail!("--out-pcap writes what the NIC transmits (CNPs, paced frames); drop --block parser");
    }
    // Refuse a bad NIC file or parameter before any output.
    let cn_setup = if cn_block || pacer_block {
        Some(CnSetup::for_capture(&args.capture, &args.cn.overrides()).map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let block_name = match args.block {
        BlockChoice::All => "all",
        BlockChoice::Parser => "parser",
        BlockChoice::Cn => "cn",
        BlockChoice::Pacer => "pacer",
        BlockChoice::Top => "top",
    };
    let mut recording = match &args.record {
        Some(path) => {
            let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
            let mut w = BufWriter::new(file);
            serde_json::to_writer(&mut w, &RecordingHeader::new(model, &args.capture, block_name))?;
            writeln!(w)?;
            Some(w)
        }
        None => None,
    };
    let mut sink = |t: metaroce_cosim::report::Transaction| -> io::Result<()> {
        write_record(out, args.format, t.frame, t.time_ns, &t.record)?;
        if let Some(w) = &mut recording {
            serde_json::to_writer(&mut *w, &t)?;
            writeln!(w)?;
        }
        Ok(())
    };
    let mut result = if parser_block { replay(&args.capture, model, &args.parser.config(), &mut sink) } else { Ok(0) };
    let mut cn_error = None;
    if let (Ok(_), Some(setup)) = (&result, &cn_setup) {
        let width = match model {
            Model::Golden => None,
            Model::Rtl { width } => Some(width),
        };
        let parser = args.parser.config();
        let replayed = (if cn_block { replay_cn(&args.capture, width, setup, &parser).map(Some) } else { Ok(None) })
            .and_then(|cn| {
                let paced =
                    if pacer_block { replay_pacer(&args.capture, width, setup, &parser).map(Some) } else { Ok(None) };
                paced.map(|p| (cn, p))
            });
        match replayed {
            Ok((cn, paced)) => {
                // CNPs and rate changes, then releases, merged in time order.
                let (mut transactions, mut sent) = (Vec::new(), Vec::new());
                if let Some(cn) = cn {
                    transactions.extend(cn.transactions);
                    sent.extend(cn.cnp_frames);
                }
                if let Some(paced) = paced {
                    transactions.extend(paced.transactions);
                    sent.extend(paced.paced_frames);
                }
                transactions.sort_by_key(|t| t.time_ns);
                for t in transactions {
                    if let Err(e) = sink(t) {
                        result = Err(e.into());
                        break;
                    }
                }
                if let Some(path) = &args.out_pcap {
                    sent.sort_by_key(|(time_ns, _)| *time_ns);
                    let frames: Vec<capture::GenFrame> =
                        sent.into_iter().map(|(time_ns, frame)| capture::GenFrame::at(time_ns, frame)).collect();
                    capture::write_capture(path, &frames).with_context(|| format!("writing {}", path.display()))?;
                }
            }
            Err(e) => cn_error = Some(e),
        }
    }
    if let Some(mut w) = recording {
        w.flush().context("writing the recording")?;
    }
    match (result, cn_error) {
        (Ok(_), None) => Ok(ExitCode::SUCCESS),
        (Err(metaroce_cosim::replay::ReplayError::Io(e)), _) => Err(e.into()),
        (Err(e), _) => {
            out.flush()?;
            eprintln!("metaroce: error: {e}");
            Ok(ExitCode::FAILURE)
        }
        (Ok(_), Some(e)) => {
            out.flush()?;
            eprintln!("metaroce: error: {}: {e}", args.capture.display());
            Ok(ExitCode::FAILURE)
        }
    }
}

fn run_diff(a: &Path, b: &Path, history: usize, out: &mut dyn Write) -> Result<ExitCode> {
    match diff_recordings(a, b, history).map_err(anyhow::Error::msg)? {
        None => {
            writeln!(out, "recordings match: {} and {}", a.display(), b.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(divergence) => {
            writeln!(out, "{divergence}")?;
            Ok(ExitCode::FAILURE)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_fuzz_blocks(
    block: BlockChoice,
    frames: u64,
    scenarios: u64,
    first: u64,
    seed: Option<u64>,
    width: WidthChoice,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let seed = seed.unwrap_or_else(random_seed);
    if block == BlockChoice::Top {
        bail!("the top has no fuzzer of its own: fuzz its blocks (--block parser|cn|pacer); every capture runs through the top in `metaroce cosim`");
    }
    let all = block == BlockChoice::All;
    if (all || block == BlockChoice::Parser) && run_fuzz_cmd(frames, seed, width, dir, out)? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
    if (all || block == BlockChoice::Cn) && run_cn_fuzz_cmd(seed, first, scenarios, out)? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
    if all || block == BlockChoice::Pacer {
        return run_pacer_fuzz_cmd(seed, first, scenarios, out);
    }
    Ok(ExitCode::SUCCESS)
}

fn run_fuzz_cmd(frames: u64, seed: u64, width: WidthChoice, dir: &Path, out: &mut dyn Write) -> Result<ExitCode> {
    let widths = width.widths();
    writeln!(out, "fuzz: {frames} frames per width, widths {widths:?}, seed {seed:#x}")?;
    out.flush()?;
    let mut failed = false;
    for width in widths {
        let started = Instant::now();
        let outcome =
            metaroce_cosim::fuzz::run_fuzz(RtlModel::plain(width), frames, seed, dir).map_err(anyhow::Error::msg)?;
        let secs = started.elapsed().as_secs_f64();
        match &outcome.failure {
            None => writeln!(
                out,
                "PASS  w{width}  {} frames in {} cases, {secs:.1} s, {:.0} frames/s",
                outcome.frames,
                outcome.cases,
                outcome.frames as f64 / secs.max(1e-9)
            )?,
            Some(f) => {
                failed = true;
                writeln!(out, "FAIL  w{width}  after {} frames; shrunk to {}", outcome.frames, f.capture.display())?;
                writeln!(out, "{}", f.report)?;
                writeln!(out, "  reproduce: {}", f.repro)?;
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn run_cn_fuzz_cmd(seed: u64, first: u64, scenarios: u64, out: &mut dyn Write) -> Result<ExitCode> {
    writeln!(out, "fuzz cn: scenarios {first}..{}, seed {seed:#x}", first + scenarios)?;
    out.flush()?;
    let started = Instant::now();
    let outcome = metaroce_cosim::cn_fuzz::run_cn_fuzz(seed, first, scenarios);
    let secs = started.elapsed().as_secs_f64();
    match &outcome.failure {
        None => {
            writeln!(
                out,
                "PASS  cn  {} scenarios, {} events -> {} CNPs, {} rate changes, {secs:.1} s",
                outcome.scenarios, outcome.events, outcome.cnps, outcome.rate_changes
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Some(report) => {
            writeln!(out, "FAIL  cn  after {} scenarios\n{report}", outcome.scenarios)?;
            Ok(ExitCode::FAILURE)
        }
    }
}

fn run_pacer_fuzz_cmd(seed: u64, first: u64, scenarios: u64, out: &mut dyn Write) -> Result<ExitCode> {
    writeln!(out, "fuzz pacer: scenarios {first}..{}, seed {seed:#x}", first + scenarios)?;
    out.flush()?;
    let started = Instant::now();
    let outcome = metaroce_cosim::pacer_fuzz::run_pacer_fuzz(seed, first, scenarios);
    let secs = started.elapsed().as_secs_f64();
    match &outcome.failure {
        None => {
            writeln!(
                out,
                "PASS  pacer  {} scenarios, {} commands -> {} releases, {secs:.1} s",
                outcome.scenarios, outcome.commands, outcome.releases
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Some(report) => {
            writeln!(out, "FAIL  pacer  after {} scenarios\n{report}", outcome.scenarios)?;
            Ok(ExitCode::FAILURE)
        }
    }
}

fn run_gen(dir: &Path, out: &mut dyn Write) -> Result<ExitCode> {
    let written = catalog::write_all(dir).with_context(|| format!("writing captures to {}", dir.display()))?;
    for (path, frames) in &written {
        writeln!(out, "{frames:>6} frames  {}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
