#pragma once
// Helpers every suite shares: seeded random data in [-1, 1], the default test
// context, element-wise comparison that reports the worst element, and the
// check that a call fails with a netcl::Error saying what it should.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
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
// A context of its own (Context::create()) whose profile is the device's with
// every implementation on, changed by `edit` (profile keys a test forces).
std::shared_ptr<Context> context_with_profile(const std::function<void(DeviceProfile&)>& edit = {});

// Every implementation on, whatever the device's profile says (every
// <name>_enabled = 1): a profile's <name>_enabled = 0 is a speed choice
// (nvidia-gpu turns the CPU-shaped GEMM engine and direct-rows off), and the
// suite forces and checks every kernel on every device. The shared context
// and context_with_profile() have it already; a suite that makes a context
// another way (a wrapped caller's queue) passes it through
// with_every_implementation().
void enable_every_implementation(DeviceProfile& profile);
std::shared_ptr<Context> with_every_implementation(std::shared_ptr<Context> context);

// context_with_profile() planned as on an AMD AVX2 CPU (Zen 3): the device's
// name without "avx512" and its vendor AMD's, so the selector layers
// pocl-cpu.json and neither pocl-cpu-avx512.json nor pocl-cpu-intel.json
// over it (pocl-cpu-avx512 sets the GEMM engine's tile and work-group, which
// changes every NR-sized figure, and turns the 1x1 GEMM's tall work-groups
// off by its tall keys; pocl-cpu-intel its own packs, folds and work-groups).
// For tests of pocl-cpu.json's rules whose expected figures follow its tile.
std::shared_ptr<Context> context_planned_as_avx2(const std::function<void(DeviceProfile&)>& edit = {});

// The tuned keys an NVIDIA device resolves to: nvidia-gpu.json's over
// default.json's, as the selector layers them there. A test that plans for
// NVIDIA on another device passes these whole, so that explain(), which adds
// the running device's stored keys where the caller's profile lacks them,
// adds none that default.json names (on an AVX-512 CPU pocl-cpu-avx512's
// winograd_f6_min_output of 28 would otherwise take F(6x6) for NVIDIA).
std::map<std::string, double> nvidia_tuned();

// The same for a tool the suite runs as a process (netcl-bench, netcl-tune),
// which reads the shipped profiles and the user profile directory
// (NETCL_PROFILE_DIR): writes into `dir` the user profile of `device` (the file
// netcl-tune would write, matching its name and driver, so it layers over
// the shipped profiles) with every implementation on, and returns its path.
// Run the tool with NETCL_PROFILE_DIR=dir.
std::filesystem::path write_every_implementation_profile(const std::filesystem::path& dir, const DeviceProfile& device);

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
