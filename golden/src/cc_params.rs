//! Congestion-control parameters (`SPEC.md` §6.2): the user-facing values
//! under their mlx5 names, and the fixed-point register values both models
//! run on. A driver would do [`CcParams::registers`] before writing the
//! NIC's configuration registers; the RTL sees only [`CcRegisters`].

use serde::{Deserialize, Serialize};

/// Stage counters saturate here (8 bits, `u8::saturating_add`).
pub const STAGE_MAX: u8 = u8::MAX;

pub use crate::cc_table::{
    byte_time, CcBound, CcConv, CcParam, CC_PARAMS, FRACTION_ONE, G_SCALE, LINE_RATE_MAX_MBPS, MLX5_ALPHA_MAX,
    TIME_PARAM_MAX_US,
};

// `CcMode`, `CcParams` (with `Default`, `value`, `set_value`) and
// `CcRegisters`, generated from `CC_PARAMS` by build.rs.
include!(concat!(env!("OUT_DIR"), "/cc_params.rs"));

/// A parameter value the models cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad congestion-control parameter {name} = {value}: {reason}")]
pub struct BadParam {
    pub name: &'static str,
    pub value: String,
    pub reason: String,
}

/// One parameter's value, parsed once from `NAME=VALUE` text (the command
/// line's `--cc-param`); prints back as that text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcSetting {
    pub param: &'static CcParam,
    /// The number, or a choice's index.
    pub value: u32,
}

impl CcSetting {
    /// Looks the name up and parses the value (decimal, or a choice's name);
    /// the range is checked where it is applied.
    pub fn parse(name: &str, value: &str) -> Result<Self, BadParam> {
        let Some(param) = CC_PARAMS.iter().find(|p| p.name == name) else {
            return Err(BadParam {
                name: "(unknown)",
                value: format!("{name}={value}"),
                reason: format!("known names: {}", CcParams::NAMES.join(", ")),
            });
        };
        let bad = |reason: String| BadParam { name: param.name, value: value.to_string(), reason };
        let value = match param.choices {
            Some((_, choices)) => {
                let index = choices.iter().position(|c| c.1 == value);
                let texts: Vec<&str> = choices.iter().map(|c| c.1).collect();
                index.ok_or_else(|| bad(format!("{name} is {}", texts.join(" or "))))? as u32
            }
            None => value.parse().map_err(|_| bad("not a decimal integer".into()))?,
        };
        Ok(CcSetting { param, value })
    }
}

/// `NAME=VALUE`, checked against the defaults' ranges so that a typo on a
/// command line is refused before any run starts.
impl std::str::FromStr for CcSetting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, value) = s.split_once('=').ok_or_else(|| format!("`{s}`: write NAME=VALUE"))?;
        let setting = CcSetting::parse(name.trim(), value.trim()).map_err(|e| e.to_string())?;
        CcParams::default().apply(setting).map_err(|e| e.to_string())?;
        Ok(setting)
    }
}

impl std::fmt::Display for CcSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.param.choices {
            Some((_, choices)) => write!(f, "{}={}", self.param.name, choices[self.value as usize].1),
            None => write!(f, "{}={}", self.param.name, self.value),
        }
    }
}

impl CcParams {
    /// Every parameter name, for the command line's `--cc-param NAME=VALUE`.
    pub const NAMES: [&'static str; CC_PARAMS.len()] = {
        let mut names = [""; CC_PARAMS.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = CC_PARAMS[i].name;
            i += 1;
        }
        names
    };

    /// Sets one parameter by name from its text (decimal, or a choice's name).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), BadParam> {
        self.apply(CcSetting::parse(name, value)?)
    }

    /// Sets one parsed parameter; refuses it when out of its range (a range
    /// that names another parameter is checked against that one's value now).
    pub fn apply(&mut self, setting: CcSetting) -> Result<(), BadParam> {
        let set = self.set_value(setting.param.name, setting.value);
        debug_assert!(set, "a parsed setting names a field");
        match self.validate() {
            Err(e) if e.name == setting.param.name => Err(e),
            _ => Ok(()),
        }
    }

    /// Refuses values the models cannot run with, naming the parameter.
    pub fn validate(&self) -> Result<(), BadParam> {
        let bound = |b: CcBound| match b {
            CcBound::Num(n) => n,
            CcBound::Param(other) => self.value(other).expect("a bound names a parameter"),
        };
        for p in CC_PARAMS {
            let value = self.value(p.name).expect("every row is a field");
            let (lo, hi) = (bound(p.min), bound(p.max));
            if !(lo..=hi).contains(&value) {
                let reason = p.range_message.map_or_else(|| format!("must be {lo}..={hi}"), str::to_string);
                return Err(BadParam { name: p.name, value: value.to_string(), reason });
            }
        }
        Ok(())
    }

    /// The register values: rates to kb/s, times to ns, fractions to Q1.15
    /// (each register's [`CcConv`]).
    pub fn registers(&self) -> Result<CcRegisters, BadParam> {
        self.validate()?;
        Ok(self.registers_unchecked())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let r = CcParams::default().registers().unwrap();
        assert_eq!(r.cnp_interval_ns, 50_000);
        assert_eq!(r.initial_alpha, 32768);
        assert_eq!(r.min_dec_q15, 16384);
    }

    #[test]
    fn registers_follow_each_conversion() {
        let p = CcParams {
            mode: CcMode::Metaroce,
            line_rate_mbps: 25_000,
            rp_min_dec_fac: 90,
            rp_initial_alpha_value: 300,
            rp_clamp_tgt_rate: 1,
            pacer_start_rate: 40,
            ..CcParams::default()
        };
        let r = p.registers().unwrap();
        assert!(r.metaroce && r.clamp_tgt);
        assert_eq!((r.line_rate_kbps, r.min_rate_kbps, r.cnp_interval_ns), (25_000_000, 10_000, 50_000));
        assert_eq!((r.min_dec_q15, r.initial_alpha, r.g), (29491, 9600, 4));
        assert_eq!((r.line_byte_time, r.start_byte_time), (byte_time(25_000_000), byte_time(40_000)));
        let r = CcParams::default().registers().unwrap();
        assert_eq!(r.start_byte_time, r.line_byte_time);
        assert!(!r.metaroce && !r.clamp_tgt);
    }

    #[test]
    fn names_and_choices_parse() {
        let mut p = CcParams::default();
        p.set("mode", "metaroce").unwrap();
        assert_eq!(p.mode, CcMode::Metaroce);
        let e = p.set("mode", "fast").unwrap_err();
        assert_eq!(e.to_string(), "bad congestion-control parameter mode = fast: mode is dcqcn or metaroce");
        let e = p.set("bogus", "1").unwrap_err();
        assert!(e.to_string().contains("known names: mode, line_rate_mbps, "), "{e}");
        assert_eq!(CcParams::NAMES.len(), CC_PARAMS.len());
    }

    #[test]
    fn bad_values_are_refused_by_name() {
        let mut p = CcParams::default();
        assert_eq!(p.set("np_min_time_between_cnps", "0").unwrap_err().name, "np_min_time_between_cnps");
        let mut p2 = CcParams::default();
        let e = p2.set("rp_dce_tcp_g", "2000").unwrap_err();
        assert_eq!(e.to_string(), "bad congestion-control parameter rp_dce_tcp_g = 2000: must be 0..=1023");
        let mut p3 = CcParams::default();
        let e = p3.set("rp_min_rate", "200000").unwrap_err();
        assert!(e.to_string().contains("above the line rate"), "{e}");
        assert!(p.set("nonsense", "1").is_err());
        assert!(p.set("rp_ai_rate", "x").is_err());
    }
}
