//! RTL hygiene: Verilator -Wall lint at every legal DATA_WIDTH, refusal of
//! illegal widths at elaboration, and Yosys synthesis (generic and Xilinx)
//! with no latches and no combinational loops at 64 and 512 bits.

mod common;

use std::process::Command;

/// The parser's source list, as rtl/parser.f gives it.
fn parser_sources() -> Vec<String> {
    let list = std::fs::read_to_string(common::workspace().join("rtl/parser.f")).unwrap();
    list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")).map(String::from).collect()
}

fn verilator_lint(width: u32) -> std::process::Output {
    Command::new("verilator")
        .args(["--lint-only", "-Wall", &format!("-GDATA_WIDTH={width}"), "--top-module", "roce_parser"])
        .args(parser_sources())
        .current_dir(common::workspace())
        .output()
        .expect("verilator runs (apt-get install verilator, or ci/setup.sh)")
}

#[test]
fn verilator_lint_is_clean_at_every_legal_width() {
    for width in [64, 128, 256, 512] {
        let out = verilator_lint(width);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !stderr.contains("%Warning"), "DATA_WIDTH {width}:\n{stderr}");
    }
}

#[test]
fn illegal_widths_are_refused_at_elaboration() {
    for width in [32, 96, 1024] {
        let out = Command::new("verilator")
            .args(["--cc", "-Mdir"])
            .arg(std::env::temp_dir().join(format!("metaroce-badwidth-{width}-{}", std::process::id())))
            .args([&format!("-GDATA_WIDTH={width}"), "--top-module", "roce_parser"])
            .args(parser_sources())
            .current_dir(common::workspace())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains("DATA_WIDTH must be"), "DATA_WIDTH {width}:\n{stderr}");
    }
}

#[test]
fn yosys_synthesizes_without_latches_or_loops() {
    // Generic gates (flattened) and Xilinx 7-series cells, at both widths.
    // The Xilinx flow stays hierarchical: flattened, its mapping takes far
    // longer (ci/synth-report.sh records both).
    let sources = parser_sources().join(" ");
    let flows = [("synth", "-flatten"), ("synth_xilinx", "")];
    let runs: Vec<_> = flows
        .iter()
        .flat_map(|&flow| [64u32, 512].map(move |width| (flow, width)))
        .map(|((flow, options), width)| {
            let script = format!(
                "read_verilog {sources}; chparam -set DATA_WIDTH {width} roce_parser; {flow} -top roce_parser {options}; \
                 check -assert; select -assert-none t:$dlatch t:$_DLATCH_* t:LDCE t:LDPE; stat"
            );
            let child = Command::new("yosys")
                .args(["-q", "-p", &script])
                .current_dir(common::workspace())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("yosys runs (apt-get install yosys, or ci/setup.sh)");
            (flow, width, child)
        })
        .collect();
    for (flow, width, child) in runs {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "yosys {flow} at DATA_WIDTH {width}:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}
