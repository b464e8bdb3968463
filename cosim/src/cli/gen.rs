//! `metaroce gen`: the regression captures, written deterministically.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use metaroce_cosim::catalog;

#[derive(clap::Args)]
pub struct Args {
    /// Directory to write into.
    #[arg(long, default_value = "pcaps")]
    out: PathBuf,
}

pub fn exec(args: Args, out: &mut dyn Write) -> Result<ExitCode> {
    let dir = &args.out;
    let written = catalog::write_all(dir).with_context(|| format!("writing captures to {}", dir.display()))?;
    for (path, frames) in &written {
        writeln!(out, "{frames:>6} frames  {}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
