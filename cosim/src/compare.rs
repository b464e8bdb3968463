//! The one comparator of every block: golden and RTL outputs matched
//! stream by stream, each stream in its own order, and the first
//! difference turned into a [`Divergence`] report.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Instant;

use metaroce_golden::cn::TimeBase;

use crate::harness::{CosimOptions, Ending};
use crate::report::{field_diffs, remember, Divergence, DivergenceKind, FieldDiff, Record, Transaction};
use crate::run::CaptureRun;
use crate::sim_handle::SimStop;

/// One output stream: the golden transactions still to match and the
/// recent ones of both sides, for the report.
struct Stream {
    name: &'static str,
    expected: VecDeque<Transaction>,
    /// Transactions matched so far.
    matched: u64,
    golden_last: VecDeque<Transaction>,
    rtl_last: VecDeque<Transaction>,
    /// Frame and time of the last matched golden transaction.
    last: Option<(u64, u64)>,
}

/// The command that repeats a run, given the frame it diverged at.
pub type Repro<'a> = Box<dyn Fn(u64) -> String + 'a>;

/// Golden and RTL outputs compared stream by stream.
pub struct StreamComparator<'a> {
    capture: &'a Path,
    options: &'a CosimOptions,
    repro: Repro<'a>,
    /// The outputs answer the frames one for one (the parser): a mismatch
    /// is told by its frame alone, not by its index in the stream.
    per_frame: bool,
    streams: Vec<Stream>,
}

impl<'a> StreamComparator<'a> {
    /// Streams named `names`, each expecting `expected[i]` (more can follow
    /// with [`expect`](Self::expect)).
    pub fn new(
        capture: &'a Path,
        options: &'a CosimOptions,
        repro: Repro<'a>,
        names: &'static [&'static str],
        expected: Vec<Vec<Transaction>>,
    ) -> Self {
        let mut expected = expected.into_iter();
        let streams = names
            .iter()
            .map(|&name| Stream {
                name,
                expected: expected.next().unwrap_or_default().into(),
                matched: 0,
                golden_last: VecDeque::new(),
                rtl_last: VecDeque::new(),
                last: None,
            })
            .collect();
        StreamComparator { capture, options, repro, per_frame: false, streams }
    }

    /// One stream whose outputs answer the frames one for one.
    pub fn per_frame(
        capture: &'a Path,
        options: &'a CosimOptions,
        repro: Repro<'a>,
        name: &'static [&'static str],
    ) -> Self {
        StreamComparator { per_frame: true, ..Self::new(capture, options, repro, name, vec![]) }
    }

    /// Golden transactions still to match on `stream`.
    pub fn pending(&self, stream: usize) -> &VecDeque<Transaction> {
        &self.streams[stream].expected
    }

    pub fn matched(&self, stream: usize) -> u64 {
        self.streams[stream].matched
    }

    pub fn expect(&mut self, stream: usize, t: Transaction) {
        self.streams[stream].expected.push_back(t);
    }

    /// Matches an RTL output against the next golden transaction of
    /// `stream`; `time_ns` of `None` takes the golden one's. `Err` in
    /// `record` is an output with no meaning.
    pub fn check(
        &mut self,
        stream: usize,
        record: Result<Record, String>,
        time_ns: Option<u64>,
        cycle: u64,
    ) -> Result<(), Ending> {
        let record = match record {
            Ok(record) => record,
            Err(detail) => return Err(self.diverged(stream, DivergenceKind::InvalidRtlOutput, cycle, detail, vec![])),
        };
        let history = self.options.history;
        let s = &mut self.streams[stream];
        let Some(golden) = s.expected.front() else {
            let time_ns = time_ns.or(s.last.map(|(_, t)| t)).unwrap_or(0);
            remember(&mut s.rtl_last, Transaction { frame: 0, time_ns, cycle: Some(cycle), record }, history);
            let detail = match self.per_frame {
                true => "the RTL produced a record with no frame left to match it".to_string(),
                false => format!("the RTL produced a {} transaction beyond the golden model's {}", s.name, s.matched),
            };
            return Err(self.diverged(stream, DivergenceKind::ExtraRtlTransaction, cycle, detail, vec![]));
        };
        let observed =
            Transaction { frame: golden.frame, time_ns: time_ns.unwrap_or(golden.time_ns), cycle: Some(cycle), record };
        // Equal records are the common case: only a mismatch is taken apart.
        let matched = golden.record == observed.record;
        let diffs = if matched { Vec::new() } else { field_diffs(&golden.record, &observed.record) };
        remember(&mut s.rtl_last, observed, history);
        if !matched {
            return Err(self.diverged(stream, DivergenceKind::Mismatch, cycle, String::new(), diffs));
        }
        let golden = s.expected.pop_front().expect("checked above");
        s.last = Some((golden.frame, golden.time_ns));
        s.golden_last.push_back(golden);
        while s.golden_last.len() > history {
            s.golden_last.pop_front();
        }
        s.matched += 1;
        Ok(())
    }

    /// The report of a divergence on `stream` at the golden transaction
    /// expected next (or the last one); an empty `detail` says which.
    pub fn diverged(
        &self,
        stream: usize,
        kind: DivergenceKind,
        cycle: u64,
        detail: String,
        diffs: Vec<FieldDiff>,
    ) -> Ending {
        let s = &self.streams[stream];
        let (frame, time_ns) = s.expected.front().map(|t| (t.frame, t.time_ns)).or(s.last).unwrap_or((0, 0));
        let detail = if detail.is_empty() && !self.per_frame {
            format!("{} transaction {} (0-based) differs", s.name, s.matched)
        } else {
            detail
        };
        self.diverged_at(stream, kind, (frame, time_ns), cycle, detail, diffs)
    }

    /// A divergence at `frame` and `time_ns` given by the caller (the
    /// golden model failed on a frame it had not yet expected).
    pub fn diverged_at(
        &self,
        stream: usize,
        kind: DivergenceKind,
        (frame, time_ns): (u64, u64),
        cycle: u64,
        detail: String,
        diffs: Vec<FieldDiff>,
    ) -> Ending {
        let s = &self.streams[stream];
        let current = s.expected.front().filter(|_| kind != DivergenceKind::GoldenModelError);
        Ending::Diverged(Box::new(Divergence {
            kind,
            block: s.name,
            capture: self.capture.to_path_buf(),
            width: self.options.model.width,
            seed: self.options.handshake.seed,
            frame,
            time_ns,
            cycle,
            detail,
            diffs,
            golden_last: s.golden_last.iter().chain(current).cloned().collect(),
            rtl_last: s.rtl_last.iter().cloned().collect(),
            repro: (self.repro)(frame),
            sides: ["golden".into(), "rtl".into()],
        }))
    }

    /// The RTL stopped on `stream`: an assertion or a stall.
    pub fn stopped(&self, stream: usize, stop: SimStop, stall_cycles: u64) -> Ending {
        match stop {
            SimStop::Assertion(message, cycle) => {
                self.diverged(stream, DivergenceKind::RtlAssertion, cycle, message, vec![])
            }
            SimStop::Stalled(cycle) => {
                let detail = format!("the RTL took no input and produced nothing for {stall_cycles} cycles");
                self.diverged(stream, DivergenceKind::RtlStalled, cycle, detail, vec![])
            }
        }
    }

    /// At the end: a golden transaction the RTL never produced.
    pub fn missing(&self, cycle: u64) -> Result<(), Ending> {
        for (i, s) in self.streams.iter().enumerate() {
            let left = s.expected.len();
            if left > 0 {
                let detail =
                    format!("the RTL went idle with {left} {} transaction(s) of the golden model not produced", s.name);
                return Err(self.diverged(i, DivergenceKind::RtlStalled, cycle, detail, vec![]));
            }
        }
        Ok(())
    }
}

/// A Verilated block the harness feeds in batches and checks after each.
pub trait BatchModel {
    type Item;
    fn push(&mut self, items: &[Self::Item]) -> Result<(), SimStop>;
    /// The end of the input: run until idle.
    fn finish(&mut self) -> Result<(), SimStop>;
    fn cycles(&self) -> u64;
    /// Hands the outputs collected so far to the comparator.
    fn check(&mut self, compare: &mut StreamComparator, time: &TimeBase) -> Result<(), Ending>;
}

/// Inputs per FFI batch.
const EVENT_BATCH: usize = 1024;

/// Feeds `items` by the batch, comparing the outputs after each, then
/// finishes the input and checks that nothing golden is left; a stop of the
/// RTL is reported on `stream`.
pub fn drive<M: BatchModel>(
    rtl: &mut M,
    items: &[M::Item],
    stream: usize,
    stall_cycles: u64,
    compare: &mut StreamComparator,
    time: &TimeBase,
    run: &mut CaptureRun,
) -> Result<(), Ending> {
    let mut clock = Instant::now();
    let batches = items.chunks(EVENT_BATCH).map(Some).chain(std::iter::once(None));
    for batch in batches {
        let result = match batch {
            Some(batch) => rtl.push(batch),
            None => rtl.finish(),
        };
        run.cycles = rtl.cycles();
        clock = run.phases.rtl.lap(clock);
        rtl.check(compare, time)?;
        result.map_err(|s| compare.stopped(stream, s, stall_cycles))?;
        clock = run.phases.compare.lap(clock);
    }
    compare.missing(run.cycles)
}
