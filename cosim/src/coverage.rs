//! Coverage: functional counters from the golden records (what the stimuli
//! exercised), and Verilator line/toggle coverage of the RTL merged across
//! runs into an lcov `.info` with a per-module summary.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use metaroce_golden::opcode::ext_headers;
use metaroce_golden::{ParseError, ParseRecord};
use serde::Serialize;

/// Counters of what the frames exercised, by the golden model's reading.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FunctionalCoverage {
    pub frames: u64,
    pub classes: BTreeMap<&'static str, u64>,
    pub errors: BTreeMap<&'static str, u64>,
    /// Opcodes of frames whose BTH was read.
    pub opcodes: BTreeMap<u8, u64>,
    pub ecn: BTreeMap<u8, u64>,
    pub vlan_tags: BTreeMap<u8, u64>,
    pub ip_versions: BTreeMap<u8, u64>,
    pub pad_cnt: BTreeMap<u8, u64>,
}

impl FunctionalCoverage {
    pub fn observe(&mut self, record: &ParseRecord) {
        self.frames += 1;
        *self.classes.entry(record.class.name()).or_default() += 1;
        let count = |map: &mut BTreeMap<u8, u64>, value: Option<u8>| {
            if let Some(v) = value {
                *map.entry(v).or_default() += 1;
            }
        };
        count(&mut self.opcodes, record.opcode);
        count(&mut self.ecn, record.ecn);
        count(&mut self.vlan_tags, record.vlan_count);
        count(&mut self.ip_versions, record.ip_version);
        count(&mut self.pad_cnt, record.pad_cnt);
        if let Some(error) = record.error {
            *self.errors.entry(error.name()).or_default() += 1;
        }
    }

    pub fn merge(&mut self, other: &FunctionalCoverage) {
        self.frames += other.frames;
        for (k, v) in &other.classes {
            *self.classes.entry(k).or_default() += v;
        }
        for (k, v) in &other.errors {
            *self.errors.entry(k).or_default() += v;
        }
        for (mine, theirs) in [
            (&mut self.opcodes, &other.opcodes),
            (&mut self.ecn, &other.ecn),
            (&mut self.vlan_tags, &other.vlan_tags),
            (&mut self.ip_versions, &other.ip_versions),
            (&mut self.pad_cnt, &other.pad_cnt),
        ] {
            for (k, v) in theirs {
                *mine.entry(*k).or_default() += v;
            }
        }
    }

    /// One line per counter, each with how much of its space was reached.
    pub fn summary(&self) -> Vec<String> {
        let carried = (0..=255u8).filter(|&op| ext_headers(op).is_some()).count();
        let carried_seen = self.opcodes.keys().filter(|&&op| ext_headers(op).is_some()).count();
        let keys = |map: &BTreeMap<u8, u64>| map.keys().map(|k| k.to_string()).collect::<Vec<_>>().join(",");
        let counts =
            |map: &BTreeMap<&str, u64>| map.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        vec![
            format!("frames {}: {}", self.frames, counts(&self.classes)),
            format!("opcodes: {carried_seen}/{carried} RoCEv2 opcodes, {} values in all", self.opcodes.len()),
            format!("error classes: {}/{} ({})", self.errors.len(), ParseError::ALL.len(), counts(&self.errors)),
            format!("ECN codepoints: {}/4 [{}]", self.ecn.len(), keys(&self.ecn)),
            format!("PadCnt: {}/4 [{}]", self.pad_cnt.len(), keys(&self.pad_cnt)),
            format!("VLAN tags: [{}]   IP versions: [{}]", keys(&self.vlan_tags), keys(&self.ip_versions)),
        ]
    }
}

/// Covered and total points of one kind (line, toggle) in one module.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Points {
    pub covered: u64,
    pub total: u64,
}

impl Points {
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.total as f64
        }
    }
}

/// Verilator coverage per (module, kind), e.g. ("roce_parser", "line").
pub type RtlCoverage = BTreeMap<(String, String), Points>;

fn verilator_coverage(args: &[&std::ffi::OsStr]) -> Result<(), String> {
    let out = Command::new("verilator_coverage")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run verilator_coverage ({e}); it comes with Verilator"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("verilator_coverage failed: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// Merges Verilator `coverage.dat` files into `merged_dat`, writes the lcov
/// `info` file, and summarises per module.
pub fn export_rtl_coverage(dats: &[&Path], merged_dat: &Path, info: &Path) -> Result<RtlCoverage, String> {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--write".as_ref(), merged_dat.as_os_str()];
    args.extend(dats.iter().map(|d| d.as_os_str()));
    verilator_coverage(&args)?;
    verilator_coverage(&["--write-info".as_ref(), info.as_os_str(), merged_dat.as_os_str()])?;
    let text = std::fs::read_to_string(merged_dat).map_err(|e| format!("{}: {e}", merged_dat.display()))?;
    Ok(summarise_dat(&text))
}

/// Reads `C '<key>\x02<value>\x01...' <count>` lines; the `page` key is
/// `v_<kind>/<module>`.
pub fn summarise_dat(text: &str) -> RtlCoverage {
    let mut summary = RtlCoverage::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("C '") else { continue };
        let Some((keys, count)) = rest.rsplit_once("' ") else { continue };
        let Ok(count) = count.trim().parse::<u64>() else { continue };
        let page = keys.split('\x01').find_map(|kv| kv.strip_prefix("page\x02"));
        let Some((kind, module)) = page.and_then(|p| p.split_once('/')) else { continue };
        // Verilator names each parameterisation `<module>__D<hash>`: fold them.
        let module = module.split("__").next().unwrap_or(module);
        let points = summary.entry((module.to_string(), kind.trim_start_matches("v_").to_string())).or_default();
        points.total += 1;
        points.covered += u64::from(count > 0);
    }
    summary
}
