//! A NIC's configuration for a run (`SPEC.md` §6.1): its NIC file (local
//! MAC, QP table, congestion control) and what the command line sets on top
//! of it, read and checked once, then applied to each capture.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use metaroce_golden::cc_params::{CcMode, CcRegisters, CcSetting};
use metaroce_golden::cc_presets::CcPreset;
use metaroce_golden::cn::{CongestionNotifier, DEFAULT_QP_COUNT};
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::wire::PFC_PRIORITIES;

/// The NIC file of a capture: `name.nic.json` beside `name.pcap`.
pub fn nic_file_of(capture: &Path) -> PathBuf {
    capture.with_extension("nic.json")
}

/// A NIC file as read: where it is and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NicFile {
    pub path: PathBuf,
    pub config: NicConfig,
}

impl NicFile {
    /// Reads and parses `path`; errors name the file. A `comment` field at
    /// the top, in `cc` or in a QP context is skipped (`metaroce nic init`
    /// writes them). `cc.preset` (`paper`, `ns3`, `mlx5`) gives the
    /// defaults of the `cc` values the file does not set (`SPEC.md` §6.8).
    pub fn read(path: &Path) -> Result<Self, String> {
        let named = |e: serde_json::Error| format!("{}: {e}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut value = serde_json::from_str::<serde_json::Value>(&text).ok();
        let preset =
            value.as_mut().map(take_preset).transpose().map_err(|e| format!("{}: {e}", path.display()))?.flatten();
        let mut config = match value.as_mut().is_some_and(strip_comments) || preset.is_some() {
            true => serde_json::from_value(value.clone().unwrap_or_default()).map_err(named)?,
            // Without comments, parse the text itself: its errors say where.
            false => serde_json::from_str::<NicConfig>(&text).map_err(named)?,
        };
        if let Some((preset, set)) = preset {
            config.cc = config
                .cc
                .preset_beneath(preset, |name| set.iter().any(|s| s == name))
                .map_err(|e| format!("{}: cc.preset {preset}: {e}", path.display()))?;
        }
        Ok(NicFile { path: path.to_path_buf(), config })
    }
}

/// Removes `cc.preset` from a NIC file's JSON: the preset, and the names
/// of the `cc` values the file sets itself.
fn take_preset(value: &mut serde_json::Value) -> Result<Option<(CcPreset, Vec<String>)>, String> {
    let Some(cc) = value.get_mut("cc").and_then(|cc| cc.as_object_mut()) else { return Ok(None) };
    let Some(preset) = cc.remove("preset") else { return Ok(None) };
    let preset = preset.as_str().ok_or("cc.preset: a string: paper, ns3 or mlx5")?;
    let preset = preset.parse::<CcPreset>().map_err(|e| format!("cc.preset: {e}"))?;
    Ok(Some((preset, cc.keys().cloned().collect())))
}

/// Removes the `comment` fields a NIC file may carry; whether there were any.
fn strip_comments(value: &mut serde_json::Value) -> bool {
    let mut any = false;
    let mut strip = |v: &mut serde_json::Value| {
        if let Some(object) = v.as_object_mut() {
            any |= object.remove("comment").is_some();
        }
    };
    strip(value);
    if let Some(cc) = value.get_mut("cc") {
        strip(cc);
    }
    if let Some(qps) = value.get_mut("qps").and_then(|q| q.as_array_mut()) {
        qps.iter_mut().for_each(strip);
    }
    any
}

/// What the command line sets for the CN block, on top of the NIC file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CnOverrides {
    /// Use this NIC file instead of the one beside the capture.
    pub nic: Option<NicFile>,
    /// This NIC's MAC (which frames are ours), over the NIC file's.
    pub local_mac: Option<String>,
    pub mode: Option<CcMode>,
    /// `--cc-preset`: applied before the single parameters.
    pub preset: Option<CcPreset>,
    /// `--cc-param NAME=VALUE`, in order.
    pub params: Vec<CcSetting>,
}

impl CnOverrides {
    /// The flags that give these overrides, for a repro command.
    pub fn args(&self) -> String {
        let mut s = String::new();
        if let Some(nic) = &self.nic {
            write!(s, " --nic {}", nic.path.display()).unwrap();
        }
        if let Some(mac) = &self.local_mac {
            write!(s, " --local-mac {mac}").unwrap();
        }
        if let Some(mode) = self.mode {
            write!(s, " --cc {}", mode.name()).unwrap();
        }
        if let Some(preset) = self.preset {
            write!(s, " --cc-preset {preset}").unwrap();
        }
        for setting in &self.params {
            write!(s, " --cc-param {setting}").unwrap();
        }
        s
    }
}

/// Everything the CN block of one capture's run is configured with.
#[derive(Debug, Clone)]
pub struct CnSetup {
    pub nic: NicConfig,
    pub local_mac: Option<[u8; 6]>,
    pub regs: CcRegisters,
    pub qp_count: usize,
    /// The NIC file read, if any.
    pub nic_file: Option<PathBuf>,
    pub overrides: CnOverrides,
}

impl CnSetup {
    /// The NIC file (`--nic`, else the one beside the capture, else none),
    /// then the overrides; refuses bad parameters naming them.
    pub fn for_capture(capture: &Path, overrides: &CnOverrides) -> Result<Self, String> {
        let beside = || Some(nic_file_of(capture)).filter(|p| p.exists()).map(|p| NicFile::read(&p)).transpose();
        let file = match &overrides.nic {
            Some(file) => Some(file.clone()),
            None => beside()?,
        };
        let path = file.as_ref().map(|f| f.path.clone());
        let mut nic = file.map(|f| f.config).unwrap_or_default();
        let named = |e: String| match &path {
            Some(p) => format!("{}: {e}", p.display()),
            None => e,
        };
        if let Some(mode) = overrides.mode {
            nic.cc.mode = mode;
        }
        if let Some(mac) = &overrides.local_mac {
            nic.local_mac = Some(mac.clone());
        }
        if let Some(preset) = overrides.preset {
            nic.cc.apply_preset(preset).map_err(|e| named(format!("--cc-preset {preset}: {e}")))?;
        }
        for setting in &overrides.params {
            nic.cc.apply(*setting).map_err(|e| e.to_string())?;
        }
        let regs = nic.cc.registers().map_err(|e| named(e.to_string()))?;
        let local_mac = nic.mac().map_err(named)?;
        if let Some(ctx) = nic.qps.iter().find(|c| c.local as usize >= DEFAULT_QP_COUNT || c.remote > 0xFF_FFFF) {
            return Err(named(format!(
                "QP context {} -> {}: local QPs are 0..{DEFAULT_QP_COUNT}, remote QPs 24 bits",
                ctx.local, ctx.remote
            )));
        }
        if let Some((ctx, psn)) = nic.qps.iter().find_map(|c| c.rq_psn.filter(|&p| p > 0xFF_FFFF).map(|p| (c, p))) {
            return Err(named(format!("QP context {}: rq_psn {psn}; PSNs are 24 bits (0..=16777215)", ctx.local)));
        }
        if let Some(ctx) = nic.qps.iter().find(|c| usize::from(c.priority) >= PFC_PRIORITIES) {
            let last = PFC_PRIORITIES - 1;
            return Err(named(format!("QP context {}: priority {}; priorities are 0-{last}", ctx.local, ctx.priority)));
        }
        Ok(CnSetup { nic, local_mac, regs, qp_count: DEFAULT_QP_COUNT, nic_file: path, overrides: overrides.clone() })
    }

    /// The golden CN block with this setup's registers and QP table.
    pub fn golden(&self) -> CongestionNotifier {
        let mut cn = CongestionNotifier::new(self.qp_count, self.regs);
        cn.load_qp_table(&self.nic).expect("QP contexts checked by for_capture");
        cn
    }
}
