#pragma once
// Helpers every suite shares: seeded random data in [-1, 1], the default test
// context, element-wise comparison that reports the worst element, and the
// check that a call fails with a netcl::Error saying what it should.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/ReferenceConv.hpp"
#include "netcl/Context.hpp"
#include "netcl/Error.hpp"

namespace netcl::test {

using ::netcl::random_uniform;  // ops/ReferenceConv.hpp: the one generator

// One context per test process (NETCL_DEVICE honoured), so kernels build once.
std::shared_ptr<Context> shared_context();
// A context of its own whose profile is the device's, changed by `edit`
// (profile keys a test forces).
std::shared_ptr<Context> context_with_profile(const std::function<void(DeviceProfile&)>& edit);

struct Comparison {
    double max_abs_error = 0;
    std::size_t worst_index = 0;
    std::size_t non_finite = 0;  // elements that are NaN or Inf where the reference is finite
};
Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected);

// Runs `f`, expects a netcl::Error whose message contains every fragment.
template <typename F>
void expect_error(F&& f, std::initializer_list<std::string> fragments) {
    try {
        f();
        ADD_FAILURE() << "expected a netcl::Error mentioning '" << *fragments.begin() << "'";
    } catch (const Error& e) {
        const std::string message = e.what();
        for (const auto& fragment : fragments) {
            EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << message;
        }
    }
}

}  // namespace netcl::test
