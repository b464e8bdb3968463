// The congestion-control register table: every parameter exactly once, with
// its mlx5 name, range, default, cited source and doc line, and the
// register(s) the RTL reads (name, width, conversion). One table, three
// languages: golden/build.rs generates `CcParams`/`CcRegisters` (Rust) from
// it, cosim/build.rs the C ABI struct and the Verilated bus packer, and
// golden/cc_gen.rs `rtl/metaroce_cfg.vh` (the `cfg` bus slices; checked in,
// kept fresh by golden/tests/cc_table.rs). Adding a parameter: one row here,
// its use in the golden model, its use in the RTL (`cfg[`CFG_<REG>]`).
//
// Plain data and integer arithmetic only: the build scripts `include!` this
// file too.

/// One end of a parameter's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CcBound {
    Num(u32),
    /// The current value of another parameter.
    Param(&'static str),
}

/// How a register is computed from its parameter's value `v`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CcConv {
    /// The value itself (and a choice's index).
    Same,
    /// v * 1000: Mb/s to kb/s, µs to ns.
    Thousand,
    /// A percentage as a Q1.15 fraction, rounded down.
    PercentQ15,
    /// mlx5's 0..1023 alpha as Q1.15: 1023 is 1.0 exactly, else v·32768/1024.
    Mlx5Alpha,
    /// mlx5's weight kept on the old alpha, in 1/1024, as the gain g = 1024 − v
    /// (`dce_tcp_g`: α = (v/1024)·α + (1024 − v)/1024 · sample).
    Mlx5Weight,
    /// ns per byte at v Mb/s, Q20.20 ([`byte_time`]); 0 = at the line rate.
    ByteTime,
}

/// One register of the `cfg` bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcRegister {
    /// `CcRegisters` field; the RTL's `CFG_<NAME>` slice.
    pub name: &'static str,
    /// Bits on the bus (1 bit is a `bool` in Rust).
    pub width: u32,
    pub conv: CcConv,
}

/// One variant of a choice: (Rust name, text, doc).
pub type CcVariant = (&'static str, &'static str, &'static str);

/// One parameter: `--cc-param NAME=VALUE`, the NIC file's `cc.NAME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcParam {
    /// mlx5 name.
    pub name: &'static str,
    pub unit: &'static str,
    pub default: u32,
    pub min: CcBound,
    pub max: CcBound,
    /// Replaces "must be MIN..=MAX" in the out-of-range message.
    pub range_message: Option<&'static str>,
    /// A named choice instead of a number: (Rust enum, its variants); the
    /// value is the index.
    pub choices: Option<(&'static str, &'static [CcVariant])>,
    /// Left out of a NIC file written while at its default: set on
    /// parameters added after the checked-in captures, whose NIC files so
    /// stay byte-identical (`metaroce gen`).
    pub omit_default: bool,
    /// Where the default comes from.
    pub source: &'static str,
    pub doc: &'static str,
    pub registers: &'static [CcRegister],
}

/// Highest line rate: rates are kb/s in 32 bits, and 400 Gb/s leaves headroom.
pub const LINE_RATE_MAX_MBPS: u32 = 1_600_000;
/// Timers are ns in 32 bits: at most 4 s.
pub const TIME_PARAM_MAX_US: u32 = 4_000_000;
/// Alpha and the MetaRoCE CE extent are fractions in Q1.15: 1.0 = 32768.
pub const FRACTION_ONE: u32 = 1 << 15;
/// g counts in 1/1024 (g = 4/1024 = 1/256 is the paper's); `rp_dce_tcp_g`
/// is mlx5's weight on the old alpha, G_SCALE − g.
pub const G_SCALE: u32 = 1024;
/// `rp_initial_alpha_value` is on mlx5's 0..1023 scale.
pub const MLX5_ALPHA_MAX: u32 = 1023;

/// Fraction bits of every pacer time.
pub const TIME_FRAC_BITS: u32 = 20;
/// ns per byte at 1 kb/s (8 bits / 1000 bit/s = 8e6 ns), Q.20.
pub const BYTE_TIME_NUMERATOR: u64 = 8_000_000 << TIME_FRAC_BITS;
/// Rates below this pace at it (10 kb/s: 800 µs per byte); keeps byte
/// times in 40 bits.
pub const MIN_PACED_KBPS: u32 = 10;

/// ns per byte at `rate_kbps`, Q20.20, rounded up (the RTL's restoring
/// division of [`BYTE_TIME_NUMERATOR`] by the clamped rate, plus one when
/// a remainder is left).
pub fn byte_time(rate_kbps: u32) -> u64 {
    BYTE_TIME_NUMERATOR.div_ceil(u64::from(rate_kbps.max(MIN_PACED_KBPS)))
}

impl CcConv {
    /// The register value of parameter value `v`.
    pub fn apply(self, v: u32, line_rate_mbps: u32) -> u64 {
        let v64 = u64::from(v);
        match self {
            CcConv::Same => v64,
            CcConv::Thousand => v64 * 1000,
            CcConv::PercentQ15 => v64 * u64::from(FRACTION_ONE) / 100,
            CcConv::Mlx5Alpha if v == MLX5_ALPHA_MAX => FRACTION_ONE.into(),
            CcConv::Mlx5Alpha => v64 * u64::from(FRACTION_ONE) / u64::from(MLX5_ALPHA_MAX + 1),
            CcConv::Mlx5Weight => u64::from(G_SCALE) - v64,
            CcConv::ByteTime => byte_time(if v == 0 { line_rate_mbps } else { v }.saturating_mul(1000)),
        }
    }
}

const fn reg(name: &'static str, width: u32, conv: CcConv) -> CcRegister {
    CcRegister { name, width, conv }
}

const fn num(name: &'static str, unit: &'static str, default: u32, min: CcBound, max: CcBound) -> CcParam {
    CcParam {
        name,
        unit,
        default,
        min,
        max,
        range_message: None,
        choices: None,
        omit_default: false,
        source: "",
        doc: "",
        registers: &[],
    }
}

use CcBound::{Num, Param};
use CcConv::{ByteTime, Mlx5Alpha, Mlx5Weight, PercentQ15, Same, Thousand};

/// Every parameter, in bus order (bit 0 first). Defaults: the DCQCN paper
/// (Zhu et al., SIGCOMM 2015) where it gives one, mlx5's otherwise.
pub const CC_PARAMS: &[CcParam] = &[
    CcParam {
        choices: Some((
            "CcMode",
            &[
                ("Dcqcn", "dcqcn", "DCQCN: standard CNPs (reserved bytes zero), alpha-driven cuts."),
                ("Metaroce", "metaroce", "MetaRoCE: the CNP carries the CE extent; the cut follows it."),
            ],
        )),
        source: "SPEC.md §6",
        doc: "Which reaction the notification and reaction points run.",
        registers: &[reg("metaroce", 1, Same)],
        ..num("mode", "", 0, Num(0), Num(1))
    },
    CcParam {
        source: "100 GbE",
        doc: "Line rate: the start rate of every QP and the ceiling.",
        registers: &[reg("line_rate_kbps", 32, Thousand), reg("line_byte_time", 40, ByteTime)],
        ..num("line_rate_mbps", "Mb/s", 100_000, Num(1), Num(LINE_RATE_MAX_MBPS))
    },
    CcParam {
        source: "DCQCN paper (SIGCOMM 2015): CNP interval 50 µs; mlx5 default 4",
        doc: "Minimum time between two CNPs to one QP.",
        registers: &[reg("cnp_interval_ns", 32, Thousand)],
        ..num("np_min_time_between_cnps", "µs", 50, Num(1), Num(TIME_PARAM_MAX_US))
    },
    CcParam {
        source: "mlx5 default; REFERENCE.md capture",
        doc: "DSCP of the CNPs sent.",
        registers: &[reg("cnp_dscp", 6, Same)],
        ..num("np_cnp_dscp", "", 48, Num(0), Num(63))
    },
    CcParam {
        source: "mlx5 default",
        doc: "802.1p priority of CNPs sent on a VLAN.",
        registers: &[reg("cnp_pcp", 3, Same)],
        ..num("np_cnp_prio", "", 6, Num(0), Num(7))
    },
    CcParam {
        range_message: Some("must be 1..=line_rate_mbps (the minimum rate is above the line rate)"),
        source: "none cited",
        doc: "Floor of the current rate.",
        registers: &[reg("min_rate_kbps", 32, Thousand)],
        ..num("rp_min_rate", "Mb/s", 10, Num(1), Param("line_rate_mbps"))
    },
    CcParam {
        source: "mlx5 default",
        doc: "A cut never leaves less than this percentage of the rate (register: Q1.15, rounded down).",
        registers: &[reg("min_dec_q15", 16, PercentQ15)],
        ..num("rp_min_dec_fac", "%", 50, Num(0), Num(100))
    },
    CcParam {
        source: "DCQCN paper (SIGCOMM 2015): g = 1/256, as mlx5's weight 1020; mlx5 default 1019 (NVIDIA DOCA \
                 \"DCQCN CC Parameters\", Mellanox DOC-2790: α = (dce_tcp_g/1024)·α + (1024 − dce_tcp_g)/1024)",
        doc: "Weight kept on the old alpha, in 1/1024, as mlx5's `dce_tcp_g` (register: the gain g = 1024 - value).",
        registers: &[reg("g", 11, Mlx5Weight)],
        ..num("rp_dce_tcp_g", "1/1024", 1020, Num(0), Num(G_SCALE - 1))
    },
    CcParam {
        source: "DCQCN paper (SIGCOMM 2015): alpha period K = 55 µs",
        doc: "Alpha update period.",
        registers: &[reg("alpha_period_ns", 32, Thousand)],
        ..num("rp_dce_tcp_rtt", "µs", 55, Num(1), Num(TIME_PARAM_MAX_US))
    },
    CcParam {
        source: "DCQCN paper (SIGCOMM 2015): T = 55 µs",
        doc: "Rate increase timer T.",
        registers: &[reg("time_reset_ns", 32, Thousand)],
        ..num("rp_time_reset", "µs", 55, Num(1), Num(TIME_PARAM_MAX_US))
    },
    CcParam {
        source: "DCQCN paper (SIGCOMM 2015): B = 10 MB",
        doc: "Rate increase byte counter B.",
        registers: &[reg("byte_reset", 32, Same)],
        ..num("rp_byte_reset", "bytes", 10_000_000, Num(1), Num(u32::MAX))
    },
    CcParam {
        source: "DCQCN paper (SIGCOMM 2015): F = 5",
        doc: "Stage threshold F (stage counts saturate at 255).",
        registers: &[reg("threshold", 8, Same)],
        ..num("rp_threshold", "", 5, Num(0), Num(255))
    },
    CcParam {
        source: "mlx5 default",
        doc: "Additive increase R_AI.",
        registers: &[reg("ai_kbps", 32, Thousand)],
        ..num("rp_ai_rate", "Mb/s", 5, Num(0), Param("line_rate_mbps"))
    },
    CcParam {
        source: "mlx5 default",
        doc: "Hyper increase R_HAI.",
        registers: &[reg("hai_kbps", 32, Thousand)],
        ..num("rp_hai_rate", "Mb/s", 50, Num(0), Param("line_rate_mbps"))
    },
    CcParam {
        source: "mlx5 default (INITIAL_ALPHA_VALUE 1023)",
        doc: "Alpha of a QP before its first CNP, 0..1023 (register: Q1.15, 1023 = 1.0 exactly).",
        registers: &[reg("initial_alpha", 16, Mlx5Alpha)],
        ..num("rp_initial_alpha_value", "1/1024", MLX5_ALPHA_MAX, Num(0), Num(MLX5_ALPHA_MAX))
    },
    CcParam {
        source: "mlx5 default",
        doc: "Rate after the first CNP of a QP; 0 = cut as usual.",
        registers: &[reg("first_cnp_kbps", 32, Thousand)],
        ..num("rp_rate_to_set_on_first_cnp", "Mb/s", 0, Num(0), Param("line_rate_mbps"))
    },
    CcParam {
        source: "mlx5 default; ns-3 `ClampTargetRate`",
        doc: "1: every CNP sets the target rate to the current rate; 0: only a CNP after a rate increase does.",
        registers: &[reg("clamp_tgt", 1, Same)],
        ..num("rp_clamp_tgt_rate", "", 0, Num(0), Num(1))
    },
    CcParam {
        source: "mlx5 `rp_rate_reduce_monitor_period` (RATE_REDUCE_MONITOR_PERIOD 4 µs, ConnectX-4 Lx \
                 `mlxconfig`); ns-3 HPCC `rdma-hw.cc` RATE_DECREASE_INTERVAL 4 µs; default 0 keeps every CNP's cut",
        doc: "At most one rate cut per period: a CNP within this time of the QP's last cut does not cut \
              but still updates alpha and restarts its timer (ns-3 `cnp_received_mlx`); 0 = every CNP cuts.",
        registers: &[reg("reduce_period_ns", 32, Thousand)],
        omit_default: true,
        ..num("rp_rate_reduce_monitor_period", "µs", 0, Num(0), Param("rp_time_reset"))
    },
    CcParam {
        source: "SPEC.md §7 (0 = strict pacing)",
        doc: "Pacer burst allowance: how far a QP may run ahead of its rate.",
        registers: &[reg("burst_bytes", 16, Same)],
        ..num("pacer_burst_bytes", "bytes", 0, Num(0), Num(u16::MAX as u32))
    },
    CcParam {
        source: "SPEC.md §7",
        doc: "Pacer minimum time between two packets of one QP.",
        registers: &[reg("min_gap_ns", 32, Same)],
        ..num("pacer_min_gap_ns", "ns", 0, Num(0), Num(TIME_PARAM_MAX_US * 1000))
    },
    CcParam {
        source: "SPEC.md §7",
        doc: "Pacer rate of a QP before its first rate change; 0 = line rate (register: its byte time, Q20.20).",
        registers: &[reg("start_byte_time", 40, ByteTime)],
        ..num("pacer_start_rate", "Mb/s", 0, Num(0), Param("line_rate_mbps"))
    },
    CcParam {
        choices: Some((
            "AckMode",
            &[
                ("Off", "off", "No responder: received requests are neither acknowledged nor NAKed."),
                (
                    "Rocev2",
                    "rocev2",
                    "RoCEv2 go-back-N (IBTA; Linux rxe): ACK on AckReq or every `ack_coalesce_pkts` packets, one \
                     NAK on the first gap, duplicates re-ACKed.",
                ),
                (
                    "Metaroce",
                    "metaroce",
                    "MetaRoCE selective ACKs (issue 20): out-of-order packets kept in a 64-PSN bitmap, coalesced \
                     ACKs carrying it every `ack_coalesce_pkts` packets or `ack_coalesce_ns`, and at once on a new \
                     gap; the requester sends again only the PSNs they show missing (after IRN).",
                ),
            ],
        )),
        source: "SPEC.md §6.10; off keeps the checked-in captures' outputs",
        doc: "Which acknowledgments the responder sends for received RC requests.",
        registers: &[reg("ack_mode", 2, Same)],
        omit_default: true,
        ..num("ack_mode", "", 0, Num(0), Num(2))
    },
    CcParam {
        source: "Linux rxe: the requester sets AckReq every RXE_MAX_PKT_PER_ACK = 64 packets (rxe_req.c)",
        doc: "The responder acknowledges at least every this many in-order packets, AckReq or not.",
        registers: &[reg("ack_coalesce_pkts", 8, Same)],
        omit_default: true,
        ..num("ack_coalesce_pkts", "packets", 64, Num(1), Num(255))
    },
    CcParam {
        source: "issue 20 (one ACK per N packets or T, whichever comes first); 0, no time bound, keeps the \
                 checked-in captures' outputs",
        doc: "With ack_mode metaroce, a packet arriving this long after the oldest one not yet acknowledged is \
              acknowledged (0 = by packet count alone).",
        registers: &[reg("ack_coalesce_ns", 32, Same)],
        omit_default: true,
        ..num("ack_coalesce_ns", "ns", 0, Num(0), Num(TIME_PARAM_MAX_US * 1000))
    },
    CcParam {
        source: "NVIDIA lossless RoCE configuration: RoCE traffic on DSCP 26, priority 3 (CNPs 48 and 6)",
        doc: "DSCP of the ACKs and NAKs sent (the data's class).",
        registers: &[reg("ack_dscp", 6, Same)],
        omit_default: true,
        ..num("ack_dscp", "", 26, Num(0), Num(63))
    },
    CcParam {
        source: "NVIDIA lossless RoCE configuration: RoCE traffic on DSCP 26, priority 3 (CNPs 48 and 6)",
        doc: "802.1p priority of ACKs and NAKs sent on a VLAN.",
        registers: &[reg("ack_pcp", 3, Same)],
        omit_default: true,
        ..num("ack_prio", "", 3, Num(0), Num(7))
    },
    CcParam {
        source: "ibv_modify_qp(3) `retry_cnt`, 3 bits (7, perftest's default); counted as Linux rxe's completer does",
        doc: "Go-backs the requester makes without progress; the next one puts the QP in error (retry exhausted).",
        registers: &[reg("retry_cnt", 3, Same)],
        omit_default: true,
        ..num("retry_cnt", "", 7, Num(0), Num(7))
    },
    CcParam {
        source: "IBTA's Local ACK Timeout, 4.096 us * 2^v (the kernel's rdma_set_ack_timeout), the QP attribute `timeout` (5 bits; 24-31 left out so that the backoff fits the due's half range); 0 none, as rxe's qp_timeout_jiffies; 14 is perftest's DEF_QP_TIME",
        doc: "The requester's retransmit timer, 4.096 us * 2^v (doubling with each retry); 0 has none.",
        registers: &[reg("retx_timeout", 5, Same)],
        omit_default: true,
        ..num("retx_timeout", "", 14, Num(0), Num(23))
    },
];
