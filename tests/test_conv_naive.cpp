// CONV2D_NAIVE's variants against the fp64 reference: the naive kernel on the
// edge-case table and 200 random small shapes (fixed seed); direct-rows (the
// row-vectorised direct convolution) on the edge table, random shapes, its
// tile at every vector width and in passes under a workspace limit, and with
// its outputs streamed past the caches.
// Tolerance: conv_tolerance(shapes) = 1e-6 x (C/groups·R·S + bias), see
// ops/ReferenceConv.hpp.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <tuple>

#include "netcl/Conv2d.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "ops/direct_rows/DirectRowsConfig.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

TEST(ConvNaive, EdgeCaseShapesMatchReference) {
    std::uint64_t seed = 100;
    for (const ConvShapes& s : edge_case_shapes()) {
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, Variant("naive"), seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.kernel, Kernel::CONV2D_NAIVE) << s.str();
        EXPECT_EQ(r.workspace_bytes, 0u) << s.str();
    }
}

TEST(ConvNaive, RandomSmallShapesMatchReference) {
    std::mt19937_64 rng(20261122);
    for (int i = 0; i < 200; ++i) {
        const ConvShapes s = random_small_shape(rng);
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, Variant("naive"), 1000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
}

TEST(ConvNaive, BiasIsAddedOncePerOutputChannel) {
    // The same layer with and without bias must differ by exactly the bias:
    // checked through the reference, which the previous tests tie the kernel to.
    ConvShapes s;
    s.N = 3, s.C = 5, s.H = 7, s.W = 13, s.K = 6, s.R = 3, s.S = 3, s.set_padding(1);
    for (const bool bias : {false, true}) {
        s.bias = bias;
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, std::nullopt, 7);
        EXPECT_TRUE(r.passed()) << describe(s, r);
    }
}

TEST(ConvNaive, LargerLayerMatchesSampledReference) {
    // A VGG-like layer, checked on 2000 sampled outputs (plus a scan of all
    // outputs for NaN poison) the way netcl-bench checks full-size layers.
    const ConvCaseResult r = run_sampled_vgg_like_case(Kernel::CONV2D_NAIVE, 41);
    EXPECT_TRUE(r.passed()) << describe(sampled_vgg_like_shape(), r);
    EXPECT_EQ(r.compared, 2000u);
}

// direct-rows by strict override on `context`.
ConvCaseResult run_direct_rows(const ConvShapes& s, const std::shared_ptr<Context>& context, std::uint64_t seed) {
    ConvCaseOptions options;
    options.strategy = Kernel::CONV2D_NAIVE;
    options.variant = Variant("direct-rows");
    options.seed = seed;
    options.context = context;
    return run_conv_case(s, options);
}

// direct-rows wherever its why_not lets it: the edge table and random shapes
// (bias on and column strides 1-2 for the random ones, so its builds, one per
// filter width and column stride, stay few), with the workspace it declares.
TEST(ConvDirectRows, EdgeAndRandomShapesMatchReference) {
    const Variant variant("direct-rows");
    // As the layer plans: the stored profiles under the context's own values (the tile may be the profile's).
    const DeviceProfile profile = KernelSelector::global().resolve_profile(shared_context()->profile());
    std::uint64_t seed = 1500;
    int ran = 0;
    for (const ConvShapes& s : edge_case_shapes()) {
        if (why_not(variant, s, profile)) continue;
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, variant, seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.variant, variant) << s.str();
        EXPECT_EQ(r.workspace_bytes, implementation_of(variant).workspace_bytes(variant, s, profile)) << s.str();
        ++ran;
    }
    EXPECT_GE(ran, 15) << "direct-rows took too few edge shapes";
    std::mt19937_64 rng(20261123);
    ran = 0;
    for (int i = 0; i < 160; ++i) {
        ConvShapes s = random_small_shape(rng);
        s.bias = true;
        s.stride_w = std::min<std::int64_t>(s.stride_w, 2);
        if (why_not(variant, s, profile)) continue;
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, variant, 5000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
        ++ran;
    }
    EXPECT_GE(ran, 60) << "direct-rows took too few random shapes";
}

// Its tile at every vector width, whatever this device's profile picks: rows
// narrower than the tile (lane stores, reads into the split copy's zeros), a
// row wider than the tile but not a multiple (the shifted-back last tile), K
// off the channel panel, strides 2 and 3, asymmetric padding, a batch in
// passes of one image under a workspace limit.
TEST(ConvDirectRows, TileAtEveryVectorWidthAndInPasses) {
    ConvShapes narrow;  // Q = 5
    narrow.N = 2, narrow.C = 2, narrow.H = 6, narrow.W = 11, narrow.K = 7, narrow.R = 3, narrow.S = 3;
    narrow.stride_h = 1, narrow.stride_w = 2, narrow.set_padding(0, 1, 2, 0), narrow.bias = true;
    ConvShapes wide;  // Q = 37: one full tile of 16 or 32 and a shifted-back last one
    wide.N = 3, wide.C = 3, wide.H = 9, wide.W = 75, wide.K = 10, wide.R = 5, wide.S = 5;
    wide.stride_h = wide.stride_w = 2, wide.set_padding(2, 1, 1, 2), wide.bias = true;
    ConvShapes stride3 = wide;  // Q = 25
    stride3.stride_h = stride3.stride_w = 3, stride3.K = 5;
    std::uint64_t seed = 1700;
    auto context = context_with_profile();  // its own, every implementation on (TestData.hpp)
    const DeviceProfile base = context->profile();
    for (const auto& [mr, nv, vw] : {std::tuple{3, 2, 4}, std::tuple{6, 2, 8}, std::tuple{5, 2, 16}}) {  // 6 x 2 x 8: pocl-cpu.json (AVX2)
        DeviceProfile profile = base;
        set_gemm_tile(profile, "direct_rows", GemmTile{mr, nv, vw, {1, 4}});
        context->set_profile(profile);
        for (const ConvShapes& s : {narrow, wide, stride3}) {
            SCOPED_TRACE(std::to_string(mr) + " channels x float" + std::to_string(vw) + " x " + std::to_string(nv) +
                         ": " + s.str());
            const ConvCaseResult r = run_direct_rows(s, context, ++seed);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            EXPECT_NE(r.plan.config.find("(float" + std::to_string(vw) + ")"), std::string::npos) << r.plan.config;
        }
    }
    context->set_profile(base);
    // Room for one image's split input: a pass per image. The split's width follows the tile the layer plans
    // with, the stored profiles' under the context's own values (pocl-cpu's 6 x 16 on an AVX2 device).
    const std::size_t per_image =
        direct_rows_config(wide, KernelSelector::global().resolve_profile(base)).split_bytes_per_image;
    ConvCaseOptions options;
    options.strategy = Kernel::CONV2D_NAIVE;
    options.variant = Variant("direct-rows");
    options.seed = 1800;
    options.context = context;
    options.workspace_limit_bytes = per_image + sizeof(float);
    const ConvCaseResult r = run_conv_case(wide, options);
    EXPECT_TRUE(r.passed()) << describe(wide, r);
    EXPECT_NE(r.plan.config.find("1 image(s) a pass"), std::string::npos) << r.plan.config;
    EXPECT_EQ(r.workspace_bytes, per_image) << r.plan.config;
    // Under one image's need: refused with the reason, before anything runs.
    DeviceProfile tight = KernelSelector::global().resolve_profile(base);
    tight.tuned["direct_rows_workspace_limit_bytes"] = static_cast<double>(per_image - 1);
    const auto reason = why_not(Variant("direct-rows"), wide, tight);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("the limit is " + std::to_string(per_image - 1)), std::string::npos) << *reason;
}


// STREAM_OUTPUT (kernels_cl/storage.cl): with stream_output_min_bytes 1
// every launch streams, on both tiles (unstrided and strided) at float16 and
// float8: rows of 64 (every vector aligned), rows of 37 (some aligned, some
// not: both branches), K off the channel panel, a ReLU (streamed) and a sum
// (never streamed: it reads y), half storage (never streamed: plain stores);
// then y as a view
// one float into the caller's buffer, NaN around it: every vector misaligned
// by 4 bytes, nothing written outside. And the rule: the launch's bytes
// against the threshold, never with a sum, never at 0, never on a GPU (where
// the suite runs on one, the layers run plain and say so).
// A float16 layer reads its tile under the prefix + "_float16" where the
// profile sets one (pocl-cpu-avx512-intel: 6 x 48 for unstrided rows, where
// 8 x 48 spilled), unstrided and strided apart; float32 keeps its own.
TEST(ConvDirectRows, HalfLayersTakeTheirOwnTileWhereTheProfileSetsOne) {
    ConvShapes unstrided;
    unstrided.N = 2, unstrided.C = 3, unstrided.H = 6, unstrided.W = 53, unstrided.K = 10, unstrided.R = 3,
    unstrided.S = 3;
    unstrided.set_padding(1), unstrided.bias = true;
    ConvShapes strided = unstrided;
    strided.stride_h = strided.stride_w = 2, strided.R = strided.S = 5, strided.set_padding(2, 1, 1, 2);
    const auto context = context_with_profile([](DeviceProfile& p) {
        set_gemm_tile(p, "direct_rows", GemmTile{4, 2, 8, {1, 4}});
        set_gemm_tile(p, "direct_rows_unstrided", GemmTile{5, 2, 8, {2, 2}});
        set_gemm_tile(p, "direct_rows_float16", GemmTile{2, 2, 8, {1, 4}});
        set_gemm_tile(p, "direct_rows_unstrided_float16", GemmTile{3, 2, 8, {2, 2}});
    });
    std::uint64_t seed = 1950;
    for (const DataType dtype : {DataType::FLOAT32, DataType::FLOAT16}) {
        for (ConvShapes s : {unstrided, strided}) {
            s.dtype = dtype;
            SCOPED_TRACE(s.str());
            const ConvCaseResult r = run_direct_rows(s, context, ++seed);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            const bool half = dtype == DataType::FLOAT16;
            const char* expected = s.stride_w == 1 ? (half ? "3 channels" : "5 channels")
                                                   : (half ? "2 channels" : "4 channels");
            EXPECT_NE(r.plan.config.find(expected), std::string::npos) << r.plan.config;
        }
    }
}

TEST(ConvDirectRows, OutputsStreamedPastTheCaches) {
    ConvShapes rows64;  // stride 1, Q = 64
    rows64.N = 2, rows64.C = 3, rows64.H = 5, rows64.W = 64, rows64.K = 11, rows64.R = 3, rows64.S = 3;
    rows64.set_padding(1), rows64.bias = true;
    ConvShapes rows37;  // stride 2, Q = 37
    rows37.N = 3, rows37.C = 2, rows37.H = 7, rows37.W = 75, rows37.K = 9, rows37.R = 5, rows37.S = 5;
    rows37.stride_h = rows37.stride_w = 2, rows37.set_padding(2, 1, 1, 2), rows37.bias = true;
    ConvShapes relu = rows64;
    relu.post_ops = PostOps::relu();
    ConvShapes sum = rows37;
    sum.post_ops = PostOps::leaky_relu(0.25f).with_sum();
    ConvShapes half = rows37;
    half.dtype = DataType::FLOAT16;
    const auto streaming = [](int vw) {
        return [vw](DeviceProfile& p) {
            p.tuned["stream_output_min_bytes"] = 1;
            set_gemm_tile(p, "direct_rows", GemmTile{4, 2, vw, {1, 4}});
            set_gemm_tile(p, "direct_rows_unstrided", GemmTile{5, 2, vw, {2, 2}});
        };
    };
    const bool cpu = shared_context()->profile().type == DeviceType::CPU;
    std::uint64_t seed = 1900;
    for (const int vw : {16, 8}) {
        const auto context = context_with_profile(streaming(vw));
        for (const ConvShapes& s : {rows64, rows37, relu, sum, half}) {
            SCOPED_TRACE("float" + std::to_string(vw) + ": " + s.str());
            const ConvCaseResult r = run_direct_rows(s, context, ++seed);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            const bool streamed = r.plan.config.find("outputs streamed past the caches") != std::string::npos;
            EXPECT_EQ(streamed, cpu && !s.post_ops.sum && s.dtype == DataType::FLOAT32) << r.plan.config;
            EXPECT_NE(r.plan.config.find(s.stride_w == 1 ? "5 channels" : "4 channels"), std::string::npos)
                << r.plan.config;
        }
    }

    // y one float into the caller's buffer, NaN before and after it.
    const ConvShapes& s = rows64;
    const auto context = context_with_profile(streaming(16));
    const std::size_t ny = s.output_numel(), gap = 5;
    Tensor buffer = Tensor::from_host(context, std::vector<float>(1 + ny + gap, std::numeric_limits<float>::quiet_NaN()),
                                      {static_cast<std::int64_t>(1 + ny + gap)});
    Tensor y = Tensor::view(context, buffer.buffer()(), sizeof(float), {s.N, s.K, s.P(), s.Q()});
    Conv2dOptions options = Conv2dOptions::for_shapes(s);
    options.strategy = Kernel::CONV2D_NAIVE;
    options.variant = Variant("direct-rows");
    Conv2d conv(context, options);
    const auto x = random_uniform(s.input_numel(), 31), w = random_uniform(s.weight_numel(), 32),
               b = random_uniform(static_cast<std::size_t>(s.K), 33);
    conv.set_weights(w, b);
    conv.forward(Tensor::from_host(context, x, {s.N, s.C, s.H, s.W}), y).wait();
    EXPECT_EQ(conv.last_plan().config.find("outputs streamed past the caches") != std::string::npos, cpu);
    const auto all = buffer.to_host();
    EXPECT_TRUE(std::isnan(all.front())) << "the float before y was written";
    for (std::size_t i = 1 + ny; i < all.size(); ++i) EXPECT_TRUE(std::isnan(all[i])) << "past y: " << i;
    const Comparison c = compare(std::vector<float>(all.begin() + 1, all.begin() + 1 + ny), reference_conv(s, x, w, b));
    EXPECT_EQ(c.non_finite, 0u);
    EXPECT_LE(c.max_abs_error, conv_tolerance(s));

    // The rule: one pass of rows64 writes N x K x P x Q floats.
    DeviceProfile p = context->profile();
    p.type = DeviceType::CPU;
    const auto pass_bytes = static_cast<double>(ny * sizeof(float));
    p.tuned["stream_output_min_bytes"] = pass_bytes;
    EXPECT_TRUE(direct_rows_config(s, p).stream_output);
    p.tuned["stream_output_min_bytes"] = pass_bytes + 1;
    EXPECT_FALSE(direct_rows_config(s, p).stream_output);
    p.tuned["stream_output_min_bytes"] = 0;
    EXPECT_FALSE(direct_rows_config(s, p).stream_output);
    p.tuned["stream_output_min_bytes"] = 1;
    EXPECT_FALSE(direct_rows_config(sum, p).stream_output);
    EXPECT_TRUE(direct_rows_config(relu, p).stream_output);
    p.tuned["direct_rows_workspace_limit_bytes"] = static_cast<double>(direct_rows_config(s, p).split_bytes_per_image);
    p.tuned["stream_output_min_bytes"] = pass_bytes;  // a pass of one image: half the layer's output
    EXPECT_EQ(direct_rows_config(s, p).images_per_pass, 1);
    EXPECT_FALSE(direct_rows_config(s, p).stream_output);
    p.tuned["stream_output_min_bytes"] = 1;
    p.type = DeviceType::GPU;
    EXPECT_FALSE(direct_rows_config(relu, p).stream_output);
}

}  // namespace
}  // namespace netcl::test
