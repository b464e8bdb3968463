//! The parser (`SPEC.md` §4–5): every frame goes through the golden parser
//! and the Verilated `roce_parser`, and their parse records are compared
//! frame by frame.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

use metaroce_golden::{parse_frame, ParseRecord, ParserConfig};

use crate::capture::{CaptureReader, Frame};
use crate::compare::StreamComparator;
use crate::harness::{fill_batch, CosimOptions, Ending, FrameSlice, FrameSource};
use crate::nic::CnSetup;
use crate::report::{DivergenceKind, Record, Transaction};
use crate::rtl::{RtlParser, STALL_CYCLES};
use crate::run::{Block, BlockInfo, CaptureRun, ReplayParts};

/// The parser in the block table.
pub struct Parser;

const PARSE_STREAM: &[&str] = &["parser"];

const INFO: BlockInfo = BlockInfo::new("parser", PARSE_STREAM).parser_like().replays(ReplayParts::PARSER);

impl Block for Parser {
    fn info(&self) -> &'static BlockInfo {
        &INFO
    }
    fn cosim(&self, capture: &Path, options: &CosimOptions, _: Option<&CnSetup>) -> CaptureRun {
        cosim_capture(capture, options)
    }
    fn counts(&self, run: &CaptureRun) -> String {
        format!("{} frame(s) read, {} matched", run.frames_read, run.frames_matched)
    }
}

/// Runs one capture through golden model and RTL; stops at the first
/// divergence.
pub fn cosim_capture(capture: &Path, options: &CosimOptions) -> CaptureRun {
    match CaptureReader::open(capture) {
        Ok(mut reader) => cosim_source(capture, &mut reader, options),
        Err(e) => CaptureRun::failed(capture, options, &Parser, Ending::CaptureError(e)),
    }
}

/// Runs `frames` (named `name` in reports) through golden model and RTL.
pub fn cosim_in_memory(name: &Path, frames: &[Frame], options: &CosimOptions) -> CaptureRun {
    cosim_source(name, &mut FrameSlice::new(frames), options)
}

fn cosim_source(name: &Path, source: &mut dyn FrameSource, options: &CosimOptions) -> CaptureRun {
    let started = Instant::now();
    let mut run = CaptureRun::for_block(name, options, &Parser);
    run.ending = match RtlParser::new(options.model, options.handshake) {
        Err(e) => Ending::Setup(e),
        Ok(mut rtl) => {
            let mut ending = match start_outputs(&mut rtl, options) {
                Ok(()) => match cosim_frames(name, source, options, &mut rtl, &mut run) {
                    Ok(()) => Ending::Matched,
                    Err(ending) => ending,
                },
                Err(e) => Ending::Setup(e),
            };
            if let Err(e) = finish_outputs(&mut rtl, options, &mut run) {
                if matches!(ending, Ending::Matched) {
                    ending = Ending::Setup(e);
                }
            }
            ending
        }
    };
    run.elapsed = started.elapsed();
    run
}

fn start_outputs(rtl: &mut RtlParser, options: &CosimOptions) -> Result<(), String> {
    if let Some(window) = &options.wave {
        rtl.open_trace(&window.path, window.from, window.to)?;
    }
    Ok(())
}

fn finish_outputs(rtl: &mut RtlParser, options: &CosimOptions, run: &mut CaptureRun) -> Result<(), String> {
    if let Some(window) = &options.wave {
        // Clock on to the end of the window so the trace shows what followed.
        let now = rtl.cycles();
        if window.to >= now {
            rtl.idle(window.to + 1 - now);
        }
        rtl.close_trace();
        run.wave = Some(window.path.clone());
    }
    if let Some(path) = &options.coverage_dat {
        rtl.write_coverage(path)?;
    }
    Ok(())
}

fn cosim_frames(
    capture: &Path,
    reader: &mut dyn FrameSource,
    options: &CosimOptions,
    rtl: &mut RtlParser,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let repro = Box::new(|frame: u64| options.repro(capture, frame.max(1)));
    let mut compare = StreamComparator::per_frame(capture, options, repro, PARSE_STREAM);
    let mut batch: Vec<Frame> = vec![Frame::default(); options.batch.max(1)];
    let mut capture_error = None;
    loop {
        let clock = Instant::now();
        let (filled, error) = fill_batch(reader, &mut batch, options.frames);
        capture_error = capture_error.or(error);
        run.frames_read = reader.frames_read();
        let clock = run.phases.capture_io.lap(clock);
        let first_new = compare.pending(0).len();
        for frame in &batch[..filled] {
            let record = golden_record(frame, &options.parser).map_err(|panic| {
                let detail = format!("the golden model failed on this frame: {panic}");
                let at = (frame.index, frame.time_ns);
                compare.diverged_at(0, DivergenceKind::GoldenModelError, at, rtl.cycles(), detail, vec![])
            })?;
            let t = Transaction {
                frame: frame.index,
                time_ns: frame.time_ns,
                cycle: None,
                record: Record::Parse(Box::new(record)),
            };
            compare.expect(0, t);
        }
        let clock = run.phases.golden.lap(clock);
        rtl.push(&batch[..filled]);
        run.cycles = rtl.cycles();
        let clock = run.phases.rtl.lap(clock);
        for record in compare.pending(0).range(first_new..).filter_map(|t| t.record.as_parse()) {
            run.functional.observe(record);
        }
        check_all(&mut compare, rtl, run)?;
        run.phases.compare.lap(clock);
        if filled < batch.len() {
            break;
        }
    }
    let clock = Instant::now();
    rtl.drain(compare.pending(0).len());
    run.cycles = rtl.cycles();
    let clock = run.phases.rtl.lap(clock);
    check_all(&mut compare, rtl, run)?;
    run.phases.compare.lap(clock);
    let left = compare.pending(0).len();
    if left > 0 {
        let detail = format!("no RTL record for {STALL_CYCLES} cycles; {left} frame(s) without a record");
        return Err(compare.diverged(0, DivergenceKind::RtlStalled, run.cycles, detail, vec![]));
    }
    match capture_error {
        Some(e) => Err(Ending::CaptureError(e)),
        None => Ok(()),
    }
}

/// Compares the records of the last push or drain in cycle order; an RTL
/// assertion ends the run at its cycle, after the records that came out
/// before it. The frame it names is the oldest one still in the pipeline
/// then (or the last one out).
fn check_all(compare: &mut StreamComparator, rtl: &RtlParser, run: &mut CaptureRun) -> Result<(), Ending> {
    let assertion = rtl.assertion();
    let before = assertion.as_ref().map_or(u64::MAX, |(_, cycle)| *cycle);
    let checked = rtl
        .records()
        .iter()
        .filter(|r| r.cycle < before)
        .try_for_each(|r| compare.check(0, r.to_parse_record().map(|p| Record::Parse(Box::new(p))), None, r.cycle));
    run.frames_matched = compare.matched(0);
    checked?;
    let Some((message, cycle)) = assertion else { return Ok(()) };
    Err(compare.diverged(0, DivergenceKind::RtlAssertion, cycle, message, vec![]))
}

/// The golden record of a frame; a panic in the model becomes an error
/// message (the ending `golden_model_error`) instead of ending the process.
fn golden_record(frame: &Frame, parser: &ParserConfig) -> Result<ParseRecord, String> {
    catch_model_panic(|| parse_frame(&frame.data, frame.mac_error, parser))
}

fn catch_model_panic<T>(model: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(model)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the golden model panicked".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_golden_model_panic_becomes_a_message() {
        assert_eq!(catch_model_panic(|| 7), Ok(7));
        let caught = catch_model_panic(|| -> u32 { panic!("index {} out of range", 99) });
        assert_eq!(caught, Err("index 99 out of range".to_string()));
    }
}
