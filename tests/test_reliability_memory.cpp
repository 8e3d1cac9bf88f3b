// 1000 forward calls on one Conv2d leave device and host memory flat.
//
// Device objects: the OpenCL interposer of tests/support/ClInterposer counts
// every live cl_mem (and its bytes), kernel, program and event that netcl and
// CLBlast hold. A leaked Tensor, workspace, CLBlast temporary, kernel or an
// event retained per forward and never released shows up as a live object
// that was not there after the warm-up.
// Host memory: the resident set (/proc/self/statm) after the warm-up and
// after the 1000 calls, with a margin for allocator noise (kHostMarginBytes).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "netcl/Conv2d.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "netcl/OpenCL.hpp"
#include "tests/support/ClInterposer.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

using test::live_objects;
using test::LiveObjects;

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

constexpr int kWarmUp = 50;
constexpr int kCalls = 1000;
// Allocator and driver noise allowed over 1000 calls: 4 MiB, i.e. under 4.2 KB
// per call, far below what one leaked output (here 2x8x12x12 floats = 9 KiB
// plus its driver bookkeeping) per call would add (> 9 MiB).
constexpr std::size_t kHostMarginBytes = 4u << 20;
// Under AddressSanitizer freed blocks wait in its quarantine (256 MiB by
// default), so the resident set grows by design and says nothing; there
// LeakSanitizer checks host leaks instead, and the device counts still hold.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kResidentSetIsMeaningful = false;
#else
constexpr bool kResidentSetIsMeaningful = true;
#endif

void expect_flat(Kernel kernel, std::optional<Variant> variant) {
    auto ctx = test::shared_context();
    ConvShapes s;
    s.N = 2, s.C = 3, s.H = 12, s.W = 12, s.K = 8, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    Conv2dOptions o;
    o.in_channels = s.C;
    o.out_channels = s.K;
    o.padding = {1, 1};
    o.strategy = kernel;
    o.variant = variant;
    Conv2d conv(ctx, o);
    const auto x_host = test::random_uniform(static_cast<std::size_t>(s.input_numel()), 11);
    const auto w_host = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 12);
    const auto b_host = test::random_uniform(static_cast<std::size_t>(s.K), 13);
    conv.set_weights(w_host, b_host);
    const Tensor x = Tensor::from_host(ctx, x_host, {s.N, s.C, s.H, s.W});

    Tensor y;
    for (int i = 0; i < kWarmUp; ++i) y = conv(x);
    ctx->finish();
    y = Tensor{};
    const LiveObjects device_before = live_objects();
    const std::size_t host_before = resident_bytes();

    for (int i = 0; i < kCalls; ++i) {
        y = conv(x);
        if (i % 100 == 99) ctx->finish();
    }
    const auto result = test::compare(y.to_host(), reference_conv(s, x_host, w_host, b_host));
    y = Tensor{};
    ctx->finish();
    const LiveObjects device_after = live_objects();
    const std::size_t host_after = resident_bytes();

    const std::string name = conv.last_plan().str();
    std::printf("%s: live cl_mem %zu objects / %zu bytes, kernels %zu, programs %zu, events %zu before; "
                "%zu / %zu, %zu, %zu, %zu after %d calls; host RSS %.2f MiB before, %.2f MiB after (%+.1f KiB)\n",
                name.c_str(), device_before.buffers, device_before.buffer_bytes, device_before.kernels,
                device_before.programs, device_before.events, device_after.buffers, device_after.buffer_bytes,
                device_after.kernels, device_after.programs, device_after.events, kCalls, host_before / 1048576.0,
                host_after / 1048576.0, (static_cast<double>(host_after) - static_cast<double>(host_before)) / 1024.0);
    EXPECT_GT(device_before.buffers, 0u) << "the interposer saw no buffers: it is not in effect";
    EXPECT_GT(device_before.kernels, 0u) << "the interposer saw no kernels: it is not in effect";
    EXPECT_GT(device_before.programs, 0u) << "the interposer saw no programs: it is not in effect";
    EXPECT_TRUE(test::seen().events) << "the interposer saw no events: it is not in effect";
    EXPECT_EQ(device_after.buffers, device_before.buffers) << name;
    EXPECT_EQ(device_after.buffer_bytes, device_before.buffer_bytes) << name;
    EXPECT_EQ(device_after.kernels, device_before.kernels) << name;
    EXPECT_EQ(device_after.programs, device_before.programs) << name;
    // Conv2d keeps the events of its last forward (last_events()): those of one
    // call may be alive, never a growing number.
    EXPECT_EQ(device_after.events, device_before.events) << name;
    if (kResidentSetIsMeaningful) {
        EXPECT_LE(host_after, host_before + kHostMarginBytes) << name;
    }
    EXPECT_EQ(result.non_finite, 0u) << name;
    EXPECT_LE(result.max_abs_error, conv_tolerance(s, 16.0)) << name;
}

TEST(ReliabilityMemory, NaiveForwardLoopIsFlat) { expect_flat(Kernel::CONV2D_NAIVE, std::nullopt); }
TEST(ReliabilityMemory, Im2colForwardLoopIsFlat) { expect_flat(Kernel::IM2COL, std::nullopt); }
TEST(ReliabilityMemory, WinogradF2ForwardLoopIsFlat) {
    expect_flat(Kernel::CONV2D_WINOGRAD, winograd_variant_id(2, false, true));
}
TEST(ReliabilityMemory, WinogradF4LowLocalForwardLoopIsFlat) {
    expect_flat(Kernel::CONV2D_WINOGRAD, winograd_variant_id(4, true, false));
}

// The interposer itself: a Tensor made and dropped is one object up, then down.
TEST(ReliabilityMemory, InterposerCountsTensors) {
    auto ctx = test::shared_context();
    const LiveObjects before = live_objects();
    {
        Tensor t = Tensor::empty(ctx, {1000});
        Tensor copy = t;  // shares the buffer: a retain, not a new object
        const LiveObjects during = live_objects();
        EXPECT_EQ(during.buffers, before.buffers + 1);
        EXPECT_EQ(during.buffer_bytes, before.buffer_bytes + 4000);
    }
    EXPECT_EQ(live_objects(), before);
}

// The interposer counts events by reference: an event kept is one more, a
// retained copy released is none, and a released one is gone.
TEST(ReliabilityMemory, InterposerCountsEventsByReference) {
    auto ctx = test::shared_context();
    Tensor t = Tensor::empty(ctx, {64});
    const LiveObjects before = live_objects();
    {
        cl::Event event;
        ASSERT_EQ(ctx->queue().enqueueFillBuffer(t.buffer(), 1.0f, 0, t.bytes(), nullptr, &event), CL_SUCCESS);
        EXPECT_EQ(live_objects().events, before.events + 1);
        {
            cl::Event copy = event;  // clRetainEvent
            EXPECT_EQ(live_objects().events, before.events + 1);
        }
        ASSERT_EQ(event.wait(), CL_SUCCESS);
    }
    EXPECT_EQ(live_objects(), before);
}

}  // namespace
}  // namespace netcl
