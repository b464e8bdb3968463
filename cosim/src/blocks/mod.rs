//! The blocks of the pipeline as the harness runs them, one file each. A
//! new block is a file here with its [`Block`](crate::run::Block), its RTL
//! wrapper, and one line in [`BLOCKS`].

pub mod cn;
pub mod pacer;
pub mod parser;
pub mod top;

use crate::run::Block;

/// Every block, in the order `--block all` runs them: each alone, then the
/// whole top.
pub static BLOCKS: &[&dyn Block] = &[&parser::Parser, &cn::Cn, &pacer::PacerBlock, &top::Top];

/// The block called `name`.
pub fn find(name: &str) -> Option<&'static dyn Block> {
    BLOCKS.iter().copied().find(|b| b.name() == name)
}
