//! Machine-readable results of a cosim regression: a JSON summary and JUnit
//! XML (one testcase per capture, width and seed) for CI.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::coverage::{FunctionalCoverage, RtlCoverage};
use crate::harness::Ending;
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
        }
    }
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

/// JUnit XML: a testsuite per data width, a testcase per capture and seed.
/// A failure carries the divergence report; the waveform path goes into
/// the failure text and, as `[[ATTACHMENT|path]]`, into system-out.
pub fn junit_xml(runs: &[CaptureRun]) -> String {
    let mut widths: Vec<u32> = runs.iter().map(|r| r.model.width).collect();
    widths.sort();
    widths.dedup();
    let failures = runs.iter().filter(|r| !r.passed()).count();
    let total: f64 = runs.iter().map(|r| r.elapsed.as_secs_f64()).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    writeln!(
        xml,
        "<testsuites name=\"metaroce cosim\" tests=\"{}\" failures=\"{failures}\" time=\"{total:.3}\">",
        runs.len()
    )
    .unwrap();
    for width in widths {
        let suite: Vec<&CaptureRun> = runs.iter().filter(|r| r.model.width == width).collect();
        let suite_failures = suite.iter().filter(|r| !r.passed()).count();
        let suite_time: f64 = suite.iter().map(|r| r.elapsed.as_secs_f64()).sum();
        writeln!(
            xml,
            "  <testsuite name=\"cosim.w{width}\" tests=\"{}\" failures=\"{suite_failures}\" time=\"{suite_time:.3}\">",
            suite.len()
        )
        .unwrap();
        for run in suite {
            let name = format!("{} [{}] seed {:#x}", run.capture.display(), run.block.name(), run.seed);
            writeln!(
                xml,
                "    <testcase classname=\"cosim.w{width}\" name=\"{}\" time=\"{:.3}\">",
                xml_escape(&name),
                run.elapsed.as_secs_f64()
            )
            .unwrap();
            if let Some(message) = ending_message(run) {
                let mut text = message;
                if let Some(wave) = &run.wave {
                    write!(text, "\nwaveform: {}", wave.display()).unwrap();
                }
                let headline = text.lines().next().unwrap_or_default().to_string();
                writeln!(
                    xml,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    run.ending.name(),
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
