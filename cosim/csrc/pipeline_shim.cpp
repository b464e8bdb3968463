// C ABI over the Verilated pipeline top (rtl/roce_pipeline.v), one model
// per pipeline variant of cosim/build.rs. Frames go in by the batch with
// their side band (tick, sent by the host, QP); CNPs, the reaction point's
// transactions (monitor) and the pacer's releases come back with their
// cycles. Per cycle as in parser_shim.cpp; idle_pct idles the frame source,
// stall_pct drops m_axis_tready and m_rel_ready for a cycle.

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
    virtual size_t push(const mr_pipeline_frame* frames, size_t n, mr_cn_cnp* cnps, size_t cnp_cap,
                        size_t* cnp_count, mr_cn_rate* rates, size_t rate_cap, size_t* rate_count,
                        mr_pacer_release* rels, size_t rel_cap, size_t* rel_count, uint64_t max_cycles) = 0;
    virtual bool load_qp(uint64_t local, uint64_t remote) = 0;
};

template <class Model, int W, bool TRACED, bool COVERED>
struct PipelineSimW final : PipelineSim {
    static constexpr int KEEP = W / 8;
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Model> top;
    MrTrace<Model, TRACED> trace;
    MrRng rng;
    uint32_t idle_pct, stall_pct;
    // The beat on offer, held until taken.
    size_t offset = 0;
    bool presenting = false;
    bool beat_last = false;
    uint32_t beat_bytes = 0;
    uint8_t beat[KEEP] = {};
    MrCnpCollector<W> cnp;

    PipelineSimW(uint64_t seed, uint32_t idle, uint32_t stall, const mr_pipeline_config& cfg)
        : ctx(new VerilatedContext), rng{seed}, idle_pct(idle), stall_pct(stall) {
        ctx->randReset(2);
        ctx->randSeed(mr_x_seed(seed));
        ctx->fatalOnError(false);
        if (TRACED) ctx->traceEverOn(true);
        top.reset(new Model(ctx.get(), "pipeline"));
        MrEvaluating evaluating(this);
        const mr_cn_config& c = cfg.cn;
        top->cfg_local_mac_valid = cfg.local_mac_valid;
        top->cfg_local_mac = cfg.local_mac;
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
        top->cfg_burst_bytes = cfg.pacer.burst_bytes;
        top->cfg_min_gap = cfg.pacer.min_gap;
        top->cfg_line_byte_time = cfg.pacer.line_byte_time;
        top->cfg_start_byte_time = cfg.pacer.start_byte_time;
        top->clk = 0;
        top->rst = 1;
        top->s_axis_tvalid = 0;
        top->s_qpctx_valid = 0;
        top->flush = 0;
        top->m_axis_tready = 0;
        top->m_rel_ready = 0;
        for (int i = 0; i < 4; ++i) {
            top->eval();
            tick();
        }
        top->rst = 0;
        // The RAM sweeps: until the QP context port is ready and nothing is busy.
        top->eval();
        while ((!top->s_qpctx_ready || top->busy) && assertion.empty()) {
            tick();
            top->eval();
        }
        cycle = 0;
    }

    ~PipelineSimW() override { trace_close(); }

    void tick() {
        top->clk = 1;
        top->eval();
        trace.dump(cycle, true);
        top->clk = 0;
        ++cycle;
    }

    void set_user(const mr_pipeline_frame& f, bool last) {
        const uint64_t err = last && f.mac_error ? 1 : 0;
        top->s_axis_tuser[0] = static_cast<uint32_t>(err | f.tick << 1);
        top->s_axis_tuser[1] = static_cast<uint32_t>(f.tick >> 31);
        top->s_axis_tuser[2] = static_cast<uint32_t>(f.tick >> 63 | f.tx << 1 | f.tx_qp << 2);
    }

    // One cycle; returns whether the offered beat was taken.
    bool cycle_once(bool offer, bool last, uint64_t keep, bool flush, mr_cn_cnp* cnps, size_t* cnp_count,
                    mr_cn_rate* rates, size_t* rate_count, mr_pacer_release* rels, size_t* rel_count) {
        top->s_axis_tvalid = offer;
        top->s_axis_tlast = last;
        top->s_axis_tkeep = keep;
        MrLanes<W>::set(top->s_axis_tdata, beat);
        top->flush = flush;
        top->m_axis_tready = !rng.percent(stall_pct);
        top->m_rel_ready = !rng.percent(stall_pct);
        top->eval();
        trace.dump(cycle, false);
        const bool taken = offer && top->s_axis_tready;
        if (top->m_axis_tvalid && top->m_axis_tready) cnp.beat_taken(top.get(), cycle, cnps, cnp_count);
        if (top->mon_rate_fire) {
            mr_cn_rate* r = &rates[(*rate_count)++];
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

    size_t push(const mr_pipeline_frame* frames, size_t n, mr_cn_cnp* cnps, size_t cnp_cap, size_t* cnp_count,
                mr_cn_rate* rates, size_t rate_cap, size_t* rate_count, mr_pacer_release* rels, size_t rel_cap,
                size_t* rel_count, uint64_t max_cycles) override {
        MrEvaluating evaluating(this);
        *cnp_count = *rate_count = *rel_count = 0;
        size_t next = 0;
        for (uint64_t c = 0; c < max_cycles && *cnp_count < cnp_cap && *rate_count < rate_cap &&
                             *rel_count < rel_cap && assertion.empty();
             ++c) {
            if (next >= n) {
                if (n != 0) break;  // every frame taken: the caller sends more
                top->s_axis_tvalid = 0;
                top->flush = 1;
                top->eval();
                if (!top->busy) break;  // flushed
                cycle_once(false, false, 0, true, cnps, cnp_count, rates, rate_count, rels, rel_count);
                continue;
            }
            const mr_pipeline_frame& f = frames[next];
            if (!presenting) {
                if (rng.percent(idle_pct)) {
                    cycle_once(false, false, 0, false, cnps, cnp_count, rates, rate_count, rels, rel_count);
                    continue;
                }
                const uint64_t remaining = f.len - offset;
                beat_bytes = static_cast<uint32_t>(remaining < KEEP ? remaining : KEEP);
                beat_last = remaining <= KEEP;
                std::memcpy(beat, f.data + offset, beat_bytes);
                for (int i = beat_bytes; i < KEEP; ++i) beat[i] = static_cast<uint8_t>(rng.next());
                presenting = true;
            }
            set_user(f, beat_last);
            const uint64_t keep = beat_bytes == 64 ? ~0ull : ((1ull << beat_bytes) - 1);
            if (cycle_once(true, beat_last, keep, false, cnps, cnp_count, rates, rate_count, rels, rel_count)) {
                presenting = false;
                offset += beat_bytes;
                if (beat_last) {
                    offset = 0;
                    ++next;
                }
            }
        }
        return next;
    }

    bool load_qp(uint64_t local, uint64_t remote) override {
        MrEvaluating evaluating(this);
        top->s_qpctx_valid = 1;
        top->s_qpctx_local = local;
        top->s_qpctx_remote = remote;
        for (int i = 0; i < 1000; ++i) {
            top->eval();
            const bool taken = top->s_qpctx_ready;
            tick();
            if (taken) {
                top->s_qpctx_valid = 0;
                return true;
            }
        }
        top->s_qpctx_valid = 0;
        return false;
    }

    bool trace_open(const char* path, uint64_t from, uint64_t to) override {
        return trace.open(top.get(), path, from, to);
    }

    void trace_close() override { trace.close(); }

    bool coverage_write(const char* path) override { return mr_coverage_write<COVERED>(ctx.get(), path); }
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

bool mr_pipeline_load_qp(void* sim, uint64_t local, uint64_t remote) {
    return mr_as<PipelineSim>(sim)->load_qp(local, remote);
}

// Offers frames[0..n) in order for at most max_cycles cycles, collecting the
// outputs; stops early when a buffer is full or once every frame is taken.
// With n = 0 it flushes: clocks with `flush` high until nothing is inside.
// Returns frames taken.
size_t mr_pipeline_push(void* sim, const mr_pipeline_frame* frames, size_t n, mr_cn_cnp* cnps, size_t cnp_cap,
                        size_t* cnp_count, mr_cn_rate* rates, size_t rate_cap, size_t* rate_count,
                        mr_pacer_release* rels, size_t rel_cap, size_t* rel_count, uint64_t max_cycles) {
    return mr_as<PipelineSim>(sim)->push(frames, n, cnps, cnp_cap, cnp_count, rates, rate_cap, rate_count, rels,
                                         rel_cap, rel_count, max_cycles);
}

}  // extern "C"
