// C ABI over the Verilated pacer (rtl/roce_pacer.v), one model per pacer
// variant of cosim/build.rs. Commands go in by the batch; releases come back
// with their cycles. Per cycle as in parser_shim.cpp; with idle_pct the
// command source idles a cycle before offering, with stall_pct the release
// sink drops m_rel_ready for the cycle.

#include <cstdint>
#include <cstring>
#include <memory>

#include "verilated.h"
#include "verilated_fst_c.h"
#include "pacer_abi.h"
#include "sim_common.h"
#include "variants.h"

namespace {

struct PacerSim : MrSim {
    virtual size_t push(const mr_pacer_command* cmds, size_t n, mr_pacer_release* rels, size_t rel_cap,
                        size_t* rel_count, uint64_t max_cycles) = 0;
};

template <class Model, int W, bool TRACED, bool COVERED>
struct PacerSimW final : MrModel<Model, TRACED, COVERED, PacerSim> {
    using Base = MrModel<Model, TRACED, COVERED, PacerSim>;
    MR_MODEL_NAMES(Base);
    uint32_t idle_pct, stall_pct;
    bool presenting = false;

    PacerSimW(uint64_t seed, uint32_t idle, uint32_t stall, const mr_cc_config& cfg)
        : Base(seed, "pacer"), idle_pct(idle), stall_pct(stall) {
        MrEvaluating evaluating(this);
        mr_apply_cc_config(top.get(), cfg);
        top->s_cmd_valid = 0;
        top->s_prio_valid = 0;
        top->flush = 0;
        top->m_rel_ready = 0;
        // The RAM sweep: until the pacer is idle.
        this->reset([this] { return !top->busy; });
    }


    // A QP's priority through s_prio_* (the QP context's other fields are
    // the CN block's); false if never taken.
    bool load_qp(uint64_t local, uint64_t, uint64_t priority, uint64_t, uint64_t) override {
        return this->offer_once(
            [&](bool valid) {
                top->s_prio_valid = valid;
                top->s_prio_qp = local;
                top->s_prio_value = priority;
            },
            [&] { return top->s_prio_ready; });
    }

    // One cycle; returns whether the offered command was taken.
    bool cycle_once(const mr_pacer_command* offer, bool flush, mr_pacer_release* rels, size_t* rel_count) {
        top->s_cmd_valid = offer != nullptr;
        if (offer) {
            top->s_cmd_time = offer->time;
            top->s_cmd_qp = offer->qp;
            top->s_cmd_rate_valid = offer->rate_valid;
            top->s_cmd_rate = offer->rate;
            top->s_cmd_send = offer->send;
            top->s_cmd_len = offer->len;
            top->s_cmd_pause = offer->pause;
            top->s_cmd_pause_enable = offer->pause_enable;
            const uint64_t quanta[2] = {offer->pause_quanta_lo, offer->pause_quanta_hi};
            for (int w = 0; w < 4; ++w) top->s_cmd_pause_quanta[w] = static_cast<uint32_t>(quanta[w / 2] >> (32 * (w % 2)));
        }
        top->flush = flush;
        top->m_rel_ready = !rng.percent(stall_pct);
        top->eval();
        trace.dump(cycle, false);
        const bool taken = offer && top->s_cmd_ready;
        mr_collect_release(top.get(), cycle, rels, rel_count);
        tick();
        return taken;
    }

    size_t push(const mr_pacer_command* cmds, size_t n, mr_pacer_release* rels, size_t rel_cap, size_t* rel_count,
                uint64_t max_cycles) override {
        MrEvaluating evaluating(this);
        *rel_count = 0;
        return mr_offer_each(
            *this, rng, idle_pct, presenting, cmds, n, max_cycles, [&] { return *rel_count >= rel_cap; },
            [&] {
                top->s_cmd_valid = 0;
                top->flush = 1;
                top->eval();
                return !top->busy;
            },
            [&](const mr_pacer_command* offer) { return cycle_once(offer, n == 0, rels, rel_count); });
    }
};

}  // namespace

extern "C" {

void* mr_pacer_new(const char* variant, uint64_t seed, uint32_t idle_pct, uint32_t stall_pct,
                   const mr_cc_config* cfg) {
#define MR_NEW(model, name, width, traced, covered) \
    if (std::strcmp(variant, name) == 0)            \
        return static_cast<MrSim*>(new PacerSimW<model, width, traced, covered>(seed, idle_pct, stall_pct, *cfg));
    MR_PACER_VARIANTS(MR_NEW)
#undef MR_NEW
    return nullptr;
}

// Offers cmds[0..n) in order for at most max_cycles cycles, collecting
// releases; stops early when the buffer is full or once every command is
// taken. With n = 0 it flushes: clocks with `flush` high until the pacer
// holds nothing. Returns commands taken.
size_t mr_pacer_push(void* sim, const mr_pacer_command* cmds, size_t n, mr_pacer_release* rels, size_t rel_cap,
                     size_t* rel_count, uint64_t max_cycles) {
    return mr_as<PacerSim>(sim)->push(cmds, n, rels, rel_cap, rel_count, max_cycles);
}

}  // extern "C"
