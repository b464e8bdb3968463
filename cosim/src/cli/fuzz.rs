//! `metaroce fuzz`: differential fuzzing of every block that has a fuzzer
//! (random and mutated frames through the parser, random event and command
//! streams through the CN block and the pacer).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use metaroce_cosim::blocks::{fuzzer, FUZZERS};
use metaroce_cosim::run::FuzzPlan;

use super::{block_choice, parse_u64, parse_width_choice, random_seed, BlockChoice, WidthChoice};

#[derive(clap::Args)]
pub struct Args {
    /// Which blocks to fuzz.
    #[arg(long, default_value = "all", value_parser = block_choice())]
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
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let plan = FuzzPlan {
        seed: args.seed.unwrap_or_else(random_seed),
        frames: args.frames,
        widths: args.width.widths(),
        out: args.out,
        first: args.first,
        scenarios: args.scenarios,
    };
    if let BlockChoice::One(block) = args.block {
        if fuzzer(block).is_none() {
            let fuzzed: Vec<&str> = FUZZERS.iter().map(|(b, _)| b.name()).collect();
            bail!(
                "the {block} has no fuzzer of its own: fuzz its blocks (--block {}); every capture runs through the {block} in `metaroce cosim`",
                fuzzed.join("|")
            );
        }
    }
    for fuzz in args.block.blocks().into_iter().filter_map(fuzzer) {
        if !fuzz(&plan, out)? {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}
