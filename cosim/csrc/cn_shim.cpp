// C ABI over the Verilated congestion-notification block (rtl/roce_cn.v),
// one model per CN variant of cosim/build.rs. Events go in by the batch;
// CNP frames, rate changes and retransmit requests come back with their
// cycles.
//
// Per cycle, as in parser_shim.cpp: inputs set with clk low, eval(),
// handshakes sampled, clk rises. With idle_pct the event source holds
// s_evt_valid low for a cycle before offering an event; with stall_pct each
// sink (m_axis_tready, m_rate_ready, m_retx_ready) drops ready for the cycle.

#include <cstdint>
#include <cstring>
#include <memory>

#include "verilated.h"
#include "verilated_fst_c.h"
#include "axis_beats.h"
#include "cn_abi.h"
#include "sim_common.h"
#include "variants.h"

namespace {

struct CnSim : MrSim {
    virtual size_t push(const mr_cn_event* events, size_t n, mr_cn_outputs* out, uint64_t max_cycles) = 0;
};

template <class Model, int W, bool TRACED, bool COVERED>
struct CnSimW final : MrModel<Model, TRACED, COVERED, CnSim> {
    using Base = MrModel<Model, TRACED, COVERED, CnSim>;
    MR_MODEL_NAMES(Base);
    uint32_t idle_pct, stall_pct;
    bool presenting = false;  // the current event is on offer (held until taken)
    MrCnpCollector<W> cnp;

    CnSimW(uint64_t seed, uint32_t idle, uint32_t stall, const mr_cc_config& cfg)
        : Base(seed, "cn"), idle_pct(idle), stall_pct(stall) {
        MrEvaluating evaluating(this);
        mr_apply_cc_config(top.get(), cfg);
        top->s_evt_valid = 0;
        top->s_qpctx_valid = 0;
        top->m_axis_tready = 0;
        top->m_rate_ready = 0;
        top->m_retx_ready = 0;
        // The RAM clearing sweep: until the QP context port is ready.
        this->reset([this] { return top->s_qpctx_ready; });
    }


    void set_event(const mr_cn_event& e) {
        top->s_evt_kind = e.kind;
        top->s_evt_time = e.time;
        top->s_evt_qp = e.qp;
        top->s_evt_ce = e.ce;
        top->s_evt_len = e.len;
        top->s_evt_ipv6 = e.ipv6;
        top->s_evt_vlan_valid = e.vlan_valid;
        top->s_evt_vlan_id = e.vlan_id;
        top->s_evt_eth_dst = e.eth_dst;
        top->s_evt_eth_src = e.eth_src;
        const uint64_t src[2] = {e.ip_src_lo, e.ip_src_hi}, dst[2] = {e.ip_dst_lo, e.ip_dst_hi};
        for (int w = 0; w < 4; ++w) {
            top->s_evt_ip_src[w] = static_cast<uint32_t>(src[w / 2] >> (32 * (w % 2)));
            top->s_evt_ip_dst[w] = static_cast<uint32_t>(dst[w / 2] >> (32 * (w % 2)));
        }
        top->s_evt_udp_sport = e.udp_sport;
        top->s_evt_src_qp_valid = e.src_qp_valid;
        top->s_evt_src_qp = e.src_qp;
        top->s_evt_extent_valid = e.extent_valid;
        top->s_evt_extent = e.extent;
        top->s_evt_psn = e.psn;
        top->s_evt_ack_req = e.ack_req;
        top->s_evt_rc_req = e.rc_req;
        top->s_evt_msg_end = e.msg_end;
        top->s_evt_syndrome_valid = e.syndrome_valid;
        top->s_evt_syndrome = e.syndrome;
        top->s_evt_sack_valid = e.sack_valid;
        top->s_evt_sack_beyond = e.sack_beyond;
        top->s_evt_sack_bitmap = e.sack_bitmap;
    }

    // One cycle; returns whether the offered event was taken.
    bool cycle_once(const mr_cn_event* offer, mr_cn_outputs* out) {
        top->s_evt_valid = offer != nullptr;
        if (offer) set_event(*offer);
        top->m_axis_tready = !rng.percent(stall_pct);
        top->m_rate_ready = !rng.percent(stall_pct);
        top->m_retx_ready = !rng.percent(stall_pct);
        top->eval();
        trace.dump(cycle, false);
        const bool taken = offer && top->s_evt_ready;
        if (top->m_axis_tvalid && top->m_axis_tready) cnp.beat_taken(top.get(), cycle, out->cnps, &out->cnp_count);
        if (top->m_rate_valid && top->m_rate_ready) {
            mr_cn_rate* r = &out->rates[out->rate_count++];
            r->cycle = cycle;
            r->time = top->m_rate_time;
            r->qp = top->m_rate_qp;
            r->rate = top->m_rate_rate;
            r->target = top->m_rate_target;
            r->alpha = top->m_rate_alpha;
            r->stage = top->m_rate_stage;
            r->trigger = top->m_rate_trigger;
            r->sent = top->m_rate_sent;
            r->len = top->m_rate_len;
        }
        mr_collect_retx(top.get(), cycle, out->retx, &out->retx_count);
        tick();
        return taken;
    }

    size_t push(const mr_cn_event* events, size_t n, mr_cn_outputs* out, uint64_t max_cycles) override {
        MrEvaluating evaluating(this);
        out->cnp_count = out->rate_count = out->retx_count = 0;
        return mr_offer_each(
            *this, rng, idle_pct, presenting, events, n, max_cycles, [&] { return out->full(); },
            [&] {
                top->s_evt_valid = 0;
                top->eval();
                return !top->busy;
            },
            [&](const mr_cn_event* offer) { return cycle_once(offer, out); });
    }

    // The CN block keeps no priority (the pacer does).
    bool load_qp(uint64_t local, uint64_t remote, uint64_t, uint64_t psn_valid, uint64_t psn) override {
        return this->load_qp_port(local, remote, psn_valid, psn);
    }
};

}  // namespace

extern "C" {

void* mr_cn_new(const char* variant, uint64_t seed, uint32_t idle_pct, uint32_t stall_pct,
                const mr_cc_config* cfg) {
#define MR_NEW(model, name, width, traced, covered) \
    if (std::strcmp(variant, name) == 0)            \
        return static_cast<MrSim*>(new CnSimW<model, width, traced, covered>(seed, idle_pct, stall_pct, *cfg));
    MR_CN_VARIANTS(MR_NEW)
#undef MR_NEW
    return nullptr;
}

// Offers events[0..n) in order for at most max_cycles cycles, collecting
// outputs; stops early when an output buffer is full or once every event is
// taken. With n = 0 it drains: clocks until the block is no longer busy.
// Returns events taken.
size_t mr_cn_push(void* sim, const mr_cn_event* events, size_t n, mr_cn_outputs* out, uint64_t max_cycles) {
    return mr_as<CnSim>(sim)->push(events, n, out, max_cycles);
}

}  // extern "C"
