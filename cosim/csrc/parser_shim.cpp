// C ABI over the Verilated parser models: moves whole batches of frames per
// call so the FFI cost is paid per batch, not per beat.
//
// Per cycle: inputs are set with clk low, eval() settles the combinational
// outputs (s_axis_tready, m_meta_valid), the handshakes are sampled, then
// clk rises and eval() again. Cycle N is the N-th rising edge after reset.
//
// Stimulus timing is seeded: with idle_pct the source holds tvalid low for a
// cycle before presenting a beat (AXI-Stream: once presented, a beat stays
// until taken); with stall_pct the sink holds m_meta_ready low. Null bytes of
// a last beat carry random data, which the RTL must ignore.

#include <cstdint>
#include <cstring>
#include <memory>

#include "verilated.h"
#include "Vparser64.h"
#include "Vparser512.h"
#include "parser_record.h"

namespace {

// splitmix64: small, seedable, identical on every platform.
struct Rng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    bool percent(uint32_t pct) { return pct != 0 && next() % 100 < pct; }
};

// Beat access for the two port shapes Verilator gives: 64-bit tdata as a
// QData, wider tdata as a VlWide of 32-bit words.
template <int W> struct Lanes;
template <> struct Lanes<64> {
    template <class M> static void set(M* top, const uint8_t* bytes) {
        uint64_t v;
        std::memcpy(&v, bytes, 8);  // little-endian host: byte 0 in bits 7:0
        top->s_axis_tdata = v;
    }
};
template <> struct Lanes<512> {
    template <class M> static void set(M* top, const uint8_t* bytes) {
        for (int w = 0; w < 16; ++w) {
            uint32_t v;
            std::memcpy(&v, bytes + 4 * w, 4);
            top->s_axis_tdata[w] = v;
        }
    }
};

struct ParserSim {
    virtual ~ParserSim() = default;
    virtual size_t push(const uint8_t* bytes, const uint32_t* lens, const uint8_t* user, size_t nframes,
                        mr_parser_record* out, size_t out_cap, size_t* out_count, uint64_t* last_beat_cycle) = 0;
    virtual size_t drain(mr_parser_record* out, size_t out_cap, size_t want, uint64_t max_idle_cycles) = 0;
    virtual uint64_t cycles() const = 0;
};

template <class Model, int W>
struct ParserSimW final : ParserSim {
    static constexpr int KEEP = W / 8;
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Model> top;
    Rng rng;
    uint32_t idle_pct, stall_pct;
    uint64_t cycle = 0;
    // The beat on offer: built once when first presented, then held
    // unchanged until taken, as AXI-Stream requires.
    size_t offset = 0;  // bytes of the current frame already taken
    bool presenting = false;
    bool beat_last = false;
    uint32_t beat_bytes = 0;
    uint8_t beat[KEEP] = {};

    ParserSimW(uint64_t seed, uint32_t idle, uint32_t stall)
        : ctx(new VerilatedContext), rng{seed}, idle_pct(idle), stall_pct(stall) {
        ctx->randReset(0);
        top.reset(new Model(ctx.get(), "parser"));
        top->clk = 0;
        top->rst = 1;
        top->s_axis_tvalid = 0;
        top->m_meta_ready = 0;
        for (int i = 0; i < 4; ++i) tick();
        top->rst = 0;
        cycle = 0;
    }

    void tick() {
        top->clk = 1;
        top->eval();
        top->clk = 0;
        ++cycle;
    }

    // One clock cycle with the given source beat (or none); returns whether
    // the beat was taken and appends any record handed out.
    bool cycle_once(bool offer, bool last, uint64_t keep, bool user, mr_parser_record* out, size_t* out_count) {
        top->s_axis_tvalid = offer;
        top->s_axis_tlast = last;
        top->s_axis_tuser = user;
        top->s_axis_tkeep = keep;
        Lanes<W>::set(top.get(), beat);
        top->m_meta_ready = !rng.percent(stall_pct);
        top->eval();
        const bool taken = offer && top->s_axis_tready;
        if (top->m_meta_valid && top->m_meta_ready) {
            mr_parser_record* rec = &out[(*out_count)++];
            rec->cycle = cycle;
            MR_PARSER_RECORD_COPY(rec, top);
        }
        tick();
        return taken;
    }

    // Sends frames[0..nframes) (a call that returns early, because `out` is
    // full, resumes mid-frame when called again with the unsent frames).
    size_t push(const uint8_t* bytes, const uint32_t* lens, const uint8_t* user, size_t nframes,
                mr_parser_record* out, size_t out_cap, size_t* out_count, uint64_t* last_beat_cycle) override {
        *out_count = 0;
        size_t frame = 0, base = 0;
        while (frame < nframes && *out_count < out_cap) {
            const uint32_t len = lens[frame];
            if (!presenting) {
                if (rng.percent(idle_pct)) {
                    cycle_once(false, false, 0, false, out, out_count);
                    continue;
                }
                const uint32_t remaining = len - offset;
                beat_bytes = remaining < KEEP ? remaining : KEEP;
                beat_last = remaining <= KEEP;
                std::memcpy(beat, bytes + base + offset, beat_bytes);
                for (int i = beat_bytes; i < KEEP; ++i) beat[i] = static_cast<uint8_t>(rng.next());
                presenting = true;
            }
            const uint64_t keep = beat_bytes == 64 ? ~0ull : ((1ull << beat_bytes) - 1);
            const uint64_t at = cycle;
            if (cycle_once(true, beat_last, keep, beat_last && user[frame], out, out_count)) {
                presenting = false;
                offset += beat_bytes;
                if (beat_last) {
                    last_beat_cycle[frame] = at;
                    base += len;
                    offset = 0;
                    ++frame;
                }
            }
        }
        return frame;
    }

    size_t drain(mr_parser_record* out, size_t out_cap, size_t want, uint64_t max_idle_cycles) override {
        size_t count = 0;
        uint64_t idle = 0;
        while (count < want && count < out_cap && idle <= max_idle_cycles) {
            const size_t before = count;
            cycle_once(false, false, 0, false, out, &count);
            idle = count == before ? idle + 1 : 0;
        }
        return count;
    }

    uint64_t cycles() const override { return cycle; }
};

}  // namespace

extern "C" {

void* mr_parser_new(uint32_t data_width, uint64_t seed, uint32_t idle_pct, uint32_t stall_pct) {
    switch (data_width) {
        case 64: return static_cast<ParserSim*>(new ParserSimW<Vparser64, 64>(seed, idle_pct, stall_pct));
        case 512: return static_cast<ParserSim*>(new ParserSimW<Vparser512, 512>(seed, idle_pct, stall_pct));
        default: return nullptr;
    }
}

void mr_parser_free(void* sim) { delete static_cast<ParserSim*>(sim); }

size_t mr_parser_push(void* sim, const uint8_t* bytes, const uint32_t* lens, const uint8_t* user, size_t nframes,
                      mr_parser_record* out, size_t out_cap, size_t* out_count, uint64_t* last_beat_cycle) {
    return static_cast<ParserSim*>(sim)->push(bytes, lens, user, nframes, out, out_cap, out_count, last_beat_cycle);
}

size_t mr_parser_drain(void* sim, mr_parser_record* out, size_t out_cap, size_t want, uint64_t max_idle_cycles) {
    return static_cast<ParserSim*>(sim)->drain(out, out_cap, want, max_idle_cycles);
}

uint64_t mr_parser_cycles(void* sim) { return static_cast<ParserSim*>(sim)->cycles(); }

}  // extern "C"
