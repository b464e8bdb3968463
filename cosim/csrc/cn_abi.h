// The C ABI of the congestion-notification shim (cn_shim.cpp); mirrored
// field for field by cosim/src/rtl_cn.rs. Every value is widened to 64 bits.
#pragma once
#include <cstddef>
#include <cstdint>

// mr_cc_config and mr_apply_cc_config: the cfg bus, generated from the
// register table (golden/src/cc_table.rs).
#include "cc_config.h"

// One s_evt_* transaction. IPs in two halves, hi = bits 127:64.
struct mr_cn_event {
    uint64_t kind, time, qp, ce, len, ipv6, vlan_valid, vlan_id, eth_dst, eth_src, ip_src_hi, ip_src_lo,
        ip_dst_hi, ip_dst_lo, udp_sport, src_qp_valid, src_qp, extent_valid, extent, psn, ack_req, rc_req, msg_end,
        syndrome_valid, syndrome, sack_valid, sack_beyond, sack_bitmap;
};

// Largest frame (CNP, ACK or NAK) the shim collects; a longer one is cut and flagged.
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

// One m_retx_* transaction: the requester's retransmit request (SPEC.md §6.11).
struct mr_cn_retx {
    uint64_t cycle, time, qp, psn, count, cause, mask;
};

// Collects the m_retx_* transaction of this cycle, if any, into retx[*count].
template <class Top>
void mr_collect_retx(Top* top, uint64_t cycle, mr_cn_retx* retx, size_t* count) {
    if (top->m_retx_valid && top->m_retx_ready) {
        mr_cn_retx* r = &retx[(*count)++];
        r->cycle = cycle;
        r->time = top->m_retx_time;
        r->qp = top->m_retx_qp;
        r->psn = top->m_retx_psn;
        r->count = top->m_retx_count;
        r->cause = top->m_retx_cause;
        r->mask = top->m_retx_mask;
    }
}

// The CN block's three output buffers: room (cap) and what a call filled (count).
struct mr_cn_outputs {
    mr_cn_cnp* cnps;
    size_t cnp_cap, cnp_count;
    mr_cn_rate* rates;
    size_t rate_cap, rate_count;
    mr_cn_retx* retx;
    size_t retx_cap, retx_count;

    bool full() const { return cnp_count >= cnp_cap || rate_count >= rate_cap || retx_count >= retx_cap; }
};
