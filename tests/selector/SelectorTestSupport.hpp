#pragma once
// Shared by the selector suites: each test runs against an empty user profile
// directory of its own and with no default strategy, and can read what netcl logged.
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/Log.hpp"
#include "netcl/KernelSelector.hpp"
#include "selector/ProfileStore.hpp"

namespace netcl::test {

class SelectorTest : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        dir_ = std::filesystem::temp_directory_path() /
               ("netcl-selector-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        ::setenv("NETCL_PROFILE_DIR", dir_.c_str(), 1);
        ::unsetenv("NETCL_CONV_STRATEGY");
        clear_default_conv_strategy();
        ProfileStore::global().invalidate();
        sink_ = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
        log().sinks().push_back(sink_);
    }
    void TearDown() override {
        auto& sinks = log().sinks();
        sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
        clear_default_conv_strategy();
        ::unsetenv("NETCL_PROFILE_DIR");
        ProfileStore::global().invalidate();
        std::filesystem::remove_all(dir_);
    }

    // Every message logged since SetUp, one per line.
    std::string logged() const {
        std::string text;
        for (const auto& line : sink_->last_formatted()) text += line;
        return text;
    }
    std::size_t count_logged(const std::string& needle) const {
        std::size_t n = 0;
        for (const auto& line : sink_->last_formatted()) n += line.find(needle) != std::string::npos;
        return n;
    }
    std::filesystem::path write_user_file(const std::string& name, const std::string& text) const {
        const auto path = dir_ / name;
        std::ofstream(path) << text;
        ProfileStore::global().invalidate();
        return path;
    }

    std::filesystem::path dir_;
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

// A PoCL CPU device as PoCL names it on an AVX-512 machine of `vendor`
// (GenuineIntel, AuthenticAMD), with no tuned values of its own.
inline DeviceProfile pocl_avx512_device(const std::string& vendor) {
    DeviceProfile device = load_profile("pocl-cpu");
    device.tuned.clear();
    device.vendor = vendor;
    device.name = vendor == "GenuineIntel" ? "pthread-skylake-avx512-Intel(R) Xeon(R) Processor"
                                           : "pthread-skylake-avx512-AMD EPYC";
    return device;
}

// What the store layers for PoCL on an AMD AVX-512 CPU (pocl-cpu-avx512 over
// pocl-cpu; an Intel one adds pocl-cpu-avx512-intel), as a framework on that
// device would get it.
inline DeviceProfile pocl_avx512_profile(const std::string& vendor = "AuthenticAMD") {
    const DeviceProfile device = pocl_avx512_device(vendor);
    return with_stored_tuned(device, *ProfileStore::global().lookup(device));
}

inline ConvShapes shape(std::int64_t N, std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t K, std::int64_t R,
                        std::int64_t S, std::int64_t stride = 1, std::int64_t pad = 0, std::int64_t groups = 1,
                        std::int64_t dilation = 1) {
    ConvShapes s;
    s.N = N, s.C = C, s.H = H, s.W = W, s.K = K, s.R = R, s.S = S;
    s.stride_h = s.stride_w = stride;
    s.set_padding(pad);
    s.groups = groups;
    s.dilation_h = s.dilation_w = dilation;
    return s;
}

}  // namespace netcl::test
