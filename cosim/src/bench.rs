//! `metaroce bench`: speed of the cosim against the speed limit of the
//! Verilated model alone, speed of the golden model, where the cosim's time
//! goes, and the RTL's cycle figures, all measured in one run.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use metaroce_golden::{parse_frame, ParserConfig};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{Endianness, TsResolution};

use crate::blocks::parser::cosim_capture;
use crate::capture::{CaptureReader, Frame};
use crate::harness::{CosimOptions, Ending, Phases};
use crate::rtl::{Handshake, Model, RtlParser, DATA_WIDTHS};
use crate::stimuli::{carried_opcodes, RoceFrame};

/// Distinct frames the mixed capture cycles through.
const POOL: usize = 4096;

/// The mixed traffic: every RoCEv2 opcode, IPv4 and IPv6, VLAN tags, mostly
/// small frames with some of 1 KB and a few jumbo ones, a sprinkle of
/// errors (bad ICRC). Frame `i` of the capture is `pool[i % POOL]`.
pub fn mixed_pool() -> Vec<Vec<u8>> {
    let ops = carried_opcodes();
    (0..POOL)
        .map(|i| {
            let seq = i as u32;
            let payload = match i % 16 {
                0..=9 => i % 64,
                10..=13 => 64 + (i * 7) % 448,
                14 => 1024,
                _ if i % 64 == 15 => 8000,
                _ => 1500,
            };
            let mut f = RoceFrame::new(ops[i % ops.len()], seq).with_payload(payload, seq);
            if i % 4 == 1 {
                f = f.ipv6(seq);
            }
            if i % 8 == 2 {
                f = f.tagged(&[(0x8100, 3, (i % 4000) as u16)]);
            }
            if i % 97 == 5 {
                f.corrupt_icrc = true;
            }
            f.ecn = (i % 4) as u8;
            f.build()
        })
        .collect()
}

/// Writes `frames` frames of the mixed traffic to `path`, streaming.
pub fn write_mixed_capture(path: &Path, frames: u64) -> Result<()> {
    let pool = mixed_pool();
    let header =
        PcapHeader { ts_resolution: TsResolution::NanoSecond, endianness: Endianness::Little, ..PcapHeader::default() };
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut writer = PcapWriter::with_header(BufWriter::with_capacity(1 << 20, file), header)?;
    for i in 0..frames {
        let data = &pool[(i % POOL as u64) as usize];
        let time = Duration::from_nanos(1_700_000_000_000_000_000 + i * 100);
        writer.write_packet(&PcapPacket::new(time, data.len() as u32, data))?;
    }
    writer.into_writer().flush()?;
    Ok(())
}

/// Timed passes over the frames for the golden model's figures.
const GOLDEN_PASSES: usize = 20;
/// 60-byte frames in one timed pass.
const SMALL_FRAMES: usize = 50_000;

/// The golden parser's time per frame, ns, over whole passes of `frames`:
/// (fastest pass, median pass). Every pass parses the same frames, so the
/// fastest is the parser's own speed on one core when the machine is
/// shared, and the median says how far the scheduler moved it.
fn golden_speed(frames: &[&[u8]]) -> (f64, f64) {
    let config = ParserConfig::default();
    let mut passes = Vec::with_capacity(GOLDEN_PASSES);
    let mut sink = 0u64;
    for _ in 0..GOLDEN_PASSES {
        let started = Instant::now();
        for frame in frames {
            let record = parse_frame(std::hint::black_box(frame), false, &config);
            sink = sink.wrapping_add(u64::from(record.frame_len));
        }
        passes.push(started.elapsed().as_nanos() as f64 / frames.len() as f64);
    }
    std::hint::black_box(sink);
    passes.sort_by(f64::total_cmp);
    (passes[0], passes[passes.len() / 2])
}

/// Peak resident memory of this process so far (Linux `VmHWM`), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib / 1024.0)
}

fn per_second(count: u64, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64().max(1e-12)
}

fn share(part: Duration, whole: Duration) -> f64 {
    100.0 * part.as_secs_f64() / whole.as_secs_f64().max(1e-12)
}

/// Cycle figures of the parser for one frame size at one width: cycles per
/// frame back to back, and latency from last beat taken to record out.
pub fn cycle_figures(width: u32, frame_len: usize) -> Result<(u64, u64), String> {
    let mut data = RoceFrame::new(0x04, 1).with_payload(frame_len.saturating_sub(62), 1).build();
    data.resize(frame_len, 0);
    let frames: Vec<Frame> = (0..16).map(|i| Frame { index: i + 1, data: data.clone(), ..Frame::default() }).collect();
    let mut rtl = RtlParser::new(Model::plain(width), Handshake::full_speed(1))?;
    let mut records: Vec<u64> = rtl.push(&frames).iter().map(|r| r.cycle).collect();
    let beats = rtl.last_beat_cycles().to_vec();
    records.extend(rtl.drain(frames.len() - records.len()).iter().map(|r| r.cycle));
    let per_frame = beats[15] - beats[14];
    let latency = records[15] - beats[15];
    Ok((per_frame, latency))
}

/// Runs every measurement and prints the report. The cosim and the bare
/// loop run `rounds` times each, alternated, and the fastest round of each
/// counts: on a shared machine the noise is larger than what is measured.
pub fn run_bench(frames: u64, capture: Option<PathBuf>, rounds: u32, out: &mut dyn Write) -> Result<()> {
    let path = capture.unwrap_or_else(|| std::env::temp_dir().join(format!("metaroce-bench-{frames}.pcap")));
    let made = Instant::now();
    write_mixed_capture(&path, frames)?;
    let bytes = std::fs::metadata(&path)?.len();
    writeln!(
        out,
        "bench: {frames} mixed frames ({:.1} MB) in {}, written in {:.1} s",
        bytes as f64 / 1e6,
        path.display(),
        made.elapsed().as_secs_f64()
    )?;
    writeln!(out, "machine: {} cores; {}", std::thread::available_parallelism().map_or(1, |n| n.get()), cpu_name())?;
    out.flush()?;

    let mut cosim: Vec<(u32, u64, u64, Duration, Phases)> = Vec::new();
    let mut bare: Vec<(u32, u64, Duration)> = Vec::new();
    // 1. The full cosim, streaming from the capture, at full speed; the
    // first round runs before anything else holds frames in memory, so the
    // peak memory then is the cosim's own.
    let cosim_round = |cosim: &mut Vec<(u32, u64, u64, Duration, Phases)>| -> Result<()> {
        for (i, width) in DATA_WIDTHS.into_iter().enumerate() {
            let run = cosim_capture(&path, &CosimOptions::new(Model::plain(width), Handshake::full_speed(1)));
            if !matches!(run.ending, Ending::Matched) {
                anyhow::bail!("the bench capture did not match at w{width}: {:?}", run.ending);
            }
            let measured = (width, run.frames_read, run.cycles, run.elapsed, run.phases);
            match cosim.get_mut(i) {
                None => cosim.push(measured),
                Some(best) if measured.3 < best.3 => *best = measured,
                Some(_) => {}
            }
        }
        Ok(())
    };
    cosim_round(&mut cosim)?;
    let cosim_peak = peak_rss_mib();

    // 2. The bare C++ loop over the same frames, held in memory; the
    // further cosim rounds alternate with it.
    let mut all_bytes = Vec::with_capacity(bytes as usize);
    let mut lens = Vec::with_capacity(frames as usize);
    for frame in CaptureReader::open(&path)? {
        let frame = frame?;
        lens.push(frame.data.len() as u32);
        all_bytes.extend_from_slice(&frame.data);
    }
    for round in 0..rounds.max(1) {
        if round > 0 {
            cosim_round(&mut cosim)?;
        }
        for (i, width) in DATA_WIDTHS.into_iter().enumerate() {
            let mut rtl = RtlParser::new(Model::plain(width), Handshake::full_speed(1)).map_err(anyhow::Error::msg)?;
            let started = Instant::now();
            let (cycles, records) = rtl.bare_run(&all_bytes, &lens);
            let elapsed = started.elapsed();
            anyhow::ensure!(records == frames, "bare loop: {records} records for {frames} frames at w{width}");
            match bare.get_mut(i) {
                None => bare.push((width, cycles, elapsed)),
                Some(best) if elapsed < best.2 => *best = (width, cycles, elapsed),
                Some(_) => {}
            }
        }
    }
    writeln!(out, "best of {} round(s) for the cosim and the bare loop", rounds.max(1))?;

    // 3. The golden model alone: the mix, then 60-byte frames.
    let mut mix = Vec::with_capacity(lens.len());
    let mut offset = 0usize;
    for &len in &lens {
        mix.push(&all_bytes[offset..offset + len as usize]);
        offset += len as usize;
    }
    let golden_mix = golden_speed(&mix);
    let small = RoceFrame::new(0x04, 1).build();
    let golden_small = golden_speed(&vec![&small[..]; SMALL_FRAMES]);
    writeln!(out, "\n| measurement | DATA_WIDTH | frames/s | simulated cycles/s | ns/frame |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for ((width, frames_read, cycles, elapsed, _), (_, bare_cycles, bare_time)) in cosim.iter().zip(&bare) {
        writeln!(
            out,
            "| cosim (golden + RTL + compare, from capture) | {width} | {:.0} | {:.0} | {:.0} |",
            per_second(*frames_read, *elapsed),
            per_second(*cycles, *elapsed),
            elapsed.as_nanos() as f64 / *frames_read as f64
        )?;
        writeln!(
            out,
            "| bare C++ loop (RTL only, frames in memory) | {width} | {:.0} | {:.0} | {:.0} |",
            per_second(frames, *bare_time),
            per_second(*bare_cycles, *bare_time),
            bare_time.as_nanos() as f64 / frames as f64
        )?;
        writeln!(
            out,
            "| cosim / bare speed | {width} | {:.2}x | | |",
            bare_time.as_secs_f64() / elapsed.as_secs_f64()
        )?;
    }
    for (what, (fastest, median)) in [("mixed frames", golden_mix), ("60-byte frames", golden_small)] {
        writeln!(
            out,
            "| golden model alone, {what} (fastest of {GOLDEN_PASSES} passes; median {:.0}) | - | {:.0} | - | {:.1} |",
            1e9 / median,
            1e9 / fastest,
            fastest
        )?;
    }

    writeln!(out, "\nwhere the cosim's time goes:")?;
    writeln!(out, "| DATA_WIDTH | RTL (eval + FFI) | golden model | compare + counters | capture I/O |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for (width, _, _, elapsed, phases) in &cosim {
        let Phases { capture_io, golden, rtl, compare } = phases;
        writeln!(
            out,
            "| {width} | {:.1} % | {:.1} % | {:.1} % | {:.1} % |",
            share(rtl.0, *elapsed),
            share(golden.0, *elapsed),
            share(compare.0, *elapsed),
            share(capture_io.0, *elapsed)
        )?;
    }
    if let Some(peak) = cosim_peak {
        writeln!(
            out,
            "\npeak memory during the cosim runs: {peak:.0} MiB (capture {:.0} MB, streamed)",
            bytes as f64 / 1e6
        )?;
    }

    writeln!(out, "\nRTL cycle figures (full speed; deterministic):")?;
    writeln!(
        out,
        "| frame bytes | DATA_WIDTH | cycles per frame | ceil(bytes/KEEP_WIDTH) | latency, last beat to record |"
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    for len in [60usize, 1024, 9000] {
        for width in DATA_WIDTHS {
            let (per_frame, latency) = cycle_figures(width, len).map_err(anyhow::Error::msg)?;
            let ideal = (len as u64).div_ceil(width as u64 / 8);
            writeln!(out, "| {len} | {width} | {per_frame} | {ideal} | {latency} |")?;
        }
    }
    std::fs::remove_file(&path).ok();
    Ok(())
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name").map(|v| v.trim_start_matches([' ', '\t', ':']).to_string()))
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
