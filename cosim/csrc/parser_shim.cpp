// C ABI over the Verilated parser models (one per variant in
// cosim/build.rs): moves whole batches of frames per call so the FFI cost
// is paid per batch, not per beat.
//
// Per cycle: inputs are set with clk low, eval() settles the combinational
// outputs (s_axis_tready, m_meta_valid), the handshakes are sampled, then
// clk rises and eval() again. Cycle N is the N-th rising edge after reset.
// With a trace open, the low phase is dumped at time 2N and the high phase
// at 2N+1 (time unit: half a clock), for cycles inside the trace window.
//
// Stimulus timing is seeded: with idle_pct the source holds tvalid low for a
// cycle before presenting a beat (AXI-Stream: once presented, a beat stays
// until taken); with stall_pct the sink holds m_meta_ready low. Null bytes of
// a last beat carry random data, which the RTL must ignore. The same seed,
// scrambled, seeds Verilator's randomisation of X and initial values.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "verilated.h"
#include "verilated_fst_c.h"
#include "axis_beats.h"
#include "parser_record.h"
#include "sim_common.h"
#include "variants.h"

namespace {

struct ParserSim : MrSim {
    virtual size_t push(const uint8_t* bytes, const uint32_t* lens, const uint8_t* user, size_t nframes,
                        mr_parser_record* out, size_t out_cap, size_t* out_count, uint64_t* last_beat_cycle) = 0;
    virtual size_t drain(mr_parser_record* out, size_t out_cap, size_t want, uint64_t max_idle_cycles) = 0;
    virtual void idle(uint64_t cycles) = 0;
    virtual uint64_t bare_run(const uint8_t* bytes, const uint32_t* lens, size_t nframes, uint64_t* records) = 0;
};

template <class Model, int W, bool TRACED, bool COVERED>
struct ParserSimW final : MrModel<Model, TRACED, COVERED, ParserSim> {
    using Base = MrModel<Model, TRACED, COVERED, ParserSim>;
    MR_MODEL_NAMES(Base);
    static constexpr int KEEP = W / 8;
    uint32_t idle_pct, stall_pct;
    MrBeatOffer<W> offer;

    ParserSimW(uint64_t seed, uint32_t idle, uint32_t stall)
        : Base(seed, "parser"), idle_pct(idle), stall_pct(stall) {
        MrEvaluating evaluating(this);
        top->s_axis_tvalid = 0;
        top->m_meta_ready = 0;
        this->reset([] { return true; });
    }


    // One clock cycle with the given source beat (or none); returns whether
    // the beat was taken and appends any record handed out.
    bool cycle_once(bool valid, bool last, uint64_t keep, bool user, mr_parser_record* out, size_t* out_count) {
        top->s_axis_tvalid = valid;
        top->s_axis_tlast = last;
        top->s_axis_tuser = user;
        top->s_axis_tkeep = keep;
        MrLanes<W>::set(top->s_axis_tdata, offer.beat);
        top->m_meta_ready = !rng.percent(stall_pct);
        top->eval();
        trace.dump(cycle, false);
        const bool taken = valid && top->s_axis_tready;
        if (top->m_meta_valid && top->m_meta_ready && out) {
            mr_parser_record* rec = &out[(*out_count)++];
            rec->cycle = cycle;
            MR_PARSER_RECORD_COPY(rec, top);
        }
        tick();
        return taken;
    }

    // Sends frames[0..nframes) (a call that returns early, because `out` is
    // full or an assertion fired, resumes mid-frame when called again with
    // the unsent frames).
    size_t push(const uint8_t* bytes, const uint32_t* lens, const uint8_t* user, size_t nframes,
                mr_parser_record* out, size_t out_cap, size_t* out_count, uint64_t* last_beat_cycle) override {
        MrEvaluating evaluating(this);
        *out_count = 0;
        size_t frame = 0, base = 0;
        while (frame < nframes && *out_count < out_cap && assertion.empty()) {
            const uint32_t len = lens[frame];
            if (!offer.presenting) {
                if (rng.percent(idle_pct)) {
                    cycle_once(false, false, 0, false, out, out_count);
                    continue;
                }
                offer.present(bytes + base, len, rng);
            }
            const uint64_t at = cycle;
            if (cycle_once(true, offer.last, offer.keep(), offer.last && user[frame], out, out_count) &&
                offer.taken()) {
                last_beat_cycle[frame] = at;
                base += len;
                ++frame;
            }
        }
        return frame;
    }

    size_t drain(mr_parser_record* out, size_t out_cap, size_t want, uint64_t max_idle_cycles) override {
        MrEvaluating evaluating(this);
        size_t count = 0;
        uint64_t idle = 0;
        while (count < want && count < out_cap && idle <= max_idle_cycles && assertion.empty()) {
            const size_t before = count;
            cycle_once(false, false, 0, false, out, &count);
            idle = count == before ? idle + 1 : 0;
        }
        return count;
    }

    // The speed limit of this model: frames back to back at full speed, the
    // sink always ready, records counted but not copied, nothing else.
    uint64_t bare_run(const uint8_t* bytes, const uint32_t* lens, size_t nframes, uint64_t* records) override {
        MrEvaluating evaluating(this);
        uint64_t seen = 0;
        top->m_meta_ready = 1;
        top->s_axis_tuser = 0;
        size_t base = 0;
        for (size_t f = 0; f < nframes; ++f) {
            for (uint32_t off = 0; off < lens[f];) {
                const uint32_t n = lens[f] - off < KEEP ? lens[f] - off : KEEP;
                std::memcpy(offer.beat, bytes + base + off, n);
                top->s_axis_tvalid = 1;
                top->s_axis_tlast = off + n == lens[f];
                top->s_axis_tkeep = n == 64 ? ~0ull : ((1ull << n) - 1);
                MrLanes<W>::set(top->s_axis_tdata, offer.beat);
                top->eval();
                seen += top->m_meta_valid;
                if (top->s_axis_tready) off += n;
                tick();
            }
            base += lens[f];
        }
        top->s_axis_tvalid = 0;
        while (seen < nframes && assertion.empty()) {
            top->eval();
            seen += top->m_meta_valid;
            tick();
        }
        *records = seen;
        return cycle;
    }

    // Clocks with no input; records handed out meanwhile are dropped.
    void idle(uint64_t cycles) override {
        MrEvaluating evaluating(this);
        for (uint64_t i = 0; i < cycles; ++i) cycle_once(false, false, 0, false, nullptr, nullptr);
    }
};

}  // namespace

extern "C" {

void* mr_parser_new(const char* variant, uint64_t seed, uint32_t idle_pct, uint32_t stall_pct) {
#define MR_NEW(model, name, width, traced, covered)                                                   \
    if (std::strcmp(variant, name) == 0)                                                              \
        return static_cast<MrSim*>(new ParserSimW<model, width, traced, covered>(seed, idle_pct, stall_pct));
    MR_PARSER_VARIANTS(MR_NEW)
#undef MR_NEW
    return nullptr;
}

size_t mr_parser_push(void* sim, const uint8_t* bytes, const uint32_t* lens, const uint8_t* user, size_t nframes,
                      mr_parser_record* out, size_t out_cap, size_t* out_count, uint64_t* last_beat_cycle) {
    return mr_as<ParserSim>(sim)->push(bytes, lens, user, nframes, out, out_cap, out_count, last_beat_cycle);
}

size_t mr_parser_drain(void* sim, mr_parser_record* out, size_t out_cap, size_t want, uint64_t max_idle_cycles) {
    return mr_as<ParserSim>(sim)->drain(out, out_cap, want, max_idle_cycles);
}

void mr_parser_idle(void* sim, uint64_t cycles) { mr_as<ParserSim>(sim)->idle(cycles); }

uint64_t mr_parser_bare_run(void* sim, const uint8_t* bytes, const uint32_t* lens, size_t nframes,
                            uint64_t* records) {
    return mr_as<ParserSim>(sim)->bare_run(bytes, lens, nframes, records);
}

}  // extern "C"
