// Bad input that tests/test_conv_api.cpp and tests/test_runtime_*.cpp do not
// already cover: every case must be a netcl::Error saying what was wrong and
// what was expected, before anything is allocated or enqueued; never a crash,
// a hang, undefined behaviour (this suite also runs under UBSan) or a silent
// wrong answer.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "netcl/Conv2d.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Conv2dOptions layer(std::int64_t C, std::int64_t K, std::int64_t R = 3) {
    Conv2dOptions o;
    o.in_channels = C;
    o.out_channels = K;
    o.kernel = {R, R};
    o.padding = {1, 1};
    return o;
}

// The message of the netcl::Error `f` throws; a test failure when it throws
// nothing (or anything else, which gtest reports as an uncaught exception).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a netcl::Error";
    return {};
}

void expect_mentions(const std::string& message, std::initializer_list<const char*> fragments) {
    for (const char* fragment : fragments) {
        EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << message;
    }
}

std::vector<float> ones(std::size_t n) { return std::vector<float>(n, 1.0f); }

TEST(ReliabilityInputs, GroupsMustDivideOutputChannels) {
    Conv2dOptions o = layer(4, 6);
    o.groups = 4;  // divides C = 4, not K = 6
    expect_mentions(error_of([&] { Conv2d(test::shared_context(), o); }),
                    {"groups = 4", "out_channels = 6"});
}

TEST(ReliabilityInputs, NegativeSizesThroughTheApiIntegers) {
    auto ctx = test::shared_context();
    Conv2dOptions k = layer(3, -4);
    expect_mentions(error_of([&] { Conv2d(ctx, k); }), {"out_channels = -4", "expected >= 1"});
    Conv2dOptions c = layer(-3, 4);
    expect_mentions(error_of([&] { Conv2d(ctx, c); }), {"in_channels = -3", "expected >= 1"});
    Conv2dOptions r = layer(3, 4);
    r.kernel = {3, -3};
    expect_mentions(error_of([&] { Conv2d(ctx, r); }), {"kernel width = -3", "expected >= 1"});
    Conv2dOptions g = layer(3, 3);
    g.groups = -1;
    expect_mentions(error_of([&] { Conv2d(ctx, g); }), {"groups = -1", "expected >= 1"});
    // A negative input dimension reaching the layer directly (not through a Tensor).
    Conv2d conv(ctx, layer(3, 4));
    expect_mentions(error_of([&] { (void)conv.shapes_for({1, 3, -5, 5}); }), {"input height H = -5", "expected >= 1"});
    expect_mentions(error_of([&] { (void)conv.shapes_for({0, 3, 5, 5}); }), {"batch N = 0", "expected >= 1"});
}

// Shapes that reach the selector directly (a framework's own planning, the
// Python explain(), netcl-bench --shape) are validated there too, every rule
// of ConvShapes::validate, not only the ones Conv2dOptions repeats. Seen to
// fail: a validate() without the K % groups or the right-padding check.
TEST(ReliabilityInputs, TheSelectorRefusesInvalidShapesByItself) {
    const DeviceProfile& profile = test::shared_context()->profile();
    const auto base = [] {
        ConvShapes s;
        s.N = 1, s.C = 4, s.H = 8, s.W = 8, s.K = 6, s.R = 3, s.S = 3;
        s.set_padding(1);
        return s;
    };
    const auto refused = [&](const ConvShapes& s) {
        return error_of([&] { (void)KernelSelector::global().select("conv2d", s, profile); });
    };
    ConvShapes k_groups = base();
    k_groups.groups = 4;
    k_groups.K = 6;  // C = 4 divides, K = 6 does not
    expect_mentions(refused(k_groups), {"groups = 4 must divide", "output channels K = 6"});
    ConvShapes c_groups = base();
    c_groups.groups = 3;
    c_groups.K = 6;  // K divides, C = 4 does not
    expect_mentions(refused(c_groups), {"groups = 3 must divide", "input channels C = 4"});
    for (int side = 0; side < 4; ++side) {
        ConvShapes pad = base();
        (side == 0 ? pad.pad_top : side == 1 ? pad.pad_left : side == 2 ? pad.pad_bottom : pad.pad_right) = -1;
        expect_mentions(refused(pad), {"padding is negative", "expected >= 0 on every side"});
    }
    EXPECT_NO_THROW((void)KernelSelector::global().select("conv2d", base(), profile));
}

TEST(ReliabilityInputs, StrideAndDilationZeroOnEitherAxis) {
    auto ctx = test::shared_context();
    Conv2dOptions s = layer(3, 4);
    s.stride = {1, 0};
    expect_mentions(error_of([&] { Conv2d(ctx, s); }), {"stride (width) = 0", "expected >= 1"});
    Conv2dOptions d = layer(3, 4);
    d.dilation = {0, 1};
    expect_mentions(error_of([&] { Conv2d(ctx, d); }), {"dilation (height) = 0", "expected >= 1"});
}

// Sizes near the top of int64: the weight count K x C/groups x R x S and the
// padded extent H + 2 pad overflow int64 if computed naively (UB, caught by
// UBSan in the sanitizer run); each must be refused with a message instead.
TEST(ReliabilityInputs, WeightCountOverflowIsRefusedBeforeAllocating) {
    Conv2dOptions o = layer(std::int64_t{1} << 32, std::int64_t{1} << 32);
    o.kernel = {std::int64_t{1} << 20, std::int64_t{1} << 20};
    Conv2d conv(test::shared_context(), o);
    expect_mentions(error_of([&] { conv.set_weights(ones(9), {}); }), {"size_t", "expected a smaller tensor"});
}

TEST(ReliabilityInputs, HugePaddingOrDilationIsRefusedWithoutOverflow) {
    auto ctx = test::shared_context();
    Conv2dOptions pad = layer(3, 4);
    pad.padding = {kMax / 2 + 1, 1};
    Conv2d padded(ctx, pad);
    EXPECT_FALSE(error_of([&] { (void)padded.shapes_for({1, 3, 5, 5}); }).empty());
    Conv2dOptions dil = layer(3, 4);
    dil.dilation = {kMax / 2 + 1, 1};
    Conv2d dilated(ctx, dil);
    EXPECT_FALSE(error_of([&] { (void)dilated.shapes_for({1, 3, 5, 5}); }).empty());
}

// A tiny input whose output would be enormous (a huge padding): refused by
// the output tensor's size check before any buffer is made.
TEST(ReliabilityInputs, OutputBeyondTheDeviceAllocationLimitIsRefused) {
    auto ctx = test::shared_context();
    Conv2dOptions o = layer(1, 64, 1);
    o.padding = {100000, 100000};  // P = Q = 200001: 64 x 4e10 floats
    Conv2d conv(ctx, o);
    conv.set_weights(ones(64), ones(64));
    const Tensor x = Tensor::from_host(ctx, ones(1), {1, 1, 1, 1});
    expect_mentions(error_of([&] { (void)conv.forward(x); }), {"[1, 64, 200001, 200001]", "at most"});
}

TEST(ReliabilityInputs, UndefinedInputTensor) {
    Conv2d conv(test::shared_context(), layer(3, 4));
    conv.set_weights(ones(4 * 3 * 9), ones(4));
    expect_mentions(error_of([&] { (void)conv.forward(Tensor{}); }), {"undefined", "expected an N x C x H x W"});
}

TEST(ReliabilityInputs, WrongBatchOrSpatialShapeOfACallerOutput) {
    auto ctx = test::shared_context();
    Conv2d conv(ctx, layer(3, 4));
    conv.set_weights(ones(4 * 3 * 9), ones(4));
    const Tensor x = Tensor::from_host(ctx, ones(2 * 3 * 6 * 5), {2, 3, 6, 5});
    Tensor rank3 = Tensor::empty(ctx, {4, 6, 5});
    expect_mentions(error_of([&] { conv.forward(x, rank3); }), {"[4, 6, 5]", "expected [2, 4, 6, 5]"});
    Tensor undefined;
    expect_mentions(error_of([&] { conv.forward(x, undefined); }), {"undefined", "expected [2, 4, 6, 5]"});
}

// An OpenCL build failure inside a strategy: the error names the program and
// carries the compiler's log. NETCL_KERNEL_DIR substitutes a broken naive
// kernel (a new source, so neither cache can hold a binary for it).
TEST(ReliabilityInputs, KernelBuildFailureCarriesTheBuildLog) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("netcl-broken-kernels-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "conv2d_naive.cl") << "__kernel void conv2d_naive(__global float* y) { y[0] = undeclared_x; }\n";
    ::setenv("NETCL_KERNEL_DIR", dir.c_str(), 1);
    try {
        auto ctx = Context::create();  // its own program cache
        Conv2dOptions o = layer(3, 4);
        o.strategy = Kernel::CONV2D_NAIVE;
        Conv2d conv(ctx, o);
        conv.set_weights(ones(4 * 3 * 9), ones(4));
        const Tensor x = Tensor::from_host(ctx, ones(3 * 5 * 5), {1, 3, 5, 5});
        (void)conv.forward(x);
        ADD_FAILURE() << "a kernel that cannot compile was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("conv2d_naive"), std::string::npos) << e.what();
        EXPECT_NE(e.build_log().find("undeclared_x"), std::string::npos) << "build log: " << e.build_log();
    }
    ::unsetenv("NETCL_KERNEL_DIR");
    fs::remove_all(dir);
}

TEST(ReliabilityInputs, NetclDeviceNamingNoDevice) {
    ::setenv("NETCL_DEVICE", "no-such-device-reliability", 1);
    const std::string message = error_of([] { (void)Context::create(); });
    ::unsetenv("NETCL_DEVICE");
    expect_mentions(message, {"no-such-device-reliability"});
}

}  // namespace
}  // namespace netcl
