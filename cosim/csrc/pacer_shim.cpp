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
struct PacerSimW final : PacerSim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Model> top;
    MrTrace<Model, TRACED> trace;
    MrRng rng;
    uint32_t idle_pct, stall_pct;
    bool presenting = false;

    PacerSimW(uint64_t seed, uint32_t idle, uint32_t stall, const mr_pacer_config& cfg)
        : ctx(new VerilatedContext), rng{seed}, idle_pct(idle), stall_pct(stall) {
        ctx->randReset(2);
        ctx->randSeed(mr_x_seed(seed));
        ctx->fatalOnError(false);
        if (TRACED) ctx->traceEverOn(true);
        top.reset(new Model(ctx.get(), "pacer"));
        MrEvaluating evaluating(this);
        top->cfg_burst_bytes = cfg.burst_bytes;
        top->cfg_min_gap = cfg.min_gap;
        top->cfg_line_byte_time = cfg.line_byte_time;
        top->cfg_start_byte_time = cfg.start_byte_time;
        top->clk = 0;
        top->rst = 1;
        top->s_cmd_valid = 0;
        top->flush = 0;
        top->m_rel_ready = 0;
        for (int i = 0; i < 4; ++i) {
            top->eval();
            tick();
        }
        top->rst = 0;
        // The RAM sweep: until the pacer is idle.
        top->eval();
        while (top->busy && assertion.empty()) {
            tick();
            top->eval();
        }
        cycle = 0;
    }

    ~PacerSimW() override { trace_close(); }

    void tick() {
        top->clk = 1;
        top->eval();
        trace.dump(cycle, true);
        top->clk = 0;
        ++cycle;
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
        }
        top->flush = flush;
        top->m_rel_ready = !rng.percent(stall_pct);
        top->eval();
        trace.dump(cycle, false);
        const bool taken = offer && top->s_cmd_ready;
        if (top->m_rel_valid && top->m_rel_ready) {
            mr_pacer_release* r = &rels[(*rel_count)++];
            r->cycle = cycle;
            r->time = top->m_rel_time;
            r->qp = top->m_rel_qp;
            r->len = top->m_rel_len;
            r->drop = top->m_rel_drop;
        }
        tick();
        return taken;
    }

    size_t push(const mr_pacer_command* cmds, size_t n, mr_pacer_release* rels, size_t rel_cap, size_t* rel_count,
                uint64_t max_cycles) override {
        MrEvaluating evaluating(this);
        *rel_count = 0;
        size_t next = 0;
        for (uint64_t c = 0; c < max_cycles && *rel_count < rel_cap && assertion.empty(); ++c) {
            const mr_pacer_command* offer = nullptr;
            if (next < n) {
                if (presenting || !rng.percent(idle_pct)) {
                    presenting = true;
                    offer = &cmds[next];
                }
            } else if (n != 0) {
                break;  // every command taken: the caller sends more
            } else {
                top->s_cmd_valid = 0;
                top->flush = 1;
                top->eval();
                if (!top->busy) break;  // flushed
            }
            if (cycle_once(offer, n == 0, rels, rel_count)) {
                presenting = false;
                ++next;
            }
        }
        return next;
    }

    bool trace_open(const char* path, uint64_t from, uint64_t to) override {
        return trace.open(top.get(), path, from, to);
    }

    void trace_close() override { trace.close(); }

    bool coverage_write(const char* path) override { return mr_coverage_write<COVERED>(ctx.get(), path); }
};

}  // namespace

extern "C" {

void* mr_pacer_new(const char* variant, uint64_t seed, uint32_t idle_pct, uint32_t stall_pct,
                   const mr_pacer_config* cfg) {
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
