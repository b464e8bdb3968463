//! The regression on many machines (issue 19): three shards run here, then
//! `metaroce report merge`, equal the unsharded run testcase for testcase
//! (timings aside); a missing or foreign shard is refused by name.

mod common;

use std::path::{Path, PathBuf};

use common::{metaroce, pcaps, scratch, text};
use serde_json::Value;

/// A few small captures, parser and CN ones (one with a NIC file).
fn captures() -> Vec<String> {
    [
        "pad_cnt.pcap",
        "non_roce.pcap",
        "ipv4_options.pcap",
        "vlan.pcap",
        "ecn_dscp.pcap",
        "cn/sim_incast4_metaroce_sender.pcap",
    ]
    .iter()
    .map(|name| pcaps().join(name).to_string_lossy().into_owned())
    .collect()
}

fn cosim(name: &str, shard: Option<&str>) -> (PathBuf, PathBuf) {
    let (json, junit) = (scratch(&format!("{name}.json")), scratch(&format!("{name}.xml")));
    let mut args: Vec<String> = vec!["cosim".into()];
    args.extend(captures());
    args.extend(["--width", "64", "--seed", "0x5eed", "-j", "1"].map(String::from));
    args.extend(["--json".into(), json.to_string_lossy().into(), "--junit".into(), junit.to_string_lossy().into()]);
    if let Some(shard) = shard {
        args.extend(["--shard".into(), shard.into()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = metaroce(&args);
    assert!(out.status.success(), "{}", text(&out));
    (json, junit)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The summary without wall-clock times.
fn untimed(mut summary: Value) -> Value {
    for run in summary["runs"].as_array_mut().unwrap() {
        run.as_object_mut().unwrap().remove("seconds");
    }
    let top = summary.as_object_mut().unwrap();
    top.remove("seconds");
    top.remove("frames_per_second");
    summary
}

/// JUnit without `time="..."` attributes.
fn untimed_xml(path: &Path) -> String {
    let xml = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    let mut rest = xml.as_str();
    while let Some(at) = rest.find(" time=\"") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 7..];
        rest = &after[after.find('"').unwrap() + 1..];
    }
    out + rest
}

fn merge(shards: &[&Path], name: &str) -> (bool, String, PathBuf, PathBuf) {
    let (json, junit) = (scratch(&format!("{name}.json")), scratch(&format!("{name}.xml")));
    let mut args = vec!["report", "merge"];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--json", json.to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    let out = metaroce(&args);
    (out.status.success(), text(&out), json, junit)
}

#[test]
fn merged_shards_equal_the_unsharded_run_and_strays_are_refused() {
    let (full_json, full_junit) = cosim("full", None);
    let shards: Vec<(PathBuf, PathBuf)> =
        (1..=3).map(|k| cosim(&format!("shard{k}"), Some(&format!("{k}/3")))).collect();
    let jsons: Vec<&Path> = shards.iter().map(|(j, _)| j.as_path()).collect();

    let (ok, said, merged_json, merged_junit) = merge(&jsons, "merged");
    assert!(ok, "{said}");
    let (full, merged) = (untimed(read_json(&full_json)), untimed(read_json(&merged_json)));
    let (full_runs, merged_runs) = (full["runs"].as_array().unwrap(), merged["runs"].as_array().unwrap());
    assert_eq!(full_runs.len(), merged_runs.len());
    for (a, b) in full_runs.iter().zip(merged_runs) {
        assert_eq!(a, b, "testcase for testcase");
    }
    assert_eq!(full, merged);
    assert_eq!(untimed_xml(&full_junit), untimed_xml(&merged_junit));

    // A missing shard, by number.
    let (ok, said, ..) = merge(&[jsons[0], jsons[2]], "missing");
    assert!(!ok && said.contains("missing shard(s) 2 of 3"), "{said}");

    // A foreign shard (another seed, another shard count), by file.
    for (key, value) in [("seed", Value::from("0x1")), ("shard", serde_json::json!({"index": 2, "count": 4}))] {
        let mut foreign = read_json(jsons[1]);
        foreign["regression"][key] = value;
        let path = scratch(&format!("foreign-{key}.json"));
        std::fs::write(&path, foreign.to_string()).unwrap();
        let (ok, said, ..) = merge(&[jsons[0], &path, jsons[2]], "foreign");
        assert!(!ok, "{said}");
        assert!(said.contains(path.to_str().unwrap()) && said.contains("not a shard of the same regression"), "{said}");
    }
}
