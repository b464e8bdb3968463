//! Machine-readable results of a cosim regression: a JSON summary and JUnit
//! XML (one testcase per capture, width and seed) for CI.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::coverage::{FunctionalCoverage, RtlCoverage};
use crate::harness::Ending;
use crate::nic_gaps::NicGaps;
use crate::report::Divergence;
use crate::run::{CaptureRun, RunCounts};

/// One run in the JSON summary.
#[derive(Serialize)]
pub struct RunSummary<'a> {
    pub capture: &'a Path,
    pub block: &'static str,
    pub width: u32,
    pub seed: String,
    pub frames_read: u64,
    pub frames_matched: u64,
    pub cycles: u64,
    pub seconds: f64,
    pub ending: &'static str,
    pub message: Option<String>,
    pub divergence: Option<&'a Divergence>,
    pub wave: Option<&'a Path>,
    /// Events, CNPs and rate changes of a congestion-notification run.
    pub cn: Option<RunCounts>,
    /// What the NIC setup left unanswered, for a block that uses it.
    pub nic: Option<&'a NicGaps>,
    /// Its capture's place among the unsharded run's captures (0-based).
    pub capture_index: Option<usize>,
}

/// A capture whose frames the NIC setup leaves unanswered (once per capture).
#[derive(Serialize)]
pub struct NicWarning<'a> {
    pub capture: &'a Path,
    /// CE-marked and sent frames to QPs with no context, and every RoCE
    /// frame when none is to or from `local_mac`.
    pub unanswered_frames: u64,
    pub message: String,
    /// Its capture's place among the unsharded run's captures (0-based).
    pub capture_index: Option<usize>,
}

/// Shard K of N (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// What identifies a regression across its shards (the JSON summary's
/// `regression`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegressionId {
    /// This file's shard; `null` for an unsharded or merged run.
    pub shard: Option<Shard>,
    pub seed: String,
    /// The source tree: `git:COMMIT` (`-dirty` with local changes), else
    /// the metaroce version.
    pub tree: String,
    /// A hash of every capture of the unsharded run (names, bytes, NIC
    /// files) and of the options every run shares.
    pub corpus: String,
    /// Captures of the unsharded run.
    pub captures: usize,
}

#[derive(Serialize)]
pub struct ModuleCoverage<'a> {
    pub module: &'a str,
    pub kind: &'a str,
    pub covered: u64,
    pub total: u64,
    pub percent: f64,
}

#[derive(Serialize)]
pub struct CosimSummary<'a> {
    pub runs: Vec<RunSummary<'a>>,
    pub frames: u64,
    pub matched: u64,
    pub failed_runs: usize,
    pub seconds: f64,
    pub frames_per_second: f64,
    pub functional: &'a FunctionalCoverage,
    pub rtl_coverage: Option<Vec<ModuleCoverage<'a>>>,
    /// One per capture the NIC setup leaves frames of unanswered.
    pub nic_warnings: Vec<NicWarning<'a>>,
    /// What makes shards of one regression (`metaroce report merge`).
    pub regression: Option<RegressionId>,
}

/// The message of a run that did not match (or `None`).
pub fn ending_message(run: &CaptureRun) -> Option<String> {
    match &run.ending {
        Ending::Matched => None,
        Ending::Diverged(d) => Some(d.to_string()),
        Ending::CaptureError(e) => Some(e.to_string()),
        Ending::Setup(e) => Some(e.clone()),
    }
}

impl<'a> CosimSummary<'a> {
    pub fn new(
        runs: &'a [CaptureRun],
        seconds: f64,
        functional: &'a FunctionalCoverage,
        rtl: Option<&'a RtlCoverage>,
    ) -> Self {
        let frames: u64 = runs.iter().map(|r| r.frames_read).sum();
        CosimSummary {
            runs: runs
                .iter()
                .map(|r| RunSummary {
                    capture: &r.capture,
                    block: r.block.name(),
                    width: r.model.width,
                    seed: format!("{:#x}", r.seed),
                    frames_read: r.frames_read,
                    frames_matched: r.frames_matched,
                    cycles: r.cycles,
                    seconds: r.elapsed.as_secs_f64(),
                    ending: r.ending.name(),
                    message: ending_message(r),
                    divergence: match &r.ending {
                        Ending::Diverged(d) => Some(d),
                        _ => None,
                    },
                    wave: r.wave.as_deref(),
                    cn: r.cn,
                    nic: r.nic_gaps.as_ref(),
                    capture_index: None,
                })
                .collect(),
            frames,
            matched: runs.iter().map(|r| r.frames_matched).sum(),
            failed_runs: runs.iter().filter(|r| !r.passed()).count(),
            seconds,
            frames_per_second: frames as f64 / seconds.max(1e-9),
            functional,
            rtl_coverage: rtl.map(|cov| {
                cov.iter()
                    .map(|((module, kind), p)| ModuleCoverage {
                        module,
                        kind,
                        covered: p.covered,
                        total: p.total,
                        percent: p.percent(),
                    })
                    .collect()
            }),
            nic_warnings: nic_warnings(runs),
            regression: None,
        }
    }

    /// Marks the summary as (a shard of) the regression `id` over
    /// `captures`, the unsharded run's, in order.
    pub fn identify(&mut self, id: RegressionId, captures: &[PathBuf]) {
        let index = |capture: &Path| captures.iter().position(|c| c == capture);
        for run in &mut self.runs {
            run.capture_index = index(run.capture);
        }
        for warning in &mut self.nic_warnings {
            warning.capture_index = index(warning.capture);
        }
        self.regression = Some(id);
    }

    /// Frames left unanswered, summed over the captures warned about.
    pub fn unanswered_frames(&self) -> u64 {
        self.nic_warnings.iter().map(|w| w.unanswered_frames).sum()
    }
}

/// The warning of each capture, from its first run that counted.
fn nic_warnings(runs: &[CaptureRun]) -> Vec<NicWarning<'_>> {
    let mut warnings: Vec<NicWarning> = Vec::new();
    for run in runs {
        let Some(gaps) = &run.nic_gaps else { continue };
        if warnings.iter().any(|w| w.capture == run.capture) {
            continue;
        }
        if let Some(message) = gaps.warning(&run.capture) {
            let unanswered_frames = gaps.ignored_frames();
            warnings.push(NicWarning { capture: &run.capture, unanswered_frames, message, capture_index: None });
        }
    }
    warnings
}

fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 allows no other control characters.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// What a JUnit testcase needs of a run: from a [`CaptureRun`], or from a
/// run of a JSON summary (`metaroce report merge`), so both write the same.
#[derive(Debug, Clone, Deserialize)]
pub struct JunitCase {
    pub capture: PathBuf,
    pub block: String,
    pub width: u32,
    pub seed: String,
    pub seconds: f64,
    pub ending: String,
    /// The failure; `None` for a run that matched.
    pub message: Option<String>,
    pub wave: Option<PathBuf>,
}

impl JunitCase {
    pub fn of(run: &CaptureRun) -> Self {
        JunitCase {
            capture: run.capture.clone(),
            block: run.block.name().to_string(),
            width: run.model.width,
            seed: format!("{:#x}", run.seed),
            seconds: run.elapsed.as_secs_f64(),
            ending: run.ending.name().to_string(),
            message: ending_message(run),
            wave: run.wave.clone(),
        }
    }
}

/// JUnit XML: a testsuite per data width, a testcase per capture and seed.
/// A failure carries the divergence report; the waveform path goes into
/// the failure text and, as `[[ATTACHMENT|path]]`, into system-out.
pub fn junit_xml(runs: &[CaptureRun]) -> String {
    junit_cases(&runs.iter().map(JunitCase::of).collect::<Vec<_>>())
}

/// [`junit_xml`] of runs as JUnit sees them.
pub fn junit_cases(runs: &[JunitCase]) -> String {
    let mut widths: Vec<u32> = runs.iter().map(|r| r.width).collect();
    widths.sort();
    widths.dedup();
    let failures = runs.iter().filter(|r| r.message.is_some()).count();
    let total: f64 = runs.iter().map(|r| r.seconds).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    writeln!(
        xml,
        "<testsuites name=\"metaroce cosim\" tests=\"{}\" failures=\"{failures}\" time=\"{total:.3}\">",
        runs.len()
    )
    .unwrap();
    for width in widths {
        let suite: Vec<&JunitCase> = runs.iter().filter(|r| r.width == width).collect();
        let suite_failures = suite.iter().filter(|r| r.message.is_some()).count();
        let suite_time: f64 = suite.iter().map(|r| r.seconds).sum();
        writeln!(
            xml,
            "  <testsuite name=\"cosim.w{width}\" tests=\"{}\" failures=\"{suite_failures}\" time=\"{suite_time:.3}\">",
            suite.len()
        )
        .unwrap();
        for run in suite {
            let name = format!("{} [{}] seed {}", run.capture.display(), run.block, run.seed);
            writeln!(
                xml,
                "    <testcase classname=\"cosim.w{width}\" name=\"{}\" time=\"{:.3}\">",
                xml_escape(&name),
                run.seconds
            )
            .unwrap();
            if let Some(message) = &run.message {
                let mut text = message.clone();
                if let Some(wave) = &run.wave {
                    write!(text, "\nwaveform: {}", wave.display()).unwrap();
                }
                let headline = text.lines().next().unwrap_or_default().to_string();
                writeln!(
                    xml,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    run.ending,
                    xml_escape(&headline),
                    xml_escape(&text)
                )
                .unwrap();
            }
            if let Some(wave) = &run.wave {
                writeln!(
                    xml,
                    "      <system-out>[[ATTACHMENT|{}]]</system-out>",
                    xml_escape(&wave.display().to_string())
                )
                .unwrap();
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}
