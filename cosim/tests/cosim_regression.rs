//! The cosim regression: every capture under pcaps/ through RTL and golden
//! model at every data width, with seeded random idle cycles on the input
//! and random backpressure on the output; and the parser's cycle contract.

mod common;

use metaroce_cosim::blocks::parser::cosim_capture;
use metaroce_cosim::capture::{CaptureReader, Frame};
use metaroce_cosim::harness::CosimOptions;
use metaroce_cosim::rtl::{Handshake, Model, RtlParser, DATA_WIDTHS};
use metaroce_cosim::stimuli::RoceFrame;

#[test]
fn every_capture_matches_at_every_width_under_random_handshakes() {
    let seed = common::seed("cosim regression");
    let mut failures = Vec::new();
    let mut frames = 0;
    for capture in common::captures() {
        for width in DATA_WIDTHS {
            let run = cosim_capture(
                &capture,
                &CosimOptions::new(Model::plain(width), Handshake { seed, idle_pct: 25, stall_pct: 25 }),
            );
            frames += run.frames_matched;
            if common::matched(&run, capture.display(), &mut failures) {
                assert!(run.frames_read > 0, "{}: no frames", capture.display());
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(frames > 4500, "only {frames} frames compared");
}

fn frames_of(capture: &str) -> Vec<Frame> {
    CaptureReader::open(&common::pcaps().join(capture)).unwrap().map(Result::unwrap).collect()
}

/// Pushes `frames` at full speed; returns (last-beat cycle, record cycle) per frame.
fn run_full_speed(width: u32, frames: &[Frame]) -> Vec<(u64, u64)> {
    let mut rtl = RtlParser::new(Model::plain(width), Handshake::full_speed(1)).unwrap();
    let mut record_cycles: Vec<u64> = rtl.push(frames).iter().map(|r| r.cycle).collect();
    let beat_cycles = rtl.last_beat_cycles().to_vec();
    record_cycles.extend(rtl.drain(frames.len() - record_cycles.len()).iter().map(|r| r.cycle));
    assert_eq!(record_cycles.len(), frames.len());
    beat_cycles.into_iter().zip(record_cycles).collect()
}

#[test]
fn takes_a_beat_every_cycle_with_no_bubble_between_frames() {
    let frames = frames_of("frame_sizes.pcap");
    for width in DATA_WIDTHS {
        let keep = (width / 8) as u64;
        let cycles = run_full_speed(width, &frames);
        for i in 1..frames.len() {
            let beats = (frames[i].data.len() as u64).div_ceil(keep);
            assert_eq!(
                cycles[i].0 - cycles[i - 1].0,
                beats,
                "w{width}: frame {} ({} bytes) should take {beats} cycle(s)",
                i + 1,
                frames[i].data.len()
            );
        }
    }
}

#[test]
fn sixty_byte_frames_at_512_bits_run_one_frame_per_cycle() {
    let frames: Vec<Frame> = (0..500)
        .map(|i| Frame { index: i + 1, data: RoceFrame::new(0x04, i as u32).build(), ..Frame::default() })
        .collect();
    assert!(frames.iter().all(|f| f.data.len() == 60));
    let cycles = run_full_speed(512, &frames);
    for pair in cycles.windows(2) {
        assert_eq!(pair[1].0 - pair[0].0, 1, "input: one frame per cycle");
        assert_eq!(pair[1].1 - pair[0].1, 1, "output: one record per cycle");
    }
}

#[test]
fn record_follows_the_last_beat_by_ten_cycles() {
    let frames = frames_of("opcodes.pcap");
    for width in DATA_WIDTHS {
        for (i, (last_beat, record)) in run_full_speed(width, &frames).into_iter().enumerate() {
            assert_eq!(record - last_beat, 10, "w{width} frame {}", i + 1);
        }
    }
}

#[test]
fn backpressure_holds_the_input_and_loses_nothing() {
    // The sink is never ready for 90% of cycles: every frame still comes out.
    let frames = frames_of("back_to_back.pcap");
    let seed = common::seed("heavy backpressure");
    for width in DATA_WIDTHS {
        let mut rtl = RtlParser::new(Model::plain(width), Handshake { seed, idle_pct: 0, stall_pct: 90 }).unwrap();
        let mut got = rtl.push(&frames).len();
        got += rtl.drain(frames.len() - got).len();
        assert_eq!(got, frames.len(), "w{width}");
    }
}

#[test]
fn cycle_figures_are_line_rate_with_ten_cycles_of_latency() {
    for len in [60usize, 1024, 9000] {
        for width in DATA_WIDTHS {
            let (per_frame, latency) = metaroce_cosim::bench::cycle_figures(width, len).unwrap();
            assert_eq!(per_frame, (len as u64).div_ceil(width as u64 / 8), "{len} bytes at w{width}");
            assert_eq!(latency, 10, "{len} bytes at w{width}");
        }
    }
}

#[test]
fn the_benchmark_runs_and_reports_every_figure() {
    // Figures only; speed is never asserted in a test.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_metaroce"))
        .args(["bench", "--frames", "3000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    for needle in [
        "bare C++ loop",
        "cosim / bare speed",
        "golden model alone, 60-byte frames",
        "where the cosim's time goes",
        "RTL cycle figures",
        "| 9000 | 512 | 141 | 141 | 10 |",
    ] {
        assert!(text.contains(needle), "`{needle}` missing:\n{text}");
    }
}
