//! RTL hygiene: Verilator -Wall lint of every block at every legal
//! DATA_WIDTH (assertions on and off), of the pacer at its extreme
//! geometries and of the test-only bug model, no test hooks in rtl/,
//! refusal of illegal parameters at elaboration, Yosys synthesis with no
//! latches and no combinational loops, Icarus Verilog compiling every
//! block, and the state RAM's ECP5 block RAM form reading as the inferred
//! one.

mod common;

use std::process::Command;

/// Every block with a DATA_WIDTH: its top module and source list (top first).
const BLOCKS: [(&str, &str); 3] =
    [("roce_parser", "rtl/parser.f"), ("roce_cn", "rtl/cn.f"), ("roce_pipeline", "rtl/pipeline.f")];

/// The pacer's geometries: default, smallest, largest.
const PACER_GEOMETRIES: [&[&str]; 3] = [
    &[],
    &["-GQP_COUNT=1", "-GSLOT_COUNT=2", "-GSLOT_SHIFT=0", "-GDESC_COUNT=2"],
    &["-GQP_COUNT=65536", "-GSLOT_COUNT=1024", "-GSLOT_SHIFT=20", "-GDESC_COUNT=65536"],
];

/// A block's source files, as its `.f` file lists them (without its
/// `+incdir+` line, which the tools here get as `-Irtl`).
fn sources(list: &str) -> Vec<String> {
    let list = std::fs::read_to_string(common::workspace().join(list)).unwrap();
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('+'))
        .map(String::from)
        .collect()
}

/// Verilator in the workspace, finding rtl/'s includes (`metaroce_defs.vh`).
fn verilator() -> Command {
    let mut cmd = Command::new("verilator");
    cmd.arg("-Irtl").current_dir(common::workspace());
    cmd
}

fn verilator_lint(top: &str, sources: &[String], params: &[String], assertions: bool) -> std::process::Output {
    let mut cmd = verilator();
    cmd.args(["--lint-only", "-Wall", "--top-module", top]).args(params);
    if assertions {
        cmd.arg("+define+METAROCE_ASSERTIONS");
    }
    cmd.args(sources).output().expect("verilator runs (apt-get install verilator, or ci/setup.sh)")
}

#[test]
fn verilator_lint_is_clean_at_every_legal_width() {
    for (top, list) in BLOCKS {
        for width in [64, 128, 256, 512] {
            for assertions in [false, true] {
                let out = verilator_lint(top, &sources(list), &[format!("-GDATA_WIDTH={width}")], assertions);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.status.success() && !stderr.contains("%Warning"),
                    "{top} DATA_WIDTH {width} assertions {assertions}:\n{stderr}"
                );
            }
        }
    }
}

#[test]
fn the_pacer_lints_clean_at_its_extreme_geometries() {
    for geometry in PACER_GEOMETRIES {
        for assertions in [false, true] {
            let params: Vec<String> = geometry.iter().map(|p| p.to_string()).collect();
            let out = verilator_lint("roce_pacer", &sources("rtl/pacer.f"), &params, assertions);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success() && !stderr.contains("%Warning"), "{geometry:?} {assertions}:\n{stderr}");
        }
    }
}

#[test]
fn the_test_only_bug_model_lints_clean() {
    // As the build generates it (cosim/build.rs) around rtl_test/roce_parser_bug.vh.
    let generated = env!("METAROCE_PARSER_BUG_V").to_string();
    let files: Vec<String> = std::iter::once(generated).chain(sources("rtl/parser.f")).collect();
    for assertions in [false, true] {
        let out = verilator_lint("roce_parser_bug", &files, &[], assertions);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !stderr.contains("%Warning"), "assertions {assertions}:\n{stderr}");
    }
}

#[test]
fn synthesizable_sources_carry_no_test_hooks() {
    // Only the simulation assertions may be compiled in or out (and an
    // include guard, `ifndef <FILE>_VH); test-only logic (the deliberate
    // bugs) lives in cosim/rtl_test/.
    for entry in std::fs::read_dir(common::workspace().join("rtl")).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_start();
            let guard = line.strip_prefix("`ifndef").is_some_and(|name| name.trim().ends_with("_VH"));
            if let Some(name) = line.strip_prefix("`ifdef").or_else(|| line.strip_prefix("`ifndef")) {
                // __ICARUS__: a parameter check's form for Icarus Verilog 11,
                // which has no elaboration-time $error. METAROCE_ECP5: the
                // ECP5 primitives' forms (ci/timing.sh), a target's choice.
                let allowed = ["METAROCE_ASSERTIONS", "__ICARUS__", "METAROCE_ECP5"].contains(&name.trim());
                assert!(guard || allowed, "{}:{}: {line}", entry.path().display(), n + 1);
            }
        }
    }
}

#[test]
fn illegal_pacer_geometries_are_refused_at_elaboration() {
    for (param, message) in [
        // The rule is the name of a module that does not exist (Icarus
        // Verilog 11 has no elaboration-time $error).
        ("-GSLOT_COUNT=3", "SLOT_COUNT_must_be"),
        ("-GDESC_COUNT=1000", "DESC_COUNT_must_be"),
        ("-GSLOT_SHIFT=21", "SLOT_SHIFT_must_be"),
        ("-GQP_COUNT=0", "QP_COUNT_must_be"),
    ] {
        let out = verilator()
            .args(["--cc", "-Mdir"])
            .arg(std::env::temp_dir().join(format!("metaroce-badpacer-{}-{}", &param[2..6], std::process::id())))
            .args([param, "--top-module", "roce_pacer"])
            .args(sources("rtl/pacer.f"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(message), "{param}:\n{stderr}");
    }
}

#[test]
fn illegal_widths_are_refused_at_elaboration() {
    for (top, list) in BLOCKS {
        for width in [32, 96, 1024] {
            let out = verilator()
                .args(["--cc", "-Mdir"])
                .arg(std::env::temp_dir().join(format!("metaroce-badwidth-{top}-{width}-{}", std::process::id())))
                .args([&format!("-GDATA_WIDTH={width}"), "--top-module", top])
                .args(sources(list))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            // A `$error` names the rule in words; a check Icarus Verilog 11
            // also takes (roce_parser.v) names it in the missing module's name.
            assert!(
                !out.status.success()
                    && (stderr.contains("DATA_WIDTH must be") || stderr.contains("DATA_WIDTH_must_be")),
                "{top} DATA_WIDTH {width}:\n{stderr}"
            );
        }
    }
}

#[test]
fn yosys_synthesizes_without_latches_or_loops() {
    // The parser to generic gates (flattened) and to Xilinx 7-series cells,
    // the congestion-notification block to Xilinx cells only: there its
    // per-QP RAMs become block RAMs, where a generic flow would turn them
    // into hundreds of thousands of flip-flops. The Xilinx flow stays
    // hierarchical: flattened, its mapping takes far longer
    // (ci/synth-report.sh records the figures).
    // The whole top maps to Xilinx cells at 64 bits: it holds the three
    // blocks, so it is their check at 64 bits (`check` and the latch select
    // see every module of the hierarchy); the width-generic blocks map
    // again at 512 bits.
    let runs = [
        ("roce_parser", "rtl/parser.f", "synth", "-flatten", 64),
        ("roce_parser", "rtl/parser.f", "synth", "-flatten", 512),
        ("roce_parser", "rtl/parser.f", "synth_xilinx", "", 512),
        ("roce_cn", "rtl/cn.f", "synth_xilinx", "", 512),
        ("roce_pipeline", "rtl/pipeline.f", "synth_xilinx", "", 64),
    ];
    let children: Vec<_> = runs
        .iter()
        .map(|&(top, list, flow, options, width)| {
            let chparam = if width == 0 { String::new() } else { format!("chparam -set DATA_WIDTH {width} {top}; ") };
            let script = format!(
                "read_verilog {}; {chparam}{flow} -top {top} {options}; \
                 check -assert; select -assert-none t:$dlatch t:$_DLATCH_* t:LDCE t:LDPE; stat",
                sources(list).join(" ")
            );
            let child = Command::new("yosys")
                .args(["-q", "-p", &script])
                .current_dir(common::workspace())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("yosys runs (apt-get install yosys, or ci/setup.sh)");
            (top, flow, width, child)
        })
        .collect();
    for (top, flow, width, child) in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "yosys {flow} of {top} at DATA_WIDTH {width}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn icarus_verilog_compiles_every_block() {
    // Icarus Verilog 11 (`iverilog -g2012 -f LIST`, as a user runs it from
    // the workspace root), the simulator of most open testbenches (cocotb):
    // every source list compiles at 64 and 512 bits,
    // and its time 0 runs without a parameter check firing. Without
    // METAROCE_ASSERTIONS: the assertions report through a DPI-C import of
    // the cosim harness, which Icarus has not.
    let runs = BLOCKS.iter().flat_map(|&(top, list)| [(top, list, 64), (top, list, 512)]);
    let mut failures = Vec::new();
    for (top, list, width) in runs.chain([("roce_pacer", "rtl/pacer.f", 0)]) {
        let vvp = common::scratch(&format!("{top}-{width}.vvp"));
        let mut cmd = Command::new("iverilog");
        cmd.args(["-g2012", "-s", top, "-o"]).arg(&vvp).current_dir(common::workspace());
        if width != 0 {
            cmd.arg(format!("-P{top}.DATA_WIDTH={width}"));
        }
        let out = cmd.args(["-f", list]).output().expect("iverilog runs (apt-get install iverilog, or ci/setup.sh)");
        if !out.status.success() {
            failures.push(format!("iverilog -g2012 of {top} ({list}) at DATA_WIDTH {width}:\n{}", common::text(&out)));
            continue;
        }
        let run = Command::new("vvp").arg("-n").arg(&vvp).output().expect("vvp runs");
        if !run.status.success() || common::text(&run).contains("FATAL") {
            failures.push(format!("vvp of {top} at DATA_WIDTH {width}:\n{}", common::text(&run)));
        }
    }
    assert!(failures.is_empty(), "Icarus Verilog 11 refuses:\n{}", failures.join("\n"));
}

#[test]
fn the_ecp5_block_ram_form_reads_as_the_inferred_one() {
    // qp_state_ram.v with OUTPUT_REG 1 as simulators build it and in its
    // METAROCE_ECP5 form (DP16KD primitives with their output register,
    // over the test-only model cosim/rtl_test/ecp5_dp16kd.v), in each of
    // the DP16KD's widths (the pacer's QP words in x4, its live bits in x1):
    // the same read data every cycle of a random run
    // (cosim/rtl_test/qp_state_ram_tb.v).
    const CYCLES: usize = 20000;
    let configs: [(usize, usize, usize, usize); 5] =
        [(40, 4096, 4, 10), (1, 4096, 0, 1), (6, 8192, 2, 3), (16, 2048, 8, 2), (18, 1024, 0, 1)];
    for (width, depth, column, dp16kds) in configs {
        let run = |ecp5: bool| {
            let vvp = common::scratch(&format!("qp_state_ram-{width}-{depth}-{column}-{ecp5}.vvp"));
            let mut cmd = Command::new("iverilog");
            cmd.args(["-g2012", "-s", "qp_state_ram_tb", "-o"]).arg(&vvp).current_dir(common::workspace());
            if ecp5 {
                cmd.arg("-DMETAROCE_ECP5");
            }
            for (name, value) in [("WIDTH", width), ("DEPTH", depth), ("COLUMN_WIDTH", column), ("CYCLES", CYCLES)] {
                cmd.arg(format!("-Pqp_state_ram_tb.{name}={value}"));
            }
            cmd.args(["cosim/rtl_test/qp_state_ram_tb.v", "rtl/qp_state_ram.v", "cosim/rtl_test/ecp5_dp16kd.v"]);
            let out = cmd.output().expect("iverilog runs (apt-get install iverilog, or ci/setup.sh)");
            assert!(out.status.success(), "iverilog of qp_state_ram_tb:\n{}", common::text(&out));
            let run = Command::new("vvp").arg("-n").arg(&vvp).output().expect("vvp runs");
            let text = common::text(&run);
            assert!(run.status.success() && !text.contains("FATAL"), "vvp of qp_state_ram_tb:\n{text}");
            text
        };
        let (inferred, ecp5) = (run(false), run(true));
        let config = format!("WIDTH {width} DEPTH {depth} COLUMN_WIDTH {column}");
        let (primitives, ecp5_reads): (Vec<&str>, Vec<&str>) =
            ecp5.lines().partition(|l| l.starts_with("DP16KD model"));
        assert_eq!(primitives.len(), dp16kds, "{config}: DP16KD columns in the METAROCE_ECP5 form");
        let inferred_reads: Vec<&str> = inferred.lines().collect();
        assert_eq!(inferred_reads.len(), CYCLES, "{config}: cycles printed");
        if let Some((a, b)) = inferred_reads.iter().zip(&ecp5_reads).find(|(a, b)| a != b) {
            panic!("{config}: cycle and read data, inferred {a}, METAROCE_ECP5 {b}");
        }
        assert_eq!(inferred_reads.len(), ecp5_reads.len(), "{config}: cycles printed");
    }
}
