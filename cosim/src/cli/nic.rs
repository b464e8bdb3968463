//! `metaroce nic init`: a starting NIC file for a capture (local MAC, QP
//! contexts, the default `cc` section), to stdout or a file.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use metaroce_cosim::nic_init::{nic_init, REMOTE_QP_PLACEHOLDER};
use metaroce_golden::record::MacAddr;

use super::{parse_mac, ParserArgs};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: NicCommand,
}

#[derive(clap::Subcommand)]
enum NicCommand {
    /// Write a starting NIC file for a capture: its local MAC, every local
    /// QP with the remote QP where the capture shows it, the default cc.
    Init(InitArgs),
}

#[derive(clap::Args)]
struct InitArgs {
    capture: PathBuf,
    /// This NIC's MAC; default: the most common destination of RoCE frames.
    #[arg(long, value_name = "MAC", value_parser = parse_mac)]
    local_mac: Option<String>,
    /// Write the NIC file here (e.g. NAME.nic.json beside NAME.pcap, which
    /// `cosim` and `replay` then read); default: stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    parser: ParserArgs,
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let NicCommand::Init(args) = args.command;
    let mac =
        args.local_mac.as_deref().map(|m| m.parse::<MacAddr>().map(|m| m.0)).transpose().map_err(anyhow::Error::msg)?;
    let draft = nic_init(&args.capture, mac, &args.parser.config()).map_err(anyhow::Error::msg)?;
    let json = serde_json::to_string_pretty(&draft)? + "\n";
    let placeholders = draft.qps.iter().filter(|q| q.remote == REMOTE_QP_PLACEHOLDER).count();
    match &args.output {
        Some(path) => {
            std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
            writeln!(
                out,
                "nic init: {}: local MAC {}, {} QP context(s), {placeholders} with a placeholder remote QP",
                path.display(),
                draft.local_mac,
                draft.qps.len()
            )?;
        }
        None => out.write_all(json.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
