//! Congestion-control parameters (`SPEC.md` §6.2): the user-facing values
//! under their mlx5 names, and the fixed-point register values both models
//! run on. A driver would do [`CcParams::registers`] before writing the
//! NIC's configuration registers; the RTL sees only [`CcRegisters`].

use serde::{Deserialize, Serialize};

use crate::pacer::byte_time;

/// Alpha and the MetaRoCE CE extent are fractions in Q1.15: 1.0 = 32768.
pub const FRACTION_ONE: u32 = 1 << 15;
/// `rp_dce_tcp_g` counts g in 1/1024 (g = 4/1024 = 1/256 is the paper's).
pub const G_SCALE: u32 = 1024;
/// `rp_initial_alpha_value` is on mlx5's 0..1023 scale.
pub const MLX5_ALPHA_MAX: u32 = 1023;
/// Stage counters saturate here (8 bits, `u8::saturating_add`).
pub const STAGE_MAX: u8 = u8::MAX;

/// Which reaction the notification and reaction points run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcMode {
    /// DCQCN: standard CNPs (reserved bytes zero), alpha-driven cuts.
    #[default]
    Dcqcn,
    /// MetaRoCE: the CNP carries the CE extent; the cut follows it.
    Metaroce,
}

impl CcMode {
    pub fn name(self) -> &'static str {
        match self {
            CcMode::Dcqcn => "dcqcn",
            CcMode::Metaroce => "metaroce",
        }
    }
}

/// The user-facing parameters. Defaults: the DCQCN paper (Zhu et al.,
/// SIGCOMM 2015) where it gives one, mlx5's otherwise; `SPEC.md` §6.2
/// names the source of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CcParams {
    pub mode: CcMode,
    /// Line rate, Mb/s: the start rate of every QP and the ceiling.
    pub line_rate_mbps: u32,
    /// Minimum time between two CNPs to one QP, µs (paper 50; mlx5 4).
    pub np_min_time_between_cnps: u32,
    /// DSCP of the CNPs sent (mlx5 default 48).
    pub np_cnp_dscp: u8,
    /// 802.1p priority of CNPs sent on a VLAN (mlx5 default 6).
    pub np_cnp_prio: u8,
    /// Floor of the current rate, Mb/s.
    pub rp_min_rate: u32,
    /// A cut never leaves less than this percentage of the rate (mlx5 50).
    pub rp_min_dec_fac: u32,
    /// g in 1/1024 (paper g = 1/256 = 4).
    pub rp_dce_tcp_g: u32,
    /// Alpha update period, µs (paper 55).
    pub rp_dce_tcp_rtt: u32,
    /// Rate increase timer T, µs (paper 55).
    pub rp_time_reset: u32,
    /// Rate increase byte counter B, bytes (paper 10 MB).
    pub rp_byte_reset: u32,
    /// Stage threshold F (paper 5).
    pub rp_threshold: u32,
    /// Additive increase R_AI, Mb/s (mlx5 5).
    pub rp_ai_rate: u32,
    /// Hyper increase R_HAI, Mb/s (mlx5 50).
    pub rp_hai_rate: u32,
    /// Alpha of a QP before its first CNP, 0..1023 (mlx5 1023 = 1.0).
    pub rp_initial_alpha_value: u32,
    /// Rate after the first CNP of a QP, Mb/s; 0 = cut as usual (mlx5 0).
    pub rp_rate_to_set_on_first_cnp: u32,
    /// 1: every CNP sets the target rate to the current rate; 0: only a CNP
    /// after a rate increase does (mlx5 default 0; ns-3 `ClampTargetRate`).
    pub rp_clamp_tgt_rate: u32,
    /// Pacer burst allowance, bytes: how far a QP may run ahead of its
    /// rate (0 = strict pacing).
    pub pacer_burst_bytes: u32,
    /// Pacer minimum time between two packets of one QP, ns.
    pub pacer_min_gap_ns: u32,
    /// Pacer rate of a QP before its first rate change, Mb/s; 0 = line rate.
    pub pacer_start_rate: u32,
}

impl Default for CcParams {
    fn default() -> Self {
        CcParams {
            mode: CcMode::Dcqcn,
            line_rate_mbps: 100_000,
            np_min_time_between_cnps: 50,
            np_cnp_dscp: 48,
            np_cnp_prio: 6,
            rp_min_rate: 10,
            rp_min_dec_fac: 50,
            rp_dce_tcp_g: 4,
            rp_dce_tcp_rtt: 55,
            rp_time_reset: 55,
            rp_byte_reset: 10_000_000,
            rp_threshold: 5,
            rp_ai_rate: 5,
            rp_hai_rate: 50,
            rp_initial_alpha_value: MLX5_ALPHA_MAX,
            rp_rate_to_set_on_first_cnp: 0,
            rp_clamp_tgt_rate: 0,
            pacer_burst_bytes: 0,
            pacer_min_gap_ns: 0,
            pacer_start_rate: 0,
        }
    }
}

/// Highest line rate: rates are kb/s in 32 bits, and 400 Gb/s leaves headroom.
pub const LINE_RATE_MAX_MBPS: u32 = 1_600_000;
/// Timers are ns in 32 bits: at most 4 s.
pub const TIME_PARAM_MAX_US: u32 = 4_000_000;

/// A parameter value the models cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad congestion-control parameter {name} = {value}: {reason}")]
pub struct BadParam {
    pub name: &'static str,
    pub value: String,
    pub reason: String,
}

/// The configuration registers, as the RTL ports `cfg_*` take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CcRegisters {
    pub metaroce: bool,
    pub cnp_interval_ns: u32,
    pub cnp_dscp: u8,
    pub cnp_pcp: u8,
    pub line_rate_kbps: u32,
    pub min_rate_kbps: u32,
    /// `rp_min_dec_fac` as a Q1.15 fraction, rounded down.
    pub min_dec_q15: u16,
    /// g in 1/1024.
    pub g: u16,
    pub alpha_period_ns: u32,
    pub time_reset_ns: u32,
    pub byte_reset: u32,
    pub threshold: u8,
    pub ai_kbps: u32,
    pub hai_kbps: u32,
    /// Q1.15.
    pub initial_alpha: u16,
    /// 0 = off.
    pub first_cnp_kbps: u32,
    pub clamp_tgt: bool,
    /// Pacer registers (`SPEC.md` §7).
    pub burst_bytes: u16,
    pub min_gap_ns: u32,
    /// ns per byte at the line rate, Q20.20 ([`crate::pacer::byte_time`]).
    pub line_byte_time: u64,
    /// ns per byte at the start rate, Q20.20.
    pub start_byte_time: u64,
}

impl CcParams {
    /// Every parameter name, for the command line's `--cc-param NAME=VALUE`.
    pub const NAMES: [&'static str; 19] = [
        "line_rate_mbps",
        "np_min_time_between_cnps",
        "np_cnp_dscp",
        "np_cnp_prio",
        "rp_min_rate",
        "rp_min_dec_fac",
        "rp_dce_tcp_g",
        "rp_dce_tcp_rtt",
        "rp_time_reset",
        "rp_byte_reset",
        "rp_threshold",
        "rp_ai_rate",
        "rp_hai_rate",
        "rp_initial_alpha_value",
        "rp_rate_to_set_on_first_cnp",
        "rp_clamp_tgt_rate",
        "pacer_burst_bytes",
        "pacer_min_gap_ns",
        "pacer_start_rate",
    ];

    /// Sets one parameter by name from its decimal text.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), BadParam> {
        let bad = |reason: &str| BadParam {
            name: Self::NAMES.iter().find(|n| **n == name).copied().unwrap_or("(unknown)"),
            value: value.to_string(),
            reason: reason.to_string(),
        };
        if name == "mode" {
            self.mode = match value {
                "dcqcn" => CcMode::Dcqcn,
                "metaroce" => CcMode::Metaroce,
                _ => return Err(bad("mode is dcqcn or metaroce")),
            };
            return Ok(());
        }
        let v: u32 = value.parse().map_err(|_| bad("not a decimal integer"))?;
        let field = match name {
            "line_rate_mbps" => &mut self.line_rate_mbps,
            "np_min_time_between_cnps" => &mut self.np_min_time_between_cnps,
            "np_cnp_dscp" => {
                self.np_cnp_dscp = u8::try_from(v).map_err(|_| bad("DSCP is 0..63"))?;
                return self.check_one("np_cnp_dscp");
            }
            "np_cnp_prio" => {
                self.np_cnp_prio = u8::try_from(v).map_err(|_| bad("priority is 0..7"))?;
                return self.check_one("np_cnp_prio");
            }
            "rp_min_rate" => &mut self.rp_min_rate,
            "rp_min_dec_fac" => &mut self.rp_min_dec_fac,
            "rp_dce_tcp_g" => &mut self.rp_dce_tcp_g,
            "rp_dce_tcp_rtt" => &mut self.rp_dce_tcp_rtt,
            "rp_time_reset" => &mut self.rp_time_reset,
            "rp_byte_reset" => &mut self.rp_byte_reset,
            "rp_threshold" => &mut self.rp_threshold,
            "rp_ai_rate" => &mut self.rp_ai_rate,
            "rp_hai_rate" => &mut self.rp_hai_rate,
            "rp_initial_alpha_value" => &mut self.rp_initial_alpha_value,
            "rp_rate_to_set_on_first_cnp" => &mut self.rp_rate_to_set_on_first_cnp,
            "rp_clamp_tgt_rate" => &mut self.rp_clamp_tgt_rate,
            "pacer_burst_bytes" => &mut self.pacer_burst_bytes,
            "pacer_min_gap_ns" => &mut self.pacer_min_gap_ns,
            "pacer_start_rate" => &mut self.pacer_start_rate,
            _ => {
                return Err(BadParam {
                    name: "(unknown)",
                    value: format!("{name}={value}"),
                    reason: format!("known names: mode, {}", Self::NAMES.join(", ")),
                })
            }
        };
        *field = v;
        self.check_one(name)
    }

    fn check_one(&self, name: &str) -> Result<(), BadParam> {
        match self.validate() {
            Err(e) if e.name == name => Err(e),
            _ => Ok(()),
        }
    }

    /// Refuses values the models cannot run with, naming the parameter.
    pub fn validate(&self) -> Result<(), BadParam> {
        let bad = |name: &'static str, value: u32, reason: &str| {
            Err(BadParam { name, value: value.to_string(), reason: reason.to_string() })
        };
        let in_range = |name: &'static str, value: u32, lo: u32, hi: u32| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                bad(name, value, &format!("must be {lo}..={hi}"))
            }
        };
        in_range("line_rate_mbps", self.line_rate_mbps, 1, LINE_RATE_MAX_MBPS)?;
        in_range("np_min_time_between_cnps", self.np_min_time_between_cnps, 1, TIME_PARAM_MAX_US)?;
        in_range("np_cnp_dscp", self.np_cnp_dscp.into(), 0, 63)?;
        in_range("np_cnp_prio", self.np_cnp_prio.into(), 0, 7)?;
        in_range("rp_min_rate", self.rp_min_rate, 1, self.line_rate_mbps).or_else(|_| {
            bad("rp_min_rate", self.rp_min_rate, "must be 1..=line_rate_mbps (the minimum rate is above the line rate)")
        })?;
        in_range("rp_min_dec_fac", self.rp_min_dec_fac, 0, 100)?;
        in_range("rp_dce_tcp_g", self.rp_dce_tcp_g, 1, G_SCALE)?;
        in_range("rp_dce_tcp_rtt", self.rp_dce_tcp_rtt, 1, TIME_PARAM_MAX_US)?;
        in_range("rp_time_reset", self.rp_time_reset, 1, TIME_PARAM_MAX_US)?;
        in_range("rp_byte_reset", self.rp_byte_reset, 1, u32::MAX)?;
        in_range("rp_threshold", self.rp_threshold, 0, STAGE_MAX.into())?;
        in_range("rp_ai_rate", self.rp_ai_rate, 0, self.line_rate_mbps)?;
        in_range("rp_hai_rate", self.rp_hai_rate, 0, self.line_rate_mbps)?;
        in_range("rp_initial_alpha_value", self.rp_initial_alpha_value, 0, MLX5_ALPHA_MAX)?;
        in_range("rp_rate_to_set_on_first_cnp", self.rp_rate_to_set_on_first_cnp, 0, self.line_rate_mbps)?;
        in_range("rp_clamp_tgt_rate", self.rp_clamp_tgt_rate, 0, 1)?;
        in_range("pacer_burst_bytes", self.pacer_burst_bytes, 0, u16::MAX.into())?;
        in_range("pacer_min_gap_ns", self.pacer_min_gap_ns, 0, TIME_PARAM_MAX_US * 1000)?;
        in_range("pacer_start_rate", self.pacer_start_rate, 0, self.line_rate_mbps)?;
        Ok(())
    }

    /// The register values: rates to kb/s, times to ns, fractions to Q1.15.
    pub fn registers(&self) -> Result<CcRegisters, BadParam> {
        self.validate()?;
        Ok(CcRegisters {
            metaroce: self.mode == CcMode::Metaroce,
            cnp_interval_ns: self.np_min_time_between_cnps * 1000,
            cnp_dscp: self.np_cnp_dscp,
            cnp_pcp: self.np_cnp_prio,
            line_rate_kbps: self.line_rate_mbps * 1000,
            min_rate_kbps: self.rp_min_rate * 1000,
            min_dec_q15: (self.rp_min_dec_fac * FRACTION_ONE / 100) as u16,
            g: self.rp_dce_tcp_g as u16,
            alpha_period_ns: self.rp_dce_tcp_rtt * 1000,
            time_reset_ns: self.rp_time_reset * 1000,
            byte_reset: self.rp_byte_reset,
            threshold: self.rp_threshold as u8,
            ai_kbps: self.rp_ai_rate * 1000,
            hai_kbps: self.rp_hai_rate * 1000,
            // 1023 maps to 1.0 exactly, as on mlx5.
            initial_alpha: if self.rp_initial_alpha_value == MLX5_ALPHA_MAX {
                FRACTION_ONE as u16
            } else {
                (self.rp_initial_alpha_value * FRACTION_ONE / (MLX5_ALPHA_MAX + 1)) as u16
            },
            first_cnp_kbps: self.rp_rate_to_set_on_first_cnp * 1000,
            clamp_tgt: self.rp_clamp_tgt_rate == 1,
            burst_bytes: self.pacer_burst_bytes as u16,
            min_gap_ns: self.pacer_min_gap_ns,
            line_byte_time: byte_time(self.line_rate_mbps * 1000),
            start_byte_time: byte_time(
                if self.pacer_start_rate == 0 { self.line_rate_mbps } else { self.pacer_start_rate } * 1000,
            ),
        })
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
    fn bad_values_are_refused_by_name() {
        let mut p = CcParams::default();
        assert_eq!(p.set("np_min_time_between_cnps", "0").unwrap_err().name, "np_min_time_between_cnps");
        let mut p2 = CcParams::default();
        assert_eq!(p2.set("rp_dce_tcp_g", "2000").unwrap_err().name, "rp_dce_tcp_g");
        let mut p3 = CcParams::default();
        let e = p3.set("rp_min_rate", "200000").unwrap_err();
        assert!(e.to_string().contains("above the line rate"), "{e}");
        assert!(p.set("nonsense", "1").is_err());
        assert!(p.set("rp_ai_rate", "x").is_err());
    }
}
