#include "tests/support/TestData.hpp"

#include "ops/Implementations.hpp"

#include <cmath>

namespace netcl::test {

namespace {
// Every implementation on, whatever the device's profile says: a profile's
// <name>_enabled = 0 is a speed choice (nvidia-gpu turns the CPU-shaped GEMM
// engine off), and the suite checks every kernel's answers on every device.
// A context's own tuned values win over the shipped profiles', so this
// reaches the plans made on these contexts; suites that make contexts of
// their own (wrapped queues, Context::create) still see the device's profile
// (on the H200 they refused those variants: tools/gpu/README.md). On the CPU
// profiles nothing is off: no change there.
void enable_every_implementation(DeviceProfile& profile) {
    for (const ConvImplementation* impl : conv_implementations()) profile.tuned[impl->enabled_key()] = 1;
}
}  // namespace

std::shared_ptr<Context> shared_context() {
    static const std::shared_ptr<Context> context = [] {
        auto c = Context::create();
        DeviceProfile profile = c->profile();
        enable_every_implementation(profile);
        c->set_profile(profile);
        return c;
    }();
    return context;
}

std::shared_ptr<Context> context_with_profile(const std::function<void(DeviceProfile&)>& edit) {
    auto context = Context::create();
    DeviceProfile profile = context->profile();
    enable_every_implementation(profile);
    edit(profile);
    context->set_profile(profile);
    return context;
}

Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected) {
    Comparison result;
    if (actual.size() != expected.size()) {
        result.max_abs_error = INFINITY;
        return result;
    }
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (!std::isfinite(actual[i])) {
            if (std::isfinite(expected[i])) ++result.non_finite;
            continue;
        }
        const double error = std::abs(static_cast<double>(actual[i]) - expected[i]);
        if (error > result.max_abs_error) {
            result.max_abs_error = error;
            result.worst_index = i;
        }
    }
    if (result.non_finite) result.max_abs_error = INFINITY;
    return result;
}

}  // namespace netcl::test
