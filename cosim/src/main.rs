//! `metaroce`: cosim regression, capture replay, recording diff, fuzzing,
//! benchmarks, closed-loop scenarios and stimulus generation; one file per
//! command in `cli/`.

mod cli;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "metaroce", version, about = "RoCEv2 NIC pipeline: Verilator RTL against the golden model")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run captures through RTL and golden model and compare every record.
    Cosim(cli::cosim::Args),
    /// Print one record per frame of a capture from one model.
    Replay(cli::replay::Args),
    /// Compare two recordings (`replay --record`) and report the first difference.
    Diff(cli::diff::Args),
    /// Differential fuzzing: random and mutated frames through the parser,
    /// random event streams through the congestion-notification block.
    Fuzz(cli::fuzz::Args),
    /// Measure cosim, bare-RTL and golden-model speed and the RTL's cycle figures.
    Bench(cli::bench::Args),
    /// Closed-loop congestion scenarios: hosts with the pipeline in their
    /// NICs on one switch (incast, all-to-all, victim flow), lossy or
    /// lossless (PFC), every cc mode side by side; `readme` regenerates the
    /// README's figures.
    Sim(cli::sim::Args),
    /// Write the regression captures (deterministic).
    Gen(cli::gen::Args),
    /// NIC files: `nic init CAPTURE` writes a starting one for a capture.
    Nic(cli::nic::Args),
    /// Reports: `report merge` joins the JSON summaries of `cosim --shard K/N` runs.
    Report(cli::report::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Cosim(args) => cli::cosim::exec(args, &mut out),
        Command::Replay(args) => cli::replay::exec(args, &mut out),
        Command::Diff(args) => cli::diff::exec(args, &mut out),
        Command::Fuzz(args) => cli::fuzz::exec(args, &mut out),
        Command::Bench(args) => cli::bench::exec(args, &mut out),
        Command::Sim(args) => cli::sim::exec(args, &mut out),
        Command::Gen(args) => cli::gen::exec(args, &mut out),
        Command::Nic(args) => cli::nic::exec(args, &mut out),
        Command::Report(args) => cli::report::exec(args, &mut out),
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
