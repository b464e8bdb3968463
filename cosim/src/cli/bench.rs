//! `metaroce bench`: cosim, bare-RTL and golden-model speed, the RTL's
//! cycle figures, and the pacer's accuracy.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::ValueEnum;
use metaroce_cosim::{bench, pacing_bench};

#[derive(clap::Args)]
pub struct Args {
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
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchChoice {
    Parser,
    Pacing,
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let parser = args.only.is_none_or(|o| o == BenchChoice::Parser);
    let pacing = args.only.is_none_or(|o| o == BenchChoice::Pacing);
    if parser {
        bench::run_bench(args.frames, args.capture, args.rounds, out)?;
    }
    if pacing {
        pacing_bench::run_pacing_bench(out)?;
    }
    Ok(ExitCode::SUCCESS)
}
