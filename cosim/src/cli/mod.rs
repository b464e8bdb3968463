//! The `metaroce` commands, one file each: its clap arguments and an
//! `exec`. What several commands share is here.

pub mod bench;
pub mod cosim;
pub mod diff;
pub mod fuzz;
pub mod gen;
pub mod nic;
pub mod replay;
pub mod report;
pub mod sim;

use std::path::PathBuf;

use anyhow::Result;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;
use metaroce_cosim::blocks::{find, BLOCKS};
use metaroce_cosim::nic::{CnOverrides, NicFile};
use metaroce_cosim::rtl::DATA_WIDTHS;
use metaroce_cosim::run::Block;
use metaroce_golden::cc_params::CcMode;
use metaroce_golden::cc_params::CcSetting;
use metaroce_golden::cc_presets::CcPreset;
use metaroce_golden::ParserConfig;

/// `--block`: one block of the table, or all of them.
#[derive(Clone, Copy)]
pub enum BlockChoice {
    /// Every block alone, then the whole top.
    All,
    One(&'static dyn Block),
}

impl BlockChoice {
    pub fn blocks(self) -> Vec<&'static dyn Block> {
        match self {
            BlockChoice::All => BLOCKS.to_vec(),
            BlockChoice::One(block) => vec![block],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BlockChoice::All => "all",
            BlockChoice::One(block) => block.name(),
        }
    }
}

/// The parser of `--block`: `all` or a name from the block table.
pub fn block_choice() -> impl TypedValueParser<Value = BlockChoice> {
    let all = PossibleValue::new("all").help("Every block alone, then the whole top");
    let blocks = BLOCKS.iter().map(|b| match b.about() {
        Some(about) => PossibleValue::new(b.name()).help(about),
        None => PossibleValue::new(b.name()),
    });
    PossibleValuesParser::new(std::iter::once(all).chain(blocks))
        .map(|name| find(&name).map_or(BlockChoice::All, BlockChoice::One))
}

#[derive(clap::Args)]
pub struct ParserArgs {
    /// UDP destination port that marks RoCEv2 (RTL parameter ROCE_UDP_PORT).
    #[arg(long, default_value_t = 4791)]
    roce_port: u16,
}

impl ParserArgs {
    pub fn config(&self) -> ParserConfig {
        ParserConfig { roce_udp_port: self.roce_port }
    }
}

#[derive(clap::Args)]
pub struct CnArgs {
    /// NIC configuration (JSON: local_mac, qps, cc); default: NAME.nic.json
    /// beside each capture, else defaults.
    #[arg(long, value_name = "FILE")]
    nic: Option<PathBuf>,
    /// This NIC's MAC, aa:bb:cc:dd:ee:ff (overrides the NIC file's): frames
    /// to it are received, frames from it sent (and paced). Without one,
    /// every frame counts as received.
    #[arg(long, value_name = "MAC", value_parser = parse_mac)]
    local_mac: Option<String>,
    /// Congestion control: dcqcn or metaroce (overrides the NIC file).
    #[arg(long, value_enum)]
    cc: Option<CcChoice>,
    /// Congestion-control defaults of one source, over the NIC file's
    /// values: `paper` (DCQCN, SIGCOMM 2015), `ns3` (HPCC's ns-3 model) or
    /// `mlx5` (ConnectX firmware); SPEC.md §6.8.
    #[arg(long = "cc-preset", value_name = "paper|ns3|mlx5")]
    cc_preset: Option<CcPreset>,
    /// Set one congestion-control parameter by its mlx5 name, e.g.
    /// `--cc-param np_min_time_between_cnps=4` (repeatable; after the preset).
    #[arg(long = "cc-param", value_name = "NAME=VALUE")]
    cc_params: Vec<CcSetting>,
}

impl CnArgs {
    /// The overrides, the NIC file (`--nic`) read once for every capture.
    pub fn overrides(&self) -> Result<CnOverrides> {
        Ok(CnOverrides {
            nic: self.nic.as_deref().map(NicFile::read).transpose().map_err(anyhow::Error::msg)?,
            local_mac: self.local_mac.clone(),
            mode: self.cc.map(CcChoice::mode),
            preset: self.cc_preset,
            params: self.cc_params.clone(),
        })
    }
}

pub fn parse_mac(s: &str) -> Result<String, String> {
    s.parse::<metaroce_golden::record::MacAddr>().map(|_| s.to_string())
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CcChoice {
    Dcqcn,
    Metaroce,
}

impl CcChoice {
    pub fn mode(self) -> CcMode {
        match self {
            CcChoice::Dcqcn => CcMode::Dcqcn,
            CcChoice::Metaroce => CcMode::Metaroce,
        }
    }
}

#[derive(Clone)]
pub enum WidthChoice {
    All,
    One(u32),
}

impl WidthChoice {
    pub fn widths(&self) -> Vec<u32> {
        match self {
            WidthChoice::All => DATA_WIDTHS.to_vec(),
            WidthChoice::One(w) => vec![*w],
        }
    }
}

pub fn parse_width(s: &str) -> Result<u32, String> {
    let width: u32 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if DATA_WIDTHS.contains(&width) {
        Ok(width)
    } else {
        Err(format!("no RTL model for width {width}; choose one of {DATA_WIDTHS:?}"))
    }
}

pub fn parse_width_choice(s: &str) -> Result<WidthChoice, String> {
    if s == "all" {
        Ok(WidthChoice::All)
    } else {
        parse_width(s).map(WidthChoice::One)
    }
}

pub fn parse_u64(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("`{s}` is not a 64-bit number (decimal or 0x hex)"))
}

/// Runs at once by default: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ (std::process::id() as u64).rotate_left(32)
}
