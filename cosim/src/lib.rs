//! The metaroce cosimulation harness: reads captures, drives the Verilated
//! RTL and the golden model with the same frames, and compares every output
//! transaction. The `metaroce` binary (`main.rs`, one file per command in `cli/`) is a
//! thin CLI over this.

pub mod addresses;
pub mod bench;
pub mod blocks;
pub mod capture;
pub mod catalog;
pub mod cn_fuzz;
pub mod compare;
pub mod coverage;
pub mod dice;
pub mod fuzz;
pub mod harness;
pub mod jobs;
pub mod nic;
pub mod nic_gaps;
pub mod nic_init;
pub mod pacer_fuzz;
pub mod pacing_bench;
pub mod recording;
pub mod replay;
pub mod report;
pub mod rtl;
pub mod rtl_cn;
pub mod rtl_pacer;
pub mod run;
pub mod shards;
pub mod sim;
pub mod sim_handle;
pub mod stimuli;
pub mod summary;
pub mod wave;
