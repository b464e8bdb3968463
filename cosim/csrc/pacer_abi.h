// The C ABI of the pacer and pipeline shims (pacer_shim.cpp,
// pipeline_shim.cpp); mirrored by cosim/src/rtl_pacer.rs. Every value is
// widened to 64 bits.
#pragma once
#include <cstdint>

#include "cn_abi.h"

// One s_cmd_* transaction; pause_quanta_hi holds s_cmd_pause_quanta's bits
// 127:64 (priorities 0-3), _lo bits 63:0.
struct mr_pacer_command {
    uint64_t time, qp, rate_valid, rate, send, len, pause, pause_enable, pause_quanta_hi, pause_quanta_lo;
};

// One m_rel_* transaction.
struct mr_pacer_release {
    uint64_t cycle, time, qp, len, drop;
};

// Collects the m_rel_* transaction of this cycle, if any, into rels[*count].
template <class Top>
void mr_collect_release(Top* top, uint64_t cycle, mr_pacer_release* rels, size_t* count) {
    if (top->m_rel_valid && top->m_rel_ready) {
        mr_pacer_release* r = &rels[(*count)++];
        r->cycle = cycle;
        r->time = top->m_rel_time;
        r->qp = top->m_rel_qp;
        r->len = top->m_rel_len;
        r->drop = top->m_rel_drop;
    }
}

// The pipeline top's configuration (rtl/roce_pipeline.v).
struct mr_pipeline_config {
    mr_cc_config cc;
    uint64_t local_mac_valid, local_mac;
};

// One frame into the top, with its s_axis_tuser side band.
struct mr_pipeline_frame {
    const uint8_t* data;
    uint64_t len, mac_error, tick, tx, tx_qp;
};

// The top's output buffers: the CN block's, then the releases.
struct mr_pipeline_out {
    mr_cn_outputs cn;
    mr_pacer_release* rels;
    size_t rel_cap, rel_count;

    bool full() const { return cn.full() || rel_count >= rel_cap; }
};
