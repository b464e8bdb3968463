// C ABI over the Verilated pipeline top (rtl/roce_pipeline.v), one model
// per pipeline variant of cosim/build.rs. Frames go in by the batch with
// their side band (tick, sent by the host, QP); CNPs, the reaction point's
// transactions (monitor), the requester's retransmit requests and the
// pacer's releases come back with their cycles. Per cycle as in
// parser_shim.cpp; idle_pct idles the frame source, stall_pct drops
// m_axis_tready, m_rel_ready and m_retx_ready for a cycle.

#include <cstdint>
#include <cstring>
#include <memory>

#include "verilated.h"
#include "verilated_fst_c.h"
#include "axis_beats.h"
#include "pacer_abi.h"
#include "sim_common.h"
#include "variants.h"

namespace {

struct PipelineSim : MrSim {
    virtual size_t push(const mr_pipeline_frame* frames, size_t n, mr_pipeline_out* out, uint64_t max_cycles) = 0;
    virtual bool advance(uint64_t tick, mr_pipeline_out* out, uint64_t max_cycles, uint64_t* next_busy_valid,
                         uint64_t* next_busy_time) = 0;
};

template <class Model, int W, bool TRACED, bool COVERED>
struct PipelineSimW final : MrModel<Model, TRACED, COVERED, PipelineSim> {
    using Base = MrModel<Model, TRACED, COVERED, PipelineSim>;
    MR_MODEL_NAMES(Base);
    static constexpr int KEEP = W / 8;
    uint32_t idle_pct, stall_pct;
    MrBeatOffer<W> offer;
    MrCnpCollector<W> cnp;
    // A time advance on offer (s_adv_*), held until taken.
    bool advancing = false;
    bool adv_offer = false;
    uint64_t adv_time = 0;

    PipelineSimW(uint64_t seed, uint32_t idle, uint32_t stall, const mr_pipeline_config& cfg)
        : Base(seed, "pipeline"), idle_pct(idle), stall_pct(stall) {
        MrEvaluating evaluating(this);
        top->cfg_local_mac_valid = cfg.local_mac_valid;
        top->cfg_local_mac = cfg.local_mac;
        mr_apply_cc_config(top.get(), cfg.cc);
        top->s_axis_tvalid = 0;
        top->s_qpctx_valid = 0;
        top->flush = 0;
        top->s_adv_valid = 0;
        top->m_axis_tready = 0;
        top->m_rel_ready = 0;
        top->m_retx_ready = 0;
        // The RAM sweeps: until the QP context port is ready and nothing is busy.
        this->reset([this] { return top->s_qpctx_ready && !top->busy; });
    }


    void set_user(const mr_pipeline_frame& f, bool last) {
        const uint64_t err = last && f.mac_error ? 1 : 0;
        top->s_axis_tuser[0] = static_cast<uint32_t>(err | f.tick << 1);
        top->s_axis_tuser[1] = static_cast<uint32_t>(f.tick >> 31);
        top->s_axis_tuser[2] = static_cast<uint32_t>(f.tick >> 63 | f.tx << 1 | f.tx_qp << 2);
    }

    // One cycle; returns whether the offered beat was taken.
    bool cycle_once(bool valid, bool last, uint64_t keep, bool flush, mr_pipeline_out* out) {
        top->s_axis_tvalid = valid;
        top->s_axis_tlast = last;
        top->s_axis_tkeep = keep;
        MrLanes<W>::set(top->s_axis_tdata, offer.beat);
        top->flush = flush;
        top->s_adv_valid = adv_offer;
        top->s_adv_time = adv_time;
        top->m_axis_tready = !rng.percent(stall_pct);
        top->m_rel_ready = !rng.percent(stall_pct);
        top->m_retx_ready = !rng.percent(stall_pct);
        top->eval();
        trace.dump(cycle, false);
        const bool taken = valid && top->s_axis_tready;
        if (adv_offer && top->s_adv_ready) adv_offer = false;
        if (top->m_axis_tvalid && top->m_axis_tready) {
            cnp.beat_taken(top.get(), cycle, out->cn.cnps, &out->cn.cnp_count);
        }
        if (top->mon_rate_fire) {
            mr_cn_rate* r = &out->cn.rates[out->cn.rate_count++];
            r->cycle = cycle;
            r->time = top->mon_rate_time;
            r->qp = top->mon_rate_qp;
            r->rate = top->mon_rate_rate;
            r->target = top->mon_rate_target;
            r->alpha = top->mon_rate_alpha;
            r->stage = top->mon_rate_stage;
            r->trigger = top->mon_rate_trigger;
            r->sent = top->mon_rate_sent;
            r->len = top->mon_rate_len;
        }
        mr_collect_retx(top.get(), cycle, out->cn.retx, &out->cn.retx_count);
        mr_collect_release(top.get(), cycle, out->rels, &out->rel_count);
        tick();
        return taken;
    }

    size_t push(const mr_pipeline_frame* frames, size_t n, mr_pipeline_out* out, uint64_t max_cycles) override {
        MrEvaluating evaluating(this);
        out->cn.cnp_count = out->cn.rate_count = out->cn.retx_count = out->rel_count = 0;
        size_t next = 0;
        for (uint64_t c = 0; c < max_cycles && !out->full() && assertion.empty(); ++c) {
            if (next >= n) {
                if (n != 0) break;  // every frame taken: the caller sends more
                top->s_axis_tvalid = 0;
                top->flush = 1;
                top->eval();
                if (!top->busy) break;  // flushed
                cycle_once(false, false, 0, true, out);
                continue;
            }
            const mr_pipeline_frame& f = frames[next];
            if (!offer.presenting) {
                if (rng.percent(idle_pct)) {
                    cycle_once(false, false, 0, false, out);
                    continue;
                }
                offer.present(f.data, f.len, rng);
            }
            set_user(f, offer.last);
            if (cycle_once(true, offer.last, offer.keep(), false, out) && offer.taken()) ++next;
        }
        return next;
    }

    // Offers the advance to `tick` (once per call sequence), then clocks
    // until nothing is active; true once settled, with the top's next busy
    // tick (the pacer's or a retransmit timer's). False: out of cycles or
    // buffer room, call again.
    bool advance(uint64_t tick, mr_pipeline_out* out, uint64_t max_cycles, uint64_t* next_busy_valid,
                 uint64_t* next_busy_time) override {
        MrEvaluating evaluating(this);
        out->cn.cnp_count = out->cn.rate_count = out->cn.retx_count = out->rel_count = 0;
        if (!advancing) {
            advancing = adv_offer = true;
            adv_time = tick;
        }
        for (uint64_t c = 0; c < max_cycles && !out->full() && assertion.empty(); ++c) {
            if (!adv_offer) {
                top->s_axis_tvalid = 0;
                top->s_adv_valid = 0;
                top->flush = 0;
                top->eval();
                if (!top->active) {
                    advancing = false;
                    *next_busy_valid = top->next_busy_valid;
                    *next_busy_time = top->next_busy_time;
                    return true;
                }
            }
            cycle_once(false, false, 0, false, out);
        }
        return false;
    }

    bool load_qp(uint64_t local, uint64_t remote, uint64_t priority, uint64_t psn_valid, uint64_t psn) override {
        top->s_qpctx_priority = priority;
        return this->load_qp_port(local, remote, psn_valid, psn);
    }
};

}  // namespace

extern "C" {

void* mr_pipeline_new(const char* variant, uint64_t seed, uint32_t idle_pct, uint32_t stall_pct,
                      const mr_pipeline_config* cfg) {
#define MR_NEW(model, name, width, traced, covered) \
    if (std::strcmp(variant, name) == 0)            \
        return static_cast<MrSim*>(new PipelineSimW<model, width, traced, covered>(seed, idle_pct, stall_pct, *cfg));
    MR_PIPELINE_VARIANTS(MR_NEW)
#undef MR_NEW
    return nullptr;
}

// Offers frames[0..n) in order for at most max_cycles cycles, collecting the
// outputs; stops early when a buffer is full or once every frame is taken.
// With n = 0 it flushes: clocks with `flush` high until nothing is inside.
// Returns frames taken.
size_t mr_pipeline_push(void* sim, const mr_pipeline_frame* frames, size_t n, mr_pipeline_out* out,
                        uint64_t max_cycles) {
    return mr_as<PipelineSim>(sim)->push(frames, n, out, max_cycles);
}

// Moves the top's time on to `tick` (s_adv_*) once every frame pushed is
// in, collecting the outputs; 1 once settled, with the top's next busy
// tick in *next_busy_*; 0 when out of cycles or room (call again).
int mr_pipeline_advance(void* sim, uint64_t tick, mr_pipeline_out* out, uint64_t max_cycles,
                        uint64_t* next_busy_valid, uint64_t* next_busy_time) {
    return mr_as<PipelineSim>(sim)->advance(tick, out, max_cycles, next_busy_valid, next_busy_time);
}

}  // extern "C"
