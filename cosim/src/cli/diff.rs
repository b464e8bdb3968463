//! `metaroce diff`: two recordings compared, the first difference reported.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use metaroce_cosim::recording::diff_recordings;

#[derive(clap::Args)]
pub struct Args {
    a: PathBuf,
    b: PathBuf,
    /// Transactions shown before the difference.
    #[arg(long, default_value_t = 4)]
    history: usize,
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let (a, b) = (&args.a, &args.b);
    match diff_recordings(a, b, args.history).map_err(anyhow::Error::msg)? {
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
