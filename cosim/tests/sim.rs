//! `metaroce sim` as a user runs it: the RTL in the loop gives the golden
//! loop's traces byte for byte, the host captures replay clean through the
//! cosim, the files a person opens are there and well formed, the README
//! block regenerates, and bad flags are refused.

mod common;

use common::{metaroce, text};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small incast that congests: CNPs every 4 µs, jittered starts.
const CONGESTED: &[&str] = &[
    "sim",
    "incast",
    "--hosts",
    "4",
    "--message-kib",
    "512",
    "--mtu",
    "1024",
    "--jitter-ns",
    "3000",
    "--cc-param",
    "np_min_time_between_cnps=4",
];

fn run_into(dir: &Path, extra: &[&str]) -> String {
    let dir_arg = dir.to_str().unwrap();
    let mut args = CONGESTED.to_vec();
    args.extend(["--out", dir_arg]);
    args.extend(extra);
    let out = metaroce(&args);
    let all = text(&out);
    assert!(out.status.success(), "metaroce {}:\n{all}", args.join(" "));
    all
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// The congested incast lossless: a buffer that tail-drops it, PFC on,
/// and ECN marked below the queue PFC holds.
const LOSSLESS: &[&str] = &["--pfc", "--buffer-kib", "256", "--kmin-kb", "20", "--kmax-kb", "80"];

/// The NICs' go-back-N carries the loop (SPEC.md §9.7) over a lossy link
/// to the receiver: ACKs, NAKs, retransmit requests and timeouts.
const RELIABLE: &[&str] =
    &["--cc-param", "ack_mode=rocev2", "--cc-param", "retx_timeout=4", "--loss", "0.02", "--loss-port", "0"];

/// The same with MetaRoCE's selective ACKs (§6.11 rule 8): hole-only
/// resends.
const SELECTIVE: &[&str] =
    &["--cc-param", "ack_mode=metaroce", "--cc-param", "retx_timeout=4", "--loss", "0.02", "--loss-port", "0"];

#[test]
fn rtl_in_the_loop_gives_the_golden_loops_traces() {
    let cases = [
        ("lossy", &[][..], &["all", "2"][..]),
        ("pfc", LOSSLESS, &["all"][..]),
        ("reliable", RELIABLE, &["all"][..]),
        ("selective", SELECTIVE, &["all"][..]),
    ];
    for (name, flags, placements) in cases {
        let golden = common::scratch(&format!("sim-golden-{name}"));
        run_into(&golden, flags);
        let names = files(&golden);
        // Both modes: summary, two CSVs, two charts, and per host a capture and its NIC file.
        assert_eq!(names.len(), 1 + 2 * (5 + 2 * 5), "{names:?}");
        let summary: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(golden.join("dcqcn/summary.json")).unwrap()).unwrap();
        assert!(summary["marks"].as_u64().unwrap() > 0 && summary["cnps"].as_u64().unwrap() > 0, "{summary}");
        if name == "pfc" {
            let pauses = &summary["pfc_priorities"][0];
            assert!(pauses["pause_frames"].as_u64().unwrap() > 0 && summary["drops"] == 0, "{summary}");
        }
        if name == "reliable" {
            // Both ways of finding a loss ran, in every NIC (RTL below).
            let r = &summary["reliability"];
            let count = |key: &str| r[key].as_u64().unwrap();
            assert!(count("link_losses") > 0 && count("nak_requests") > 0 && count("timeout_requests") > 0, "{r}");
            assert!(count("retx_packets") >= count("retx_of_lost") && count("acks_sent") > 0, "{r}");
            assert!(summary["completion_us"].as_f64().is_some(), "{summary}");
        }
        if name == "selective" {
            let r = &summary["reliability"];
            let count = |key: &str| r[key].as_u64().unwrap();
            assert!(count("link_losses") > 0 && count("selective_requests") > 0 && count("nak_requests") == 0, "{r}");
            assert!(summary["completion_us"].as_f64().is_some(), "{summary}");
        }
        for rtl in placements {
            let dir = common::scratch(&format!("sim-rtl-{name}-{rtl}"));
            run_into(&dir, &[flags, &["--rtl", rtl]].concat());
            assert_eq!(files(&dir), names);
            for file in &names {
                let (a, b) = (fs::read(golden.join(file)).unwrap(), fs::read(dir.join(file)).unwrap());
                assert!(a == b, "{name}, --rtl {rtl}: {} differs from the golden loop's", file.display());
            }
        }
    }
}

#[test]
fn the_host_captures_replay_clean_through_the_cosim() {
    let dir = common::scratch("sim-replay");
    // Lossless, so that the senders' captures hold the switch's PFC frames.
    run_into(&dir, &[&["--cc", "metaroce"], LOSSLESS].concat());
    let captures = dir.join("metaroce/captures");
    let receiver = captures.join("host00.pcap");
    let sender = captures.join("host01.pcap");
    let out = metaroce(&["cosim", "--width", "512", receiver.to_str().unwrap(), sender.to_str().unwrap()]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert_eq!(all.matches("PASS").count(), 8, "{all}");
    assert!(all.contains("flow_control"), "no PFC frame replayed:\n{all}");
    // The replay makes the loop's CNPs at the receiver and its releases at a sender.
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("metaroce/summary.json")).unwrap()).unwrap();
    let top_line = |capture: &Path| {
        let name = capture.to_str().unwrap();
        all.lines().find(|l| l.contains(name) && l.contains(" top ")).unwrap_or_else(|| panic!("{all}")).to_string()
    };
    let cnps = summary["cnps"].as_u64().unwrap();
    assert!(cnps > 0 && top_line(&receiver).contains(&format!("-> {cnps} CNP(s)")), "{all}");
    assert!(top_line(&sender).contains("512 release(s)"), "{all}");
    // The marker frame opens every capture at the run's tick 0.
    let tshark = Command::new("tshark")
        .args(["-r", receiver.to_str().unwrap(), "-c", "1", "-T", "fields", "-e", "eth.type"])
        .output();
    if let Ok(t) = tshark {
        assert_eq!(String::from_utf8_lossy(&t.stdout).trim(), "0x88b5");
    }
}

#[test]
fn the_files_a_person_opens_are_well_formed() {
    let dir = common::scratch("sim-files");
    let log = run_into(&dir, &["--cc", "dcqcn,metaroce", "--no-captures", "--sample-ns", "500"]);
    // One column per mode, named by the mode and its preset; the CNP interval is a row.
    assert!(
        log.contains("| peak shared buffer |") && log.contains("| dcqcn, defaults | metaroce, defaults |"),
        "{log}"
    );
    assert!(log.contains("| preset, CNP interval | defaults, 4 µs | defaults, 4 µs |"), "{log}");
    let table = fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(table.contains("Jain's fairness") && table.contains("queue under Kmax after"), "{table}");
    assert!(table.contains("| first ECN mark, first CNP |"), "{table}");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("dcqcn/summary.json")).unwrap()).unwrap();
    assert_eq!(summary["mark"], "dequeue", "{summary}");
    assert!(summary["first_cnp_us"].as_f64().unwrap() > summary["first_mark_us"].as_f64().unwrap(), "{summary}");
    let rates = fs::read_to_string(dir.join("dcqcn/rates.csv")).unwrap();
    let header: Vec<&str> = rates.lines().next().unwrap().split(',').collect();
    assert_eq!(header, ["time_ns", "h1->h0_gbps", "h2->h0_gbps", "h3->h0_gbps", "h4->h0_gbps"]);
    let rows: Vec<Vec<f64>> =
        rates.lines().skip(1).map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    assert!(rows.len() > 10 && rows.iter().all(|r| r.len() == 5));
    assert!(rows.windows(2).all(|w| w[1][0] > w[0][0]), "time goes forward");
    assert!(rows.iter().any(|r| r[1] < 100.0), "some QP was cut");
    let queue = fs::read_to_string(dir.join("dcqcn/queue.csv")).unwrap();
    assert!(queue.starts_with("time_ns,buffer_bytes,port0_bytes,port1_bytes"));
    assert!(queue.lines().last().unwrap().starts_with(|c: char| c.is_ascii_digit()));
    for chart in ["rates.svg", "queue.svg"] {
        let svg = fs::read_to_string(dir.join("metaroce").join(chart)).unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{chart}");
        assert!(svg.trim_end().ends_with("</svg>") && svg.contains("<polyline"), "{chart}");
    }
}

#[test]
fn the_readme_block_regenerates_from_one_command() {
    let dir = common::scratch("sim-readme");
    fs::create_dir_all(&dir).unwrap();
    let readme = dir.join("README.md");
    fs::write(&readme, "intro\n<!-- metaroce sim readme: begin -->\nstale\n<!-- metaroce sim readme: end -->\noutro\n")
        .unwrap();
    let charts = dir.join("charts");
    let readme_args = ["sim", "readme", "--set", "core", "--out", charts.to_str().unwrap(), "--readme"];
    let out = metaroce(&[&readme_args[..], &[readme.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", text(&out));
    let updated = fs::read_to_string(&readme).unwrap();
    assert!(updated.starts_with("intro\n") && updated.ends_with("<!-- metaroce sim readme: end -->\noutro\n"));
    assert!(!updated.contains("stale"));
    for case in ["incast 16:1**, 100", "incast 16:1**, 400", "all-to-all, 8 hosts**, 100", "all-to-all, 8 hosts**, 400"]
    {
        assert!(updated.contains(&format!("{case} Gb/s links, ECN marked")), "`{case}` missing:\n{updated}");
    }
    for case in [
        "all-to-all, 8 hosts**, 400 Gb/s links, 32 MiB",
        "victim beside incast 16:1**, 100",
        "victim beside incast 16:1**, 400",
        "incast 16:1**, 100 Gb/s links, 8.5 MB shared buffer",
        "victim beside incast 16:1**, 100 Gb/s links, 9.0 MB shared buffer",
    ] {
        assert!(updated.contains(case), "`{case}` missing:\n{updated}");
    }
    // 4 cases x 3 modes (mixed the third) x 3 presets x 2 charts, 8
    // lossless cases x 4 columns x 2 charts, 2 loss cases x 3 rates x 2
    // modes x 2 charts and the shallow incast's 2 modes x 2 charts, each
    // linked; the lossless cases' lossy DCQCN
    // column under ns3 is the preset table's run in 4 of them (same files,
    // run once).
    let svgs: Vec<_> = files(&charts).into_iter().filter(|p| p.extension().is_some_and(|e| e == "svg")).collect();
    assert_eq!(svgs.len(), 72 + 64 - 4 * 2 + 24 + 4);
    assert_loss_is_recovered_by_the_nics(&updated);
    let runs = text(&out).lines().filter(|l| l.ends_with(" s") && l.contains(": ")).count();
    assert_eq!(runs, svgs.len() / 2, "each run once:\n{}", text(&out));
    assert_no_drops_with_pfc(&updated);
    assert_victim_keeps_its_fair_rate_with_metaroce(&updated);
    for preset in ["paper", "ns3", "mlx5"] {
        assert!(updated.contains(&format!("| metaroce, {preset} |")), "{preset}:\n{updated}");
        assert!(updated.contains(&format!("| mixed, {preset} |")), "{preset}:\n{updated}");
        assert!(updated.contains(&format!("| rates, {preset} preset |")), "{preset}:\n{updated}");
    }
    for svg in &svgs {
        assert!(updated.contains(&format!("charts/{}", svg.display())), "{} not linked", svg.display());
    }
    assert_references_exist(&updated, &dir);
    // A README without a set's block is refused before any run, and left
    // alone: here the scale set's (the core block is there).
    let before = fs::read_to_string(&readme).unwrap();
    let out = metaroce(&["sim", "readme", "--out", charts.to_str().unwrap(), "--readme", readme.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("has no `<!-- metaroce sim readme scale: begin -->`"), "{}", text(&out));
    assert!(!text(&out).lines().any(|l| l.ends_with(" s")), "ran before refusing:\n{}", text(&out));
    assert_eq!(fs::read_to_string(&readme).unwrap(), before);
}

/// The cells of `table`'s row `name`, split on `|` (the header's first).
fn row<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
    let line = table.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap_or_else(|| panic!("no {name}"));
    line.split('|').map(str::trim).collect()
}

/// Issue 18's bar: in every table of the block, every PFC column shows 0
/// drops (the lossless section has all eight cases' tables). Where the
/// lossy column dropped, PFC is what kept them: every PFC column paused.
fn assert_no_drops_with_pfc(readme: &str) {
    let (mut pfc_tables, mut lossy_dropped) = (0, 0);
    for table in readme.split("\n\n").filter(|t| t.starts_with('|')) {
        let header: Vec<&str> = table.lines().next().unwrap().split('|').map(str::trim).collect();
        let pfc: Vec<usize> = (0..header.len()).filter(|&i| header[i].contains("+ PFC")).collect();
        if pfc.is_empty() {
            continue;
        }
        pfc_tables += 1;
        let (drops, pauses) = (row(table, "drops"), row(table, "PFC pauses"));
        let lossy = (2..header.len()).find(|i| !pfc.contains(i)).expect("a lossy column");
        let dropped = drops[lossy] != "0";
        lossy_dropped += usize::from(dropped);
        for i in pfc {
            assert_eq!(drops[i], "0", "{}: {}:\n{table}", header[1], header[i]);
            let xoff: u64 = pauses[i].split(": ").nth(1).and_then(|c| c.split(' ').next()).unwrap().parse().unwrap();
            assert!(!dropped || xoff > 0, "{}: {} never paused where lossy dropped:\n{table}", header[1], header[i]);
        }
    }
    assert_eq!(pfc_tables, 8, "{readme}");
    assert!(lossy_dropped >= 2, "no lossy column dropped a packet:\n{readme}");
}

/// Issue 20's loss tables: the NICs' go-back-N completes every flow at each
/// loss rate and in the incast that overflows the shallow buffer (where
/// some column drops); with loss or drops, lost packets are sent again
/// (and go-back-N's excess beside them), without them none was lost (a
/// timer that runs out under a deep queue may still send some again); and
/// every data copy lost is accounted for by a packet sent again or another
/// copy that delivered it.
fn assert_loss_is_recovered_by_the_nics(readme: &str) {
    let tables: Vec<&str> = readme.split("\n\n").filter(|t| t.contains("| reliable delivery, link loss |")).collect();
    assert_eq!(tables.len(), 3, "{readme}");
    let mut dropped = 0;
    for table in tables {
        let header: Vec<&str> = table.lines().next().unwrap().split('|').map(str::trim).collect();
        let (completion, sent_again, drops) = (row(table, "completion"), row(table, "sent again"), row(table, "drops"));
        let link_loss = row(table, "reliable delivery, link loss");
        for i in 2..header.len() - 1 {
            assert!(completion[i].ends_with(" µs"), "{}: {}:\n{table}", header[1], header[i]);
            let lossy = header[i].contains("% loss") || drops[i] != "0";
            dropped += usize::from(drops[i] != "0");
            // "N of M packets (K kB): L lost, E go-back-N excess[; A lost
            // copies of packets another copy delivered]"
            let number = |text: &str, at: usize| -> u64 { text.split(' ').nth(at).unwrap().parse().unwrap() };
            let (again, lost) = (number(sent_again[i], 0), number(sent_again[i], 6));
            let delivered = sent_again[i].split("; ").find(|a| a.ends_with("another copy delivered"));
            let after_delivery = delivered.map_or(0, |a| number(a, 0));
            assert!(again >= lost, "{}: {}: {}", header[1], header[i], sent_again[i]);
            // Every data copy lost on the link or at a full port (the
            // tables' switch drops are data) was stood in for by a packet
            // sent again, before the loss or after it, or its packet
            // arrived by another copy. "... N frames lost[ (D data, ...)]"
            let on_link = link_loss[i].split(": ").nth(1);
            let data_on_link = on_link.map_or(0, |c| match c.split_once(" (") {
                Some((_, kinds)) => number(kinds, 0),
                None => number(c, 0),
            });
            let data_lost = data_on_link + drops[i].parse::<u64>().unwrap();
            assert_eq!(data_lost > 0, lossy, "{}: {}: {}", header[1], header[i], link_loss[i]);
            assert_eq!(
                lost + after_delivery,
                data_lost,
                "{}: {}: {} / {}",
                header[1],
                header[i],
                sent_again[i],
                link_loss[i]
            );
        }
    }
    assert!(dropped > 0, "the shallow buffer's incast overflowed nowhere:\n{readme}");
}

/// Issue 18's target: behind PFC with MetaRoCE, the victim flow keeps at
/// least 90 % of its fair rate, at 100 and 400 Gb/s and in the shallow
/// buffer.
fn assert_victim_keeps_its_fair_rate_with_metaroce(readme: &str) {
    let mut checked = 0;
    for table in readme.split("\n\n").filter(|t| t.starts_with("| victim beside")) {
        let header: Vec<&str> = table.lines().next().unwrap().split('|').map(str::trim).collect();
        let column = header.iter().position(|h| h.starts_with("metaroce + PFC")).expect("a MetaRoCE + PFC column");
        let cell = row(table, "victim flow")[column];
        // "h1->h17: 92.8 Gb/s, 99.0 % of its fair 93.8, paused 0.0 µs"
        let percent: f64 = cell.split(", ").nth(1).and_then(|p| p.split(' ').next()).unwrap().parse().unwrap();
        assert!(percent >= 90.0, "{}: the victim keeps {percent} % of its fair rate:\n{table}", header[1]);
        checked += 1;
    }
    assert_eq!(checked, 3, "{readme}");
}

/// The targets of the links and images of the blocks of `sim readme`'s
/// sets (`readme`, and `readme scale` where there is one), with how many
/// are images.
fn block_references(readme: &str) -> (Vec<String>, usize) {
    let (mut targets, mut images) = (Vec::new(), 0);
    for set in ["", " scale"] {
        let Some(begin) = readme.find(&format!("<!-- metaroce sim readme{set}: begin -->")) else {
            assert!(!set.is_empty(), "the block begins");
            continue;
        };
        let end = readme.find(&format!("<!-- metaroce sim readme{set}: end -->")).expect("the block ends");
        let block = &readme[begin..end];
        targets.extend(block.split("](").skip(1).map(|rest| rest[..rest.find(')').unwrap()].to_string()));
        images += block.matches("![").count();
    }
    (targets, images)
}

/// At least four charts inline, and every linked or shown file exists.
fn assert_references_exist(readme: &str, dir: &Path) {
    let (targets, images) = block_references(readme);
    assert!(images >= 4, "{images} charts inline:\n{readme}");
    assert!(targets.len() >= 36 + images, "{} references:\n{readme}", targets.len());
    for target in targets {
        assert!(dir.join(&target).is_file(), "{target}: referenced, but no such file under {}", dir.display());
    }
}

#[test]
fn the_readme_shows_charts_that_exist() {
    let root = common::workspace();
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("<!-- metaroce sim readme scale: begin -->"), "the scale set's block is gone");
    assert_references_exist(&readme, &root);
    let (targets, _) = block_references(&readme);
    assert!(targets.iter().all(|t| t.starts_with("docs/sim/")), "{targets:?}");
    // The scale set's cases (a report, not run in CI: minutes in a release build).
    for case in
        ["incast 64:1**, 100", "incast 64:1**, 400", "all-to-all, 64 hosts**, 100", "all-to-all, 64 hosts**, 400"]
    {
        assert!(readme.contains(case), "`{case}` missing from README.md: run `metaroce sim readme --set scale`");
    }
}

#[test]
fn bad_flags_are_refused_by_name() {
    let cases: [(&[&str], i32, &str); 13] = [
        (&["sim", "incast", "--loss", "0.7"], 1, "--loss 0.7: a fraction of frames, 0 to 0.5"),
        (&["sim", "incast", "--hosts", "3", "--loss-port", "4"], 1, "--loss-port 4: there are hosts 0 to 3"),
        (&["sim", "incast", "--hosts", "1"], 1, "incast: 1 senders; 2 to 64"),
        (&["sim", "all-to-all", "--hosts", "65"], 1, "all-to-all: 65 hosts; 2 to 64"),
        (&["sim", "incast", "--hosts", "3", "--rtl", "7"], 1, "--rtl 7: there are hosts 0 to 3"),
        (&["sim", "incast", "--mtu", "64"], 1, "MTU 64 B: 256 to 9000"),
        (&["sim", "incast", "--cc-param", "rp_min_rate=0"], 2, "rp_min_rate"),
        (&["sim", "incast", "--cc", "reno"], 2, "reno"),
        (&["sim", "incast", "--rtl", "some"], 2, "a host number or `all`"),
        (&["sim", "incast", "--mark", "ingress"], 2, "`ingress`: `enqueue` or `dequeue`"),
        (&["sim", "incast", "--cc-preset", "dcqcn"], 2, "`dcqcn`: choose one of paper, ns3, mlx5"),
        (&["sim", "victim", "--hosts", "63"], 1, "victim: 63 senders; 2 to 62"),
        (&["sim", "incast", "--pfc", "--buffer-kib", "256"], 1, "--pfc: the headroom of 17 ports"),
    ];
    for (args, code, needle) in cases {
        let out = metaroce(args);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}:\n{all}");
        assert!(all.contains(needle) && !all.contains("panicked"), "{args:?}: `{needle}` missing:\n{all}");
    }
}

/// Issue 16's bar on the golden loop: a 16:1 incast at 100G under the ns3
/// preset leaves no QP stranded (once the egress queue first falls below
/// Kmin, every QP reaches its fair share within 1 ms) and completes within
/// 1.5x the line-rate bound, in both modes.
#[test]
fn the_ns3_incast_strands_no_qp_and_completes_near_the_bound() {
    for cc in ["dcqcn", "metaroce"] {
        let dir = common::scratch(&format!("sim-ns3-incast-{cc}"));
        let args = ["sim", "incast", "--cc", cc, "--cc-preset", "ns3", "--no-captures", "--out", dir.to_str().unwrap()];
        let out = metaroce(&args);
        assert!(out.status.success(), "{}", text(&out));
        let summary: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join(cc).join("summary.json")).unwrap()).unwrap();
        assert_eq!((summary["flows"].as_u64(), summary["link_gbps"].as_u64()), (Some(16), Some(100)), "{summary}");
        assert_eq!((summary["preset"].as_str(), summary["mark"].as_str()), (Some("ns3"), Some("dequeue")), "{summary}");
        let fair = summary["fair_share_after_us"].as_f64();
        assert!(fair.is_some_and(|us| us <= 1000.0), "{cc}: fair share after Kmin: {fair:?} µs\n{summary}");
        let (done, bound) = (summary["completion_us"].as_f64(), summary["ideal_completion_us"].as_f64().unwrap());
        assert!(done.is_some_and(|us| us <= 1.5 * bound), "{cc}: completion {done:?} µs, bound {bound} µs\n{summary}");
    }
}
