// netcl as a framework uses it: the framework's own context, device and
// command queue (made with raw OpenCL, without profiling), its own buffers,
// and events between layers. No host synchronisation inside a forward.
//
// The blocking calls (clFinish, clWaitForEvents, blocking read/write/map) are
// counted by the OpenCL interposer of tests/support/ClInterposer: the
// framework path must make none in a forward after the first (weights from
// the host block once, in set_weights; from the device, not at all).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "netcl/Conv2d.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "runtime/EventTiming.hpp"
#include "tests/support/ClInterposer.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

// A framework's own OpenCL objects, made without netcl.
struct FrameworkDevice {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;

    explicit FrameworkDevice(cl_command_queue_properties properties = 0) {
        const auto entries = Context::devices();
        const auto& entry = entries[Context::pick(entries, std::getenv("NETCL_DEVICE") ? std::getenv("NETCL_DEVICE") : "")];
        device = entry.device();
        cl_int status = CL_SUCCESS;
        context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
        EXPECT_EQ(status, CL_SUCCESS);
        queue = clCreateCommandQueue(context, device, properties, &status);
        EXPECT_EQ(status, CL_SUCCESS) << "queue properties " << properties;
    }
    ~FrameworkDevice() {
        if (queue) clReleaseCommandQueue(queue);
        if (context) clReleaseContext(context);
    }
    cl_mem buffer(std::size_t bytes) const {
        cl_int status = CL_SUCCESS;
        cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
        EXPECT_EQ(status, CL_SUCCESS);
        return mem;
    }
    void write(cl_mem mem, std::size_t offset_floats, const std::vector<float>& values) const {
        ASSERT_EQ(clEnqueueWriteBuffer(queue, mem, CL_TRUE, offset_floats * 4, values.size() * 4, values.data(), 0,
                                       nullptr, nullptr),
                  CL_SUCCESS);
    }
    std::vector<float> read(cl_mem mem, std::size_t offset_floats, std::size_t count, cl_event after) const {
        std::vector<float> values(count);
        EXPECT_EQ(clEnqueueReadBuffer(queue, mem, CL_TRUE, offset_floats * 4, count * 4, values.data(), after ? 1 : 0,
                                      after ? &after : nullptr, nullptr),
                  CL_SUCCESS);
        return values;
    }
};

std::size_t floats(const ConvShapes& s, bool output) {
    return static_cast<std::size_t>(output ? s.output_numel() : s.input_numel());
}

// One layer placed in the framework's buffer: where each operand starts (floats).
struct Placement {
    std::size_t x = 0, w = 0, b = 0, y = 0, workspace = 0, workspace_floats = 0;
};

void expect_matches(const std::vector<float>& out, const std::vector<double>& ref, double tolerance, const std::string& what) {
    const test::Comparison c = test::compare(out, ref);
    EXPECT_EQ(c.non_finite, 0u) << what;
    EXPECT_LE(c.max_abs_error, tolerance) << what << " (worst output " << c.worst_index << ")";
}

// Two layers chained with events in one framework buffer holding, at odd
// float offsets (not multiples of any alignment the device reports), x,
// both layers' weights and biases, the intermediate, the output and one
// shared workspace; a profiling-less queue, in order or out of order.
// `tune` edits the wrapped context's profile; `plan_says` must be in layer
// 1's plan (the configuration the edit is for).
void run_two_layer_network(cl_command_queue_properties properties, const Variant& first, const Variant& second,
                           const std::function<void(DeviceProfile&)>& tune = {}, const std::string& plan_says = "") {
    FrameworkDevice fw(properties);
    // Every implementation on: the variant forced here may be one the device's profile turns off.
    auto ctx = test::with_every_implementation(Context::wrap(fw.context, fw.device, fw.queue));
    if (tune) {
        DeviceProfile profile = ctx->profile();
        tune(profile);
        ctx->set_profile(profile);
    }
    EXPECT_TRUE(ctx->wrapped());
    EXPECT_FALSE(ctx->profiling());
    EXPECT_EQ(ctx->out_of_order(), (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0);

    ConvShapes l1;  // 3x3, uneven padding; else 5x5 with uneven padding, else 1x1 unpadded (what the variant takes)
    l1.N = 2, l1.C = 5, l1.H = 11, l1.W = 9, l1.K = 12, l1.R = l1.S = 3, l1.bias = true;
    l1.set_padding(1, 0, 2, 1);
    if (why_not(first, l1, ctx->profile())) {
        l1.R = l1.S = 5;
        l1.set_padding(2, 1, 3, 2);
    }
    std::string refused;  // why the variant takes none of the three, on this device
    if (const auto reason = why_not(first, l1, ctx->profile())) {
        refused = *reason;
        l1.R = l1.S = 1;
        l1.set_padding(0);
    }
    if (const auto reason = why_not(first, l1, ctx->profile())) {
        // A device-dependent limit, e.g. on an NVIDIA GPU: U of a constant
        // variant past its 64 KiB constant buffer, F(6x6)'s fused kernel past
        // its 48 KiB of local memory. Said, not passed silently.
        GTEST_SKIP() << first.id << " takes none of this test's layers on " << ctx->profile().name << ": " << refused
                     << "; " << *reason;
    }
    ConvShapes l2;  // 3x3 pad 1 on l1's output
    l2.N = 2, l2.C = l1.K, l2.H = l1.P(), l2.W = l1.Q(), l2.K = 7, l2.R = l2.S = 3, l2.bias = true;
    l2.set_padding(1);

    Conv2dOptions o1 = Conv2dOptions::for_shapes(l1), o2 = Conv2dOptions::for_shapes(l2);
    o1.strategy = implementation_of(first).kernel(), o1.variant = first;
    o2.strategy = implementation_of(second).kernel(), o2.variant = second;
    Conv2d conv1(ctx, o1), conv2(ctx, o2);
    const std::size_t ws_floats =
        (std::max(conv1.workspace_bytes({l1.N, l1.C, l1.H, l1.W}), conv2.workspace_bytes({l2.N, l2.C, l2.H, l2.W})) + 3) / 4;

    Placement p1, p2;
    std::size_t at = 3;  // odd offsets everywhere
    const auto place = [&](std::size_t count) {
        const std::size_t here = at;
        at += count + 5;
        return here;
    };
    p1.x = place(floats(l1, false));
    p1.w = place(static_cast<std::size_t>(l1.weight_numel()));
    p1.b = place(static_cast<std::size_t>(l1.K));
    p1.y = place(floats(l1, true));  // = layer 2's input
    p2.w = place(static_cast<std::size_t>(l2.weight_numel()));
    p2.b = place(static_cast<std::size_t>(l2.K));
    p2.y = place(floats(l2, true));
    const std::size_t ws = place(std::max<std::size_t>(ws_floats, 1));
    cl_mem buffer = fw.buffer(at * sizeof(float));

    const auto x = random_uniform(floats(l1, false), 1);
    const auto w1 = random_uniform(static_cast<std::size_t>(l1.weight_numel()), 2);
    const auto b1 = random_uniform(static_cast<std::size_t>(l1.K), 3);
    const auto w2 = random_uniform(static_cast<std::size_t>(l2.weight_numel()), 4);
    const auto b2 = random_uniform(static_cast<std::size_t>(l2.K), 5);
    // The framework fills its buffer: poison everything, then the operands.
    fw.write(buffer, 0, std::vector<float>(at, std::numeric_limits<float>::quiet_NaN()));
    fw.write(buffer, p1.x, x);
    fw.write(buffer, p1.w, w1);
    fw.write(buffer, p1.b, b1);
    fw.write(buffer, p2.w, w2);
    fw.write(buffer, p2.b, b2);

    const auto view = [&](std::size_t offset, Tensor::Shape shape) {
        return Tensor::view(ctx, buffer, offset * sizeof(float), std::move(shape));
    };
    const Tensor xt = view(p1.x, {l1.N, l1.C, l1.H, l1.W});
    Tensor mid = view(p1.y, {l1.N, l1.K, l1.P(), l1.Q()});
    Tensor yt = view(p2.y, {l2.N, l2.K, l2.P(), l2.Q()});
    const Tensor workspace = view(ws, {static_cast<std::int64_t>(std::max<std::size_t>(ws_floats, 1))});
    const Tensor w1t = view(p1.w, {l1.K, l1.C, l1.R, l1.S}), b1t = view(p1.b, {l1.K});
    const Tensor w2t = view(p2.w, {l2.K, l2.C, 3, 3}), b2t = view(p2.b, {l2.K});
    conv1.set_weights(w1t, &b1t);  // device to device: no host round trip
    conv2.set_weights(w2t, &b2t);

    const auto reference1 = reference_conv(l1, x, w1, b1);
    std::vector<float> mid_host(reference1.begin(), reference1.end());
    const auto reference2 = reference_conv(l2, mid_host, w2, b2);
    const double tol1 = conv_tolerance(l1, tolerance_factor(first));
    const double tol2 = conv_tolerance(l2, tolerance_factor(second)) + 3.0 * tol1;  // layer 1's error carried along

    for (int round = 0; round < 3; ++round) {
        const test::BlockingCalls before = test::blocking_calls();
        cl_event input_ready = nullptr;  // a framework command the network waits for
        ASSERT_EQ(clEnqueueMarkerWithWaitList(fw.queue, 0, nullptr, &input_ready), CL_SUCCESS);
        const cl::Event e1 = conv1.forward(xt, mid, {cl::Event(input_ready)}, &workspace);
        const cl::Event e2 = conv2.forward(mid, yt, {e1}, &workspace);
        const test::BlockingCalls after = test::blocking_calls();
        EXPECT_EQ(after.total(), before.total()) << "round " << round << ": a forward blocked the host ("
                                                 << after.finish - before.finish << " clFinish, "
                                                 << after.wait_for_events - before.wait_for_events
                                                 << " clWaitForEvents, "
                                                 << after.blocking_transfers - before.blocking_transfers
                                                 << " blocking transfers)";
        const std::string what = first.id + " -> " + second.id + " round " + std::to_string(round);
        expect_matches(fw.read(buffer, p1.y, floats(l1, true), e1()), reference1, tol1, what + ", layer 1");
        expect_matches(fw.read(buffer, p2.y, floats(l2, true), e2()), reference2, tol2, what + ", layer 2");
        // What lies between the operands is never written.
        const auto all = fw.read(buffer, 0, at, e2());
        const auto untouched = [&](std::size_t from, std::size_t to) {
            for (std::size_t i = from; i < to; ++i) {
                if (!std::isnan(all[i])) return false;
            }
            return true;
        };
        EXPECT_TRUE(untouched(0, p1.x) && untouched(p1.x + floats(l1, false), p1.w)) << what;
        EXPECT_TRUE(untouched(p1.y + floats(l1, true), p2.w) && untouched(p2.y + floats(l2, true), ws)) << what;
    }
    EXPECT_EQ(conv1.last_plan().variant, first);
    EXPECT_EQ(conv2.last_plan().variant, second);
    if (!plan_says.empty()) {
        EXPECT_NE(conv1.last_plan().config.find(plan_says), std::string::npos) << conv1.last_plan().config;
    }
    // Timing needs a profiling queue, and says so.
    try {
        (void)device_span_ms(conv2.last_events());
        ADD_FAILURE() << "timing on a profiling-less queue should be refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("CL_QUEUE_PROFILING_ENABLE"), std::string::npos) << e.what();
    }
    clReleaseMemObject(buffer);
}

// Every variant runs as layer 1 on views at odd offsets (each kernel must add
// them), with Winograd F(4x4) fused behind it as layer 2.
class FrameworkPath : public ::testing::TestWithParam<std::string> {};

TEST_P(FrameworkPath, TwoLayersInTheFrameworksBufferInOrderQueue) {
    run_two_layer_network(0, GetParam(), "wino-f4-fused-global");
}

// Every variant that runs forward (a weight-gradient one has its framework-path test in test_conv_backward).
std::vector<std::string> every_variant() {
    std::vector<std::string> ids;
    for (const Kernel kernel : all_kernels()) {
        for (const Variant& v : variants_of(kernel, ConvDirection::FORWARD)) ids.push_back(v.id);
    }
    return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, FrameworkPath, ::testing::ValuesIn(every_variant()), [](const auto& info) {
    std::string name = info.param;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

TEST(FrameworkPathQueues, OutOfOrderQueueIsOrderedByEvents) {
    cl_command_queue_properties supported = 0;
    const auto entries = Context::devices();
    ASSERT_EQ(clGetDeviceInfo(entries[Context::pick(entries, "")].device(), CL_DEVICE_QUEUE_PROPERTIES,
                              sizeof supported, &supported, nullptr),
              CL_SUCCESS);
    ASSERT_NE(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0u)
        << "this device has no out-of-order queues: the out-of-order path cannot be checked here";
    run_two_layer_network(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "im2col-clblast", "wino-f2-fused-global");
    run_two_layer_network(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "naive", "im2col-clblast");
    run_two_layer_network(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "gemm-1x1", "implicit-gemm");
}

// The Winograd multiply transposed, its transforms a channel a lane
// (kernels_cl/winograd_gemm_channels.cl), on the framework's views at odd
// offsets, in both layers: layer 1's C = 5 and K = 12 and layer 2's K = 7
// fill part of one channel vector.
TEST(FrameworkPathQueues, WinogradChannelTransformsOnViews) {
    const auto transposed = [](DeviceProfile& profile) { profile.tuned["winograd_gemm_transposed"] = 1; };
    for (const char* id : {"wino-f4-gemm", "wino-f6-gemm"}) {
        SCOPED_TRACE(id);
        run_two_layer_network(0, id, "wino-f4-gemm", transposed, "channels a work-item");
    }
}

TEST(FrameworkPathQueues, OwnWorkspaceAndHostWeightsBlockOnlyInSetWeights) {
    FrameworkDevice fw;
    auto ctx = Context::wrap(fw.context, fw.device, fw.queue);
    ConvShapes s;
    s.N = 2, s.C = 4, s.H = 9, s.W = 10, s.K = 6, s.R = s.S = 3, s.bias = true;
    s.set_padding(1);
    Conv2dOptions o = Conv2dOptions::for_shapes(s);
    o.strategy = Kernel::IM2COL;  // im2col + CLBlast needs a workspace: netcl allocates and keeps it
    o.variant = Variant("im2col-clblast");
    Conv2d conv(ctx, o);
    const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 7);
    const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 8);
    const auto b = random_uniform(static_cast<std::size_t>(s.K), 9);
    const test::BlockingCalls before_weights = test::blocking_calls();
    conv.set_weights(w, b);
    EXPECT_GE(test::blocking_calls().blocking_transfers, before_weights.blocking_transfers + 1)
        << "host weights are copied with a blocking write (documented)";
    const Tensor xt = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
    Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
    EXPECT_GT(conv.workspace_bytes(xt.shape()), 0u);
    cl::Event done = conv.forward(xt, y);  // the first: prepares (builds), allocates the workspace
    const auto first = y.to_host({done});
    const test::BlockingCalls before = test::blocking_calls();
    for (int i = 0; i < 5; ++i) done = conv.forward(xt, y, {done});
    EXPECT_EQ(test::blocking_calls().total(), before.total());
    expect_matches(y.to_host({done}), reference_conv(s, x, w, b), conv_tolerance(s), "own workspace");
    expect_matches(first, reference_conv(s, x, w, b), conv_tolerance(s), "first forward");
}

// The strategies a training step's weights tests run: one that packs the
// weights (the implicit GEMM, stride 2), one that transforms them (Winograd's
// U) and one that reads them as they are (gemm-1x1), each on a small layer
// with a bias.
struct WeightsCase {
    Variant variant;
    Kernel kernel;
    std::int64_t R, stride;

    ConvShapes shapes() const {
        ConvShapes s;
        s.N = 2, s.C = 5, s.H = 9, s.W = 8, s.K = 7, s.R = s.S = R, s.stride_h = s.stride_w = stride;
        s.bias = true;
        s.set_padding(R / 2);
        return s;
    }
    Conv2dOptions options() const {
        Conv2dOptions o = Conv2dOptions::for_shapes(shapes());
        o.strategy = kernel;
        o.variant = variant;
        return o;
    }
};
const WeightsCase kWeightsCases[] = {{Variant("implicit-gemm"), Kernel::IM2COL, 3, 2},
                                     {Variant("wino-f2-gemm"), Kernel::CONV2D_WINOGRAD, 3, 1},
                                     {Variant("gemm-1x1"), Kernel::IM2COL, 1, 1}};

// A training step: new weights from the caller's device buffer every step, set_weights copying them
// into the layer's own buffer (in place on an in-order queue, a fresh one out of order), the forward
// after each on that step's weights -- for an implementation that packs them (the implicit GEMM), one
// that transforms them (Winograd's U) and one that reads them as they are (gemm-1x1). The caller
// overwrites its buffer right after set_weights, before the forward: the layer's copy was taken at
// set_weights. Then without waiting: forward on A's weights, set_weights(B), forward on B's, both
// in flight together; each output is its own weights'.
TEST(FrameworkPathQueues, DeviceWeightsNewEveryStepAreTheStepsOwn) {
    for (const cl_command_queue_properties properties :
         {cl_command_queue_properties{0}, cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE}}) {
        FrameworkDevice fw(properties);
        auto ctx = Context::wrap(fw.context, fw.device, fw.queue);
        const std::string queue = properties ? "out-of-order queue" : "in-order queue";
        std::uint64_t seed = 400;
        for (const WeightsCase& c : kWeightsCases) {
            const ConvShapes s = c.shapes();
            Conv2d conv(ctx, c.options());
            const double tolerance = conv_tolerance(s, tolerance_factor(c.variant));
            const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), ++seed);
            const Tensor xt = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
            const std::size_t w_floats = static_cast<std::size_t>(s.weight_numel());
            const std::size_t set_floats = w_floats + static_cast<std::size_t>(s.K);
            // Two sets of weights and bias in the caller's buffer, A then B.
            cl_mem buffer = fw.buffer(2 * set_floats * sizeof(float));
            const auto weights_view = [&](int set) {
                return Tensor::view(ctx, buffer, set * set_floats * sizeof(float), {s.K, s.C, s.R, s.S});
            };
            const auto bias_view = [&](int set) {
                return Tensor::view(ctx, buffer, (set * set_floats + w_floats) * sizeof(float), {s.K});
            };
            for (int step = 0; step < 3; ++step) {
                const auto w = random_uniform(w_floats, ++seed);
                const auto b = random_uniform(static_cast<std::size_t>(s.K), ++seed);
                fw.write(buffer, 0, w);
                fw.write(buffer, w_floats, b);
                const Tensor wt = weights_view(0), bt = bias_view(0);
                const cl::Event copied = conv.set_weights(wt, &bt);
                // The caller's next step begins: its buffer changes before this step's forward runs. Out of
                // order, that change must come after the copy: its event, the one set_weights returns, covers
                // the bias's copy too (ConvLayer.hpp; without a wait the caller's write had run first in CI and
                // the layer copied its NaNs).
                if (properties != 0) {
                    copied.wait();
                }
                fw.write(buffer, 0, std::vector<float>(w_floats, std::numeric_limits<float>::quiet_NaN()));
                fw.write(buffer, w_floats, std::vector<float>(s.K, std::numeric_limits<float>::quiet_NaN()));
                Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
                const cl::Event done = conv.forward(xt, y);
                expect_matches(y.to_host({done}), reference_conv(s, x, w, b), tolerance,
                               queue + ", " + c.variant.id + " step " + std::to_string(step));
                EXPECT_EQ(conv.last_plan().variant, c.variant);
            }
            // The weights' copy waits for the bias's (and for the caller's events), so that the event
            // set_weights returns covers both on an out-of-order queue, where PoCL may run them in turn anyway.
            {
                const Tensor wt = weights_view(0), bt = bias_view(0);
                const std::size_t before = test::copy_wait_lists().size();
                conv.set_weights(wt, &bt).wait();
                std::vector<std::size_t> waits = test::copy_wait_lists();
                ASSERT_EQ(waits.size(), before + 2);
                EXPECT_EQ(waits[before], 0u);
                EXPECT_EQ(waits[before + 1], 1u) << queue << ": the weights' copy does not wait for the bias's";
                const cl::Event ready = conv.set_weights(wt, &bt);
                conv.set_weights(wt, &bt, {ready}).wait();
                waits = test::copy_wait_lists();
                ASSERT_EQ(waits.size(), before + 6);
                EXPECT_EQ(waits[before + 4], 1u);
                EXPECT_EQ(waits[before + 5], 2u);
            }
            std::vector<float> wa = random_uniform(w_floats, ++seed), ba = random_uniform(s.K, ++seed);
            std::vector<float> wb = random_uniform(w_floats, ++seed), bb = random_uniform(s.K, ++seed);
            fw.write(buffer, 0, wa);
            fw.write(buffer, w_floats, ba);
            fw.write(buffer, set_floats, wb);
            fw.write(buffer, set_floats + w_floats, bb);
            const Tensor wat = weights_view(0), bat = bias_view(0), wbt = weights_view(1), bbt = bias_view(1);
            Tensor ya = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()}), yb = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
            conv.set_weights(wat, &bat);
            const cl::Event a_done = conv.forward(xt, ya);
            conv.set_weights(wbt, &bbt);  // no wait: forward(A) may still be queued or running
            const cl::Event b_done = conv.forward(xt, yb);
            expect_matches(ya.to_host({a_done}), reference_conv(s, x, wa, ba), tolerance,
                           queue + ", " + c.variant.id + ": the forward queued before set_weights(B)");
            expect_matches(yb.to_host({b_done}), reference_conv(s, x, wb, bb), tolerance,
                           queue + ", " + c.variant.id + ": the forward after set_weights(B)");
            clReleaseMemObject(buffer);
        }
    }
}

// borrow_weights (cuDNN's and oneDNN's weights per call): the layer reads the
// caller's buffers in its runs, with no copy, in every strategy that derives
// something from them (Winograd's U, the implicit GEMM's panels) and in
// backward data (rotated filters); each borrow of new values is a new step.
// A set_weights after a borrow copies into a buffer of the layer's own, never
// into the caller's; bad tensors get the same errors, named after the call.
TEST(FrameworkPathQueues, BorrowedWeightsAreReadInPlaceEveryStep) {
    FrameworkDevice fw;
    auto ctx = Context::wrap(fw.context, fw.device, fw.queue);
    std::uint64_t seed = 700;
    for (const WeightsCase& c : kWeightsCases) {
        const ConvShapes s = c.shapes();
        Conv2d conv(ctx, c.options());
        const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), ++seed);
        const auto dy = random_uniform(static_cast<std::size_t>(s.output_numel()), ++seed);
        const Tensor xt = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
        const Tensor dyt = Tensor::from_host(ctx, dy, {s.N, s.K, s.P(), s.Q()});
        const std::size_t w_floats = static_cast<std::size_t>(s.weight_numel());
        cl_mem buffer = fw.buffer((w_floats + static_cast<std::size_t>(s.K)) * sizeof(float));
        const Tensor wt = Tensor::view(ctx, buffer, 0, {s.K, s.C, s.R, s.S});
        const Tensor bt = Tensor::view(ctx, buffer, w_floats * sizeof(float), {s.K});
        for (int step = 0; step < 3; ++step) {
            const auto w = random_uniform(w_floats, ++seed);
            const auto b = random_uniform(static_cast<std::size_t>(s.K), ++seed);
            fw.write(buffer, 0, w);
            fw.write(buffer, w_floats, b);
            const std::size_t copies = test::copy_wait_lists().size();
            conv.borrow_weights(wt, &bt);
            EXPECT_EQ(test::copy_wait_lists().size(), copies) << c.variant.id << ": borrow_weights copied";
            Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
            Tensor dx = Tensor::empty(ctx, {s.N, s.C, s.H, s.W});
            y.fill(std::numeric_limits<float>::quiet_NaN());
            dx.fill(std::numeric_limits<float>::quiet_NaN());
            const cl::Event y_done = conv.forward(xt, y);
            const cl::Event dx_done = conv.backward_data(dyt, dx);
            const std::string what = c.variant.id + " step " + std::to_string(step);
            expect_matches(y.to_host({y_done}), reference_conv(s, x, w, b),
                           conv_tolerance(s, tolerance_factor(c.variant)), what);
            const Plan& dgrad = conv.last_plan();
            expect_matches(dx.to_host({dx_done}), reference_conv_backward_data(s, dy, w),
                           conv_tolerance(s, tolerance_factor(dgrad.variant)), what + ", dx by " + dgrad.variant.id);
            // The step is over (the events waited for): the caller may change its buffer.
        }
        // set_weights after a borrow: the layer's own copy, the caller's buffer left as it was.
        const std::vector<float> before = fw.read(buffer, 0, w_floats, nullptr);
        const std::vector<float> own = random_uniform(w_floats, ++seed);
        const std::vector<float> own_b = random_uniform(static_cast<std::size_t>(s.K), ++seed);
        const Tensor own_w = Tensor::from_host(ctx, own, {s.K, s.C, s.R, s.S});
        const Tensor own_bt = Tensor::from_host(ctx, own_b, {s.K});
        conv.set_weights(own_w, &own_bt);
        Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
        const cl::Event done = conv.forward(xt, y);
        EXPECT_EQ(fw.read(buffer, 0, w_floats, nullptr), before) << c.variant.id << ": set_weights wrote the borrowed buffer";
        expect_matches(y.to_host({done}), reference_conv(s, x, own, own_b), conv_tolerance(s, tolerance_factor(c.variant)),
                       c.variant.id + " after set_weights");
        clReleaseMemObject(buffer);
    }
    Conv2d small(ctx, {.in_channels = 2, .out_channels = 3, .kernel = {1, 1}, .bias = true});
    const Tensor short_w = Tensor::from_host(ctx, std::vector<float>(5, 1.0f), {5});
    const Tensor bias3 = Tensor::from_host(ctx, std::vector<float>(3, 1.0f), {3});
    try {
        small.borrow_weights(short_w, &bias3);
        ADD_FAILURE() << "a 5-float weight tensor was borrowed for 6";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Conv2d::borrow_weights: the weight tensor holds 5 floats"),
                  std::string::npos)
            << e.what();
    }
}

// A training forward on im2col-gemm's panels reads the caller's borrowed
// weights where they lie (im2col_gemm_training_weights_in_place): a view 12
// bytes into the caller's buffer, new values every step, no copy and no pack;
// the buffer's floats before the view are NaN, so a read that ignored the
// offset would show.
TEST(FrameworkPathQueues, BorrowedWeightsAtAnOffsetAreReadInPlaceByATrainingForward) {
    FrameworkDevice fw;
    auto ctx = test::with_every_implementation(Context::wrap(fw.context, fw.device, fw.queue));
    DeviceProfile profile = ctx->profile();
    profile.tuned["im2col_gemm_panels_max_pixels"] = 196;
    profile.tuned["im2col_gemm_training_weights_in_place"] = 1;
    ctx->set_profile(profile);
    const WeightsCase c{Variant("im2col-gemm"), Kernel::IM2COL, 3, 2};  // 5x4 outputs, bias
    const ConvShapes s = c.shapes();
    Conv2d conv(ctx, c.options());
    conv.set_training(true);
    const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 7100);
    const Tensor xt = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
    const std::size_t lead = 3, w_floats = static_cast<std::size_t>(s.weight_numel());
    cl_mem buffer = fw.buffer((lead + w_floats + static_cast<std::size_t>(s.K)) * sizeof(float));
    fw.write(buffer, 0, std::vector<float>(lead, std::numeric_limits<float>::quiet_NaN()));
    const Tensor wt = Tensor::view(ctx, buffer, lead * sizeof(float), {s.K, s.C, s.R, s.S});
    const Tensor bt = Tensor::view(ctx, buffer, (lead + w_floats) * sizeof(float), {s.K});
    for (int step = 0; step < 2; ++step) {
        const auto w = random_uniform(w_floats, 7200 + static_cast<std::uint64_t>(step));
        const auto b = random_uniform(static_cast<std::size_t>(s.K), 7300 + static_cast<std::uint64_t>(step));
        fw.write(buffer, lead, w);
        fw.write(buffer, lead + w_floats, b);
        const std::size_t copies = test::copy_wait_lists().size();
        conv.borrow_weights(wt, &bt);
        Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
        y.fill(std::numeric_limits<float>::quiet_NaN());
        const cl::Event done = conv.forward(xt, y);
        EXPECT_EQ(test::copy_wait_lists().size(), copies) << "step " << step << ": the weights were copied";
        EXPECT_NE(conv.last_plan().config.find("weights read in place"), std::string::npos) << conv.last_plan().str();
        expect_matches(y.to_host({done}), reference_conv(s, x, w, b), conv_tolerance(s),
                       "im2col-gemm, weights in place, step " + std::to_string(step));
    }
    clReleaseMemObject(buffer);
}

TEST(FrameworkPathErrors, WrapAndViewRefuseWhatTheyCannotUse) {
    FrameworkDevice fw, other;
    const auto expect_error = [](const std::function<void()>& f, const std::string& fragment) {
        try {
            f();
            ADD_FAILURE() << "expected a netcl::Error mentioning '" << fragment << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    expect_error([&] { Context::wrap(nullptr, fw.device, fw.queue); }, "null cl_context");
    expect_error([&] { Context::wrap(fw.context, fw.device, nullptr); }, "null cl_command_queue");
    expect_error([&] { Context::wrap(other.context, fw.device, fw.queue); }, "belongs to another cl_context");
    auto ctx = Context::wrap(fw.context, fw.device, fw.queue);
    cl_mem mine = fw.buffer(400), theirs = other.buffer(400);
    expect_error([&] { Tensor::view(ctx, nullptr, 0, {4}); }, "null cl_mem");
    expect_error([&] { Tensor::view(ctx, theirs, 0, {4}); }, "another cl_context");
    expect_error([&] { Tensor::view(ctx, mine, 6, {4}); }, "not a multiple of 4");
    expect_error([&] { Tensor::view(ctx, mine, 304, {25}); }, "runs past the end of a 400-byte buffer");
    const Tensor fits = Tensor::view(ctx, mine, 300, {25});
    EXPECT_EQ(fits.offset(), 75u);
    EXPECT_TRUE(fits.is_view());
    // Overlapping input and output views are refused.
    Conv2d conv(ctx, {.in_channels = 1, .out_channels = 1, .kernel = {1, 1}, .bias = false});
    conv.set_weights(std::vector<float>{1.0f});
    const Tensor x = Tensor::view(ctx, mine, 0, {1, 1, 5, 5});
    Tensor y = Tensor::view(ctx, mine, 96, {1, 1, 5, 5});  // floats 24..48 overlap x's 0..24
    expect_error([&] { conv.forward(x, y); }, "overlaps the input");
    clReleaseMemObject(mine);
    clReleaseMemObject(theirs);
}

// netcl retains the caller's handles and releases only its own references:
// after the Context is gone the framework's objects are still valid.
TEST(FrameworkPathErrors, WrappedHandlesOutliveTheContext) {
    FrameworkDevice fw;
    cl_uint before = 0, after = 0;
    clGetContextInfo(fw.context, CL_CONTEXT_REFERENCE_COUNT, sizeof before, &before, nullptr);
    {
        auto ctx = Context::wrap(fw.context, fw.device, fw.queue);
        cl_uint during = 0;
        clGetContextInfo(fw.context, CL_CONTEXT_REFERENCE_COUNT, sizeof during, &during, nullptr);
        EXPECT_GT(during, before);
    }
    clGetContextInfo(fw.context, CL_CONTEXT_REFERENCE_COUNT, sizeof after, &after, nullptr);
    EXPECT_EQ(after, before);
    cl_uint queue_refs = 0;
    EXPECT_EQ(clGetCommandQueueInfo(fw.queue, CL_QUEUE_REFERENCE_COUNT, sizeof queue_refs, &queue_refs, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(queue_refs, 1u);
}

// Training (set_training, PyTorch's train()): the forward is planned for new
// weights every run, under its own plan (" training" in the problem), and
// computes the same values as inference. With the profile's training rules
// (pocl-cpu-avx512-intel's values, set here so that every device plans
// alike) res5's 3x3 shape at 7x7 leaves Winograd, whose U would be
// transformed every step, for the GEMM engine; eval() goes back to the
// inference plan, kept. Each mode's steps take new weights.
TEST(FrameworkPathTraining, TrainingPlansItsOwnForwardWithTheSameValues) {
    const auto ctx = test::context_with_profile([](DeviceProfile& p) {
        p.tuned["winograd_min_channels"] = 16, p.tuned["winograd_min_filters"] = 16, p.tuned["winograd_min_output"] = 0;
        p.tuned["naive_max_flops"] = 0, p.tuned["naive_max_output_pixels"] = 0;
        p.tuned["direct_rows_max_channels"] = 0, p.tuned["im2col_gemm_max_reduction"] = 0, p.tuned["im2col_min_flops"] = 0;
        p.tuned["winograd_training_min_tiles"] = 48, p.tuned["im2col_gemm_training_max_columns"] = 196;
    });
    ConvShapes s;
    s.N = 1, s.C = 32, s.H = 7, s.W = 7, s.K = 24, s.R = s.S = 3, s.bias = true;
    s.set_padding(1);
    Conv2d conv(ctx, Conv2dOptions::for_shapes(s));
    EXPECT_FALSE(conv.training());
    const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 900);
    const Tensor xt = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
    std::uint64_t seed = 901;
    const auto step = [&](const std::string& what) {
        const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), ++seed);
        const auto b = random_uniform(static_cast<std::size_t>(s.K), ++seed);
        conv.set_weights(w, b);
        Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
        y.fill(std::numeric_limits<float>::quiet_NaN());
        const cl::Event done = conv.forward(xt, y);
        const Plan& plan = conv.last_plan();
        expect_matches(y.to_host({done}), reference_conv(s, x, w, b),
                       conv_tolerance(s, tolerance_factor(plan.variant)), what + " by " + plan.variant.id);
        return plan;
    };
    const Plan inference = step("inference");
    EXPECT_EQ(inference.kernel, Kernel::CONV2D_WINOGRAD) << inference.str();
    conv.set_training(true);
    EXPECT_TRUE(conv.training());
    EXPECT_NE(conv.shapes_for(xt.shape()).str().find(" training"), std::string::npos);
    EXPECT_EQ(conv.shapes_for(xt.shape(), ConvDirection::BACKWARD_DATA).training, false);
    for (int i = 0; i < 2; ++i) {
        const Plan training = step("training step " + std::to_string(i));
        EXPECT_EQ(training.kernel, Kernel::IM2COL) << training.str();
    }
    const Decision d = KernelSelector::global().explain("conv2d", conv.shapes_for(xt.shape()),
                                                        KernelSelector::resolve_profile(ctx->profile()));
    EXPECT_NE(d.str().find("16 F(2x2) tiles in the batch < winograd_training_min_tiles 48"), std::string::npos)
        << d.str();
    conv.set_training(false);
    EXPECT_EQ(step("inference again").variant, inference.variant);
}

}  // namespace
}  // namespace netcl
