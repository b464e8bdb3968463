//! `metaroce`: cosim regression, capture replay and stimulus generation.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use metaroce_cosim::harness::{cosim_capture, CosimOptions, Ending, FrameRange};
use metaroce_cosim::replay::{replay, Model, OutputFormat};
use metaroce_cosim::rtl::{Handshake, DATA_WIDTHS};
use metaroce_cosim::stimuli;
use metaroce_golden::ParserConfig;

#[derive(Parser)]
#[command(
    name = "metaroce",
    version,
    about = "RoCEv2 NIC pipeline: Verilator RTL against the golden model"
)]
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
    /// Seed of the idle/backpressure sequence; random (and printed) if absent.
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
    #[command(flatten)]
    parser: ParserArgs,
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
    #[command(flatten)]
    parser: ParserArgs,
}

#[derive(clap::Args)]
struct ParserArgs {
    /// UDP destination port that marks RoCEv2 (RTL parameter ROCE_UDP_PORT).
    #[arg(long, default_value_t = 4791)]
    roce_port: u16,
}

impl ParserArgs {
    fn config(&self) -> ParserConfig {
        ParserConfig {
            roce_udp_port: self.roce_port,
        }
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

fn parse_width(s: &str) -> Result<u32, String> {
    let width: u32 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if DATA_WIDTHS.contains(&width) {
        Ok(width)
    } else {
        Err(format!(
            "no RTL model for width {width}; choose one of {DATA_WIDTHS:?}"
        ))
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Cosim(args) => run_cosim(args),
        Command::Replay(args) => run_replay(args),
        Command::Gen { out } => run_gen(&out),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("metaroce: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The default captures: `pcaps/` here, else the workspace's own.
fn default_pcaps() -> PathBuf {
    let here = PathBuf::from("pcaps");
    if here.is_dir() {
        here
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../pcaps")
    }
}

fn run_cosim(args: CosimArgs) -> Result<ExitCode> {
    let paths = if args.paths.is_empty() {
        vec![default_pcaps()]
    } else {
        args.paths.clone()
    };
    let captures = metaroce_cosim::stimuli::find_captures(&paths)?;
    if captures.is_empty() {
        bail!(
            "no .pcap or .pcapng files in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let widths: Vec<u32> = match args.width {
        WidthChoice::All => DATA_WIDTHS.to_vec(),
        WidthChoice::One(w) => vec![w],
    };
    let seed = args.seed.unwrap_or_else(random_seed);
    println!(
        "cosim: {} capture(s), width(s) {widths:?}, seed {seed:#x}, idle {}%, stall {}%",
        captures.len(),
        args.idle,
        args.stall
    );

    let started = Instant::now();
    let (mut frames, mut matched, mut failed) = (0u64, 0u64, 0usize);
    for capture in &captures {
        for &width in &widths {
            let mut options = CosimOptions::new(
                width,
                Handshake {
                    seed,
                    idle_pct: args.idle,
                    stall_pct: args.stall,
                },
            );
            options.parser = args.parser.config();
            if let Some(range) = args.frames {
                options.frames = range;
            }
            let run = cosim_capture(capture, &options);
            frames += run.frames_read;
            matched += run.frames_matched;
            let tag = if run.passed() { "PASS" } else { "FAIL" };
            println!(
                "{tag}  {}  w{width}  {} frame(s) read, {} matched, {} cycles",
                capture.display(),
                run.frames_read,
                run.frames_matched,
                run.cycles
            );
            match &run.ending {
                Ending::Matched => {}
                Ending::Diverged(report) => println!("{report}"),
                Ending::CaptureError(e) => println!("  capture error: {e}"),
                Ending::Setup(e) => println!("  cannot start: {e}"),
            }
            if !run.passed() {
                failed += 1;
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "cosim: {frames} frames, {matched} matched, {failed} failed run(s), {:.1} s, {:.0} frames/s",
        secs,
        frames as f64 / secs.max(1e-9)
    );
    Ok(if failed == 0 && matched == frames {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ (std::process::id() as u64).rotate_left(32)
}

fn run_replay(args: ReplayArgs) -> Result<ExitCode> {
    let model = match args.model {
        ModelChoice::Golden => Model::Golden,
        ModelChoice::Rtl => Model::Rtl { width: args.width },
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = replay(
        &args.capture,
        model,
        args.format,
        &args.parser.config(),
        &mut out,
    );
    out.flush().context("writing output")?;
    match result {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("metaroce: error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn run_gen(out: &Path) -> Result<ExitCode> {
    let written = stimuli::write_all(out)
        .with_context(|| format!("writing captures to {}", out.display()))?;
    for (path, frames) in &written {
        println!("{frames:>6} frames  {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
