//! The checked-in Verilog bus layout `rtl/metaroce_cfg.vh` is what the
//! register table (`src/cc_table.rs`) generates: the RTL, its lint and
//! synthesis read rtl/ without cargo, so the file is checked in, and this
//! test keeps it fresh. `METAROCE_BLESS=1` rewrites it.

use std::path::Path;

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/metaroce_cfg.vh"));

#[test]
fn rtl_cfg_include_is_fresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl/metaroce_cfg.vh");
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in == GENERATED {
        return;
    }
    if std::env::var_os("METAROCE_BLESS").is_some() {
        std::fs::write(&path, GENERATED).unwrap();
        return;
    }
    panic!(
        "rtl/metaroce_cfg.vh is stale (golden/src/cc_table.rs changed); regenerate it with\n    \
         METAROCE_BLESS=1 cargo test -p metaroce-golden --test cc_table"
    );
}
