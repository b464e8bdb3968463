//! Congestion-control presets (`SPEC.md` §6.8): the DCQCN defaults of one
//! source at a time (the paper, HPCC's ns-3 model, mlx5 firmware), each
//! value with where it comes from. A preset is a named set of
//! `--cc-param` values: it is applied on top of a NIC's parameters, and
//! single `--cc-param`s after it override it. The audit behind every row
//! is `docs/dcqcn-conformance.md`.

use std::fmt;
use std::str::FromStr;

use crate::cc_params::{BadParam, CcParams, CcSetting};
use crate::cc_table::CC_PARAMS;

/// Whose defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CcPreset {
    /// Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
    /// SIGCOMM 2015 (values as `../shared/REFERENCE.md` lists them), with
    /// ns-3's `dcqcn_paper` run where the paper gives none.
    Paper,
    /// HPCC's ns-3 model: `simulation/run.py --cc dcqcn` and its
    /// `config.txt` template (alibaba-edu/High-Precision-Congestion-Control).
    Ns3,
    /// ConnectX-4 Lx firmware defaults (`mlxconfig -q`), as the Linux
    /// driver's `rp_*`/`np_*` names carry them.
    Mlx5,
}

/// A preset's value of one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetValue {
    Fixed(u32),
    /// `per_25g` for every 25 Gb/s of the line rate (ns-3's `run.py` scales
    /// R_AI and R_HAI with the link rate from 25G), at least 1.
    Per25Gbps(u32),
}

/// One row: the parameter, its value under each preset (paper, ns3,
/// mlx5; `None` leaves the NIC's value), and the sources in that order.
pub struct PresetRow {
    pub param: &'static str,
    pub values: [Option<PresetValue>; 3],
    pub sources: [&'static str; 3],
}

use PresetValue::{Fixed, Per25Gbps};

/// Every parameter a preset sets. The CNP's DSCP and priority, the pacer's
/// parameters and the mode are not congestion-control rules and stay.
pub const PRESET_ROWS: &[PresetRow] = &[
    PresetRow {
        param: "np_min_time_between_cnps",
        values: [Some(Fixed(50)), Some(Fixed(1)), Some(Fixed(4))],
        sources: [
            "paper: 50 µs",
            "ns-3 has none (every CE packet's ACK carries a CNP flag, rdma-hw.cc ReceiveUdp); 1 µs is metaroce's least",
            "MIN_TIME_BETWEEN_CNPS 4 (ConnectX-4 Lx mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_dce_tcp_rtt",
        values: [Some(Fixed(55)), Some(Fixed(1)), Some(Fixed(1))],
        sources: ["paper: K = 55 µs", "ALPHA_RESUME_INTERVAL 1 (run.py dcqcn)", "DCE_TCP_RTT 1 (mlxconfig)"],
    },
    PresetRow {
        param: "rp_time_reset",
        values: [Some(Fixed(55)), Some(Fixed(300)), Some(Fixed(300))],
        sources: ["paper: T = 55 µs", "RP_TIMER 300 (run.py dcqcn)", "RPG_TIME_RESET 300 (mlxconfig)"],
    },
    PresetRow {
        param: "rp_byte_reset",
        values: [Some(Fixed(10_000_000)), Some(Fixed(u32::MAX)), Some(Fixed(32_767))],
        sources: [
            "paper: B = 10 MB",
            "ns-3's DCQCN has no byte counter: B at its maximum never fires",
            "RPG_BYTE_RESET 32767 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_threshold",
        values: [Some(Fixed(5)), Some(Fixed(1)), Some(Fixed(1))],
        sources: ["paper: F = 5", "FAST_RECOVERY_TIMES 1 (run.py config template)", "RPG_THRESHOLD 1 (mlxconfig)"],
    },
    PresetRow {
        param: "rp_ai_rate",
        values: [Some(Per25Gbps(5)), Some(Per25Gbps(5)), Some(Fixed(5))],
        sources: [
            "not in the paper's values; ns-3 dcqcn_paper: 5 Mb/s per 25 Gb/s (run.py)",
            "RATE_AI 5 Mb/s per 25 Gb/s (run.py dcqcn; 20 at 100G)",
            "RPG_AI_RATE 5 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_hai_rate",
        values: [Some(Per25Gbps(50)), Some(Per25Gbps(50)), Some(Fixed(50))],
        sources: [
            "not in the paper's values; ns-3 dcqcn_paper: 50 Mb/s per 25 Gb/s (run.py)",
            "RATE_HAI 50 Mb/s per 25 Gb/s (run.py dcqcn; 200 at 100G)",
            "RPG_HAI_RATE 50 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_min_rate",
        values: [Some(Fixed(1000)), Some(Fixed(1000)), Some(Fixed(1))],
        sources: [
            "not in the paper's values; ns-3's config template: MIN_RATE 1000 Mb/s",
            "MIN_RATE 1000Mb/s (run.py config template)",
            "RPG_MIN_RATE 1 (mlxconfig; NVIDIA DOCA rpg_min_rate)",
        ],
    },
    PresetRow {
        param: "rp_min_dec_fac",
        values: [Some(Fixed(0)), Some(Fixed(0)), Some(Fixed(50))],
        sources: [
            "paper: Rc(1 − α/2), no floor on the cut",
            "CheckRateDecreaseMlx: no floor on the cut but the minimum rate",
            "RPG_MIN_DEC_FAC 50 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_dce_tcp_g",
        values: [Some(Fixed(1020)), Some(Fixed(1020)), Some(Fixed(1019))],
        sources: [
            "paper: g = 1/256 (weight 1020/1024)",
            "EWMA_GAIN 0.00390625 = 1/256 (run.py dcqcn)",
            "DCE_TCP_G 1019: g = 5/1024 (mlxconfig; NVIDIA DOCA, DOC-2790)",
        ],
    },
    PresetRow {
        param: "rp_initial_alpha_value",
        values: [Some(Fixed(1023)), Some(Fixed(1023)), Some(Fixed(1023))],
        sources: [
            "paper: α starts at 1",
            "cnp_received_mlx sets α = 1 on a QP's first CNP",
            "INITIAL_ALPHA_VALUE 1023 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_rate_to_set_on_first_cnp",
        values: [Some(Fixed(0)), Some(Fixed(0)), Some(Fixed(0))],
        sources: [
            "paper: the first CNP cuts as any other",
            "RateOnFirstCnp 1.0: Rc is kept",
            "RATE_TO_SET_ON_FIRST_CNP 0 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_clamp_tgt_rate",
        values: [Some(Fixed(1)), Some(Fixed(0)), Some(Fixed(0))],
        sources: [
            "paper: Rt = Rc on every CNP",
            "CLAMP_TARGET_RATE 0 (run.py config template)",
            "CLAMP_TGT_RATE 0, CLAMP_TGT_RATE_AFTER_TIME_INC 1 (mlxconfig)",
        ],
    },
    PresetRow {
        param: "rp_rate_reduce_monitor_period",
        values: [Some(Fixed(0)), Some(Fixed(4)), Some(Fixed(4))],
        sources: [
            "paper: every CNP cuts (the NP spaces them)",
            "RATE_DECREASE_INTERVAL 4 (run.py dcqcn)",
            "RATE_REDUCE_MONITOR_PERIOD 4 (mlxconfig)",
        ],
    },
];

impl CcPreset {
    pub const ALL: [CcPreset; 3] = [CcPreset::Paper, CcPreset::Ns3, CcPreset::Mlx5];

    pub fn name(self) -> &'static str {
        match self {
            CcPreset::Paper => "paper",
            CcPreset::Ns3 => "ns3",
            CcPreset::Mlx5 => "mlx5",
        }
    }

    fn column(self) -> usize {
        self as usize
    }

    /// The preset's settings at `line_rate_mbps`, in table order.
    pub fn settings(self, line_rate_mbps: u32) -> Vec<CcSetting> {
        PRESET_ROWS
            .iter()
            .filter_map(|row| {
                let value = match row.values[self.column()]? {
                    Fixed(v) => v,
                    Per25Gbps(v) => (u64::from(v) * u64::from(line_rate_mbps) / 25_000).max(1) as u32,
                };
                let param = CC_PARAMS.iter().find(|p| p.name == row.param).expect("a preset row names a parameter");
                Some(CcSetting { param, value })
            })
            .collect()
    }
}

impl CcParams {
    /// Sets every value of `preset` (at this NIC's line rate); refuses a
    /// combination the models cannot run with, naming the parameter.
    pub fn apply_preset(&mut self, preset: CcPreset) -> Result<(), BadParam> {
        *self = self.preset_beneath(preset, |_| false)?;
        Ok(())
    }

    /// These parameters with `preset`'s values in place of every one that
    /// `kept` does not name (a NIC file's `cc.preset`: the file's own
    /// values win).
    pub fn preset_beneath(&self, preset: CcPreset, kept: impl Fn(&str) -> bool) -> Result<CcParams, BadParam> {
        let mut params = *self;
        for setting in preset.settings(self.line_rate_mbps).into_iter().filter(|s| !kept(s.param.name)) {
            params.set_value(setting.param.name, setting.value);
        }
        params.validate()?;
        Ok(params)
    }
}

impl fmt::Display for CcPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CcPreset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        CcPreset::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = CcPreset::ALL.iter().map(|p| p.name()).collect();
            format!("unknown congestion-control preset `{s}`: choose one of {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_at_every_ethernet_rate() {
        for preset in CcPreset::ALL {
            for gbps in [10, 25, 40, 50, 100, 200, 400] {
                let mut p = CcParams { line_rate_mbps: gbps * 1000, ..CcParams::default() };
                p.apply_preset(preset).unwrap_or_else(|e| panic!("{preset} at {gbps}G: {e}"));
                p.registers().unwrap();
            }
        }
    }

    #[test]
    fn presets_set_their_sources_values() {
        let at_100g = |preset| {
            let mut p = CcParams::default();
            p.apply_preset(preset).unwrap();
            p
        };
        let ns3 = at_100g(CcPreset::Ns3);
        assert_eq!((ns3.rp_ai_rate, ns3.rp_hai_rate, ns3.rp_time_reset, ns3.rp_threshold), (20, 200, 300, 1));
        assert_eq!((ns3.rp_min_rate, ns3.rp_rate_reduce_monitor_period), (1000, 4));
        let mlx5 = at_100g(CcPreset::Mlx5);
        assert_eq!((mlx5.rp_byte_reset, mlx5.rp_dce_tcp_g, mlx5.np_min_time_between_cnps), (32_767, 1019, 4));
        assert_eq!(mlx5.registers().unwrap().g, 5);
        let paper = at_100g(CcPreset::Paper);
        assert_eq!(paper.registers().unwrap().g, 4);
        assert_eq!((paper.rp_time_reset, paper.rp_byte_reset, paper.rp_clamp_tgt_rate), (55, 10_000_000, 1));
    }

    #[test]
    fn rows_name_parameters_once_and_names_parse() {
        for (i, row) in PRESET_ROWS.iter().enumerate() {
            assert!(CC_PARAMS.iter().any(|p| p.name == row.param), "{}", row.param);
            assert!(PRESET_ROWS[..i].iter().all(|r| r.param != row.param), "{} twice", row.param);
        }
        assert_eq!("ns3".parse::<CcPreset>(), Ok(CcPreset::Ns3));
        let e = "hpcc".parse::<CcPreset>().unwrap_err();
        assert_eq!(e, "unknown congestion-control preset `hpcc`: choose one of paper, ns3, mlx5");
    }
}
