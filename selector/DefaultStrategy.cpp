// The global default convolution strategy and NETCL_CONV_STRATEGY.
#include <cstdlib>
#include <mutex>

#include "netcl/Error.hpp"
#include "runtime/Log.hpp"
#include "netcl/KernelSelector.hpp"
#include "selector/SelectionGeneration.hpp"

namespace netcl {

namespace {

struct DefaultState {
    std::mutex mutex;
    bool resolved = false;  // set/clear was called, or the environment was read
    std::optional<Kernel> kernel;
    std::string error;  // a bad NETCL_CONV_STRATEGY: every use throws this
};

DefaultState& state() {
    static DefaultState s;
    return s;
}

// Called with the mutex held.
void read_environment(DefaultState& s) {
    s.resolved = true;
    s.kernel.reset();
    s.error.clear();
    const char* value = std::getenv("NETCL_CONV_STRATEGY");
    if (!value || !*value) return;
    try {
        s.kernel = kernel_from_string(value);
        log().info("default convolution strategy {} (NETCL_CONV_STRATEGY)", value);
    } catch (const Error& e) {
        // Never ignored: a typo would otherwise silently run something else.
        s.error = std::string("NETCL_CONV_STRATEGY='") + value + "': " + e.what() +
                  " (or unset it to let the selector choose)";
        log().error("{}", s.error);
    }
}

}  // namespace

void set_default_conv_strategy(Kernel kernel) {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.resolved = true;
    s.error.clear();
    s.kernel = kernel;
    note_selection_change();
}

void clear_default_conv_strategy() {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.resolved = true;
    s.error.clear();
    s.kernel.reset();
    note_selection_change();
}

std::optional<Kernel> default_conv_strategy() {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    if (!s.resolved) read_environment(s);
    if (!s.error.empty()) throw Error(s.error);
    return s.kernel;
}

void reload_default_conv_strategy_from_environment() {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.resolved = false;
    note_selection_change();
}

}  // namespace netcl
