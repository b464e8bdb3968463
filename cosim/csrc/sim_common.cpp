// The DPI function the RTL assertions call, and the C ABI every block's
// model shares (mr_sim_*: the handle is the MrSim a shim's mr_*_new made).
#include <string>

#include "sim_common.h"

thread_local MrSim* MrEvaluating::current = nullptr;

extern "C" void metaroce_assertion_failed(const char* message) {
    MrSim* sim = MrEvaluating::current;
    if (sim && sim->assertion.empty()) {
        sim->assertion = std::string(message) + " (cycle " + std::to_string(sim->cycle) + ")";
        sim->assertion_cycle = sim->cycle;
    }
}

extern "C" {

void mr_sim_free(void* sim) { delete static_cast<MrSim*>(sim); }

uint64_t mr_sim_cycles(void* sim) { return static_cast<MrSim*>(sim)->cycle; }

// The first failed assertion, or null.
const char* mr_sim_assertion(void* sim) {
    const std::string& a = static_cast<MrSim*>(sim)->assertion;
    return a.empty() ? nullptr : a.c_str();
}

uint64_t mr_sim_assertion_cycle(void* sim) { return static_cast<MrSim*>(sim)->assertion_cycle; }

bool mr_sim_trace_open(void* sim, const char* path, uint64_t from, uint64_t to) {
    return static_cast<MrSim*>(sim)->trace_open(path, from, to);
}

void mr_sim_trace_close(void* sim) { static_cast<MrSim*>(sim)->trace_close(); }

bool mr_sim_coverage_write(void* sim, const char* path) { return static_cast<MrSim*>(sim)->coverage_write(path); }

bool mr_sim_load_qp(void* sim, uint64_t local, uint64_t remote, uint64_t priority, uint64_t psn_valid,
                    uint64_t psn) {
    return static_cast<MrSim*>(sim)->load_qp(local, remote, priority, psn_valid, psn);
}

}  // extern "C"
