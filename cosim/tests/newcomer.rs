//! A newcomer's first own capture (issue 19): CE-marked RC WRITEs from
//! several senders to one NIC, with no NIC file. Replay says which QPs it
//! cannot answer and how to fix it; `metaroce nic init` writes the NIC
//! file; then golden model and RTL give the same CNPs, and more than none.

mod common;

use std::path::{Path, PathBuf};

use common::{metaroce, scratch, text};
use metaroce_cosim::capture::{write_capture, GenFrame};
use metaroce_cosim::stimuli::RoceFrame;
use serde_json::Value;

const RC_WRITE_ONLY: u8 = 0x0A;
const RC_ACK: u8 = 0x11;
const RECEIVER: u8 = 1;
const SENDERS: [u8; 4] = [2, 3, 4, 5];
/// The receiver's QP of sender `h`, and the sender's own.
fn receiver_qp(h: u8) -> u32 {
    15 + u32::from(h)
}
fn sender_qp(h: u8) -> u32 {
    0x300 + u32::from(h)
}

/// Four senders' WRITEs (every third CE-marked) and the receiver's ACKs.
fn incast_capture(path: &Path) {
    write_incast(path, true);
}

/// The WRITEs, and the ACKs when `acks`.
fn write_incast(path: &Path, acks: bool) {
    let mut frames = Vec::new();
    let mut time = 1_700_000_000_000_000_000u64;
    for n in 0..150u32 {
        for &h in &SENDERS {
            let psn = 1000 * u32::from(h) + n;
            let mut write = RoceFrame::new(RC_WRITE_ONLY, psn).with_payload(256, psn);
            write.hosts = (h, RECEIVER);
            write.bth.dest_qp = receiver_qp(h);
            write.bth.psn = psn;
            write.ecn = if (n + u32::from(h)) % 3 == 0 { 3 } else { 2 };
            frames.push(GenFrame::at(time, write.build()));
            time += 700;
            if !acks {
                continue;
            }
            let mut ack = RoceFrame::new(RC_ACK, psn);
            ack.hosts = (RECEIVER, h);
            ack.bth.dest_qp = sender_qp(h);
            ack.bth.psn = psn;
            frames.push(GenFrame::at(time, ack.build()));
            time += 300;
        }
    }
    write_capture(path, &frames).unwrap();
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = metaroce(args);
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn unknown_qps_are_named_then_nic_init_gives_cnps_in_both_models() {
    let capture: PathBuf = scratch("incast4.pcap");
    incast_capture(&capture);
    let nic = capture.with_extension("nic.json");

    // Without a NIC file: records on stdout, one warning on stderr.
    let (ok, stdout, stderr) = run(&["replay", arg(&capture), "--block", "cn"]);
    assert!(ok, "{stderr}");
    assert!(stdout.is_empty(), "no CNP without a QP table: {stdout}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    let warning = warnings[0];
    assert!(warning.contains("QP(s) 17, 18, 19, 20 not in the NIC's QP table"), "{warning}");
    assert!(warning.contains(&format!("metaroce nic init {} -o {}", arg(&capture), arg(&nic))), "{warning}");

    // And cosim, once per capture, on the run line and in the JSON.
    let json = scratch("incast4-before.json");
    let (_, stdout, stderr) =
        run(&["cosim", arg(&capture), "--width", "64", "--seed", "1", "--block", "all", "--json", arg(&json)]);
    assert_eq!(stdout.matches("warning:").count(), 1, "{stdout}{stderr}");
    assert!(stdout.contains("frame(s) unanswered by the NIC setup"), "{stdout}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let warnings = summary["nic_warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0]["unanswered_frames"].as_u64().unwrap() > 0);

    // nic init: the receiver's MAC, each QP with the sender's QP from the ACKs.
    let (ok, stdout, stderr) = run(&["nic", "init", arg(&capture), "-o", arg(&nic)]);
    assert!(ok, "{stdout}{stderr}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&nic).unwrap()).unwrap();
    assert_eq!(file["local_mac"], "02:00:00:00:00:01");
    let qps: Vec<(u64, u64)> = file["qps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["local"].as_u64().unwrap(), q["remote"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(u64, u64)> =
        SENDERS.iter().map(|&h| (u64::from(receiver_qp(h)), u64::from(sender_qp(h)))).collect();
    assert_eq!(qps, expected);
    let cc = file["cc"].as_object().unwrap();
    assert_eq!(cc["comment"].as_array().unwrap().len(), cc.len() - 1, "a source for every parameter");

    // cosim reads it back: CNPs, golden and RTL identical, no warning.
    let (ok, stdout, stderr) =
        run(&["cosim", arg(&capture), "--width", "64", "--seed", "2", "--block", "cn", "--json", arg(&json)]);
    assert!(ok, "{stdout}{stderr}");
    assert!(!stdout.contains("warning"), "{stdout}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cnps = summary["runs"][0]["cn"]["cnps"].as_u64().unwrap();
    assert!(cnps > 0, "{stdout}");
    let golden = run(&["replay", arg(&capture), "--block", "cn"]);
    let rtl = run(&["replay", arg(&capture), "--block", "cn", "--model", "rtl", "--width", "64"]);
    assert!(golden.0 && rtl.0, "{}{}", golden.2, rtl.2);
    assert_eq!(golden.1, rtl.1);
    assert_eq!(golden.1.lines().filter(|l| l.contains("\"event\":\"cnp\"")).count() as u64, cnps, "{}", golden.1);
    assert!(!golden.2.contains("warning"), "{}", golden.2);
}

#[test]
fn nic_init_names_a_missing_or_broken_capture() {
    let missing = scratch("missing.pcap");
    let out = metaroce(&["nic", "init", arg(&missing)]);
    assert!(!out.status.success());
    assert!(text(&out).contains(arg(&missing)), "{}", text(&out));

    let broken = scratch("broken.pcap");
    incast_capture(&broken);
    let bytes = std::fs::read(&broken).unwrap();
    std::fs::write(&broken, &bytes[..bytes.len() - 7]).unwrap();
    let out = metaroce(&["nic", "init", arg(&broken)]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(said.contains(arg(&broken)) && said.contains("frame 1200"), "{said}");
    assert!(!said.contains("panicked"), "{said}");
}

#[test]
fn a_local_mac_no_frame_carries_is_said() {
    let capture = scratch("incast4-stray-mac.pcap");
    incast_capture(&capture);
    let (ok, stdout, stderr) = run(&["replay", arg(&capture), "--block", "cn", "--local-mac", "02:00:00:00:00:09"]);
    assert!(ok && stdout.is_empty(), "{stdout}{stderr}");
    assert!(stderr.contains("none of its 1200 RoCE frame(s) is to or from local_mac 02:00:00:00:00:09"), "{stderr}");
}

#[test]
fn without_the_other_direction_nic_init_writes_placeholders_that_still_give_cnps() {
    let capture = scratch("incast4-no-acks.pcap");
    write_incast(&capture, false);
    let nic = capture.with_extension("nic.json");
    let (ok, stdout, stderr) = run(&["nic", "init", arg(&capture), "-o", arg(&nic)]);
    assert!(ok && stdout.contains("4 QP context(s), 4 with a placeholder remote QP"), "{stdout}{stderr}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&nic).unwrap()).unwrap();
    for qp in file["qps"].as_array().unwrap() {
        assert_eq!(qp["remote"], 0xFF_FFFF);
        assert!(qp["comment"].as_str().unwrap().contains("PLACEHOLDER"), "{qp}");
    }
    let json = scratch("incast4-no-acks.json");
    let (ok, stdout, stderr) =
        run(&["cosim", arg(&capture), "--width", "64", "--seed", "3", "--block", "cn", "--json", arg(&json)]);
    assert!(ok && !stdout.contains("warning"), "{stdout}{stderr}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(summary["runs"][0]["cn"]["cnps"].as_u64().unwrap() > 0, "{stdout}");
}
