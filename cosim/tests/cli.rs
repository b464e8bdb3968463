//! The `metaroce` command as a user runs it: exit codes, messages on bad
//! input, replay output, and `gen` reproducing pcaps/.

mod common;

use common::{metaroce, text};

use std::path::Path;
use std::process::Output;

fn assert_clean_failure(out: &Output, needles: &[&str]) {
    let all = text(out);
    assert_eq!(out.status.code(), Some(1), "exit code, output:\n{all}");
    assert!(!all.contains("panicked"), "panic:\n{all}");
    for needle in needles {
        assert!(all.contains(needle), "`{needle}` missing from:\n{all}");
    }
}

#[test]
fn cosim_of_pcaps_passes_and_summarises() {
    let out = metaroce(&["cosim", "--seed", "0x5eed"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let summary = all.lines().last().unwrap();
    assert!(summary.starts_with("cosim: ") && summary.contains("matched") && summary.contains("frames/s"), "{summary}");
    assert!(!all.contains("FAIL"), "{all}");
}

#[test]
fn replay_prints_identical_jsonl_from_golden_and_rtl_for_every_capture() {
    for capture in common::captures() {
        let path = capture.to_str().unwrap();
        let golden = metaroce(&["replay", "--model", "golden", "--format", "jsonl", path]);
        assert!(golden.status.success(), "{}", text(&golden));
        for width in ["64", "512"] {
            let rtl = metaroce(&["replay", "--model", "rtl", "--width", width, "--format", "jsonl", path]);
            assert!(rtl.status.success(), "{}", text(&rtl));
            assert_eq!(golden.stdout, rtl.stdout, "{path} at width {width}");
        }
    }
}

#[test]
fn replay_jsonl_has_the_documented_keys() {
    let out = metaroce(&["replay", "pcaps/external/rc_read_request_reth.pcap"]);
    assert!(out.status.success(), "{}", text(&out));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = [
        "frame",
        "class",
        "error",
        "vlan_id",
        "ip_version",
        "dscp",
        "ecn",
        "udp_sport",
        "udp_dport",
        "opcode",
        "se",
        "mig_req",
        "pad_cnt",
        "tver",
        "pkey",
        "fecn",
        "becn",
        "dest_qp",
        "ack_req",
        "psn",
        "icrc",
        "icrc_ok",
        "payload_len",
        "reth_va",
        "reth_rkey",
        "reth_dma_len",
        "aeth_syndrome",
        "aeth_msn",
        "imm_data",
        "ieth_rkey",
        "deth_qkey",
        "deth_src_qp",
        "atomic_va",
        "atomic_rkey",
        "atomic_swap_add",
        "atomic_compare",
        "atomic_ack_orig",
    ];
    for key in keys {
        assert!(line.get(key).is_some(), "key {key} missing: {line}");
    }
    assert_eq!(line["frame"], 1);
    assert_eq!(line["class"], "roce");
    assert_eq!(line["error"], serde_json::Value::Null);
    assert_eq!(line["opcode"], 12);
    assert_eq!(line["dest_qp"], 0x11);
    assert_eq!(line["psn"], 5_557_091);
    assert_eq!(line["icrc"], 0x08C6_154A);
    assert_eq!(line["aeth_msn"], serde_json::Value::Null);
}

#[test]
fn replay_text_is_one_line_per_frame() {
    let out = metaroce(&["replay", "--format", "text", "--model", "rtl", "pcaps/opcodes.pcap"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 38);
    assert!(stdout.lines().all(|l| l.contains("class=roce")), "{stdout}");
}

#[test]
fn a_missing_file_is_named() {
    for cmd in [&["cosim", "no/such.pcap"][..], &["replay", "no/such.pcap"]] {
        assert_clean_failure(&metaroce(cmd), &["no/such.pcap"]);
    }
}

#[test]
fn a_file_that_is_not_a_capture_is_named() {
    let path = common::scratch("notes.pcap");
    std::fs::write(&path, "this is not a capture\n").unwrap();
    let p = path.to_str().unwrap();
    assert_clean_failure(&metaroce(&["replay", p]), &[p, "not a pcap or pcapng capture"]);
    assert_clean_failure(&metaroce(&["cosim", p]), &[p, "not a pcap or pcapng capture"]);
    let tiny = common::scratch("tiny.pcap");
    std::fs::write(&tiny, [0xD4, 0xC3]).unwrap();
    assert_clean_failure(&metaroce(&["replay", tiny.to_str().unwrap()]), &["tiny.pcap", "only 2 bytes"]);
}

#[test]
fn a_truncated_capture_names_the_frame_after_reporting_the_ones_before() {
    let original = std::fs::read(common::pcaps().join("opcodes.pcap")).unwrap();
    let path = common::scratch("truncated.pcap");
    // Cut inside the fourth record: three frames survive.
    let mut offset = 24;
    for _ in 0..3 {
        let caplen = u32::from_le_bytes(original[offset + 8..offset + 12].try_into().unwrap()) as usize;
        offset += 16 + caplen;
    }
    std::fs::write(&path, &original[..offset + 20]).unwrap();
    let p = path.to_str().unwrap();
    let out = metaroce(&["replay", p]);
    assert_clean_failure(&out, &[p, "frame 4"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3, "the three whole frames are reported");
    let out = metaroce(&["cosim", p, "--width", "64"]);
    assert_clean_failure(&out, &[p, "frame 4", "3 frame(s) read, 3 matched"]);
}

#[test]
fn a_capture_of_another_link_type_is_refused() {
    let mut bytes = std::fs::read(common::pcaps().join("opcodes.pcap")).unwrap();
    bytes[20..24].copy_from_slice(&101u32.to_le_bytes()); // LINKTYPE_RAW
    let path = common::scratch("raw_ip.pcap");
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_str().unwrap();
    assert_clean_failure(&metaroce(&["replay", p]), &[p, "not Ethernet"]);
}

#[test]
fn bad_flag_values_are_refused_without_a_panic() {
    for args in [
        &["cosim", "--width", "100"][..],
        &["cosim", "--seed", "banana"],
        &["cosim", "--idle", "200"],
        &["cosim", "--frames", "0:3"],
        &["replay", "--model", "fpga", "x.pcap"],
    ] {
        let out = metaroce(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(!text(&out).contains("panicked"), "{args:?}: {}", text(&out));
    }
}

#[test]
fn gen_reproduces_the_committed_captures() {
    let scratch_dir = common::scratch("gen");
    let stale = metaroce_cosim::catalog::stale_captures(&common::pcaps(), &scratch_dir).unwrap();
    assert!(stale.is_empty(), "pcaps/ differs from `metaroce gen` for {stale:?}: run `metaroce gen`");
    let out = metaroce(&["gen", "--out", scratch_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(Path::new(&scratch_dir).join("errors/bad_icrc.pcap").exists());
}
