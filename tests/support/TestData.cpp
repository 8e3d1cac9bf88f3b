#include "tests/support/TestData.hpp"

#include <cmath>
#include <random>

namespace netcl::test {

std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low, float high) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> values(count);
    for (auto& v : values) v = dist(rng);
    return values;
}

std::shared_ptr<Context> shared_context() {
    static const std::shared_ptr<Context> context = Context::create();
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
