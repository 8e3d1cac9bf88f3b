// What a run's events cover, and the one timing helper that reads them.
//
// Found on NVIDIA's driver (H200, 580.159): a barrier netcl put before a
// CLBlast call, waiting for the previous run's last command, had a start
// before the run began, and im2col-clblast's 1x1 layers were timed at 0.26 ms
// where the wall clock gave 0.045. These tests hold the three parts of the
// fix on any device: the span leaves barriers and markers out, a chain drops
// the waits that are already over (so no barrier is made for them), and a
// run that begins inside CLBlast says its events do not cover it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "netcl/Conv2d.hpp"
#include "netcl/Error.hpp"
#include "netcl/Half.hpp"
#include "ops/internal/EventChain.hpp"
#include "runtime/EventTiming.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

cl::Event fill(const std::shared_ptr<Context>& ctx, const cl::Buffer& buffer, const std::vector<cl::Event>* wait = nullptr) {
    cl::Event event;
    const float zero = 0.0f;
    EXPECT_EQ(ctx->queue().enqueueFillBuffer(buffer, zero, 0, 64 * sizeof(float), wait, &event), CL_SUCCESS);
    return event;
}

// A marker that finished 50 ms before the work: the span from it would be
// at least 50 ms; the helper's is the work's alone.
TEST(EventTiming, SpanLeavesOutBarriersAndMarkers) {
    auto ctx = Context::create();
    cl::Buffer buffer(ctx->cl_context(), CL_MEM_READ_WRITE, 64 * sizeof(float));
    cl::Event marker, barrier;
    ASSERT_EQ(ctx->queue().enqueueMarkerWithWaitList(nullptr, &marker), CL_SUCCESS);
    ASSERT_EQ(marker.wait(), CL_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const cl::Event work = fill(ctx, buffer);
    ASSERT_EQ(ctx->queue().enqueueBarrierWithWaitList(nullptr, &barrier), CL_SUCCESS);
    const cl::Event more = fill(ctx, buffer);
    ctx->finish();

    const double with_orders = device_span_ms({marker, work, barrier, more});
    const double work_only = device_span_ms({work, more});
    EXPECT_EQ(with_orders, work_only);
    EXPECT_LT(work_only, 40.0) << "two 256-byte fills";
    // Where only barriers and markers are given, they are what is timed.
    EXPECT_GE(device_span_ms({marker}), 0.0);
    EXPECT_GE(device_span_ms({marker, barrier}), 40.0) << "the marker ended 50 ms before the barrier began";
}

TEST(EventChain, DropsWaitsThatAreOverAndKeepsThePending) {
    auto ctx = Context::create();
    cl::Buffer buffer(ctx->cl_context(), CL_MEM_READ_WRITE, 64 * sizeof(float));
    const cl::Event done = fill(ctx, buffer);
    ASSERT_EQ(done.wait(), CL_SUCCESS);
    internal::EventChain over(true, {done});
    EXPECT_EQ(over.wait_list(), nullptr);

    cl::UserEvent hold(ctx->cl_context());
    internal::EventChain pending(true, {done});
    pending.also_wait_for({hold, done});
    ASSERT_NE(pending.wait_list(), nullptr);
    ASSERT_EQ(pending.wait_list()->size(), 1u);
    EXPECT_EQ(pending.wait_list()->front()(), hold());
    hold.setStatus(CL_COMPLETE);
}

// A library call first in a chain: no barrier when the waits are over, and
// the chain says its events start inside the library; after a command of the
// chain's own, it does not. A pending wait still gets its barrier.
TEST(EventChain, SaysWhenItsEventsStartInsideALibrary) {
    auto ctx = Context::create();
    cl::Buffer buffer(ctx->cl_context(), CL_MEM_READ_WRITE, 64 * sizeof(float));
    const cl::Event done = fill(ctx, buffer);
    ASSERT_EQ(done.wait(), CL_SUCCESS);
    const auto library = [&] { return fill(ctx, buffer); };

    internal::EventChain first(true, {done});
    first.library_call(ctx->queue(), library);
    EXPECT_EQ(first.events().size(), 1u);
    EXPECT_TRUE(first.starts_inside_a_library());

    internal::EventChain own_first(true, {});
    own_first.then(fill(ctx, buffer));
    own_first.library_call(ctx->queue(), library);
    EXPECT_FALSE(own_first.starts_inside_a_library());

    // A pending wait: the call waits behind a barrier, whose event is not kept.
    cl::UserEvent hold(ctx->cl_context());
    internal::EventChain waiting(true, {hold});
    waiting.library_call(ctx->queue(), library);
    ASSERT_EQ(waiting.events().size(), 1u) << "the call's event alone";
    EXPECT_TRUE(waiting.starts_inside_a_library()) << "a barrier is no command of the chain's own";
    ctx->queue().flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    cl_int status = CL_COMPLETE;
    ASSERT_EQ(waiting.events().front().getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status), CL_SUCCESS);
    EXPECT_NE(status, CL_COMPLETE) << "the call ran before the wait was over";
    hold.setStatus(CL_COMPLETE);
    ASSERT_EQ(waiting.events().front().wait(), CL_SUCCESS);
}

// im2col-clblast on a 1x1 layer hands x to CLBlast's GEMM as it is: the run
// begins inside CLBlast. With a stride, netcl's im2col kernel comes first;
// in half, the widening of x does. Each answer is checked, so the flag
// describes runs that computed the right thing.
TEST(ConvLayerTiming, SaysWhetherTheEventsCoverTheRun) {
    auto ctx = Context::create();
    struct Case {
        std::int64_t stride;
        DataType dtype;
        bool covered;
    };
    for (const Case c : {Case{1, DataType::FLOAT32, false}, Case{2, DataType::FLOAT32, true},
                         Case{1, DataType::FLOAT16, true}}) {
        ConvShapes s;
        s.N = 2, s.C = 8, s.H = 9, s.W = 7, s.K = 12, s.R = 1, s.S = 1, s.bias = false, s.dtype = c.dtype;
        s.stride_h = s.stride_w = c.stride;
        Conv2dOptions o = Conv2dOptions::for_shapes(s);
        o.strategy = Kernel::IM2COL;
        o.variant = Variant("im2col-clblast");
        Conv2d conv(ctx, o);
        // Half stores what it is given rounded: the reference reads the rounded values.
        const auto stored = [&](std::size_t count, std::uint64_t seed) {
            auto v = test::random_uniform(count, seed);
            if (c.dtype == DataType::FLOAT16) {
                for (float& e : v) e = round_to_half(e);
            }
            return v;
        };
        const auto w = stored(static_cast<std::size_t>(s.weight_numel()), 41);
        const auto x_host = stored(static_cast<std::size_t>(s.input_numel()), 42);
        conv.set_weights(w, {});
        const Tensor x = Tensor::from_host(ctx, x_host, s.input_shape(), s.dtype);
        Tensor y = Tensor::empty(ctx, s.output_shape(), s.dtype);
        y.fill(std::numeric_limits<float>::quiet_NaN());
        conv.forward(x, y);
        conv.forward(x, y);  // the weights are in: a run as every later one is
        const std::string what = "stride " + std::to_string(c.stride) + " " + to_string(c.dtype);
        EXPECT_EQ(conv.last_events_cover_the_run(), c.covered) << what;
        const auto expected = reference_conv(s, x_host, w, {});
        double largest = 0;
        for (double e : expected) largest = std::max(largest, std::fabs(e));
        const test::Comparison result = test::compare(y.to_host(conv.last_events()), expected);
        EXPECT_EQ(result.non_finite, 0u) << what;
        EXPECT_LE(result.max_abs_error,
                  conv_tolerance(s, 1.0) + (c.dtype == DataType::FLOAT16 ? largest * 0x1p-11 + 0x1p-25 : 0.0))
            << what;
    }
}

}  // namespace
}  // namespace netcl
