//! Generates `CcParams` and `CcRegisters` from the register table
//! (`src/cc_table.rs`), and the Verilog bus layout that
//! `tests/cc_table.rs` compares with the checked-in `rtl/metaroce_cfg.vh`.

#[allow(dead_code)]
mod cc {
    include!("src/cc_table.rs");
    include!("cc_gen.rs");
}

fn main() {
    println!("cargo:rerun-if-changed=src/cc_table.rs");
    println!("cargo:rerun-if-changed=cc_gen.rs");
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out_dir.join("cc_params.rs"), cc::rust_params()).unwrap();
    std::fs::write(out_dir.join("metaroce_cfg.vh"), cc::verilog_include()).unwrap();
}
