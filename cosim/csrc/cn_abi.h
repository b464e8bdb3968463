// The C ABI of the congestion-notification shim (cn_shim.cpp); mirrored
// field for field by cosim/src/rtl_cn.rs. Every value is widened to 64 bits.
#pragma once
#include <cstdint>

// The cfg_* ports of rtl/roce_cn.v (SPEC.md §6.2).
struct mr_cn_config {
    uint64_t metaroce, cnp_interval, cnp_dscp, cnp_pcp, line_rate, min_rate, min_dec, g, alpha_period,
        time_reset, byte_reset, threshold, ai_rate, hai_rate, initial_alpha, first_cnp_rate, clamp_tgt;
};

// Drives the cfg_* ports of a model with the CN block's registers.
template <class Top>
void mr_apply_cn_config(Top* top, const mr_cn_config& c) {
    top->cfg_metaroce = c.metaroce;
    top->cfg_cnp_interval = c.cnp_interval;
    top->cfg_cnp_dscp = c.cnp_dscp;
    top->cfg_cnp_pcp = c.cnp_pcp;
    top->cfg_line_rate = c.line_rate;
    top->cfg_min_rate = c.min_rate;
    top->cfg_min_dec = c.min_dec;
    top->cfg_g = c.g;
    top->cfg_alpha_period = c.alpha_period;
    top->cfg_time_reset = c.time_reset;
    top->cfg_byte_reset = c.byte_reset;
    top->cfg_threshold = c.threshold;
    top->cfg_ai_rate = c.ai_rate;
    top->cfg_hai_rate = c.hai_rate;
    top->cfg_initial_alpha = c.initial_alpha;
    top->cfg_first_cnp_rate = c.first_cnp_rate;
    top->cfg_clamp_tgt = c.clamp_tgt;
}

// One s_evt_* transaction. IPs in two halves, hi = bits 127:64.
struct mr_cn_event {
    uint64_t kind, time, qp, ce, len, ipv6, vlan_valid, vlan_id, eth_dst, eth_src, ip_src_hi, ip_src_lo,
        ip_dst_hi, ip_dst_lo, udp_sport, src_qp_valid, src_qp, extent_valid, extent;
};

// Largest CNP the shim collects; a longer frame is cut and flagged.
#define MR_CN_CNP_MAX 128
// flags of a collected CNP
#define MR_CN_CNP_TUSER_CHANGED 1u  // m_axis_tuser differed between beats
#define MR_CN_CNP_BAD_TKEEP 2u      // tkeep not all ones before tlast, or not contiguous
#define MR_CN_CNP_TOO_LONG 4u       // more than MR_CN_CNP_MAX bytes

// One CNP frame from m_axis_*, with the cycle of its last beat.
struct mr_cn_cnp {
    uint64_t cycle, tick, len, flags;
    uint8_t bytes[MR_CN_CNP_MAX];
};

// One m_rate_* transaction.
struct mr_cn_rate {
    uint64_t cycle, time, qp, rate, target, alpha, stage, trigger, sent, len;
};
