#include "tests/support/TestData.hpp"

#include <cmath>

namespace netcl::test {

std::shared_ptr<Context> shared_context() {
    static const std::shared_ptr<Context> context = Context::create();
    return context;
}

std::shared_ptr<Context> context_with_profile(const std::function<void(DeviceProfile&)>& edit) {
    auto context = Context::create();
    DeviceProfile profile = context->profile();
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
