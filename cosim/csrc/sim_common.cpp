// The DPI function the RTL assertions call, shared by every block's shim.
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
