// The output stage (ops/netcl/PostOps.hpp): every forward variant applies
// bias, a residual sum and an activation as it writes y, checked against the
// fp64 reference with the same post-ops applied in double.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "netcl/Conv2d.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

// A layer whose edge tiles every implementation must treat with care: K =
// 10 and P·Q = 185 are off every row and column block (the GEMM engine's
// last tiles are shifted back to overlap their neighbour, which under the
// sum post-op must not add the residual twice), Q = 37 is wider than the
// direct-rows tile, N = 2, asymmetric padding. 3x3, else 5x5, else 1x1:
// what the variant takes.
std::optional<ConvShapes> layer_for(const Variant& variant, const PostOps& post_ops) {
    ConvShapes s;
    s.N = 2, s.C = 5, s.H = 5, s.W = 37, s.K = 10, s.R = 3, s.S = 3, s.set_padding(1, 0, 1, 2), s.bias = true;
    s.post_ops = post_ops;
    const DeviceProfile& profile = shared_context()->profile();
    if (why_not(variant, s, profile)) s.R = s.S = 5, s.set_padding(2, 1, 2, 3);
    if (why_not(variant, s, profile)) s.R = s.S = 1, s.set_padding(0);
    if (why_not(variant, s, profile)) return std::nullopt;
    return s;
}

// Every forward implementation's stores with bias + residual + leaky ReLU
// (both of its branches taken: about half the outputs are negative), and a
// clamp that cuts both ends without a sum on the direct and GEMM kernels.
// Of the fused Winograd variants, one of each kernel shape (the others
// differ in block sizes and U's address space, not in their stores): each
// post-op set is a program build, a few seconds on PoCL.
bool store_coverage(const Variant& v) {
    if (v.id.rfind("wino-", 0) != 0) return true;
    return v.id.find("-gemm") != std::string::npos || v.id == "wino-f2-lowlocal-global" || v.id == "wino-f4-fused-global";
}

TEST(ConvPostOps, EveryForwardVariantAppliesThemAsItWrites) {
    int ran = 0;
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const Variant& variant : impl->variants()) {
            if (!store_coverage(variant)) continue;
            std::vector<PostOps> cases = {PostOps::leaky_relu(0.125f).with_sum()};
            if (impl->kernel() != Kernel::CONV2D_WINOGRAD) cases.push_back(PostOps::clamp(-0.25f, 0.5f));
            for (const PostOps& post_ops : cases) {
                const auto s = layer_for(variant, post_ops);
                if (!s || why_not(variant, *s, shared_context()->profile())) continue;
                ++ran;
                const auto result = run_conv_case(*s, impl->kernel(), variant, 7, tolerance_factor(variant));
                EXPECT_TRUE(result.passed()) << variant.id << " " << post_ops.str() << ": " << describe(*s, result);
            }
        }
    }
    // naive, direct-rows, gemm-1x1, implicit-gemm, im2col-clblast and
    // im2col-gemm twice each, 2 fused and 6 separate-transform Winograd.
    EXPECT_GE(ran, 18);
}

// Separate-transform Winograd writes y from one of three output transforms
// (a tile a work-item, a tile row's tiles in a vector's lanes, a group of
// channels in a vector's lanes after the transposed multiply): each, forced
// by the profile, with the residual and the activation.
TEST(ConvPostOps, EachWinogradOutputTransformAppliesThem) {
    const std::vector<std::pair<std::string, std::function<void(DeviceProfile&)>>> transforms = {
        {"a tile a work-item", [](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = 0, p.tuned["winograd_transform_lanes"] = 0; }},
        {"tiles a work-item", [](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = 0, p.tuned["winograd_transform_lanes"] = 8; }},
        {"channels a work-item", [](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = 1; }},
    };
    ConvShapes s;
    s.N = 2, s.C = 8, s.H = 9, s.W = 37, s.K = 12, s.R = 3, s.S = 3, s.set_padding(1, 0, 1, 2), s.bias = true;
    s.post_ops = PostOps::leaky_relu(0.25f).with_sum();
    for (const auto& [name, edit] : transforms) {
        ConvCaseOptions o;
        o.strategy = Kernel::CONV2D_WINOGRAD;
        o.variant = Variant("wino-f4-gemm");
        o.tolerance_factor = tolerance_factor(*o.variant);
        o.seed = 9;
        o.context = context_with_profile(edit);
        const auto result = run_conv_case(s, o);
        EXPECT_TRUE(result.passed()) << name << ": " << describe(s, result);
        if (name != "a tile a work-item") {
            EXPECT_NE(result.plan.config.find(name), std::string::npos) << result.plan.config;
        }
    }
}

// A C split over slices: the fused Winograd kernel writes partial sums to
// its workspace and the reduction applies the post-ops (the slices must not).
TEST(ConvPostOps, WinogradSlicesOfCApplyThemOnceInTheReduction) {
    ConvShapes s;
    s.N = 1, s.C = 512, s.H = 7, s.W = 9, s.K = 24, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    s.post_ops = PostOps::relu().with_sum();
    Variant v = winograd_variant_id(6, false, false);
    if (why_not(v, s, shared_context()->profile())) v = winograd_variant_id(6, true, false);
    const auto result = run_conv_case(s, Kernel::CONV2D_WINOGRAD, v, 31, tolerance_factor(v));
    EXPECT_TRUE(result.passed()) << describe(s, result);
    EXPECT_NE(result.plan.config.find("C split in"), std::string::npos) << result.plan.config;
}

// ReLU and ReLU6 on the selector's own plans, and on im2col + CLBlast, whose
// activation runs in a pass after CLBlast's GEMM (the residual in the GEMM).
TEST(ConvPostOps, ReluAndRelu6OnTheSelectorsPlansAndOnClblast) {
    ConvShapes s;
    s.N = 3, s.C = 16, s.H = 14, s.W = 14, s.K = 24, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    for (const PostOps& post_ops : {PostOps::relu(), PostOps::relu6().with_sum()}) {
        s.post_ops = post_ops;
        const auto chosen = run_conv_case(s);
        EXPECT_TRUE(chosen.passed()) << describe(s, chosen);
        const auto clblast = run_conv_case(s, Kernel::IM2COL, Variant("im2col-clblast"));
        EXPECT_TRUE(clblast.passed()) << describe(s, clblast);
    }
}

Conv2dOptions small_layer(PostOps post_ops) {
    Conv2dOptions o;
    o.in_channels = 3, o.out_channels = 4, o.kernel = {3, 3}, o.padding = 1, o.bias = true;
    o.post_ops = post_ops;
    return o;
}

// The residual overload: a residual held elsewhere is copied into y first,
// left untouched itself; y given as its own residual is the in-place sum.
TEST(ConvPostOps, ResidualFromAnotherTensorOrInPlace) {
    auto ctx = shared_context();
    Conv2dOptions o = small_layer(PostOps::relu().with_sum());
    ConvShapes s;
    s.N = 2, s.C = 3, s.H = 6, s.W = 5, s.K = 4, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    s.post_ops = o.post_ops;
    Conv2d conv(ctx, o);
    const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 1);
    const auto b = random_uniform(4, 2);
    const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 3);
    const auto r = random_uniform(static_cast<std::size_t>(s.output_numel()), 4);
    conv.set_weights(w, b);
    const Tensor input = Tensor::from_host(ctx, x, {2, 3, 6, 5});
    const Tensor residual = Tensor::from_host(ctx, r, {2, 4, 6, 5});
    const auto expected = reference_post_ops(s.post_ops, reference_conv(s, x, w, b), r);
    const double tolerance = conv_tolerance(s, 1.0);

    Tensor y = Tensor::empty(ctx, {2, 4, 6, 5});
    y.fill(std::numeric_limits<float>::quiet_NaN());
    conv.forward(input, residual, y);
    const Comparison apart = compare(y.to_host(), expected);
    EXPECT_EQ(apart.non_finite, 0u);
    EXPECT_LE(apart.max_abs_error, tolerance);
    EXPECT_EQ(residual.to_host(), r);  // read, not written

    Tensor in_place = Tensor::from_host(ctx, r, {2, 4, 6, 5});
    conv.forward(input, in_place, in_place);
    const Comparison same = compare(in_place.to_host(), expected);
    EXPECT_EQ(same.non_finite, 0u);
    EXPECT_LE(same.max_abs_error, tolerance);
}

TEST(ConvPostOps, BadInputIsAnErrorThatWritesNothing) {
    auto ctx = shared_context();
    const Tensor input = Tensor::from_host(ctx, random_uniform(2 * 3 * 6 * 5, 3), {2, 3, 6, 5});
    const std::vector<float> sentinel(2 * 4 * 6 * 5, 42.0f);
    {
        Conv2d conv(ctx, small_layer(PostOps::relu()));  // no sum
        conv.set_weights(random_uniform(4 * 3 * 9, 1), random_uniform(4, 2));
        const Tensor residual = Tensor::from_host(ctx, sentinel, {2, 4, 6, 5});
        Tensor y = Tensor::from_host(ctx, sentinel, {2, 4, 6, 5});
        expect_error([&] { conv.forward(input, residual, y); }, {"without the sum post-op", "post_ops.sum"});
        EXPECT_EQ(y.to_host(), sentinel);
    }
    {
        Conv2d conv(ctx, small_layer(PostOps::relu().with_sum()));
        conv.set_weights(random_uniform(4 * 3 * 9, 1), random_uniform(4, 2));
        const Tensor wrong = Tensor::from_host(ctx, sentinel.data(), 2 * 4 * 6 * 4, {2, 4, 6, 4});
        Tensor y = Tensor::from_host(ctx, sentinel, {2, 4, 6, 5});
        expect_error([&] { conv.forward(input, wrong, y); }, {"residual", "[2, 4, 6, 5]"});
        EXPECT_EQ(y.to_host(), sentinel);
        // A residual overlapping y without being it.
        Tensor big = Tensor::from_host(ctx, std::vector<float>(2 * 4 * 6 * 5 + 1, 42.0f), {2 * 4 * 6 * 5 + 1});
        Tensor y_view = Tensor::view(ctx, big.buffer()(), 0, {2, 4, 6, 5});
        const Tensor shifted = Tensor::view(ctx, big.buffer()(), sizeof(float), {2, 4, 6, 5});
        expect_error([&] { conv.forward(input, shifted, y_view); }, {"overlaps"});
        EXPECT_EQ(big.to_host(), std::vector<float>(2 * 4 * 6 * 5 + 1, 42.0f));
    }
    expect_error([&] { Conv2d(ctx, small_layer(PostOps::clamp(1.0f, -1.0f))); }, {"clamp", "lower <= upper"});
    expect_error([&] { Conv2d(ctx, small_layer(PostOps::leaky_relu(std::numeric_limits<float>::infinity()))); },
                 {"leaky_relu", "finite"});
    ConvShapes backward;
    backward.C = 3, backward.K = 4, backward.H = 5, backward.W = 5;
    backward.direction = ConvDirection::BACKWARD_DATA;
    backward.post_ops = PostOps::relu();
    expect_error([&] { backward.validate(); }, {"post-ops", "forward only"});
}

// The gradients of a layer with post-ops are the convolution's own (the
// caller applies the activation's derivative to dy first, as with oneDNN).
TEST(ConvPostOps, TheGradientsAreTheConvolutionsAlone) {
    auto ctx = shared_context();
    Conv2d conv(ctx, small_layer(PostOps::leaky_relu(0.5f).with_sum()));
    ConvShapes s;
    s.N = 2, s.C = 3, s.H = 6, s.W = 5, s.K = 4, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 1);
    const auto dy = random_uniform(static_cast<std::size_t>(s.output_numel()), 5);
    conv.set_weights(w, random_uniform(4, 2));
    const Tensor dy_tensor = Tensor::from_host(ctx, dy, {2, 4, 6, 5});
    Tensor dx = Tensor::empty(ctx, {2, 3, 6, 5});
    conv.backward_data(dy_tensor, dx);
    const Comparison c = compare(dx.to_host(), reference_conv_backward_data(s, dy, w));
    EXPECT_EQ(c.non_finite, 0u);
    EXPECT_LE(c.max_abs_error, conv_tolerance(s, 1.0));
    EXPECT_EQ(conv.last_plan().reason.find("post"), std::string::npos) << conv.last_plan().reason;
}

// NaN passes through every activation, as in PyTorch (fmax would have
// turned it into 0 under ReLU): one input pixel NaN, the outputs it reaches
// NaN, the rest finite.
TEST(ConvPostOps, NanPassesThroughTheActivation) {
    auto ctx = shared_context();
    for (const PostOps& post_ops : {PostOps::relu(), PostOps::relu6(), PostOps::leaky_relu(0.1f)}) {
        Conv2dOptions o = small_layer(post_ops);
        o.strategy = Kernel::CONV2D_NAIVE;
        Conv2d conv(ctx, o);
        conv.set_weights(random_uniform(4 * 3 * 9, 1), random_uniform(4, 2));
        auto x = random_uniform(3 * 6 * 5, 3);
        x[2 * 5 + 2] = std::numeric_limits<float>::quiet_NaN();  // channel 0, row 2, column 2
        const Tensor y = conv.forward(Tensor::from_host(ctx, x, {1, 3, 6, 5}));
        const auto out = y.to_host();
        for (int k = 0; k < 4; ++k) {
            for (int p = 0; p < 6; ++p) {
                for (int q = 0; q < 5; ++q) {
                    const bool reached = std::abs(p - 2) <= 1 && std::abs(q - 2) <= 1;
                    EXPECT_EQ(std::isnan(out[(k * 6 + p) * 5 + q]), reached)
                        << post_ops.str() << " k=" << k << " p=" << p << " q=" << q;
                }
            }
        }
    }
}

// The post-ops are part of the problem: the plan's shapes and explain() name them.
TEST(ConvPostOps, ThePlanNamesThem) {
    ConvShapes s;
    s.C = 8, s.H = 8, s.W = 8, s.K = 8, s.R = 3, s.S = 3, s.set_padding(1);
    s.post_ops = PostOps::relu6().with_sum();
    EXPECT_NE(s.str().find("post=sum+clamp(0,6)"), std::string::npos) << s.str();
    const std::string text = KernelSelector::global().explain("conv2d", s, shared_context()->profile()).str();
    EXPECT_NE(text.find("post=sum+clamp(0,6)"), std::string::npos) << text;
}

}  // namespace
}  // namespace netcl::test
