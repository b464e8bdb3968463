//! The harness's own features, each against a failure it must catch: the
//! RTL build with deliberate bugs (`cosim/rtl_test/`) must give the
//! right report, waveform and JUnit failure; recordings must diff; runs
//! must split into jobs and shards; coverage must come out; and the
//! regression must pass whatever the RTL's random initial state.

mod common;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fst_reader::{FstFilter, FstHierarchyEntry, FstReader};
use metaroce_cosim::blocks::parser::cosim_capture;
use metaroce_cosim::capture::{write_capture, GenFrame};
use metaroce_cosim::harness::{CosimOptions, Ending};
use metaroce_cosim::report::{Divergence, DivergenceKind};
use metaroce_cosim::rtl::{Handshake, Model, ModelKind, DATA_WIDTHS};
use metaroce_cosim::run::with_wave;
use metaroce_cosim::stimuli::RoceFrame;
use metaroce_cosim::summary::{junit_xml, CosimSummary};
use metaroce_cosim::wave::WaveFormat;

fn buggy(seed: u64) -> CosimOptions {
    CosimOptions::new(
        Model { width: 64, kind: ModelKind::InjectedBug },
        Handshake { seed, idle_pct: 20, stall_pct: 20 },
    )
}

/// The first frame of opcodes.pcap with opcode 0x0A (RC RDMA WRITE Only).
const WRITE_ONLY_FRAME: u64 = 11;

fn divergence(ending: &Ending) -> &Divergence {
    match ending {
        Ending::Diverged(d) => d,
        other => panic!("expected a divergence, got {other:?}"),
    }
}

/// A capture of `opcodes` frames, one each.
fn capture_of(name: &str, opcodes: &[u8]) -> PathBuf {
    let path = common::scratch(name);
    let frames: Vec<GenFrame> =
        opcodes.iter().enumerate().map(|(i, &op)| GenFrame::ok(RoceFrame::new(op, i as u32).build())).collect();
    write_capture(&path, &frames).unwrap();
    path
}

#[test]
fn injected_bug_gives_a_first_divergence_report_naming_frame_and_field() {
    let seed = common::seed("injected bug");
    let capture = common::pcaps().join("opcodes.pcap");
    let run = cosim_capture(&capture, &buggy(seed));
    let d = divergence(&run.ending);
    assert_eq!(d.kind, DivergenceKind::Mismatch);
    assert_eq!(d.frame, WRITE_ONLY_FRAME);
    assert_eq!(d.diffs.len(), 1, "{d}");
    assert_eq!(d.diffs[0].field, "dest_qp");
    assert_eq!(run.frames_matched, WRITE_ONLY_FRAME - 1);
    let text = d.to_string();
    for needle in ["frame 11", "dest_qp", "last golden transactions", "last rtl transactions", "RTL cycle"] {
        assert!(text.contains(needle), "`{needle}` missing:\n{text}");
    }
    assert!(d.repro.contains(&format!("--seed {seed:#x}")) && d.repro.contains("--frames 1:11"), "{}", d.repro);
    assert_eq!(d.golden_last.last().unwrap().frame, WRITE_ONLY_FRAME);
    assert!(d.time_ns > 0);
    // The JSON form carries the same facts.
    let json = serde_json::to_value(d).unwrap();
    assert_eq!(json["kind"], "mismatch");
    assert_eq!(json["diffs"][0]["field"], "dest_qp");
}

#[test]
fn waveform_of_the_divergence_is_a_valid_fst_around_it() {
    let seed = common::seed("waveform");
    let capture = common::pcaps().join("opcodes.pcap");
    let wave = common::scratch("bug.fst");
    let (before, after) = (50, 10);
    let run = with_wave(|o| cosim_capture(&capture, o), &buggy(seed), &wave, WaveFormat::Fst, before, after);
    let d = divergence(&run.ending);
    assert_eq!((d.frame, d.kind), (WRITE_ONLY_FRAME, DivergenceKind::Mismatch));
    assert_eq!(run.wave.as_deref(), Some(wave.as_path()));

    let mut reader = FstReader::open_and_read_time_table(BufReader::new(File::open(&wave).unwrap())).unwrap();
    let header = reader.get_header();
    // Time unit: half a clock; cycle N is times 2N (clk low) and 2N+1.
    assert_eq!(header.start_time, 2 * (d.cycle - before), "{header:?}");
    assert_eq!(header.end_time, 2 * (d.cycle + after) + 1, "{header:?}");
    let mut names = Vec::new();
    reader
        .read_hierarchy(|entry| {
            if let FstHierarchyEntry::Var { name, .. } = entry {
                names.push(name);
            }
        })
        .unwrap();
    for port in ["clk", "s_axis_tdata", "m_meta_valid", "m_meta_dest_qp"] {
        // Vectors carry their range: `s_axis_tdata [63:0]`.
        assert!(names.iter().any(|n| n == port || n.starts_with(&format!("{port} "))), "{port} not in {names:?}");
    }
    let mut changes = 0usize;
    reader
        .read_signals(&FstFilter::all(), |_, _, _| -> Result<(), ()> {
            changes += 1;
            Ok(())
        })
        .unwrap();
    assert!(changes > 1000, "only {changes} value changes");
}

#[test]
fn junit_marks_the_failing_capture_and_attaches_the_waveform() {
    let seed = common::seed("junit");
    let good = cosim_capture(&common::pcaps().join("ecn_dscp.pcap"), &buggy(seed));
    assert!(good.passed(), "ecn_dscp.pcap has no 0x0A/0x0B/0x0C frames: {:?}", good.ending);
    let wave = common::scratch("junit.fst");
    let bad = with_wave(
        |o| cosim_capture(&common::pcaps().join("opcodes.pcap"), o),
        &buggy(seed),
        &wave,
        WaveFormat::Fst,
        20,
        5,
    );
    let runs = [good, bad];
    let xml = junit_xml(&runs);
    assert!(xml.contains(r#"tests="2" failures="1""#), "{xml}");
    assert!(xml.contains(r#"<failure type="mismatch""#), "{xml}");
    assert!(xml.contains("dest_qp"), "{xml}");
    assert!(xml.contains(&format!("[[ATTACHMENT|{}]]", wave.display())), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 2);
    assert_eq!(xml.matches("<failure ").count(), 1);

    let functional = Default::default();
    let summary = serde_json::to_value(CosimSummary::new(&runs, 1.0, &functional, None)).unwrap();
    assert_eq!(summary["failed_runs"], 1);
    assert_eq!(summary["runs"][1]["ending"], "mismatch");
    assert_eq!(summary["runs"][1]["divergence"]["frame"], WRITE_ONLY_FRAME);
}

#[test]
fn an_rtl_assertion_ends_the_run_as_such() {
    let capture = capture_of("assert.pcap", &[0x04, 0x0B, 0x04]);
    let run = cosim_capture(&capture, &buggy(common::seed("assertion")));
    let d = divergence(&run.ending);
    assert_eq!((d.kind, d.frame), (DivergenceKind::RtlAssertion, 2), "{d}");
    // Both the code-range and the code/class assertions catch it.
    assert!(d.detail.contains("error code"), "{}", d.detail);
    assert_eq!(run.ending.name(), "rtl_assertion");
}

#[test]
fn a_missing_record_ends_the_run_as_an_rtl_stall() {
    let capture = capture_of("stall.pcap", &[0x04, 0x0C]);
    let run = cosim_capture(&capture, &buggy(common::seed("stall")));
    let d = divergence(&run.ending);
    assert_eq!((d.kind, d.frame), (DivergenceKind::RtlStalled, 2), "{d}");
    assert_eq!(run.frames_matched, 1);
}

#[test]
fn the_regression_passes_whatever_the_rtl_initial_state() {
    // Each seed also randomises X assignments and initial register values
    // (Verilator --x-assign/--x-initial unique); three seeds, both widths.
    let base = common::seed("x randomisation");
    let captures = ["back_to_back.pcap", "frame_sizes.pcap", "errors/truncated_eth.pcap"];
    for k in 0..3u64 {
        for capture in captures {
            for width in DATA_WIDTHS {
                let seed = base.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let options = CosimOptions::new(Model::plain(width), Handshake { seed, idle_pct: 5, stall_pct: 5 });
                let run = cosim_capture(&common::pcaps().join(capture), &options);
                assert!(run.passed(), "{capture} w{width} seed {seed:#x}: {:?}", run.ending);
            }
        }
    }
}

fn metaroce(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_metaroce")).args(args).current_dir(common::workspace()).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn recordings_of_golden_and_rtl_diff_clean_and_an_edit_is_found() {
    let a = common::scratch("golden.rec");
    let b = common::scratch("rtl.rec");
    let capture = "pcaps/ipv6.pcap";
    for (model, path) in [("golden", &a), ("rtl", &b)] {
        let out =
            metaroce(&["replay", "--model", model, "--width", "512", "--record", path.to_str().unwrap(), capture]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let same = metaroce(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(same.status.success(), "{}", stdout(&same));
    assert!(stdout(&same).contains("recordings match"));

    // Change one field of transaction 7 in B: the diff names it.
    let text = std::fs::read_to_string(&b).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut t: serde_json::Value = serde_json::from_str(&lines[7]).unwrap();
    t["record"]["psn"] = serde_json::json!(123);
    lines[7] = t.to_string();
    let edited = common::scratch("edited.rec");
    std::fs::write(&edited, lines.join("\n") + "\n").unwrap();
    let differ = metaroce(&["diff", a.to_str().unwrap(), edited.to_str().unwrap()]);
    assert_eq!(differ.status.code(), Some(1));
    let report = stdout(&differ);
    assert!(report.contains("frame 7") && report.contains("psn") && report.contains("123"), "{report}");
    assert!(report.contains("reproduce: metaroce diff"), "{report}");

    // A recording that is not one is named.
    let bogus = common::scratch("bogus.rec");
    std::fs::write(&bogus, "{}\n").unwrap();
    let out = metaroce(&["diff", bogus.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bogus.rec: line 1"));
}

fn pass_lines(out: &Output) -> Vec<String> {
    stdout(out).lines().filter(|l| l.starts_with("PASS") || l.starts_with("FAIL")).map(String::from).collect()
}

#[test]
fn jobs_keep_the_order_and_shards_split_the_captures() {
    let serial = metaroce(&["cosim", "--seed", "9", "-j", "1", "pcaps/errors"]);
    let parallel = metaroce(&["cosim", "--seed", "9", "-j", "2", "pcaps/errors"]);
    assert!(serial.status.success() && parallel.status.success());
    assert_eq!(pass_lines(&serial), pass_lines(&parallel));
    let mut union = Vec::new();
    for k in 1..=3 {
        let shard = metaroce(&["cosim", "--seed", "9", "--shard", &format!("{k}/3"), "pcaps/errors"]);
        assert!(shard.status.success());
        let lines = pass_lines(&shard);
        assert!(!lines.is_empty());
        union.extend(lines);
    }
    union.sort();
    let mut all = pass_lines(&serial);
    all.sort();
    assert_eq!(union, all, "the shards together are the whole run, once");
}

#[test]
fn coverage_writes_lcov_and_a_per_module_summary() {
    let info = common::scratch("cov.info");
    let json = common::scratch("cov.json");
    let out = metaroce(&[
        "cosim",
        "pcaps/opcodes.pcap",
        "pcaps/errors",
        "--coverage",
        info.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    let lcov = std::fs::read_to_string(&info).unwrap();
    assert!(lcov.contains("SF:") && lcov.contains("roce_parser.v") && lcov.contains("DA:"), "{lcov}");
    let text = stdout(&out);
    assert!(text.contains("rtl coverage") && text.contains("roce_parser") && text.contains("toggle"), "{text}");
    let classes = metaroce_golden::ParseError::ALL.len();
    assert!(text.contains(&format!("functional: error classes: {classes}/{classes}")), "{text}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let modules = summary["rtl_coverage"].as_array().unwrap();
    let line = modules.iter().find(|m| m["module"] == "roce_parser" && m["kind"] == "line").unwrap();
    assert!(line["percent"].as_f64().unwrap() > 80.0, "{line}");
    assert!(summary["functional"]["opcodes"].as_object().unwrap().len() >= 38);
    assert!(Path::new(&info).exists());
}

#[test]
fn waveform_as_vcd_holds_the_same_window() {
    let seed = common::seed("vcd");
    let capture = common::pcaps().join("opcodes.pcap");
    let vcd = common::scratch("bug.vcd");
    let run = with_wave(|o| cosim_capture(&capture, o), &buggy(seed), &vcd, WaveFormat::Vcd, 30, 5);
    let d = divergence(&run.ending);
    assert_eq!(d.frame, WRITE_ONLY_FRAME);
    assert_eq!(run.wave.as_deref(), Some(vcd.as_path()));
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.contains("$enddefinitions $end"), "no VCD header");
    assert!(text.contains(" m_meta_dest_qp $end") && text.contains("$scope module"), "signals missing");
    let times: Vec<u64> = text.lines().filter_map(|l| l.strip_prefix('#')?.parse().ok()).collect();
    assert_eq!(times.first(), Some(&(2 * (d.cycle - 30))));
    assert_eq!(times.last(), Some(&(2 * (d.cycle + 5) + 1)));
    assert!(!vcd.with_extension("vcd.fst").exists(), "the intermediate FST is removed");
}
