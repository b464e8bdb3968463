//! Verilates rtl/ and compiles the model with the C++ shim (`csrc/`).
//!
//! One Verilated model per entry of `VARIANTS`, each under its own class
//! prefix so all of them link into one binary. The list of generated
//! files comes from Verilator's own `<prefix>_classes.mk`; the C++ is always
//! built at -O2 or higher, also in debug builds, because an unoptimised
//! Verilated model is an order of magnitude slower.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

include!("src/rtl_fields.rs");

/// The congestion-control register table and its generators (C ABI,
/// Rust mirror, Verilog bus layout).
#[allow(dead_code)]
mod cc_table {
    include!("../golden/src/cc_table.rs");
    include!("../golden/cc_gen.rs");
}

/// Build inputs outside cosim/ besides rtl/: the register table and its generators.
const CC_TABLE_FILES: [&str; 2] = ["../golden/src/cc_table.rs", "../golden/cc_gen.rs"];

/// One Verilated block: its top module, source list (top first, shared
/// with the lint and synthesis tests) and the shim's variant-table macro.
struct Block {
    top: &'static str,
    file_list: &'static str,
    table_macro: &'static str,
    /// The top has a `DATA_WIDTH` parameter.
    has_width: bool,
    /// A test-only top generated into OUT_DIR around the list's top: the
    /// hand-written logic it adds (see `generate_bug_wrapper`).
    wrapper: Option<&'static str>,
}

const PARSER: Block = Block {
    top: "roce_parser",
    file_list: "rtl/parser.f",
    table_macro: "MR_PARSER_VARIANTS",
    has_width: true,
    wrapper: None,
};
const CN: Block =
    Block { top: "roce_cn", file_list: "rtl/cn.f", table_macro: "MR_CN_VARIANTS", has_width: true, wrapper: None };
const PACER: Block = Block {
    top: "roce_pacer",
    file_list: "rtl/pacer.f",
    table_macro: "MR_PACER_VARIANTS",
    has_width: false,
    wrapper: None,
};
const PIPELINE: Block = Block {
    top: "roce_pipeline",
    file_list: "rtl/pipeline.f",
    table_macro: "MR_PIPELINE_VARIANTS",
    has_width: true,
    wrapper: None,
};
const BLOCKS: [&Block; 4] = [&PARSER, &CN, &PACER, &PIPELINE];
/// The parser with deliberate bugs, a test-only wrapper outside rtl/; its
/// model joins the parser's variants.
const PARSER_BUG: Block = Block {
    top: "roce_parser_bug",
    file_list: PARSER.file_list,
    table_macro: "MR_PARSER_VARIANTS",
    has_width: true,
    wrapper: Some("rtl_test/roce_parser_bug.vh"),
};

/// One Verilated build: `prefix` is its C++ class, `args` what it adds to
/// the common Verilator arguments.
struct Variant {
    block: &'static Block,
    prefix: &'static str,
    width: u32,
    args: &'static [&'static str],
}

/// Every model in the binary. All run the RTL assertions; the plain ones
/// also carry FST tracing (off until a trace is opened), the `Cov` ones
/// Verilator line and toggle coverage, and `Vparser64Bug` deliberate bugs
/// (`cosim/rtl_test/roce_parser_bug.vh`) for the harness's own tests. `Vcn*` are the
/// congestion-notification block, `Vpacer*` the pacer (no data width) and
/// `Vpipeline*` the whole top.
const VARIANTS: &[Variant] = &[
    Variant { block: &PARSER, prefix: "Vparser64", width: 64, args: &["--trace-fst"] },
    Variant { block: &PARSER, prefix: "Vparser512", width: 512, args: &["--trace-fst"] },
    Variant { block: &PARSER, prefix: "Vparser64Cov", width: 64, args: &["--coverage-line", "--coverage-toggle"] },
    Variant { block: &PARSER, prefix: "Vparser512Cov", width: 512, args: &["--coverage-line", "--coverage-toggle"] },
    Variant { block: &PARSER_BUG, prefix: "Vparser64Bug", width: 64, args: &["--trace-fst"] },
    Variant { block: &CN, prefix: "Vcn64", width: 64, args: &["--trace-fst"] },
    Variant { block: &CN, prefix: "Vcn512", width: 512, args: &["--trace-fst"] },
    Variant { block: &CN, prefix: "Vcn64Cov", width: 64, args: &["--coverage-line", "--coverage-toggle"] },
    Variant { block: &CN, prefix: "Vcn512Cov", width: 512, args: &["--coverage-line", "--coverage-toggle"] },
    Variant { block: &PACER, prefix: "Vpacer", width: 64, args: &["--trace-fst"] },
    Variant { block: &PACER, prefix: "VpacerCov", width: 64, args: &["--coverage-line", "--coverage-toggle"] },
    Variant { block: &PIPELINE, prefix: "Vpipeline64", width: 64, args: &["--trace-fst"] },
    Variant { block: &PIPELINE, prefix: "Vpipeline512", width: 512, args: &["--trace-fst"] },
];

/// Arguments every variant gets: optimised, X values randomised per seed
/// (`--x-assign/--x-initial unique`, seeded at run time), assertions on.
const COMMON_ARGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "unique",
    "--x-initial",
    "unique",
    "--assert",
    "+define+METAROCE_ASSERTIONS",
    "-Wall",
];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().expect("cosim/ sits in the workspace").to_path_buf();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let verilator = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());

    println!("cargo:rerun-if-env-changed=VERILATOR");
    println!("cargo:rerun-if-changed=src/rtl_fields.rs");
    for file in CC_TABLE_FILES {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-changed=rtl_test");
    for entry in std::fs::read_dir(root.join("rtl")).expect("rtl/ exists").flatten() {
        println!("cargo:rerun-if-changed={}", entry.path().display());
    }

    generate_record_bindings(&out_dir);
    generate_cc_config(&root, &out_dir);
    generate_variant_table(&out_dir);
    let bug_wrapper = generate_bug_wrapper(&root, &manifest_dir, &out_dir);
    // The lint test checks the generated form.
    println!("cargo:rustc-env=METAROCE_PARSER_BUG_V={}", bug_wrapper.display());

    // The Verilated models are built once per content (RTL, shim, this
    // script, the tools) into target/metaroce-rtl/<key>/ and shared by every
    // profile: `cargo clippy` and `cargo test` would otherwise each verilate
    // and compile all of them.
    let key = cache_key(&root, &manifest_dir, &verilator);
    let target_dir = out_dir.ancestors().nth(4).map_or_else(|| out_dir.clone(), Path::to_path_buf);
    let cache = target_dir.join("metaroce-rtl").join(format!("{key:016x}"));
    if !cache.join("libmetaroce_rtl.a").exists() {
        let staging = cache.with_extension(format!("tmp{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging).expect("the model cache directory");
        build_models(&root, &manifest_dir, &out_dir, &staging, &verilator);
        if std::fs::rename(&staging, &cache).is_err() {
            // Another build finished the same models first.
            assert!(cache.join("libmetaroce_rtl.a").exists(), "cannot move {} into place", staging.display());
            let _ = std::fs::remove_dir_all(&staging);
        }
        // Models of older sources are of no further use.
        for old in std::fs::read_dir(target_dir.join("metaroce-rtl")).into_iter().flatten().flatten() {
            if old.path() != cache && !old.path().to_string_lossy().contains(".tmp") {
                let _ = std::fs::remove_dir_all(old.path());
            }
        }
    }
    println!("cargo:rustc-link-search=native={}", cache.display());
    println!("cargo:rustc-link-lib=static=metaroce_rtl");
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=atomic");
    println!("cargo:rustc-link-lib=z");
}

/// What the models depend on: every file of rtl/, rtl_test/ and csrc/, the record
/// field table, this script, the Verilator version and the C++ compiler.
fn cache_key(root: &Path, manifest_dir: &Path, verilator: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for dir in [root.join("rtl"), manifest_dir.join("rtl_test"), manifest_dir.join("csrc")] {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(&dir).expect("source directory").flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            file.file_name().hash(&mut hasher);
            std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
        }
    }
    for file in ["src/rtl_fields.rs", "build.rs"].into_iter().chain(CC_TABLE_FILES) {
        std::fs::read(manifest_dir.join(file)).expect("build input").hash(&mut hasher);
    }
    let version = Command::new(verilator).arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    version.hash(&mut hasher);
    for var in ["CXX", "CXXFLAGS", "TARGET"] {
        std::env::var(var).unwrap_or_default().hash(&mut hasher);
    }
    hasher.finish()
}

/// Verilates every variant into `dir` and compiles them with the shim into
/// `dir/libmetaroce_rtl.a`.
fn build_models(root: &Path, manifest_dir: &Path, out_dir: &Path, dir: &Path, verilator: &str) {
    let verilator_root = verilator_root(verilator);
    let include = verilator_root.join("include");

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-fcf-protection=none")
        .include(&include)
        .include(include.join("vltstd"))
        .include(out_dir)
        .include(manifest_dir.join("csrc"));

    let mut globals = Vec::new();
    let mut switches: BTreeMap<String, String> = BTreeMap::new();
    for variant in VARIANTS {
        let mdir = dir.join(variant.prefix);
        let list = std::fs::read_to_string(root.join(variant.block.file_list)).expect("the block's source list");
        let sources: Vec<PathBuf> = variant
            .block
            .wrapper
            .map(|_| out_dir.join(format!("{}.v", variant.block.top)))
            .into_iter()
            .chain(
                list.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('+'))
                    .map(|s| root.join(s)),
            )
            .collect();
        let mut cmd = Command::new(verilator);
        cmd.args(COMMON_ARGS)
            .arg(format!("-I{}", root.join("rtl").display()))
            .args(["--top-module", variant.block.top])
            .args(variant.args)
            .args(variant.block.has_width.then(|| format!("-GDATA_WIDTH={}", variant.width)))
            .args(["--prefix", variant.prefix, "-Mdir"])
            .arg(&mdir)
            .args(&sources);
        run(&mut cmd);
        let classes = parse_classes_mk(&mdir.join(format!("{}_classes.mk", variant.prefix)));
        for key in ["VM_CLASSES_FAST", "VM_CLASSES_SLOW", "VM_SUPPORT_FAST", "VM_SUPPORT_SLOW"] {
            for name in classes.get(key).into_iter().flatten() {
                build.file(mdir.join(format!("{name}.cpp")));
            }
        }
        for key in ["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"] {
            globals.extend(classes.get(key).into_iter().flatten().cloned());
        }
        // The runtime is compiled once for all variants, so it gets each
        // feature any of them uses.
        for key in ["VM_COVERAGE", "VM_TRACE", "VM_TRACE_FST", "VM_TRACE_VCD", "VM_TIMING"] {
            if let Some(v) = classes.get(key).and_then(|v| v.first()) {
                let entry = switches.entry(key.to_string()).or_insert_with(|| "0".into());
                if v.as_str() > entry.as_str() {
                    *entry = v.clone();
                }
            }
        }
        build.include(&mdir);
    }
    globals.sort();
    globals.dedup();
    for name in &globals {
        build.file(include.join(format!("{name}.cpp")));
    }
    for (key, value) in &switches {
        build.define(key, value.as_str());
    }
    build.define("VM_SC", "0");
    for shim in ["sim_common.cpp", "parser_shim.cpp", "cn_shim.cpp", "pacer_shim.cpp", "pipeline_shim.cpp"] {
        build.file(manifest_dir.join("csrc").join(shim));
    }

    build.out_dir(dir).cargo_metadata(false).compile("metaroce_rtl");
}

fn verilator_root(verilator: &str) -> PathBuf {
    let out = Command::new(verilator).args(["--getenv", "VERILATOR_ROOT"]).output().unwrap_or_else(|e| {
        panic!(
            "cannot run `{verilator}` ({e}). The cosim needs Verilator 5.006: \
             `apt-get install verilator` as root, or `ci/setup.sh`."
        )
    });
    assert!(out.status.success(), "`{verilator} --getenv VERILATOR_ROOT` failed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!("{cmd:?} failed:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
}

/// Reads the `KEY = value` and `KEY += \` lists of a Verilator `_classes.mk`.
fn parse_classes_mk(path: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lists: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.is_empty() {
            current = None;
            continue;
        }
        if let Some((key, value)) = line.split_once("+=").or_else(|| line.split_once('=')) {
            let key = key.trim().to_string();
            let value = value.trim().trim_end_matches('\\').trim();
            let entry = lists.entry(key.clone()).or_default();
            if !value.is_empty() {
                entry.push(value.to_string());
            }
            current = line.ends_with('\\').then_some(key);
        } else if let Some(key) = &current {
            let value = line.trim_end_matches('\\').trim();
            if !value.is_empty() {
                lists.get_mut(key).unwrap().push(value.to_string());
            }
            if !line.ends_with('\\') {
                current = None;
            }
        }
    }
    lists
}

/// `parser_record.h` (C struct and copy macro) and `parser_record.rs`
/// (the same struct for Rust), from `PARSER_RECORD_FIELDS`.
fn generate_record_bindings(out_dir: &Path) {
    let mut h =
        String::from("// Generated by cosim/build.rs from src/rtl_fields.rs.\n#pragma once\n#include <cstdint>\n");
    h.push_str("struct mr_parser_record {\n    uint64_t cycle;\n");
    for f in PARSER_RECORD_FIELDS {
        if PARSER_WIDE_FIELDS.contains(f) {
            writeln!(h, "    uint64_t {f}_hi;\n    uint64_t {f}_lo;").unwrap();
        } else {
            writeln!(h, "    uint64_t {f};").unwrap();
        }
    }
    h.push_str("};\n#define MR_PARSER_RECORD_COPY(rec, top) do { \\\n");
    for f in PARSER_RECORD_FIELDS {
        if PARSER_WIDE_FIELDS.contains(f) {
            // A 128-bit port is four 32-bit words, word 0 the least significant.
            for (half, lo_word) in [("hi", 2), ("lo", 0)] {
                writeln!(
                    h,
                    "    (rec)->{f}_{half} = (uint64_t)(top)->m_meta_{f}[{}] << 32 | (top)->m_meta_{f}[{lo_word}]; \\",
                    lo_word + 1
                )
                .unwrap();
            }
        } else {
            writeln!(h, "    (rec)->{f} = (top)->m_meta_{f}; \\").unwrap();
        }
    }
    h.push_str("} while (0)\n");
    std::fs::write(out_dir.join("parser_record.h"), h).unwrap();

    let mut rs = String::from(
        "/// One record as the RTL drove it, every port widened to 64 bits\n\
         /// (generated by build.rs from `src/rtl_fields.rs`).\n\
         #[repr(C)]\n#[derive(Debug, Clone, Copy, Default)]\npub struct RtlParserRecord {\n    /// Cycle of the output handshake.\n    pub cycle: u64,\n",
    );
    for f in PARSER_RECORD_FIELDS {
        if PARSER_WIDE_FIELDS.contains(f) {
            writeln!(rs, "    pub {f}_hi: u64,\n    pub {f}_lo: u64,").unwrap();
        } else {
            writeln!(rs, "    pub {f}: u64,").unwrap();
        }
    }
    rs.push_str("}\n");
    std::fs::write(out_dir.join("parser_record.rs"), rs).unwrap();
}

/// `cc_config.h` (the C ABI struct and its bus packer) and `cc_config.rs`
/// (its Rust mirror) from the register table; warns when the checked-in
/// `rtl/metaroce_cfg.vh` the models are built from is stale.
fn generate_cc_config(root: &Path, out_dir: &Path) {
    std::fs::write(out_dir.join("cc_config.h"), cc_table::c_header()).unwrap();
    std::fs::write(out_dir.join("cc_config.rs"), cc_table::rust_ffi()).unwrap();
    let checked_in = std::fs::read_to_string(root.join("rtl/metaroce_cfg.vh")).unwrap_or_default();
    if checked_in != cc_table::verilog_include() {
        println!("cargo:warning=rtl/metaroce_cfg.vh is stale; regenerate it: {}", cc_table::CFG_VH_REGENERATE);
    }
}

/// `variants.h`: includes every model header and lists the variants for
/// the shim's factory, which instantiates the right template for each.
fn generate_variant_table(out_dir: &Path) {
    let mut h = String::from("// Generated by cosim/build.rs from VARIANTS.\n#pragma once\n");
    for v in VARIANTS {
        writeln!(h, "#include \"{}.h\"", v.prefix).unwrap();
    }
    for block in BLOCKS {
        writeln!(h, "#define {}(X) \\", block.table_macro).unwrap();
        for v in VARIANTS.iter().filter(|v| v.block.table_macro == block.table_macro) {
            let traced = v.args.contains(&"--trace-fst");
            let covered = v.args.contains(&"--coverage-line");
            writeln!(h, "    X({0}, \"{0}\", {1}, {2}, {3}) \\", v.prefix, v.width, traced, covered).unwrap();
        }
        h.push('\n');
    }
    std::fs::write(out_dir.join("variants.h"), h).unwrap();
}

/// The test-only bug model `roce_parser_bug` (`<top>.v` in OUT_DIR), so its
/// parameters and ports are rtl/roce_parser.v's own and cannot drift: the
/// parser's header copied, then an instance passing every port through
/// except those the hand-written body names `parser_<port>` (it drives or
/// reads them instead), then the body.
fn generate_bug_wrapper(root: &Path, manifest_dir: &Path, out_dir: &Path) -> PathBuf {
    let (wrapped, body_file) = (PARSER.top, PARSER_BUG.wrapper.expect("the bug model's body"));
    let source_path = root.join("rtl").join(format!("{wrapped}.v"));
    let source = std::fs::read_to_string(&source_path).unwrap_or_else(|e| panic!("{}: {e}", source_path.display()));
    let body_path = manifest_dir.join(body_file);
    let body = std::fs::read_to_string(&body_path).unwrap_or_else(|e| panic!("{}: {e}", body_path.display()));
    let opening = format!("module {wrapped} #(");
    let start = source.find(&opening).unwrap_or_else(|| panic!("{}: no `{opening}`", source_path.display()))
        + opening.len()
        - 2;
    let end = start
        + source[start..].find("\n);").unwrap_or_else(|| panic!("{}: no end of the port list", source_path.display()))
        + 3;
    let header = &source[start..end];
    let names: std::collections::BTreeSet<&str> =
        body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();

    let mut wires = String::new();
    let mut params = Vec::new();
    let mut ports = Vec::new();
    for line in header.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("parameter ") {
            let name = rest.split('=').next().and_then(|decl| decl.split_whitespace().last());
            params.push(format!("    .{0}({0})", name.expect("a parameter name")));
        } else if line.starts_with("input ") || line.starts_with("output ") {
            let words: Vec<&str> = line.trim_end_matches(',').split_whitespace().collect();
            let name = words[words.len() - 1];
            let tap = format!("parser_{name}");
            if names.contains(tap.as_str()) {
                let range = words[2..words.len() - 1].iter().map(|w| format!("{w} ")).collect::<String>();
                writeln!(wires, "wire {range}{tap};").unwrap();
                ports.push(format!("    .{name}({tap})"));
            } else {
                ports.push(format!("    .{name}({name})"));
            }
        }
    }
    let text = format!(
        "// Generated by cosim/build.rs from the ports of rtl/{wrapped}.v and\n\
         // cosim/{body_file}. TEST ONLY; do not edit.\n\
         `resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n\
         module {top} {header}\n\n{wires}\n{wrapped} #(\n{params}\n) parser_inst (\n{ports}\n);\n\n{body}\nendmodule\n\n`resetall\n",
        top = PARSER_BUG.top,
        params = params.join(",\n"),
        ports = ports.join(",\n"),
    );
    let path = out_dir.join(format!("{}.v", PARSER_BUG.top));
    std::fs::write(&path, text).unwrap();
    path
}
