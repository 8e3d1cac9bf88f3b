// Conv2d's contract: every bad input is a netcl::Error that says what was
// wrong and what was expected; strict overrides run exactly what they name or
// say why not; weights are re-applied after set_weights; the output is
// written into a caller's tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "netcl/Conv2d.hpp"
#include "netcl/KernelSelector.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "ops/Implementations.hpp"
#include "netcl/Error.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

Conv2dOptions layer(std::int64_t C, std::int64_t K, std::int64_t R = 3) {
    Conv2dOptions o;
    o.in_channels = C;
    o.out_channels = K;
    o.kernel = {R, R};
    o.padding = {1, 1};
    o.bias = true;
    return o;
}

std::vector<float> ones(std::size_t n) { return std::vector<float>(n, 1.0f); }

TEST(ConvApi, RejectsInputsOfTheWrongRankOrChannels) {
    auto ctx = shared_context();
    Conv2d conv(ctx, layer(3, 4));
    conv.set_weights(ones(4 * 3 * 9), ones(4));
    const Tensor rank3 = Tensor::from_host(ctx, ones(3 * 5 * 5), {3, 5, 5});
    expect_error([&] { conv.forward(rank3); }, {"rank 3", "expected rank 4"});
    const Tensor wrong_c = Tensor::from_host(ctx, ones(2 * 5 * 5), {1, 2, 5, 5});
    expect_error([&] { conv.forward(wrong_c); }, {"2 channels", "in_channels = 3"});
}

TEST(ConvApi, RejectsWeightsAndBiasOfTheWrongLength) {
    Conv2d conv(shared_context(), layer(3, 4));
    expect_error([&] { conv.set_weights(ones(4 * 3 * 9 - 1), ones(4)); }, {"weights hold 107", "= 108"});
    expect_error([&] { conv.set_weights(ones(4 * 3 * 9), ones(3)); }, {"bias holds 3", "out_channels = 4"});
    Conv2dOptions no_bias = layer(3, 4);
    no_bias.bias = false;
    Conv2d plain(shared_context(), no_bias);
    expect_error([&] { plain.set_weights(ones(4 * 3 * 9), ones(4)); }, {"bias = false"});
}

TEST(ConvApi, RejectsForwardBeforeSetWeights) {
    auto ctx = shared_context();
    Conv2d conv(ctx, layer(3, 4));
    const Tensor x = Tensor::from_host(ctx, ones(3 * 5 * 5), {1, 3, 5, 5});
    expect_error([&] { conv.forward(x); }, {"before set_weights"});
    expect_error([&] { (void)conv.last_plan(); }, {"before any forward"});
}

TEST(ConvApi, RejectsBadLayerParameters) {
    auto ctx = shared_context();
    Conv2dOptions groups = layer(6, 4);
    groups.groups = 4;
    expect_error([&] { Conv2d(ctx, groups); }, {"groups = 4", "in_channels = 6"});
    Conv2dOptions stride = layer(3, 4);
    stride.stride = {0, 1};
    expect_error([&] { Conv2d(ctx, stride); }, {"stride (height) = 0", "expected >= 1"});
    Conv2dOptions dilation = layer(3, 4);
    dilation.dilation = {1, 0};
    expect_error([&] { Conv2d(ctx, dilation); }, {"dilation (width) = 0"});
    Conv2dOptions padding = layer(3, 4);
    padding.padding = {-1, 0};
    expect_error([&] { Conv2d(ctx, padding); }, {"padding (top) = -1", "expected >= 0"});
    Conv2dOptions channels = layer(0, 4);
    expect_error([&] { Conv2d(ctx, channels); }, {"in_channels = 0"});
}

TEST(ConvApi, RejectsAKernelLargerThanThePaddedInput) {
    auto ctx = shared_context();
    Conv2dOptions o = layer(2, 2, 5);
    o.padding = {0, 0};
    Conv2d conv(ctx, o);
    conv.set_weights(ones(2 * 2 * 25), ones(2));
    const Tensor x = Tensor::from_host(ctx, ones(2 * 4 * 4), {1, 2, 4, 4});
    expect_error([&] { conv.forward(x); }, {"larger than the padded input", "(4x4)"});
}

TEST(ConvApi, RejectsAnOutputOfTheWrongShape) {
    auto ctx = shared_context();
    Conv2d conv(ctx, layer(3, 4));
    conv.set_weights(ones(4 * 3 * 9), ones(4));
    const Tensor x = Tensor::from_host(ctx, ones(3 * 5 * 5), {1, 3, 5, 5});
    Tensor y = Tensor::empty(ctx, {1, 4, 5, 4});
    expect_error([&] { conv.forward(x, y); }, {"[1, 4, 5, 4]", "expected [1, 4, 5, 5]"});
    // A 1x1 layer with C = K could take its input as output: refused, it would read what it overwrites.
    Conv2dOptions square = layer(3, 3, 1);
    square.padding = {0, 0};
    Conv2d same(ctx, square);
    same.set_weights(ones(9), ones(3));
    Tensor inout = Tensor::from_host(ctx, ones(3 * 5 * 5), {1, 3, 5, 5});
    expect_error([&] { same.forward(inout, inout); }, {"overlaps the input"});
}

TEST(ConvApi, StrictOverrideThatCannotTakeTheShapeSaysWhy) {
    auto ctx = shared_context();
    Conv2dOptions o = layer(3, 4, 5);
    o.stride = {2, 2};
    o.padding = {2, 2};
    o.strategy = Kernel::CONV2D_WINOGRAD;
    Conv2d conv(ctx, o);
    conv.set_weights(ones(4 * 3 * 25), ones(4));
    const Tensor x = Tensor::from_host(ctx, ones(3 * 9 * 9), {1, 3, 9, 9});
    expect_error([&] { conv.forward(x); }, {"CONV2D_WINOGRAD", "N=1 C=3 H=9 W=9 K=4 R=5 S=5 stride=2", "takes 3x3 filters"});
    // The same with an explicit variant names the variant too.
    o.variant = winograd_variant_id(4, false, false);
    Conv2d with_variant(ctx, o);
    with_variant.set_weights(ones(4 * 3 * 25), ones(4));
    expect_error([&] { with_variant.forward(x); }, {"CONV2D_WINOGRAD wino-f4-fused-global", "R=5 S=5", "takes 3x3 filters"});
}

TEST(ConvApi, Im2colDeclinesAShapeAboveTheWorkspaceLimit) {
    auto ctx = shared_context();
    Conv2dOptions o = layer(3, 4);
    o.strategy = Kernel::IM2COL;
    o.variant = Variant("im2col-clblast");
    o.workspace_limit_bytes = 1024;  // one image's columns need 3·9·13·13·4 = 18252 bytes
    Conv2d conv(ctx, o);
    conv.set_weights(ones(4 * 3 * 9), ones(4));
    const Tensor x = Tensor::from_host(ctx, ones(2 * 3 * 13 * 13), {2, 3, 13, 13});
    expect_error([&] { conv.forward(x); }, {"IM2COL", "N=2 C=3 H=13 W=13", "18252 bytes", "limit is 1024"});
}

TEST(ConvApi, CreateStrategyRefusesWhatWhyNotRefuses) {
    ConvShapes s;
    s.C = 3, s.H = 9, s.W = 9, s.K = 4, s.R = 3, s.S = 3, s.stride_h = s.stride_w = 2;
    const DeviceProfile& profile = shared_context()->profile();
    Plan plan;
    plan.kernel = Kernel::CONV2D_WINOGRAD;
    plan.variant = winograd_variant_id(2, false, false);
    expect_error([&] { (void)create_strategy(shared_context(), plan, s, profile); }, {"CONV2D_WINOGRAD", s.str(), "stride 1"});
    plan.kernel = Kernel::IM2COL;  // a variant under another strategy
    expect_error([&] { (void)create_strategy(shared_context(), plan, s, profile); }, {"runs under CONV2D_WINOGRAD"});
    plan.variant = "no-such-variant";
    expect_error([&] { (void)create_strategy(shared_context(), plan, s, profile); }, {"unknown convolution variant 'no-such-variant'", "naive"});
}

// The kernels index with 32-bit ints: a layer with a tensor of 2^31 elements
// or more is refused by every strategy's why_not (so the selector never plans
// it) and by make_strategy, before anything is allocated.
TEST(ConvApi, TensorsPastIntIndexingAreRefusedBeforeAnyAllocation) {
    ConvShapes s;
    s.N = 1, s.C = 2, s.H = 32768, s.W = 32768, s.K = 1, s.R = 3, s.S = 3, s.set_padding(1);  // input 2^31 floats
    const DeviceProfile& profile = shared_context()->profile();
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const Variant& variant : impl->variants()) {
            const auto reason = why_not(variant, s, profile);
            ASSERT_TRUE(reason.has_value()) << variant.id;
            EXPECT_NE(reason->find("2^31"), std::string::npos) << *reason;
            Plan plan;
            plan.kernel = impl->kernel();
            plan.variant = variant;
            expect_error([&] { (void)create_strategy(shared_context(), plan, s, profile); }, {"2^31", "32-bit"});
        }
    }
    // Just below: 2^31 - 2 input elements are indexable.
    ConvShapes fits = s;
    fits.C = 1, fits.H = 2, fits.W = 1073741823;
    EXPECT_FALSE(int_indexing_why_not(fits).has_value());
    fits.W = 1073741824;
    EXPECT_TRUE(int_indexing_why_not(fits).has_value());
}

// A strict override without a variant runs the variant the selector ranks
// first among those that can take the shape; with one it runs exactly that.
TEST(ConvApi, StrictOverrideTakesTheSelectorsBestVariant) {
    ConvShapes s;
    s.C = 8, s.H = 16, s.W = 16, s.K = 8, s.R = 3, s.S = 3, s.set_padding(1);
    DeviceProfile profile = shared_context()->profile();
    profile.local_mem_bytes = 1 << 30;
    profile.tuned["winograd_tile"] = 4;
    profile.tuned["winograd_constant_weights"] = 0;
    profile.tuned["winograd_prefer_gemm"] = 0;
    const KernelSelector selector;
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile).variant,
              winograd_variant_id(4, false, false));
    profile.tuned["winograd_prefer_gemm"] = 1;  // separate transforms first
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile).variant,
              Variant("wino-f4-gemm"));
    profile.tuned["winograd_f6_min_output"] = 16;  // a 16x16 output: F(6x6) first
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile).variant,
              Variant("wino-f6-gemm"));
    profile.tuned["winograd_f6_min_output"] = 17;
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile).variant,
              Variant("wino-f4-gemm"));
    profile.tuned["winograd_prefer_gemm"] = 0;
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_NAIVE, std::nullopt, s, profile).variant, Variant("naive"));
    const Plan low = selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, winograd_variant_id(2, true, false), s, profile);
    EXPECT_EQ(low.variant, winograd_variant_id(2, true, false));
    EXPECT_EQ(low.reason, "strict override");
    EXPECT_EQ(low.implementation, "winograd-fused");
    EXPECT_NE(low.config.find("BK=16"), std::string::npos) << low.config;
    s.R = s.S = 5;  // only the 5x5 tiles: the profile's (F(4x4,5x5) by default)
    profile.tuned["winograd_5x5_tile_by_padding"] = 0;
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile).variant,
              Variant("wino-f4r5-gemm"));
    profile.tuned["winograd_5x5_tile_by_padding"] = 1;  // a 14x14 output: F(5x5,5x5) pads it to 15, F(4x4) to 16
    EXPECT_EQ(selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile).variant,
              Variant("wino-f5r5-gemm"));
    s.R = s.S = 7;
    expect_error([&] { (void)selector.select_strategy("conv2d", Kernel::CONV2D_WINOGRAD, std::nullopt, s, profile); },
                 {"CONV2D_WINOGRAD cannot take this shape", "3x3", "5x5 filters; this layer has 7x7"});
}

// Every strategy and every Winograd variant: a second set_weights after a
// forward must reach the next forward. Winograd keeps a transformed copy U of
// the weights, so one that kept the old U would fail round 1 here.
TEST(ConvApi, NewWeightsAreAppliedAtTheNextForward) {
    auto ctx = shared_context();
    int ran = 0, transformed = 0;
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const Variant& variant : impl->variants()) {
            ConvShapes s;  // 3x3, else 5x5, else 1x1: what the variant takes
            s.N = 2, s.C = 3, s.H = 7, s.W = 13, s.K = 5, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
            if (why_not(variant, s, ctx->profile())) s.R = s.S = 5, s.set_padding(2);
            if (why_not(variant, s, ctx->profile())) s.R = s.S = 1, s.set_padding(0);
            if (why_not(variant, s, ctx->profile())) continue;  // e.g. U over a small constant buffer
            ++ran;
            transformed += impl->persistent_bytes(variant, s, ctx->profile()) > 0;
            const std::string name = to_string(impl->kernel()) + " " + variant.id;
            Conv2dOptions o = Conv2dOptions::for_shapes(s);
            o.strategy = impl->kernel();
            o.variant = variant;
            Conv2d conv(ctx, o);
            const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 1);
            const Tensor input = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
            const double tolerance = conv_tolerance(s, tolerance_factor(variant));
            for (std::uint64_t round = 0; round < 3; ++round) {
                const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 10 + round);
                const auto b = random_uniform(5, 20 + round);
                conv.set_weights(w, b);
                Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
                y.fill(std::numeric_limits<float>::quiet_NaN());
                conv.forward(input, y);
                const Comparison c = compare(y.to_host(), reference_conv(s, x, w, b));
                EXPECT_EQ(c.non_finite, 0u) << name << " round " << round;
                EXPECT_LE(c.max_abs_error, tolerance) << name << " round " << round;
                EXPECT_EQ(conv.last_plan().variant, variant);
                EXPECT_EQ(conv.last_plan().reason, "strict override");
            }
        }
    }
    EXPECT_GE(ran, 12) << "too few variants could take the layer on this device";
    EXPECT_GE(transformed, 6) << "the variants that keep transformed weights (Winograd's U, packed panels) must run";
}

TEST(ConvApi, AutoPadResolvesPerInputShapeAsOnnxDoes) {
    auto ctx = shared_context();
    struct Case {
        AutoPad mode;
        std::int64_t H, W, R, stride;
        std::int64_t top, left, bottom, right;
    };
    const Case cases[] = {
        {AutoPad::SAME_UPPER, 8, 7, 3, 2, 0, 1, 1, 1},  // H: out 4, total 1 -> (0, 1); W: out 4, total 2 -> (1, 1)
        {AutoPad::SAME_LOWER, 8, 7, 3, 2, 1, 1, 0, 1},
        {AutoPad::SAME_UPPER, 6, 6, 4, 1, 1, 1, 2, 2},  // even kernel, stride 1: total 3 -> (1, 2)
        {AutoPad::SAME_LOWER, 6, 6, 4, 1, 2, 2, 1, 1},
        {AutoPad::VALID, 9, 8, 3, 2, 0, 0, 0, 0},
    };
    for (const Case& c : cases) {
        Conv2dOptions o = layer(3, 5, c.R);
        o.padding = Padding{};
        o.auto_pad = c.mode;
        o.stride = {c.stride, c.stride};
        const ConvShapes s = Conv2d(ctx, o).shapes_for({2, 3, c.H, c.W});
        EXPECT_EQ(s.pad_top, c.top) << s.str();
        EXPECT_EQ(s.pad_left, c.left) << s.str();
        EXPECT_EQ(s.pad_bottom, c.bottom) << s.str();
        EXPECT_EQ(s.pad_right, c.right) << s.str();
        if (c.mode != AutoPad::VALID) {
            EXPECT_EQ(s.P(), (c.H + c.stride - 1) / c.stride);
            EXPECT_EQ(s.Q(), (c.W + c.stride - 1) / c.stride);
        }
        for (const Kernel kernel : all_kernels()) {
            const auto variants = variants_of(kernel);
            if (std::none_of(variants.begin(), variants.end(),
                             [&](const Variant& v) { return !why_not(v, s, ctx->profile()).has_value(); })) {
                continue;  // this strategy cannot take the layer (Winograd: stride 2, a 4x4 filter)
            }
            Conv2dOptions forced = o;
            forced.strategy = kernel;
            Conv2d conv(ctx, forced);
            const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 31);
            const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 32);
            const auto b = random_uniform(static_cast<std::size_t>(s.K), 33);
            conv.set_weights(w, b);
            const Tensor y = conv(Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W}));
            const Comparison cmp = compare(y.to_host(), reference_conv(s, x, w, b));
            EXPECT_EQ(cmp.non_finite, 0u) << s.str() << " " << to_string(kernel);
            EXPECT_LE(cmp.max_abs_error, conv_tolerance(s, tolerance_factor(conv.last_plan().variant))) << s.str();
        }
    }
    // Explicit padding and auto_pad together are refused, as ONNX does.
    Conv2dOptions both = layer(3, 5);
    both.auto_pad = AutoPad::SAME_UPPER;
    expect_error([&] { Conv2d(ctx, both); }, {"both explicit padding and auto_pad"});
}

TEST(ConvApi, ForwardReturnsAFreshOutputPerInputShape) {
    auto ctx = shared_context();
    Conv2dOptions o = layer(3, 4);
    o.strategy = Kernel::CONV2D_NAIVE;
    Conv2d conv(ctx, o);
    conv.set_weights(random_uniform(4 * 3 * 9, 3), random_uniform(4, 4));
    for (const std::int64_t size : {5, 9}) {
        const Tensor x = Tensor::from_host(ctx, random_uniform(static_cast<std::size_t>(3 * size * size), 5),
                                           {1, 3, size, size});
        const Tensor y = conv(x);
        EXPECT_EQ(y.shape(), (Tensor::Shape{1, 4, size, size}));
    }
}

TEST(ConvApi, SelectorPathRunsAndReportsAPlan) {
    ConvShapes s;
    s.N = 1, s.C = 4, s.H = 13, s.W = 13, s.K = 6, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    const ConvCaseResult r = run_conv_case(s, ConvCaseOptions{});
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_FALSE(r.plan.reason.empty()) << r.plan.str();
}

// Conv2dOptions::max_error_factor: the selector never picks a variant that
// may err more than the bound, and the plan says which it passed over. A 5x5
// layer: F(4x4,5x5) (factor 16) unbounded, no Winograd under 4 (F(4x4,5x5)
// passed over); each result right within its own factor.
TEST(ConvApi, AccuracyBoundKeepsTheSelectorOffLessAccurateTiles) {
    ConvShapes s;
    s.N = 2, s.C = 24, s.H = 19, s.W = 21, s.K = 40, s.R = 5, s.S = 5, s.set_padding(2), s.bias = true;
    ConvCaseOptions options;
    options.tolerance_factor = 16;
    const ConvCaseResult unbounded = run_conv_case(s, options);
    EXPECT_TRUE(unbounded.passed()) << describe(s, unbounded);
    EXPECT_EQ(unbounded.plan.variant, Variant("wino-f4r5-gemm")) << unbounded.plan.str();
    EXPECT_EQ(unbounded.plan.error_factor, 16);
    // A bound below 1 would leave no plan at all: refused, as are NaN and infinity.
    for (const double bad : {0.5, std::nan(""), std::numeric_limits<double>::infinity()}) {
        Conv2dOptions o = Conv2dOptions::for_shapes(s);
        o.max_error_factor = bad;
        expect_error([&] { Conv2d(shared_context(), o); }, {"max_error_factor must be a finite number >= 1"});
    }
    options.max_error_factor = 4;
    options.tolerance_factor = 1;
    const ConvCaseResult bounded = run_conv_case(s, options);
    EXPECT_TRUE(bounded.passed()) << describe(s, bounded);
    EXPECT_NE(bounded.plan.kernel, Kernel::CONV2D_WINOGRAD) << bounded.plan.str();
    EXPECT_EQ(bounded.plan.error_factor, 1);
}

// A rule or default strategy set after a layer's first forward reaches its
// next forward, and so does undoing it (the wiki sets the default strategy
// between two calls of one conv); each plan's result is right.
TEST(ConvApi, ReplansAShapeWhenRulesOrTheDefaultChange) {
    auto ctx = shared_context();
    ConvShapes s;
    s.N = 1, s.C = 8, s.H = 12, s.W = 12, s.K = 8, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    const auto x_host = random_uniform(static_cast<std::size_t>(s.input_numel()), 71);
    const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 72);
    const auto b = random_uniform(static_cast<std::size_t>(s.K), 73);
    const auto reference = reference_conv(s, x_host, w, b);
    Conv2d conv(ctx, Conv2dOptions::for_shapes(s));
    conv.set_weights(w, b);
    const Tensor x = Tensor::from_host(ctx, x_host, {s.N, s.C, s.H, s.W});
    const auto run = [&](Kernel expected) {
        const std::vector<float> y = conv.forward(x).to_host();
        EXPECT_EQ(conv.last_plan().kernel, expected) << conv.last_plan().str();
        double error = 0;
        for (std::size_t i = 0; i < y.size(); ++i) error = std::max(error, std::abs(y[i] - reference[i]));
        EXPECT_LE(error, conv_tolerance(s, tolerance_factor(conv.last_plan().variant))) << conv.last_plan().str();
    };
    const Kernel built_in = conv.plan_for(x.shape()).kernel;
    set_default_conv_strategy(Kernel::CONV2D_NAIVE);
    run(Kernel::CONV2D_NAIVE);
    set_default_conv_strategy(Kernel::CONV2D_WINOGRAD);
    run(Kernel::CONV2D_WINOGRAD);
    const auto rule = KernelSelector::global().register_rule(
        "conv2d", [](const ConvShapes&, const DeviceProfile&) { return true; }, Kernel::IM2COL, 100);
    run(Kernel::IM2COL);
    KernelSelector::global().remove_rule(rule);
    run(Kernel::CONV2D_WINOGRAD);
    clear_default_conv_strategy();
    run(built_in);
}

}  // namespace
}  // namespace netcl::test
