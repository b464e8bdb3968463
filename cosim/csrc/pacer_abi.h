// The C ABI of the pacer and pipeline shims (pacer_shim.cpp,
// pipeline_shim.cpp); mirrored by cosim/src/rtl_pacer.rs. Every value is
// widened to 64 bits.
#pragma once
#include <cstdint>

#include "cn_abi.h"

// The cfg_* ports of rtl/roce_pacer.v (SPEC.md §7).
struct mr_pacer_config {
    uint64_t burst_bytes, min_gap, line_byte_time, start_byte_time;
};

// One s_cmd_* transaction.
struct mr_pacer_command {
    uint64_t time, qp, rate_valid, rate, send, len;
};

// One m_rel_* transaction.
struct mr_pacer_release {
    uint64_t cycle, time, qp, len, drop;
};

// The pipeline top's configuration (rtl/roce_pipeline.v).
struct mr_pipeline_config {
    mr_cn_config cn;
    mr_pacer_config pacer;
    uint64_t local_mac_valid, local_mac;
};

// One frame into the top, with its s_axis_tuser side band.
struct mr_pipeline_frame {
    const uint8_t* data;
    uint64_t len, mac_error, tick, tx, tx_qp;
};
