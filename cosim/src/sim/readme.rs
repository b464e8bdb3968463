//! The README's measurement set (`SPEC.md` §9.5): the cases, each mode
//! (and the NICs half in each) under each preset, lossy against lossless
//! (PFC) with each reaction, their charts and the generated README block.

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use metaroce_golden::cc_presets::CcPreset;

use super::report::{comparison_table, queue_chart, rates_chart, summarize, Summary};
use super::scenario::{Scenario, SimCc, SimConfig};

/// A case of the README's figures: `scenario` at `gbps`, its file stem.
/// Hosts of a collective never start together to the ns: its starts are
/// jittered over 20 µs.
fn case(name: &str, scenario: Scenario, gbps: u32) -> (String, SimConfig) {
    let mut config = SimConfig::new(scenario, gbps);
    config.record_captures = false;
    if matches!(scenario, Scenario::AllToAll { .. }) {
        config.jitter_ns = 20_000;
    }
    (format!("{name}-{gbps}g"), config)
}

const INCAST: (&str, Scenario) = ("incast16", Scenario::Incast { senders: 16 });
const ALL_TO_ALL: (&str, Scenario) = ("alltoall8", Scenario::AllToAll { hosts: 8 });
const VICTIM: (&str, Scenario) = ("victim16", Scenario::Victim { senders: 16 });

/// The README's measurement set (`SPEC.md` §9.5): (file stem, configuration).
pub fn readme_cases() -> Vec<(String, SimConfig)> {
    vec![case(INCAST.0, INCAST.1, 100), case(INCAST.0, INCAST.1, 400), case(ALL_TO_ALL.0, ALL_TO_ALL.1, 100)]
}

/// A shallow buffer: 5 MB per Tb/s of the switch's ports, the ratio of a
/// commodity switch chip (Broadcom Tomahawk 3, BCM56980: 64 MB for
/// 12.8 Tb/s), where the default 32 MiB is HPCC ns-3's.
pub const SHALLOW_BYTES_PER_GBPS: u64 = 5_000;

/// The lossless comparison's cases (`SPEC.md` §9.5): each scenario of
/// [`readme_cases`] and the victim scenario, at 100 and 400 Gb/s; and the
/// incast and the victim scenario at 100 Gb/s in a shallow buffer (at
/// 400 Gb/s the ratio gives about the default).
pub fn lossless_cases() -> Vec<(String, SimConfig)> {
    let mut cases = Vec::new();
    for (name, scenario) in [INCAST, ALL_TO_ALL, VICTIM] {
        cases.extend([100, 400].map(|gbps| case(name, scenario, gbps)));
    }
    for (name, scenario) in [INCAST, VICTIM] {
        let (stem, mut config) = case(name, scenario, 100);
        config.buffer_bytes = SHALLOW_BYTES_PER_GBPS * 100 * scenario.hosts() as u64;
        cases.push((format!("{stem}-shallow"), config));
    }
    cases
}

/// The lossless comparison's columns: lossy with DCQCN, then PFC alone and
/// with each congestion control (the last the configuration MetaRoCE
/// proposes); its preset, HPCC ns-3's (the simulator whose switch model the
/// PFC accounting follows).
pub const LOSSLESS_COLUMNS: [(SimCc, bool); 4] =
    [(SimCc::DCQCN, false), (SimCc::None, true), (SimCc::DCQCN, true), (SimCc::METAROCE, true)];
pub const LOSSLESS_PRESET: CcPreset = CcPreset::Ns3;

/// Where the README's generated block starts and ends.
pub const README_BEGIN: &str = "<!-- metaroce sim readme: begin -->";
pub const README_END: &str = "<!-- metaroce sim readme: end -->";

/// The case whose charts the README shows inline, one column per mode; the
/// others' are linked.
pub const README_INLINE_CASE: &str = "incast16-100g";

/// Runs the README's measurement set in each mode, and with the NICs half
/// in each (`mixed`), under each preset
/// (`SPEC.md` §6.8: the DCQCN paper's, HPCC ns-3's and mlx5's defaults,
/// their CNP intervals included): charts and `summary.md` into `dir`, and
/// the table with links to the charts into `readme` between
/// [`README_BEGIN`] and [`README_END`], with the charts of
/// [`README_INLINE_CASE`] shown inline.
pub fn write_readme_figures(dir: &Path, readme: &Path, log: &mut dyn Write) -> Result<()> {
    const MODES: [SimCc; 3] = [SimCc::DCQCN, SimCc::METAROCE, SimCc::Mixed];
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut block = String::new();
    let mut readme_block = String::new();
    for (stem, mut config) in readme_cases() {
        let mut summaries = Vec::new();
        let mut charts = Vec::new();
        // (what the row shows, one image per mode)
        let mut inline: Vec<(String, Vec<String>)> = Vec::new();
        for preset in CcPreset::ALL {
            config.apply_preset(preset).map_err(|e| anyhow!("{stem}: {e}"))?;
            for mode in MODES {
                let variant = format!("{}-{preset}", mode.name());
                let (summary, charted) = run_and_chart(&config, mode, &format!("{stem}-{variant}"), dir, readme, log)?;
                let mut links = Vec::new();
                for (kind, link) in charted {
                    let row = format!("{kind}, {preset} preset");
                    let image = format!("![{}: {row}]({link})", mode.name());
                    match inline.iter_mut().find(|(r, _)| *r == row) {
                        Some((_, images)) => images.push(image),
                        None => inline.push((row, vec![image])),
                    }
                    links.push(format!("[{kind}]({link})"));
                }
                charts.push(format!("{} {preset}: {}", mode.name(), links.join(" ")));
                summaries.push(summary);
            }
        }
        let mut case = String::new();
        let _ = writeln!(
            case,
            "\n**{}**, {} Gb/s links, ECN marked on {}. Charts: {}.\n",
            config.scenario.name(),
            config.link_gbps,
            config.mark.name(),
            charts.join("; ")
        );
        block.push_str(&case);
        readme_block.push_str(&case);
        if stem == README_INLINE_CASE {
            let _ = write!(readme_block, "| {} at {}G |", config.scenario.name(), config.link_gbps);
            for mode in MODES {
                let _ = write!(readme_block, " {} |", mode.name());
            }
            let _ = writeln!(readme_block, "\n|---|{}", "---|".repeat(MODES.len()));
            for (row, images) in &inline {
                let _ = writeln!(readme_block, "| {row} | {} |", images.join(" | "));
            }
            readme_block.push('\n');
        }
        let table = comparison_table(&summaries);
        block.push_str(&table);
        readme_block.push_str(&table);
    }
    let lossless = lossless_block(dir, readme, log)?;
    block.push_str(&lossless);
    readme_block.push_str(&lossless);
    // summary.md sits beside the charts, where README-relative images would not load.
    fs::write(dir.join("summary.md"), &block).with_context(|| format!("cannot write {}", dir.display()))?;
    let block = readme_block;
    let text = fs::read_to_string(readme).with_context(|| format!("cannot read {}", readme.display()))?;
    let (Some(begin), Some(end)) = (text.find(README_BEGIN), text.find(README_END)) else {
        bail!("{} has no `{README_BEGIN}` ... `{README_END}` block to fill", readme.display());
    };
    let updated = format!("{}{README_BEGIN}\n{block}\n{}", &text[..begin], &text[end..]);
    fs::write(readme, updated).with_context(|| format!("cannot write {}", readme.display()))?;
    writeln!(log, "\n{block}")?;
    Ok(())
}

/// The lossless comparison: per case, [`LOSSLESS_COLUMNS`] side by side.
fn lossless_block(dir: &Path, readme: &Path, log: &mut dyn Write) -> Result<String> {
    let mut block = format!(
        "\n### Lossy and lossless (`--pfc`), {LOSSLESS_PRESET} preset\n\nPFC pauses the senders' data \
         priority (3) at each ingress port's XOFF threshold; CNPs travel on priority 6, never paused.\n"
    );
    for (stem, mut config) in lossless_cases() {
        config.apply_preset(LOSSLESS_PRESET).map_err(|e| anyhow!("{stem}: {e}"))?;
        let mut summaries = Vec::new();
        let mut charts = Vec::new();
        for (cc, pfc) in LOSSLESS_COLUMNS {
            let variant = format!("{}{}-{LOSSLESS_PRESET}", if pfc { "pfc-" } else { "" }, cc.name());
            let config = SimConfig { pfc, ..config.clone() };
            let (summary, charted) = run_and_chart(&config, cc, &format!("{stem}-{variant}"), dir, readme, log)?;
            let links: Vec<String> = charted.iter().map(|(kind, link)| format!("[{kind}]({link})")).collect();
            charts.push(format!("{variant}: {}", links.join(" ")));
            summaries.push(summary);
        }
        let _ = writeln!(
            block,
            "\n**{}**, {} Gb/s links, {} shared buffer. Charts: {}.\n",
            config.scenario.name(),
            config.link_gbps,
            buffer_size(config.buffer_bytes),
            charts.join("; ")
        );
        block.push_str(&comparison_table(&summaries));
    }
    Ok(block)
}

/// A buffer's size in MiB when whole, else in MB.
fn buffer_size(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// One run of `config` under `cc`: its summary, and its rates and queue
/// charts written as `dir/<name>-<kind>.svg`, with their links from `readme`.
fn run_and_chart(
    config: &SimConfig,
    cc: SimCc,
    name: &str,
    dir: &Path,
    readme: &Path,
    log: &mut dyn Write,
) -> Result<(Summary, Vec<(&'static str, String)>)> {
    let started = Instant::now();
    let run = super::setup::run_cc(config, cc).map_err(|e| anyhow!("{name}: {e}"))?;
    let mut links = Vec::new();
    for (kind, chart) in [("rates", rates_chart(&run)), ("queue", queue_chart(&run))] {
        let path = dir.join(format!("{name}-{kind}.svg"));
        fs::write(&path, chart.svg()).with_context(|| format!("cannot write {}", path.display()))?;
        links.push((kind, relative_link(readme, &path)));
    }
    writeln!(log, "{name}: {:.1} s", started.elapsed().as_secs_f64())?;
    log.flush()?;
    Ok((summarize(&run), links))
}

/// `path` as a link from the directory of `from`.
fn relative_link(from: &Path, path: &Path) -> String {
    let base = from.parent().unwrap_or(Path::new(""));
    path.strip_prefix(base).unwrap_or(path).display().to_string()
}
