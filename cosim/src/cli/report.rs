//! `metaroce report merge`: the JSON summaries of a regression's shards
//! (`cosim --shard K/N --json`) joined into one JSON summary and JUnit XML.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use metaroce_cosim::shards::merge;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: ReportCommand,
}

#[derive(clap::Subcommand)]
enum ReportCommand {
    /// Join shards' JSON summaries into the report an unsharded run writes;
    /// refuses shards of another seed, tree, corpus or shard count, and
    /// names a missing shard.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shards' JSON summaries (`cosim --shard K/N --json FILE`).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Write the merged JUnit XML here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the merged JSON summary here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let ReportCommand::Merge(args) = args.command;
    let merged = merge(&args.shards).map_err(anyhow::Error::msg)?;
    if let Some(path) = &args.junit {
        std::fs::write(path, &merged.junit).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        std::fs::write(path, &merged.json).with_context(|| format!("writing {}", path.display()))?;
    }
    for note in &merged.notes {
        writeln!(out, "report merge: note: {note}")?;
    }
    writeln!(
        out,
        "report merge: {} shard(s): {} run(s), {} failed",
        args.shards.len(),
        merged.runs,
        merged.failed_runs
    )?;
    Ok(if merged.failed_runs == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
