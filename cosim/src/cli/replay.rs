//! `metaroce replay`: what one model makes of a capture, one record per
//! frame, then the CN block's and the pipeline's transactions; optionally
//! saved as a recording and as the pcap of what the NIC sends.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use metaroce_cosim::capture;
use metaroce_cosim::nic::CnSetup;
use metaroce_cosim::recording::{write_record, OutputFormat, RecordingHeader};
use metaroce_cosim::replay::{replay_blocks, Model, ReplayError};
use metaroce_cosim::report::Transaction;
use metaroce_cosim::run::ReplayParts;

use super::{block_choice, parse_width, BlockChoice, CnArgs, ParserArgs};

#[derive(clap::Args)]
pub struct Args {
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
    /// ACKs and NAKs, rate changes and releases in time order (top: frames
    /// sent, rates, releases).
    #[arg(long, default_value = "all", value_parser = block_choice())]
    block: BlockChoice,
    /// Write what the NIC transmits as a pcap: the CNPs, ACKs and NAKs at
    /// their emit times (cn) and the sent frames at their release times
    /// (pacer), by --block.
    #[arg(long, value_name = "FILE")]
    out_pcap: Option<PathBuf>,
    #[command(flatten)]
    parser: ParserArgs,
    #[command(flatten)]
    cn: CnArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ModelChoice {
    Golden,
    Rtl,
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let model = match args.model {
        ModelChoice::Golden => Model::Golden,
        ModelChoice::Rtl => Model::Rtl { width: args.width },
    };
    let parts = args.block.blocks().iter().fold(ReplayParts::default(), |parts, b| parts.union(b.replays()));
    if args.out_pcap.is_some() && !parts.cn && !parts.pacer {
        bail!("--out-pcap writes what the NIC transmits (CNPs, ACKs and NAKs, paced frames); drop --block parser");
    }
    // Refuse a bad NIC file or parameter before any output.
    let setup = if parts.cn || parts.pacer {
        Some(CnSetup::for_capture(&args.capture, &args.cn.overrides()?).map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let mut recording = match &args.record {
        Some(path) => {
            let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
            let mut w = BufWriter::new(file);
            serde_json::to_writer(&mut w, &RecordingHeader::new(model, &args.capture, args.block.name()))?;
            writeln!(w)?;
            Some(w)
        }
        None => None,
    };
    let mut sink = |t: Transaction| -> io::Result<()> {
        write_record(out, args.format, t.frame, t.time_ns, &t.record)?;
        if let Some(w) = &mut recording {
            serde_json::to_writer(&mut *w, &t)?;
            writeln!(w)?;
        }
        Ok(())
    };
    let parser = args.parser.config();
    let mut result = replay_blocks(&args.capture, model, parts, setup.as_ref(), &parser, &mut sink);
    if let Ok(replayed) = &mut result {
        // CNPs and rate changes, then releases, merged in time order.
        let written = std::mem::take(&mut replayed.transactions).into_iter().try_for_each(&mut sink);
        if let Some(path) = &args.out_pcap {
            let sent = std::mem::take(&mut replayed.sent);
            let frames: Vec<capture::GenFrame> =
                sent.into_iter().map(|(time_ns, frame)| capture::GenFrame::at(time_ns, frame)).collect();
            capture::write_capture(path, &frames).with_context(|| format!("writing {}", path.display()))?;
        }
        // Said on stderr, once, so the records on stdout stay clean.
        if let Some(warning) = replayed.gaps.as_ref().and_then(|g| g.warning(&args.capture)) {
            out.flush()?;
            eprintln!("metaroce: {warning}");
        }
        if let Err(e) = written {
            result = Err(e.into());
        }
    }
    if let Some(mut w) = recording {
        w.flush().context("writing the recording")?;
    }
    match result {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(ReplayError::Io(e)) => Err(e.into()),
        Err(ReplayError::Block(e)) => {
            out.flush()?;
            eprintln!("metaroce: error: {}: {e}", args.capture.display());
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            out.flush()?;
            eprintln!("metaroce: error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}
