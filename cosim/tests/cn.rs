//! The congestion-notification block: cosim on every capture at both
//! widths under random handshakes, the harness catching a wrong RTL, CNPs
//! written as a capture that tshark decodes, the responder's go-back-N
//! answers, the 20-second capture, the catch-up after 10 idle seconds, and
//! bad parameters refused.

mod common;

use std::process::Command;

use metaroce_cosim::blocks::cn::{cosim_cn_capture, cosim_cn_stimulus, read_stimulus, CnStimulus};
use metaroce_cosim::capture::CaptureReader;
use metaroce_cosim::cn_fuzz::run_cn_fuzz;
use metaroce_cosim::harness::{CosimOptions, Ending};
use metaroce_cosim::nic::{CnOverrides, CnSetup};
use metaroce_cosim::replay::replay_cn;
use metaroce_cosim::report::{CnRecord, DivergenceKind, Record};
use metaroce_cosim::rtl::{Handshake, Model, DATA_WIDTHS};
use metaroce_golden::cc_params::CcSetting;
use metaroce_golden::cc_presets::CcPreset;
use metaroce_golden::cn_event::{CnEvent, CnEventKind};
use metaroce_golden::{parse_frame, FrameClass, ParserConfig};

#[test]
fn every_capture_matches_in_the_cn_block_at_every_width_under_random_handshakes() {
    let seed = common::seed("cn regression");
    let (mut failures, mut cnps, mut acks, mut rates) = (Vec::new(), 0, 0, 0);
    for capture in common::captures() {
        let setup = CnSetup::for_capture(&capture, &CnOverrides::default()).unwrap();
        for width in DATA_WIDTHS {
            let options = CosimOptions::new(Model::plain(width), Handshake { seed, idle_pct: 25, stall_pct: 25 });
            let run = cosim_cn_capture(&capture, &options, &setup);
            if common::matched(&run, capture.display(), &mut failures) {
                let counts = run.cn.unwrap();
                cnps += counts.cnps;
                acks += counts.acks;
                rates += counts.rate_changes;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(cnps > 200 && acks >= 30 && rates > 500, "too little compared: {cnps} CNPs, {acks} ACKs, {rates} rates");
}

/// The ACKs and NAKs of `cn/rc_go_back_n.pcap` as SPEC.md §6.10 gives them,
/// worked out by hand from the capture's story (catalog/responder.rs).
#[test]
fn the_responder_answers_losses_reorders_and_duplicates_as_go_back_n() {
    const ACK: u8 = 0x1F;
    const NAK: u8 = 0x60;
    let (capture, setup) = common::capture_setup("cn/rc_go_back_n.pcap");
    for rtl_width in [None, Some(64)] {
        let replay = replay_cn(&capture, rtl_width, &setup, &ParserConfig::default()).unwrap();
        let mut answers: Vec<(u32, u32, u8, u32)> = replay
            .transactions
            .iter()
            .filter_map(|t| match &t.record {
                Record::Cn(CnRecord::Ack { dest_qp, psn, syndrome, msn, .. }) => {
                    Some((dest_qp.unwrap(), psn.unwrap(), syndrome.unwrap(), msn.unwrap()))
                }
                _ => None,
            })
            .collect();
        // Each QP's answers in order (the sort is stable).
        answers.sort_by_key(|a| a.0);
        let expected = [
            // QP 0x20: a message; 105 lost (one NAK, 107 unanswered); go-back-N; a message.
            (0x520, 103, ACK, 1),
            (0x520, 105, NAK, 1),
            (0x520, 107, ACK, 2),
            (0x520, 111, ACK, 3),
            // QP 0x21 from rq_psn 0xFFFFFE through the wrap; 0 and 1 again
            // after a lost ACK (each re-ACKed), then 2.
            (0x521, 0xFF_FFFF, ACK, 2),
            (0x521, 1, ACK, 4),
            (0x521, 1, ACK, 4),
            (0x521, 1, ACK, 4),
            (0x521, 2, ACK, 5),
            // QP 0x22: no AckReq, one ACK per 16 packets.
            (0x522, 7015, ACK, 16),
            (0x522, 7031, ACK, 32),
            // QP 0x23: 52 before 51 (a NAK), 51, the READ request
            // unanswered, 52 again.
            (0x523, 50, ACK, 1),
            (0x523, 51, NAK, 1),
            (0x523, 51, ACK, 2),
            (0x523, 52, ACK, 3),
        ];
        assert_eq!(answers, expected, "width {rtl_width:?}");
        let cnps = replay.transactions.iter().filter(|t| matches!(t.record, Record::Cn(CnRecord::Cnp { .. }))).count();
        assert_eq!(cnps, 3, "width {rtl_width:?}: the CE marks on 107 (twice) and 111");
    }
}

/// The selective ACKs of `cn/rc_selective.pcap` as SPEC.md §6.10 gives them,
/// worked out by hand from the capture's story (catalog/responder.rs):
/// (remote QP, PSN, MSN, bitmap, beyond).
#[test]
fn the_responder_acknowledges_selectively_in_metaroce_mode() {
    let (capture, setup) = common::capture_setup("cn/rc_selective.pcap");
    for rtl_width in [None, Some(64), Some(512)] {
        let replay = replay_cn(&capture, rtl_width, &setup, &ParserConfig::default()).unwrap();
        let mut answers: Vec<(u32, u32, u32, u64, bool)> = replay
            .transactions
            .iter()
            .filter_map(|t| match &t.record {
                Record::Cn(CnRecord::Ack { dest_qp, psn, syndrome, msn, sack, .. }) => {
                    assert_eq!(*syndrome, Some(0x1F), "metaroce sends no NAK");
                    let sack = sack.expect("every ACK is selective");
                    Some((dest_qp.unwrap(), psn.unwrap(), msn.unwrap(), sack.bitmap, sack.beyond))
                }
                _ => None,
            })
            .collect();
        answers.sort_by_key(|a| a.0);
        let expected = [
            // QP 0x20: 104 opens the gap at 103, 108 the one at 107
            // (bitmap 104-106, 108); 103 comes 2.4 µs after 109, the oldest
            // unacknowledged (late: the expected PSN moves to 107); 107
            // with AckReq moves it past 111.
            (0x520, 102, 4, 0b1, false),
            (0x520, 102, 7, 0b10111, false),
            (0x520, 106, 11, 0b1111, false),
            (0x520, 111, 12, 0, false),
            // QP 0x21: 1 opens the gap at 0 past the wrap; 0 with AckReq.
            (0x521, 0xFF_FFFF, 3, 0b1, false),
            (0x521, 2, 5, 0, false),
            // QP 0x22: every 8th packet, then every second one 2.2 µs apart
            // (2 µs after the oldest unacknowledged).
            (0x522, 7_007, 8, 0, false),
            (0x522, 7_015, 16, 0, false),
            (0x522, 7_020, 21, 0, false),
            (0x522, 7_022, 23, 0, false),
            (0x522, 7_024, 25, 0, false),
            // QP 0x23: 52 opens the gap at 51; 116 is past the window (65
            // past 51: beyond), 117 too (not reported again); 52 again is
            // a duplicate; 51 moves epsn to 53 (no ACK); 116, 63 past it,
            // is kept and opens a gap, with AckReq.
            (0x523, 50, 2, 0b1, false),
            (0x523, 50, 2, 0b1, true),
            (0x523, 50, 2, 0b1, true),
            (0x523, 52, 4, 1 << 62, false),
        ];
        assert_eq!(answers, expected, "width {rtl_width:?}");
        let cnps = replay.transactions.iter().filter(|t| matches!(t.record, Record::Cn(CnRecord::Cnp { .. }))).count();
        assert_eq!(cnps, 1, "width {rtl_width:?}: the CE mark on 107");
    }
}

#[test]
fn a_wrong_register_in_the_rtl_is_reported_field_by_field() {
    let (capture, setup) = common::capture_setup("cn/dcqcn_stages.pcap");
    let options = CosimOptions::new(Model::plain(64), Handshake { seed: 7, idle_pct: 10, stall_pct: 10 });
    let stimulus = || read_stimulus(&mut CaptureReader::open(&capture).unwrap(), &setup, &ParserConfig::default());
    let mut wrong = setup.regs;
    wrong.min_dec_q15 += 1;
    wrong.initial_alpha -= 1;
    let run = cosim_cn_stimulus(&capture, stimulus(), &options, &setup, &wrong);
    let Ending::Diverged(d) = run.ending else { panic!("no divergence: {:?}", run.ending) };
    assert_eq!((d.kind, d.block), (DivergenceKind::Mismatch, "cn.rate"), "{d}");
    // The first transaction hands the first sent packet on, with alpha.
    let fields: Vec<&str> = d.diffs.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(fields, ["alpha"], "{d}");
    assert!(d.repro.contains("--block cn") && d.to_string().contains("cn.rate transaction 0"), "{d}");

    // --wave: the re-run with the same seed writes the waveform around it.
    let rerun = common::rerun_writes_a_waveform("cn-divergence.fst", &options, |o| {
        cosim_cn_stimulus(&capture, stimulus(), o, &setup, &wrong)
    });
    assert_eq!(rerun.wave.as_deref(), Some(common::scratch("cn-divergence.fst").as_path()));

    let (capture, setup) = common::capture_setup("cn/incast_8to1.pcap");
    let stimulus = read_stimulus(&mut CaptureReader::open(&capture).unwrap(), &setup, &ParserConfig::default());
    let mut wrong = setup.regs;
    wrong.cnp_dscp = 46;
    let run = cosim_cn_stimulus(&capture, stimulus, &options, &setup, &wrong);
    let Ending::Diverged(d) = run.ending else { panic!("no divergence: {:?}", run.ending) };
    assert_eq!((d.kind, d.block, d.diffs[0].field.as_str()), (DivergenceKind::Mismatch, "cn.cnp", "frame"), "{d}");
}

#[test]
fn cnps_written_by_out_pcap_carry_a_valid_icrc_and_decode_in_tshark() {
    let tshark = std::env::var("TSHARK").unwrap_or_else(|_| "tshark".into());
    let mut checked = 0;
    for name in ["cn/incast_8to1.pcap", "cn/incast_8to1_metaroce.pcap", "cn/all_to_all_4.pcap", "cn/idle_gaps_20s.pcap"]
    {
        let capture = common::pcaps().join(name);
        let out_pcap = common::scratch(&name.replace('/', "_"));
        let status = Command::new(env!("CARGO_BIN_EXE_metaroce"))
            .args(["replay", "--block", "cn", "--out-pcap"])
            .arg(&out_pcap)
            .arg(&capture)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{name}");
        let setup = CnSetup::for_capture(&capture, &CnOverrides::default()).unwrap();
        let transactions = replay_cn(&capture, None, &setup, &ParserConfig::default()).unwrap().transactions;
        let expected: Vec<(u64, u32)> = transactions
            .iter()
            .filter_map(|t| match &t.record {
                Record::Cn(CnRecord::Cnp { dest_qp, .. }) => Some((t.time_ns, dest_qp.unwrap())),
                _ => None,
            })
            .collect();
        let frames: Vec<_> = CaptureReader::open(&out_pcap).unwrap().map(Result::unwrap).collect();
        assert_eq!(frames.len(), expected.len(), "{name}");
        assert!(!frames.is_empty(), "{name}: no CNP");
        for (frame, (time_ns, _)) in frames.iter().zip(&expected) {
            let r = parse_frame(&frame.data, false, &ParserConfig::default());
            assert_eq!((r.class, r.opcode, r.icrc_ok, r.becn), (FrameClass::Roce, Some(0x81), Some(true), Some(1)));
            assert_eq!(frame.time_ns, *time_ns, "{name} frame {}: emit time", frame.index);
        }
        let decoded = Command::new(&tshark)
            .arg("-r")
            .arg(&out_pcap)
            .args(["-d", "udp.port==4791,infiniband", "-T", "fields", "-E", "separator=,"])
            .args([
                "-e",
                "infiniband.bth.opcode",
                "-e",
                "infiniband.bth.destqp",
                "-e",
                "ip.dsfield.dscp",
                "-e",
                "ipv6.tclass.dscp",
            ])
            .output()
            .unwrap_or_else(|e| panic!("cannot run {tshark}: {e}"));
        assert!(decoded.status.success(), "{}", String::from_utf8_lossy(&decoded.stderr));
        let lines: Vec<String> = String::from_utf8(decoded.stdout).unwrap().lines().map(String::from).collect();
        assert_eq!(lines.len(), expected.len());
        for (line, (_, dest_qp)) in lines.iter().zip(&expected) {
            let cols: Vec<&str> = line.split(',').collect();
            let qp = u32::from_str_radix(cols[1].trim_start_matches("0x"), 16).unwrap();
            assert_eq!((cols[0], qp), ("129", *dest_qp), "{name}: {line}");
            assert!(cols[2] == "48" || cols[3] == "48", "{name}: DSCP in {line}");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} CNPs decoded");
}

#[test]
fn twenty_seconds_of_capture_cost_cycles_per_event_not_per_second() {
    let (capture, setup) = common::capture_setup("cn/idle_gaps_20s.pcap");
    let stimulus = read_stimulus(&mut CaptureReader::open(&capture).unwrap(), &setup, &ParserConfig::default());
    let span_ns = *stimulus.frame_ticks.last().unwrap();
    assert!(span_ns >= 20_000_000_000, "the capture spans {span_ns} ns");
    let events = stimulus.inputs.len() as u64;
    let started = std::time::Instant::now();
    let options = CosimOptions::new(Model::plain(512), Handshake::full_speed(3));
    let run = cosim_cn_stimulus(&capture, stimulus, &options, &setup, &setup.regs);
    assert!(matches!(run.ending, Ending::Matched), "{:?}", run.ending);
    let counts = run.cn.unwrap();
    // Cycles follow the work (events, timer expiries worked off, CNP beats),
    // not the 20 s of capture time.
    let work = events + counts.rate_changes * 8 + counts.cnps * 16;
    println!(
        "20 s capture: {events} events, {} rate changes, {} CNPs, {} cycles, {:.2} s wall",
        counts.rate_changes,
        counts.cnps,
        run.cycles,
        started.elapsed().as_secs_f64()
    );
    assert!(run.cycles < 20 * work, "{} cycles for {work} units of work", run.cycles);
}

/// The most cycles the reaction point's catch-up may add to an event after
/// any idle gap (SPEC.md §6.4, issue 15), for this test's settings: the
/// default DCQCN settings and byte stage 0 give four runs of like increases
/// (fast recovery, additive, the step up to line rate, at line rate), each
/// at most 2 log2(n) + 2 chunks or halvings of three cycles for n expiries,
/// n < 2^49 for 64-bit ticks and T = 55 µs; the alpha decays go side by
/// side (four cycles a chunk, two a halving, the first decision a cycle
/// after the load: at most 4 (2 log2(n) + 2) + 1). A byte stage past F adds three
/// cycles per hyper step while the timer stage is below it (SPEC.md §6.4).
const CATCH_UP_CYCLES_MAX: u64 = 4 * 3 * (2 * 49 + 2);

/// Ten CNPs for QP 0, a timer period apart (each after an increase, so the
/// target follows the rate down, to 4 % of line rate at 100 Gb/s), an idle
/// `gap`, then a packet QP 0 sends (its catch-up: 18,000 additive increases
/// to line rate and alpha's decays to 0 after 10 s, one cycle each before
/// issue 15's closed form) and 20 that QP 1
/// sends (timers stopped: they wait only behind the catch-up): the cosim's
/// cycles (golden model and RTL matched).
fn cycles_after_idle(gap_ns: u64) -> u64 {
    let (capture, setup) = common::capture_setup("cn/idle_gaps_20s.pcap");
    let sent = |time, qp| CnEvent { len: 1_000, ..CnEvent::new(time, CnEventKind::TxData, qp) };
    let last_cnp = 1_000 + 9 * 60_000;
    let mut events: Vec<CnEvent> = (0..10).map(|i| CnEvent::new(1_000 + i * 60_000, CnEventKind::RxCnp, 0)).collect();
    events.push(sent(last_cnp + gap_ns, 0));
    events.extend((1..=20).map(|i| sent(last_cnp + gap_ns + i * 100, 1)));
    let stimulus = CnStimulus::from_events(events);
    let options = CosimOptions::new(Model::plain(64), Handshake::full_speed(1));
    let run = cosim_cn_stimulus(&capture, stimulus, &options, &setup, &setup.regs);
    assert!(matches!(run.ending, Ending::Matched), "gap {gap_ns} ns: {:?}", run.ending);
    run.cycles
}

#[test]
fn ten_idle_seconds_cost_a_bounded_catch_up() {
    let baseline = cycles_after_idle(1_000);
    for gap_ns in [100_000, 10_000_000, 1_000_000_000, 10_000_000_000] {
        let extra = cycles_after_idle(gap_ns) - baseline;
        println!("idle {gap_ns} ns: catch-up {extra} cycles (bound {CATCH_UP_CYCLES_MAX})");
        assert!(extra <= CATCH_UP_CYCLES_MAX, "idle {gap_ns} ns cost {extra} cycles");
    }
}

fn metaroce(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_metaroce")).args(args).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_parameters_are_refused_with_a_clear_message() {
    let capture = common::pcaps().join("cn/dcqcn_stages.pcap");
    let capture = capture.to_str().unwrap();
    for (param, needle) in [
        ("np_min_time_between_cnps=0", "np_min_time_between_cnps = 0: must be 1..="),
        ("rp_dce_tcp_g=2000", "rp_dce_tcp_g = 2000: must be 0..=1023"),
        ("rp_min_rate=200000", "minimum rate is above the line rate"),
        ("rp_nonsense=1", "known names"),
        ("rp_ai_rate=fast", "not a decimal integer"),
    ] {
        for command in ["cosim", "replay"] {
            let (ok, stderr) = metaroce(&[command, capture, "--cc-param", param]);
            assert!(!ok, "{command} --cc-param {param} was accepted");
            assert!(stderr.contains(needle) && !stderr.contains("panicked"), "{command} {param}: {stderr}");
        }
    }
    // A NIC file with a bad value names the file.
    let nic = common::scratch("bad.nic.json");
    std::fs::write(&nic, r#"{"cc": {"line_rate_mbps": 100000, "rp_min_rate": 100001}}"#).unwrap();
    let (ok, stderr) = metaroce(&["cosim", capture, "--block", "cn", "--nic", nic.to_str().unwrap()]);
    assert!(!ok && stderr.contains("bad.nic.json") && stderr.contains("rp_min_rate"), "{stderr}");
    std::fs::write(&nic, r#"{"cc": {"rp_gd": 3}}"#).unwrap();
    let (ok, stderr) = metaroce(&["cosim", capture, "--block", "cn", "--nic", nic.to_str().unwrap()]);
    assert!(!ok && stderr.contains("bad.nic.json") && stderr.contains("rp_gd"), "{stderr}");
}

/// A parameter added through the register table (`golden/src/cc_table.rs`),
/// set non-zero: `rp_rate_reduce_monitor_period`, at most one cut per
/// period. Golden model and RTL agree on every capture whose NIC allows it,
/// and the period changes what some of them do.
#[test]
fn the_rate_reduce_monitor_period_matches_between_golden_model_and_rtl() {
    let seed = common::seed("cn reduce period");
    let period = CnOverrides {
        params: vec!["rp_rate_reduce_monitor_period=55".parse::<CcSetting>().unwrap()],
        ..CnOverrides::default()
    };
    let (mut failures, mut runs, mut changed) = (Vec::new(), 0, 0);
    for capture in common::captures() {
        // A NIC whose increase timer is shorter than the period refuses it.
        let Ok(setup) = CnSetup::for_capture(&capture, &period) else { continue };
        let options = CosimOptions::new(Model::plain(64), Handshake { seed, idle_pct: 25, stall_pct: 25 });
        let run = cosim_cn_capture(&capture, &options, &setup);
        if common::matched(&run, capture.display(), &mut failures) {
            runs += 1;
            let base = CnSetup::for_capture(&capture, &CnOverrides::default()).unwrap();
            let before = cosim_cn_capture(&capture, &options, &base).cn.map(|c| c.rate_changes);
            changed += usize::from(run.cn.map(|c| c.rate_changes) != before);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(runs > 5 && changed > 0, "{runs} captures run, {changed} changed by the period");
}

/// `--cc-preset paper|ns3|mlx5` (`SPEC.md` §6.8): golden model and RTL
/// agree under each preset on every capture whose NIC allows it, and each
/// preset changes what some capture does.
#[test]
fn each_preset_matches_between_golden_model_and_rtl() {
    let seed = common::seed("cn presets");
    let options = CosimOptions::new(Model::plain(64), Handshake { seed, idle_pct: 25, stall_pct: 25 });
    let mut failures = Vec::new();
    for preset in CcPreset::ALL {
        let overrides = CnOverrides { preset: Some(preset), ..CnOverrides::default() };
        let (mut runs, mut changed) = (0, 0);
        for capture in common::captures() {
            let Ok(setup) = CnSetup::for_capture(&capture, &overrides) else { continue };
            let run = cosim_cn_capture(&capture, &options, &setup);
            if common::matched(&run, format!("{} --cc-preset {preset}", capture.display()), &mut failures) {
                runs += 1;
                let base = CnSetup::for_capture(&capture, &CnOverrides::default()).unwrap();
                let before = cosim_cn_capture(&capture, &options, &base).cn.map(|c| c.rate_changes);
                changed += usize::from(run.cn.map(|c| c.rate_changes) != before);
            }
        }
        assert!(runs > 5 && changed > 0, "{preset}: {runs} captures run, {changed} changed by the preset");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A NIC file's `cc.preset` gives the defaults of what the file leaves
/// out; the file's own values and `--cc-param` win; a bad preset is
/// refused naming the file, and `--cc-preset` naming the flag.
#[test]
fn a_nic_files_preset_sits_beneath_its_own_values() {
    let nic = common::scratch("preset.nic.json");
    std::fs::write(&nic, r#"{"cc": {"preset": "ns3", "line_rate_mbps": 400000, "rp_time_reset": 100}}"#).unwrap();
    let file = metaroce_cosim::nic::NicFile::read(&nic).unwrap();
    let cc = file.config.cc;
    // ns-3's R_AI scales with the line rate: 5 Mb/s per 25 Gb/s.
    assert_eq!((cc.rp_ai_rate, cc.rp_hai_rate, cc.rp_threshold, cc.rp_time_reset), (80, 800, 1, 100));
    let capture = common::pcaps().join("cn/dcqcn_stages.pcap");
    let overrides = CnOverrides {
        nic: Some(file),
        params: vec!["rp_threshold=3".parse::<CcSetting>().unwrap()],
        ..CnOverrides::default()
    };
    assert_eq!(CnSetup::for_capture(&capture, &overrides).unwrap().nic.cc.rp_threshold, 3);
    std::fs::write(&nic, r#"{"cc": {"preset": "hpcc"}}"#).unwrap();
    let e = metaroce_cosim::nic::NicFile::read(&nic).unwrap_err();
    assert!(e.contains("preset.nic.json") && e.contains("`hpcc`: choose one of paper, ns3, mlx5"), "{e}");
    let capture = capture.to_str().unwrap();
    let (ok, stderr) = metaroce(&["cosim", capture, "--block", "cn", "--cc-preset", "hpcc"]);
    assert!(
        !ok && stderr.contains("--cc-preset") && stderr.contains("`hpcc`") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// Random parameters, QP tables and event streams (`metaroce fuzz --block
/// cn` runs the same scenarios, longer): golden model against RTL at both
/// widths under random handshakes.
#[test]
fn random_event_streams_match_between_golden_model_and_rtl() {
    let seed = common::seed("cn random streams");
    let outcome = run_cn_fuzz(seed, 0, 200);
    if let Some(failure) = outcome.failure {
        panic!("{failure}");
    }
    let c = outcome.counts;
    assert!(
        c.cnps > 500
            && c.rate_changes > 2_000
            && c.acks - c.selective_acks >= 300
            && c.selective_acks >= 300
            && c.retx >= 50
            && c.selective_retx >= 20
            && c.retry_exhausted >= 10
            && c.timeouts >= 10,
        "too little compared: {} CNPs, {} rate changes, {}, {}",
        c.cnps,
        c.rate_changes,
        c.acks_text(),
        c.retx_text()
    );
}

#[test]
fn both_points_take_an_event_every_cycle() {
    let (capture, setup) = common::capture_setup("cn/incast_8to1.pcap");
    // Received data without CE (no CNP) and sent data (no CNP yet, so no
    // timers), cycling over a few QPs so that consecutive events hit the
    // same RAM word and the forwarding paths of both points.
    let stimulus = CnStimulus::from_events((0..2000u64).map(|i| {
        let kind = if i % 3 == 0 { CnEventKind::TxData } else { CnEventKind::RxData };
        let mut ev = CnEvent::new(i, kind, [0x13, 0x13, 0x14, 0x15, 0x13][i as usize % 5]);
        ev.len = 1000;
        ev
    }));
    for width in DATA_WIDTHS {
        let options = CosimOptions::new(Model::plain(width), Handshake::full_speed(1));
        let run = cosim_cn_stimulus(&capture, stimulus.clone(), &options, &setup, &setup.regs);
        assert!(matches!(run.ending, Ending::Matched), "{:?}", run.ending);
        // One cycle per QP context loaded, one per event, and the drain:
        // the last sent-bytes event's transaction, 9 cycles after it was
        // taken (SPEC.md §6.4; 2 before the re-pipelining, which added 7).
        let bound = 2000 + setup.nic.qps.len() as u64 + 2 + 7;
        assert!(run.cycles <= bound, "w{width}: {} cycles for 2000 events", run.cycles);
    }
}

/// NAKs back to back, each in its window and so each a retransmit request
/// (every one acknowledges a packet, so each counts one retry from 0 and
/// none uses them up): the requester takes one a cycle while `m_retx_ready`
/// is high (`SPEC.md` §6.11: the output queue has room for the NAKs in R, B
/// and W and two more events). The QPs take turns, as the reaction point
/// takes sent data of one QP every other cycle (§6.4).
#[test]
fn the_requester_takes_a_nak_every_cycle() {
    use metaroce_golden::responder::AETH_NAK_PSN_SEQ;
    let (capture, setup) = common::capture_setup("cn/rc_requester.pcap");
    const QPS: [u32; 3] = [0x120, 0x121, 0x122];
    const SENT: u32 = 400;
    let sent = (0..SENT).flat_map(|psn| QPS.map(|qp| (CnEventKind::TxData, qp, psn)));
    let naks = (1..SENT).flat_map(|psn| QPS.map(|qp| (CnEventKind::RxData, qp, psn)));
    // One event a tick.
    let stimulus = CnStimulus::from_events(sent.chain(naks).zip(0u64..).map(|((kind, qp, psn), tick)| {
        let mut ev = CnEvent::new(tick, kind, qp);
        ev.psn = psn;
        if kind == CnEventKind::TxData {
            (ev.len, ev.rc_req) = (1000, true);
        } else {
            (ev.len, ev.syndrome) = (60, Some(AETH_NAK_PSN_SEQ));
        }
        ev
    }));
    let events = stimulus.inputs.len() as u64;
    for width in DATA_WIDTHS {
        let options = CosimOptions::new(Model::plain(width), Handshake::full_speed(1));
        let run = cosim_cn_stimulus(&capture, stimulus.clone(), &options, &setup, &setup.regs);
        assert!(matches!(run.ending, Ending::Matched), "{:?}", run.ending);
        let counts = run.cn.unwrap();
        assert_eq!((counts.retx, counts.retry_exhausted), (3 * u64::from(SENT - 1), 0), "w{width}");
        // One cycle per QP context loaded, one per event, and the last
        // NAK's request 6 cycles after it was taken (2,406 cycles); 2 more
        // of slack, as above.
        let bound = events + setup.nic.qps.len() as u64 + 2 + 6;
        assert!(run.cycles <= bound, "w{width}: {} cycles for {events} events (bound {bound})", run.cycles);
    }
}
