//! The pacer and the pipeline top: cosim on every capture under random
//! handshakes (the pacer alone, the top at both widths), the harness
//! catching a wrong RTL, random command streams, PFC frames pausing their
//! priority, the paced capture that `replay --out-pcap` writes, a serve
//! every third cycle and a release every tenth, a hand-over every tenth
//! when QPs take turns, bad parameters.

mod common;

use std::collections::HashMap;
use std::process::Command;

use metaroce_cosim::blocks::cn::{read_stimulus, run_golden};
use metaroce_cosim::blocks::pacer::{
    check_release_order, cosim_pacer_capture, cosim_pacer_stimulus, pacer_commands, run_golden_pacer, PacerStimulus,
};
use metaroce_cosim::blocks::top::cosim_top_capture;
use metaroce_cosim::capture::{CaptureReader, Frame};
use metaroce_cosim::harness::{CosimOptions, Ending};
use metaroce_cosim::nic::{CnOverrides, CnSetup};
use metaroce_cosim::pacer_fuzz::run_pacer_fuzz;
use metaroce_cosim::report::DivergenceKind;
use metaroce_cosim::rtl::{Handshake, Model, DATA_WIDTHS};
use metaroce_golden::pacer::PacerCommand;

#[test]
fn every_capture_matches_in_the_pacer_and_the_top_under_random_handshakes() {
    let seed = common::seed("pacer and top regression");
    let (mut failures, mut releases, mut top_releases, mut top_cnps) = (Vec::new(), 0, 0, 0);
    for capture in common::captures() {
        let setup = CnSetup::for_capture(&capture, &CnOverrides::default()).unwrap();
        let handshake = Handshake { seed, idle_pct: 25, stall_pct: 25 };
        let mut runs = vec![cosim_pacer_capture(&capture, &CosimOptions::new(Model::plain(64), handshake), &setup)];
        for width in DATA_WIDTHS {
            runs.push(cosim_top_capture(&capture, &CosimOptions::new(Model::plain(width), handshake), &setup));
        }
        for run in runs {
            if common::matched(&run, format_args!("{} {}", run.block, capture.display()), &mut failures) {
                assert_eq!(run.frames_matched, run.frames_read, "{}", capture.display());
                let counts = run.cn.unwrap();
                if run.block == "pacer" {
                    releases += counts.releases;
                } else {
                    top_releases += counts.releases;
                    top_cnps += counts.cnps;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(releases > 10_000, "too few releases compared: {releases}");
    assert!(top_releases == 2 * releases && top_cnps > 200, "top: {top_releases} releases, {top_cnps} CNPs");
}

#[test]
fn a_wrong_pacer_register_is_reported_with_the_release_and_a_waveform() {
    let (capture, setup) = common::capture_setup("cn/dcqcn_stages.pcap");
    let options = CosimOptions::new(Model::plain(64), Handshake { seed: 3, idle_pct: 10, stall_pct: 10 });
    let stimulus = || {
        let reader = &mut CaptureReader::open(&capture).unwrap();
        let cn = metaroce_cosim::blocks::cn::read_stimulus(reader, &setup, &Default::default());
        let golden = metaroce_cosim::blocks::cn::run_golden(&setup, &cn);
        PacerStimulus {
            commands: metaroce_cosim::blocks::pacer::pacer_commands(&golden, &cn),
            frames_read: cn.frames_read,
            time: cn.time,
            error: None,
        }
    };
    // A minimum gap the golden model does not have: the capture's packets,
    // 1 µs apart at line rate, wait.
    let mut wrong = setup.regs;
    wrong.min_gap_ns = 1500;
    let run = cosim_pacer_stimulus(&capture, stimulus(), &options, &setup, &wrong);
    let Ending::Diverged(d) = run.ending else { panic!("no divergence: {:?}", run.ending) };
    assert_eq!((d.kind, d.block), (DivergenceKind::Mismatch, "pacer.release"), "{d}");
    assert_eq!(d.diffs.iter().map(|f| f.field.as_str()).collect::<Vec<_>>(), ["tick"], "{d}");
    assert!(d.repro.contains("--block pacer") && d.frame > 0 && d.cycle > 0, "{d}");

    let rerun = common::rerun_writes_a_waveform("pacer-divergence.fst", &options, |o| {
        cosim_pacer_stimulus(&capture, stimulus(), o, &setup, &wrong)
    });
    assert_eq!(rerun.wave.as_deref(), Some(common::scratch("pacer-divergence.fst").as_path()));
}

/// Random command streams (`metaroce fuzz --block pacer` runs the same
/// scenarios, longer): reaction-point output, random commands and floods.
#[test]
fn random_command_streams_match_between_golden_model_and_rtl() {
    let seed = common::seed("pacer random streams");
    let outcome = run_pacer_fuzz(seed, 0, 150);
    if let Some(failure) = outcome.failure {
        panic!("{failure}");
    }
    assert!(outcome.releases > 100_000, "too little compared: {} releases", outcome.releases);
    // Rate changes move waiting packets (SPEC.md §7.3) in both models.
    assert!(outcome.retimed > 100, "too few re-times: {}", outcome.retimed);
    // PAUSE and PFC commands among them (SPEC.md §7.5).
    assert!(outcome.pauses > 2_000, "too few pauses: {}", outcome.pauses);
}

/// SPEC.md §7.5 on pcaps/cn/pfc_sender.pcap (both models agree on it in
/// the regression above): priority 3 (QP 22) is held through its paused
/// and refreshed window while priority 0 (QP 23) flows, the PFC frame the
/// NIC sent itself pauses nothing, and no release falls inside a pause.
#[test]
fn pfc_frames_pause_their_priority_and_no_other() {
    let (capture, setup) = common::capture_setup("cn/pfc_sender.pcap");
    let stimulus = read_stimulus(&mut CaptureReader::open(&capture).unwrap(), &setup, &Default::default());
    // 800 sent frames and 2 CNPs; 8 of the 9 MAC Control frames are the
    // partner's.
    assert_eq!((stimulus.inputs.len(), stimulus.pauses.len()), (802, 8));
    let commands = pacer_commands(&run_golden(&setup, &stimulus), &stimulus);
    check_release_order(&setup, &commands).unwrap();
    let releases = run_golden_pacer(&setup, &commands, stimulus.frames_read);
    let ticks = |qp: u32, from: u64, to: u64| {
        releases.iter().filter(|(_, r)| r.qp == qp && (from..to).contains(&r.time)).count()
    };
    // Paused at 20 µs (+1 ns) for 2000 quanta, refreshed at 25 µs for 3000
    // (15.36 µs at 100 Gb/s): nothing of QP 22 until 40.361 µs.
    assert_eq!(ticks(22, 20_002, 40_361), 0);
    assert!(ticks(23, 20_002, 40_361) > 20, "{}", ticks(23, 20_002, 40_361));
    // Paused for 0xFFFF quanta at 50 µs, resumed by a time of 0 at 60 µs.
    assert_eq!(ticks(22, 50_002, 60_001), 0);
    assert!(ticks(22, 60_001, 62_000) > 0);
    // The NIC's own PFC frame at 140 µs pauses nothing.
    assert!(ticks(22, 140_002, 150_000) > 5);
}

fn metaroce(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metaroce")).args(args).current_dir(common::workspace()).output().unwrap()
}

#[test]
fn out_pcap_writes_the_sent_frames_at_their_release_times() {
    let capture = "pcaps/cn/dcqcn_stages.pcap";
    let paced = common::scratch("paced.pcap");
    for model in ["golden", "rtl"] {
        let out =
            metaroce(&["replay", capture, "--block", "pacer", "--model", model, "--out-pcap", paced.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let releases: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|v: &serde_json::Value| v["event"] == "release")
            .collect();
        assert!(releases.len() > 1000, "{model}: {} releases", releases.len());
        for r in &releases {
            for key in ["qp", "len", "time_ns", "tick"] {
                assert!(r.get(key).is_some(), "{model}: {r} lacks {key}");
            }
        }
        // The paced capture: every release, at its time, with the frame sent.
        let mut reader = CaptureReader::open(&paced).unwrap();
        let mut frame = Frame::default();
        let mut written = Vec::new();
        while reader.read_next(&mut frame).unwrap() {
            written.push((frame.time_ns, frame.data.len() as u64));
        }
        let expected: Vec<(u64, u64)> =
            releases.iter().map(|r| (r["time_ns"].as_u64().unwrap(), r["len"].as_u64().unwrap())).collect();
        assert_eq!(written, expected, "{model}");
    }
    // tshark reads it as the RoCE frames they were.
    let out = Command::new("tshark")
        .args(["-r", paced.to_str().unwrap(), "-T", "fields", "-e", "infiniband.bth.opcode"])
        .output()
        .expect("tshark runs (apt-get install tshark, or ci/setup.sh)");
    let text = String::from_utf8_lossy(&out.stdout);
    let opcodes: HashMap<&str, usize> = text.lines().fold(HashMap::new(), |mut m, l| {
        *m.entry(l.trim()).or_default() += 1;
        m
    });
    assert!(out.status.success() && opcodes.keys().all(|k| !k.is_empty()), "{opcodes:?}");
}

#[test]
fn a_backlog_is_served_every_third_cycle_and_released_every_tenth() {
    // At 400 Gb/s a 9000-byte packet puts the QP 180 ns ahead; then 200
    // packets of 64 bytes (1.28 ns apart, 50 to a 64-ns slot) queue behind
    // it and leave at the flush. (A slower rate for the big packet would
    // not do: the rise to 400 Gb/s would re-price it, SPEC.md §7.3.)
    let (capture, setup) = common::capture_setup("cn/dcqcn_stages.pcap");
    let rate = |kbps| PacerCommand { time: 0, qp: 5, rate_kbps: Some(kbps), send_len: None, pause: None };
    let send = |len| PacerCommand { time: 0, qp: 5, rate_kbps: None, send_len: Some(len), pause: None };
    let mut commands = vec![(1, rate(400_000_000)), (2, send(9000))];
    commands.extend((0..200).map(|i| (3 + i, send(64))));
    let stimulus = PacerStimulus { commands, frames_read: 202, ..Default::default() };
    let options = CosimOptions::new(Model::plain(64), Handshake::full_speed(1));
    let run = cosim_pacer_stimulus(&capture, stimulus, &options, &setup, &setup.regs);
    assert!(matches!(run.ending, Ending::Matched), "{:?}", run.ending);
    // SPEC.md §7.6: a rate change (57: no packet waits to move), 201
    // packets in (11 each), the big one served before the next command (9:
    // decision, head, serve, and the scan naming the next slot), then at
    // the flush the 200 served into the egress at 3 each across 5 slots
    // (the first 2 cycles after its decision, 2 more at each of the 4
    // changes of slot), all of them due only at the flush (their times are
    // past the commands' tick 0), so they leave after the wheel has
    // emptied, 10 cycles each, and the last one's 9 cycles to the output.
    let bound = 57 + 11 * 201 + 9 + 2 + 3 * 200 + 2 * 4 + 10 * 200 + 9;
    assert!(run.cycles <= bound, "{} cycles, bound {bound}", run.cycles);
}

#[test]
fn packets_of_alternating_qps_are_handed_over_every_tenth_cycle() {
    // The backlog above on two QPs taking turns: each packet's QP words are
    // read while it waits behind the other QP's (SPEC.md §7.6), so a
    // hand-over takes 10 cycles, not 11.
    let (capture, setup) = common::capture_setup("cn/dcqcn_stages.pcap");
    let rate = |qp, kbps| PacerCommand { time: 0, qp, rate_kbps: Some(kbps), send_len: None, pause: None };
    let send = |qp, len| PacerCommand { time: 0, qp, rate_kbps: None, send_len: Some(len), pause: None };
    let mut commands =
        vec![(1, rate(5, 400_000_000)), (2, rate(6, 400_000_000)), (3, send(5, 9000)), (4, send(6, 9000))];
    commands.extend((0..200).map(|i| (5 + i, send(5 + (i as u32 % 2), 64))));
    let stimulus = PacerStimulus { commands, frames_read: 204, ..Default::default() };
    let options = CosimOptions::new(Model::plain(64), Handshake::full_speed(1));
    let run = cosim_pacer_stimulus(&capture, stimulus, &options, &setup, &setup.regs);
    assert!(matches!(run.ending, Ending::Matched), "{:?}", run.ending);
    // Two rate changes (57 each), 202 packets in (10 each), each big one
    // served (9), then 200 served at 3 each: each QP's packets go 180 ns
    // ahead, 1.28 ns apart, so 100 of each span three 64-ns slots (the
    // first 2 cycles after its decision, 2 more at each of 2 changes of
    // slot); 201 leave at the flush, 10 cycles each (the first big one left
    // at tick 0), and the last one's 9 cycles to the output. At 11 a
    // packet it would be 202 cycles more.
    let bound = 2 * 57 + 10 * 202 + 2 * 9 + 2 + 3 * 200 + 2 * 2 + 10 * 201 + 9;
    assert!(run.cycles <= bound, "{} cycles, bound {bound}", run.cycles);
}

#[test]
fn a_later_packet_waits_behind_one_still_to_cascade_in_both_models() {
    // golden/src/pacer.rs `a_later_packet_never_goes_ahead_of_one_waiting_to_cascade`
    // (SPEC.md §7.4) on the RTL: the 65-byte packet's slot is within 256
    // slots of the pointer but in the next level-1 slot, where the 64-byte
    // one waits to cascade; the 65-byte one must leave after it.
    let capture = common::pcaps().join("cn/dcqcn_stages.pcap");
    let params = ["line_rate_mbps=100000", "pacer_burst_bytes=64"].map(|p| p.parse().unwrap()).to_vec();
    let setup = CnSetup::for_capture(&capture, &CnOverrides { params, ..Default::default() }).unwrap();
    let rate = PacerCommand { time: 0, qp: 7, rate_kbps: Some(10_000_000), send_len: None, pause: None };
    let send = |time, len| PacerCommand { time, qp: 7, rate_kbps: None, send_len: Some(len), pause: None };
    let mut commands = vec![(1, rate)];
    commands.extend([(0, 25_030), (0, 64), (6400, 65), (6400, 66)].iter().map(|&(t, len)| (2, send(t, len))));
    assert_eq!(check_release_order(&setup, &commands).err(), None);
    let stimulus = PacerStimulus { commands, frames_read: 2, ..Default::default() };
    let options = CosimOptions::new(Model::plain(64), Handshake::full_speed(1));
    let run = cosim_pacer_stimulus(&capture, stimulus, &options, &setup, &setup.regs);
    assert!(matches!(run.ending, Ending::Matched), "{:?}", run.ending);
    assert_eq!(run.cn.unwrap().releases, 4);
}

#[test]
fn a_rate_rise_re_times_the_waiting_packet_in_both_models() {
    // golden/src/pacer.rs `a_rate_rise_re_times_the_waiting_packet` and its
    // neighbours (SPEC.md §7.3) on the RTL, each case on its own QP at 10
    // Mb/s: a 4096-byte packet leaves at once, the next waits 3.2768 ms
    // for its debt. QP 5's rate rises (its packet moves to 100 µs), QP 6's
    // falls (its packet stays), QP 7 has two packets waiting (only the
    // newest moves, behind the other), QP 8's packet and new rate come in
    // one command (it is paced at the new rate at once).
    let capture = common::pcaps().join("cn/dcqcn_stages.pcap");
    let params = ["line_rate_mbps=100000", "pacer_burst_bytes=0"].map(|p| p.parse().unwrap()).to_vec();
    let setup = CnSetup::for_capture(&capture, &CnOverrides { params, ..Default::default() }).unwrap();
    let rate = |time, qp, kbps| PacerCommand { time, qp, rate_kbps: Some(kbps), send_len: None, pause: None };
    let send = |time, qp, len| PacerCommand { time, qp, rate_kbps: None, send_len: Some(len), pause: None };
    let mut commands = Vec::new();
    for qp in 5..9 {
        commands.extend([rate(0, qp, 10_000), send(0, qp, 4096)]);
    }
    commands.extend([send(1, 5, 1000), send(1, 6, 1000), send(1, 7, 1000), send(1, 7, 500)]);
    commands.extend([rate(100_000, 5, 100_000_000), rate(100_000, 6, 1000), rate(100_000, 7, 100_000_000)]);
    commands.push(PacerCommand {
        time: 100_000,
        qp: 8,
        rate_kbps: Some(100_000_000),
        send_len: Some(1000),
        pause: None,
    });
    let commands: Vec<(u64, PacerCommand)> = commands.into_iter().map(|c| (1, c)).collect();
    assert_eq!(check_release_order(&setup, &commands).err(), None);
    let golden = run_golden_pacer(&setup, &commands, 1);
    let at = |qp, len| golden.iter().find(|(_, r)| r.qp == qp && r.len == len).map(|(_, r)| r.time);
    assert_eq!(at(5, 1000), Some(100_000));
    assert_eq!(at(6, 1000), Some(3_276_800));
    // QP 7's 1000 bytes are due with QP 6's, behind them on the link
    // (80.0009 ns), and its 500 bytes 80.0009 ns after its 1000 bytes.
    assert_eq!((at(7, 1000), at(7, 500)), (Some(3_276_881), Some(3_276_961)));
    // Due in the same slot as QP 5's, behind it on the link (80.0009 ns).
    assert_eq!(at(8, 1000), Some(100_081));
    assert_eq!(golden.len(), 9);
    for handshake in [Handshake::full_speed(1), Handshake { seed: 7, idle_pct: 30, stall_pct: 40 }] {
        let stimulus = PacerStimulus { commands: commands.clone(), frames_read: 1, ..Default::default() };
        let options = CosimOptions::new(Model::plain(64), handshake);
        let run = cosim_pacer_stimulus(&capture, stimulus, &options, &setup, &setup.regs);
        assert!(matches!(run.ending, Ending::Matched), "{handshake:?}: {:?}", run.ending);
        assert_eq!(run.cn.unwrap().releases, 9);
    }
}

#[test]
fn bad_pacer_parameters_are_refused_by_name() {
    let capture = "pcaps/cn/dcqcn_stages.pcap";
    for (param, expect) in [
        ("pacer_burst_bytes=70000", "pacer_burst_bytes"),
        ("pacer_start_rate=200000", "pacer_start_rate"),
        ("pacer_min_gap_ns=x", "not a decimal"),
    ] {
        let out = metaroce(&["cosim", capture, "--block", "pacer", "--cc-param", param]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(expect), "{param}: {stderr}");
    }
    // --local-mac decides which frames are ours: another MAC sends nothing.
    let out = metaroce(&["replay", capture, "--block", "pacer", "--local-mac", "02:00:00:00:00:99"]);
    assert!(out.status.success() && out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = metaroce(&["replay", capture, "--block", "pacer", "--local-mac", "02:00:00"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let out = metaroce(&["fuzz", "--block", "top"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("fuzz its blocks"));
}
