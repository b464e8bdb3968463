// Shared by the shims of every Verilated block: the seeded random source
// of the handshakes, and the assertion report channel of the RTL.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "verilated.h"
#include "verilated_cov.h"
#include "verilated_fst_c.h"

// splitmix64: small, seedable, identical on every platform.
struct MrRng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    bool percent(uint32_t pct) { return pct != 0 && next() % 100 < pct; }
};

// What every simulated block shares: its cycle count and its first failed
// RTL assertion (METAROCE_ASSERTIONS, reported through DPI).
struct MrSim {
    uint64_t cycle = 0;
    std::string assertion;
    uint64_t assertion_cycle = 0;
    virtual ~MrSim() = default;
    // An FST trace of cycles from..=to; false when untraced or unopenable.
    virtual bool trace_open(const char* path, uint64_t from, uint64_t to) = 0;
    virtual void trace_close() = 0;
    // Verilator coverage (coverage.dat format); false without coverage.
    virtual bool coverage_write(const char* path) = 0;
    // One QP context table entry: local and remote QP, the priority its
    // packets leave on, and the responder's first expected PSN with its
    // valid bit (blocks with s_qpctx_* or the pacer's s_prio_*); false if
    // not taken.
    virtual bool load_qp(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) { return false; }
};

// A model handle of the C ABI (an MrSim*) as its block's interface.
template <class Block>
Block* mr_as(void* sim) {
    return static_cast<Block*>(static_cast<MrSim*>(sim));
}

// The model being evaluated on this thread; set around every eval() so the
// DPI callback knows whose assertion fired.
struct MrEvaluating {
    static thread_local MrSim* current;
    explicit MrEvaluating(MrSim* sim) { current = sim; }
    ~MrEvaluating() { current = nullptr; }
};

// The scrambled seed for Verilator's X and initial-value randomisation.
inline int mr_x_seed(uint64_t seed) {
    MrRng x_rng{seed ^ 0x5851F42D4C957F2Dull};
    return static_cast<int>(x_rng.next() & 0x7FFFFFFF);
}

// An FST trace of a window of cycles (for TRACED builds; a no-op otherwise).
// Cycle N is dumped at time 2N (clock low, inputs settled) and 2N+1 (after
// the rising edge).
template <class Model, bool TRACED>
struct MrTrace {
    std::unique_ptr<VerilatedFstC> fst;
    uint64_t from = 0, to = 0;

    bool active(uint64_t cycle) const { return fst && cycle >= from && cycle <= to; }
    void dump(uint64_t cycle, bool high) {
        if (active(cycle)) fst->dump(2 * cycle + (high ? 1 : 0));
    }
    // Dumps cycles first..=last into path; false when untraced or unopenable.
    bool open(Model* top, const char* path, uint64_t first, uint64_t last) {
        if constexpr (TRACED) {
            close();
            fst.reset(new VerilatedFstC);
            top->trace(fst.get(), 99);
            fst->open(path);
            if (!fst->isOpen()) {
                fst.reset();
                return false;
            }
            from = first;
            to = last;
            return true;
        } else {
            return false;
        }
    }
    void close() {
        if (fst) {
            fst->close();
            fst.reset();
        }
    }
};

// Writes the context's Verilator coverage (coverage.dat format) to path, for
// builds with coverage; false for the others.
template <bool COVERED>
bool mr_coverage_write(VerilatedContext* ctx, const char* path) {
    if constexpr (COVERED) {
        ctx->coveragep()->write(path);
        return true;
    } else {
        (void)ctx;
        (void)path;
        return false;
    }
}

// The names a shim's model uses from its MrModel base (a dependent base).
#define MR_MODEL_NAMES(Base) \
    using Base::assertion;   \
    using Base::cycle;       \
    using Base::rng;         \
    using Base::tick;        \
    using Base::top;         \
    using Base::trace

// Offers items[0..n) in order, one on offer at a time and held until taken,
// with idle_pct idle cycles before an offer (AXI-Stream sources), for at
// most max_cycles cycles or until full(); n = 0 clocks with nothing on
// offer until drained(). cycle_once(offer or null) runs one cycle and says
// whether the offer was taken. Returns the items taken.
template <class Item, class Full, class Drained, class Once>
size_t mr_offer_each(MrSim& sim, MrRng& rng, uint32_t idle_pct, bool& presenting, const Item* items, size_t n,
                     uint64_t max_cycles, Full full, Drained drained, Once cycle_once) {
    size_t next = 0;
    for (uint64_t c = 0; c < max_cycles && !full() && sim.assertion.empty(); ++c) {
        const Item* offer = nullptr;
        if (next < n) {
            if (presenting || !rng.percent(idle_pct)) {
                presenting = true;
                offer = &items[next];
            }
        } else if (n != 0 || drained()) {
            break;  // every item taken (the caller sends more), or drained
        }
        if (cycle_once(offer)) {
            presenting = false;
            ++next;
        }
    }
    return next;
}

// One Verilated model with its context, trace and seeded dice: what the
// simulation of every block shares. Base is the block's interface (an
// MrSim); callers hold an MrEvaluating around anything that evaluates.
template <class Model, bool TRACED, bool COVERED, class Base>
struct MrModel : Base {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Model> top;
    MrTrace<Model, TRACED> trace;
    MrRng rng;

    MrModel(uint64_t seed, const char* name) : ctx(new VerilatedContext), rng{seed} {
        ctx->randReset(2);  // X and initial values random, from randSeed
        ctx->randSeed(mr_x_seed(seed));
        ctx->fatalOnError(false);
        if (TRACED) ctx->traceEverOn(true);
        top.reset(new Model(ctx.get(), name));
    }

    ~MrModel() override { trace.close(); }

    // The rising edge that ends this cycle.
    void tick() {
        top->clk = 1;
        top->eval();
        trace.dump(this->cycle, true);
        top->clk = 0;
        ++this->cycle;
    }

    // Reset for 4 cycles, then clock until ready() (a RAM sweep); cycles
    // count from 0 afterwards. Inputs must be idle.
    template <class Ready>
    void reset(Ready ready) {
        top->clk = 0;
        top->rst = 1;
        for (int i = 0; i < 4; ++i) {
            top->eval();
            tick();
        }
        top->rst = 0;
        top->eval();
        while (!ready() && this->assertion.empty()) {
            tick();
            top->eval();
        }
        this->cycle = 0;
    }

    // One transaction on a configuration port: offer(true) raises its valid
    // with its fields, offer(false) lowers it; held until ready() takes it,
    // at most 1000 cycles. False if never taken.
    template <class Offer, class Ready>
    bool offer_once(Offer offer, Ready ready) {
        MrEvaluating evaluating(this);
        offer(true);
        for (int i = 0; i < 1000; ++i) {
            top->eval();
            const bool taken = ready();
            tick();
            if (taken) {
                offer(false);
                return true;
            }
        }
        offer(false);
        return false;
    }

    // One QP context table entry through s_qpctx_* (a port's other fields
    // set by the caller); false if never taken.
    bool load_qp_port(uint64_t local, uint64_t remote, uint64_t psn_valid, uint64_t psn) {
        return offer_once(
            [&](bool valid) {
                top->s_qpctx_valid = valid;
                top->s_qpctx_local = local;
                top->s_qpctx_remote = remote;
                top->s_qpctx_psn_valid = psn_valid;
                top->s_qpctx_psn = psn;
            },
            [&] { return top->s_qpctx_ready; });
    }

    bool trace_open(const char* path, uint64_t from, uint64_t to) override {
        return trace.open(top.get(), path, from, to);
    }

    void trace_close() override { trace.close(); }

    bool coverage_write(const char* path) override { return mr_coverage_write<COVERED>(ctx.get(), path); }
};

