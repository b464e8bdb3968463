//! `metaroce cosim`: captures through every block's RTL and golden model,
//! every record compared; a summary, JSON, JUnit, waveforms, coverage.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use metaroce_cosim::blocks::BLOCKS;
use metaroce_cosim::capture;
use metaroce_cosim::coverage::FunctionalCoverage;
use metaroce_cosim::harness::FrameRange;
use metaroce_cosim::jobs::{run_jobs, write_rtl_coverage, Plan, WaveSpec};
use metaroce_cosim::nic::CnOverrides;
use metaroce_cosim::rtl::Handshake;
use metaroce_cosim::shards::{corpus_hash, tree_identity};
use metaroce_cosim::summary::{junit_xml, CosimSummary, RegressionId, Shard};
use metaroce_cosim::wave::WaveFormat;

use super::{
    block_choice, default_jobs, parse_u64, parse_width_choice, random_seed, BlockChoice, CnArgs, ParserArgs,
    WidthChoice,
};

#[derive(clap::Args)]
pub struct Args {
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
    #[arg(long, default_value = "all", value_parser = block_choice())]
    block: BlockChoice,
    #[command(flatten)]
    parser: ParserArgs,
    #[command(flatten)]
    cn: CnArgs,
}

/// What makes this run's JSON summary a shard of one regression: the
/// seed, the tree, and every capture with the options all runs share.
fn regression_id(args: &Args, plan: &Plan, seed: u64, all_captures: &[PathBuf]) -> Result<RegressionId> {
    let options = format!(
        "widths {:?} blocks {} idle {} stall {} frames {:?} parser {:?} nic {:?}",
        plan.widths,
        args.block.name(),
        args.idle,
        args.stall,
        args.frames,
        plan.parser,
        plan.overrides
    );
    Ok(RegressionId {
        shard: args.shard.map(|(index, count)| Shard { index, count }),
        seed: format!("{seed:#x}"),
        tree: tree_identity(),
        corpus: corpus_hash(all_captures, &options).map_err(anyhow::Error::msg)?,
        captures: all_captures.len(),
    })
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

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let paths = if args.paths.is_empty() { vec![default_pcaps()] } else { args.paths.clone() };
    let mut captures = capture::find_captures(&paths)?;
    if captures.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        bail!("no .pcap or .pcapng files in {}", names.join(", "));
    }
    let all_captures = captures.clone();
    if let Some((k, n)) = args.shard {
        captures = captures.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, c)| c).collect();
    }
    let widths = args.width.widths();
    if args.wave.is_some() && args.coverage.is_some() {
        bail!("--wave and --coverage use different RTL builds; run them separately");
    }
    let seed = args.seed.unwrap_or_else(random_seed);
    let scratch = std::env::temp_dir().join(format!("metaroce-cosim-{}", std::process::id()));
    if let Some(dir) = &args.wave {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    if args.coverage.is_some() {
        std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    }
    let blocks = args.block.blocks();
    if let (Some(_), BlockChoice::One(block)) = (&args.coverage, args.block) {
        if !block.has_coverage_build() {
            let covered: Vec<&str> = BLOCKS.iter().filter(|b| b.has_coverage_build()).map(|b| b.name()).collect();
            bail!("--coverage: the {block} has no coverage build; its blocks have (--block {})", covered.join("|"));
        }
    }
    let plan = Plan {
        captures,
        widths,
        overrides: if blocks.iter().any(|b| b.uses_nic()) { args.cn.overrides()? } else { CnOverrides::default() },
        blocks,
        handshake: Handshake { seed, idle_pct: args.idle, stall_pct: args.stall },
        frames: args.frames,
        parser: args.parser.config(),
        coverage_dir: args.coverage.is_some().then(|| scratch.clone()),
        wave: args.wave.clone().map(|dir| WaveSpec {
            dir,
            format: args.wave_format,
            before: args.wave_before,
            after: args.wave_after,
        }),
    };
    let jobs = plan.jobs().map_err(anyhow::Error::msg)?;
    writeln!(
        out,
        "cosim: {} capture(s), width(s) {:?}, seed {seed:#x}, idle {}%, stall {}%, {} job(s)",
        plan.captures.len(),
        plan.widths,
        args.idle,
        args.stall,
        args.jobs.max(1)
    )?;
    out.flush()?;

    let started = Instant::now();
    let runs = run_jobs(&jobs, args.jobs.max(1), plan.wave.as_ref(), out)?;
    let seconds = started.elapsed().as_secs_f64();

    let mut functional = FunctionalCoverage::default();
    for run in &runs {
        functional.merge(&run.functional);
    }
    let rtl_coverage = match &args.coverage {
        Some(info) => Some(write_rtl_coverage(&jobs, info, &scratch).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let mut summary = CosimSummary::new(&runs, seconds, &functional, rtl_coverage.as_ref());
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
        summary.identify(regression_id(&args, &plan, seed, &all_captures)?, &all_captures);
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    let unanswered = match summary.unanswered_frames() {
        0 => String::new(),
        n => format!(", {n} frame(s) unanswered by the NIC setup in {} capture(s)", summary.nic_warnings.len()),
    };
    writeln!(
        out,
        "cosim: {} frames, {} matched, {} failed run(s), {:.1} s, {:.0} frames/s{unanswered}",
        summary.frames, summary.matched, summary.failed_runs, seconds, summary.frames_per_second
    )?;
    let all_matched = summary.failed_runs == 0 && summary.matched == summary.frames;
    Ok(if all_matched { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
