//! The blocks of the pipeline as the harness runs them, one file each. A
//! new block is a file here implementing [`Block`] (its `BlockInfo` row, its golden and RTL
//! sides, its streams, its run line), its RTL wrapper, and one line in
//! [`BLOCKS`]; one line in [`FUZZERS`] too if it has a fuzzer of its own.

pub mod cn;
pub mod pacer;
pub mod parser;
pub mod top;

use crate::run::{Block, Fuzzer};
use crate::{cn_fuzz, fuzz, pacer_fuzz};

/// Every block, in the order `--block all` runs them: each alone, then the
/// whole top.
pub static BLOCKS: &[&dyn Block] = &[&parser::Parser, &cn::Cn, &pacer::PacerBlock, &top::Top];

/// The blocks with a differential fuzzer of their own (`metaroce fuzz`),
/// in table order.
pub static FUZZERS: &[(&dyn Block, Fuzzer)] = &[
    (&parser::Parser, fuzz::fuzz_block),
    (&cn::Cn, cn_fuzz::fuzz_block),
    (&pacer::PacerBlock, pacer_fuzz::fuzz_block),
];

/// The fuzzer of `block`, if it has one.
pub fn fuzzer(block: &dyn Block) -> Option<Fuzzer> {
    FUZZERS.iter().find(|(b, _)| b.name() == block.name()).map(|(_, f)| *f)
}

/// The block called `name`.
pub fn find(name: &str) -> Option<&'static dyn Block> {
    BLOCKS.iter().copied().find(|b| b.name() == name)
}
