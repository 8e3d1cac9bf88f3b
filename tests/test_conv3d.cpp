// Conv3d (NCDHW, Lan et al.'s rank): every direction on a 3-D edge table
// against the fp64 reference, the selector's op of its own, the errors a
// user meets, and a 2-D layer being the 3-D one of depth 1.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "netcl/Conv2d.hpp"
#include "netcl/Conv3d.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "ops/as_forward/BackwardDataPhases.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

std::string with_direction(ConvShapes s, ConvDirection d) { return s.in_direction(d).str(); }

TEST(Conv3d, EveryDirectionMatchesTheReferenceOnTheEdgeTable) {
    for (const ConvShapes& forward : edge_case_shapes_3d()) {
        for (const ConvDirection direction : all_conv_directions()) {
            const ConvShapes s = forward.in_direction(direction);
            const ConvCaseResult r = run_conv_case(s);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            EXPECT_EQ(r.plan.variant.id, "naive") << with_direction(forward, direction);
            EXPECT_EQ(r.compared, static_cast<std::size_t>(direction == ConvDirection::FORWARD ? s.output_numel()
                                                          : direction == ConvDirection::BACKWARD_DATA
                                                              ? s.input_numel()
                                                              : s.weight_numel() + (s.bias ? s.K : 0)));
        }
    }
}

// The implicit GEMM's DEPTH build: every undilated forward shape of the
// table, and two wider layers whose tiles take the interior path (every tap
// of a pixel tile inside the image), C >= 8 (the wide tile) and the
// residual sum over the shifted-back last pixel tile.
TEST(Conv3d, TheImplicitGemmTakesEveryUndilatedForwardShape) {
    const Variant implicit("implicit-gemm");
    const auto& profile = shared_context()->profile();
    std::vector<ConvShapes> shapes = edge_case_shapes_3d();
    shapes.push_back(make3d(2, 16, 20, {6, 3, 1, 1, 1}, {10, 3, 1, 1, 1}, {11, 3, 1, 1, 1}));
    shapes.push_back(make3d(1, 9, 13, {5, 3, 2, 0, 1}, {12, 1, 1}, {9, 3, 2, 1, 0}));
    shapes.back().post_ops = PostOps::leaky_relu(0.1f).with_sum();
    int ran = 0;
    for (const ConvShapes& s : shapes) {
        if (const auto reason = why_not(implicit, s, profile)) {
            EXPECT_GT(s.dilation_d * s.dilation_h * s.dilation_w, 1) << s.str() << ": " << *reason;
            EXPECT_NE(reason->find("dilation 1"), std::string::npos) << *reason;
            continue;
        }
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, implicit);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        ++ran;
    }
    EXPECT_EQ(ran, static_cast<int>(shapes.size()) - 1);  // all but the dilated one
    // Its backward data runs as a forward convolution in 3-D at stride 1, padded within the filter's reach
    // (one phase, the whole filter rotated on all three axes, its output dx itself), and otherwise as the
    // 2-D backward data of its depth taps (ops/as_2d/), stride phases and all: a 1x1x1 filter
    // padded by 1 is past its reach; so is a depth of 1 tap padded by 1 at the back only, under 3x3 rows
    // and columns (the depth's own check); the table's six-pad layer at stride 1 (uneven on every axis)
    // runs in 3-D. Only a dilation of the rows or columns is refused (the 2-D problem's implicit GEMM).
    // The 3-D route is taken wherever the implementation takes it (no copies).
    shapes.push_back(make3d(1, 2, 3, {4, 1, 1, 1, 1}, {4, 1, 1, 1, 1}, {4, 1, 1, 1, 1}));
    shapes.push_back(make3d(1, 2, 3, {4, 1, 1, 0, 1}, {5, 3, 1, 1, 1}, {5, 3, 1, 1, 1}));
    shapes.push_back(make3d(1, 3, 4, {5, 3, 1, 2, 0}, {6, 3, 1, 0, 2}, {7, 3, 1, 1, 1}));
    // A depth dilated by 2 (the implicit GEMM's 3-D forward refuses it), at stride 1 and under stride 2.
    shapes.push_back(make3d(1, 3, 4, {7, 3, 1, 2, 2, 2}, {6, 3, 1, 1, 1}, {5, 3, 1, 1, 1}));
    shapes.push_back(make3d(2, 3, 4, {9, 3, 2, 2, 1, 2}, {5, 3, 1, 1, 1}, {6, 3, 1, 1, 1}));
    int in_3d = 0, as_2d = 0;
    for (const ConvShapes& forward : shapes) {
        const ConvShapes s = forward.in_direction(ConvDirection::BACKWARD_DATA);
        if (const auto reason = why_not(implicit, s, profile)) {
            EXPECT_GT(forward.dilation_h * forward.dilation_w, 1) << s.str() << ": " << *reason;
            EXPECT_NE(reason->find("dilation 1"), std::string::npos) << s.str() << ": " << *reason;
            continue;
        }
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, implicit);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        // In 3-D exactly where the phases are one forward convolution without a dilated depth.
        const bool one_forward = !backward_data_phases_why_not(s) && forward.dilation_d == 1;
        EXPECT_NE(r.plan.config.find("as forward: "), std::string::npos) << r.plan.config;
        EXPECT_EQ(r.plan.config.find("summed into dx") == std::string::npos, one_forward) << r.plan.config;
        ++(one_forward ? in_3d : as_2d);
    }
    EXPECT_EQ(in_3d, 9);  // the 3-D table's 7 unstrided undilated shapes, the wide stride-1 one, the six pads
    EXPECT_EQ(as_2d, 9);  // strided, dilated in depth only, padded past the reach
    // Groups through the depth taps (the copies' channels c·T + t stay within their group), and float16
    // too: the 2-D problem in float32 (dy's slices and the filters widened), dx rounded once from the sum
    // of its taps' parts, within half's output rounding of the reference.
    const ConvShapes grouped = make3d(1, 4, 6, {7, 3, 2, 1, 1}, {5, 3, 1, 1, 1}, {5, 3, 1, 1, 1}, 2);
    const ConvCaseResult g = run_conv_case(grouped.in_direction(ConvDirection::BACKWARD_DATA), Kernel::IM2COL, implicit, 30);
    EXPECT_TRUE(g.passed()) << describe(grouped.in_direction(ConvDirection::BACKWARD_DATA), g);
    EXPECT_NE(g.plan.config.find("summed into dx"), std::string::npos) << g.plan.config;
    shapes.push_back(grouped);
    for (const std::size_t back : {std::size_t{7}, std::size_t{2}, std::size_t{1}}) {
        ConvShapes half = shapes[shapes.size() - back].in_direction(ConvDirection::BACKWARD_DATA);
        half.dtype = DataType::FLOAT16;
        ASSERT_FALSE(why_not(implicit, half, profile).has_value()) << half.str() << ": " << *why_not(implicit, half, profile);
        const ConvCaseResult r = run_conv_case(half, Kernel::IM2COL, implicit, 31);
        EXPECT_TRUE(r.passed()) << describe(half, r);
        EXPECT_NE(r.plan.config.find("summed into dx"), std::string::npos) << r.plan.config;
    }
}

// 3-D Winograd (Lan et al.'s F(2x2x2,3x3x3) and F(4x4x4,3x3x3)), separate
// transforms around the GEMM engine: the table's 3x3x3 stride-1 ungrouped
// layers (ragged last tiles in every axis, depth 2 under a 3-deep kernel,
// six pads), a row of 70 (the transforms' 8 tiles in one run of the row),
// a wider one with a residual sum, and one split into passes by a small
// workspace limit.
TEST(Conv3d, WinogradTilesMatchTheReference) {
    const auto& profile = shared_context()->profile();
    std::vector<ConvShapes> shapes = edge_case_shapes_3d();
    shapes.push_back(make3d(1, 3, 4, {5, 3, 1, 2, 0}, {6, 3, 1, 0, 2}, {7, 3, 1, 1, 1}));   // six pads, stride 1
    shapes.push_back(make3d(3, 2, 3, {3, 3, 1, 1, 1}, {5, 3, 1, 1, 1}, {9, 3, 1, 0, 0}, 1, false));  // N = 3
    // Wide enough that 8 neighbouring tiles of a row lie inside the width:
    // the input transform's one-run rows (and its gathers where a group wraps).
    shapes.push_back(make3d(2, 3, 4, {3, 3, 1, 1, 1}, {4, 3, 1, 1, 1}, {70, 3, 1, 1, 1}));
    shapes.push_back(make3d(2, 16, 20, {6, 3, 1, 1, 1}, {10, 3, 1, 1, 1}, {11, 3, 1, 1, 1}));
    shapes.back().post_ops = PostOps::relu().with_sum();
    for (const char* id : {"wino3d-f2-gemm", "wino3d-f4-gemm"}) {
        const Variant variant(id);
        int ran = 0;
        for (const ConvShapes& s : shapes) {
            if (why_not(variant, s, profile)) continue;
            const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_WINOGRAD, variant, 5, tolerance_factor(variant));
            EXPECT_TRUE(r.passed()) << describe(s, r);
            ++ran;
        }
        EXPECT_GE(ran, 5) << id;
        ConvCaseOptions small;
        small.strategy = Kernel::CONV2D_WINOGRAD;
        small.variant = variant;
        small.tolerance_factor = tolerance_factor(variant);
        small.workspace_limit_bytes = 64 * 1024;  // a few tiles a pass
        const ConvCaseResult r = run_conv_case(shapes.back(), small);
        EXPECT_TRUE(r.passed()) << describe(shapes.back(), r);
        // Backward data at stride 1: the same tiles on dy with the rotated filters (Lan et al.'s tiles
        // in the direction Lavin & Gray §4.2 gives forward's algorithms).
        int backward = 0;
        for (const ConvShapes& forward : shapes) {
            const ConvShapes s = forward.in_direction(ConvDirection::BACKWARD_DATA);
            if (why_not(variant, s, profile)) continue;
            const ConvCaseResult rb = run_conv_case(s, Kernel::CONV2D_WINOGRAD, variant, 6, tolerance_factor(variant));
            EXPECT_TRUE(rb.passed()) << describe(s, rb);
            // U transformed from the layer's filters rotated in place on all three axes, no rotated copy.
            EXPECT_NE(rb.plan.config.find("the filters read rotated in place"), std::string::npos) << rb.plan.config;
            ++backward;
        }
        EXPECT_GE(backward, 5) << id;
    }
    // A 2-D tile refuses a 3-D layer and the other way round, saying why.
    const auto flat = why_not(Variant("wino-f2-gemm"), shapes[0], profile);
    ASSERT_TRUE(flat.has_value());
    EXPECT_NE(flat->find("3-D"), std::string::npos) << *flat;
    ConvShapes two_d;
    two_d.C = 4, two_d.K = 4, two_d.H = two_d.W = 8, two_d.set_padding(1);
    const auto deep = why_not(Variant("wino3d-f2-gemm"), two_d, profile);
    ASSERT_TRUE(deep.has_value());
    EXPECT_NE(deep->find("takes 3-D layers; this one is 2-D"), std::string::npos) << *deep;
}

// A random small 3-D layer: the 2-D draw (tests/support/ConvCase.cpp) and a
// depth drawn the same way (kernel 1-3, stride 1-2, dilation 1 or 2, pads 0-2
// on each side), kept small so every direction's reference stays quick.
ConvShapes random_small_3d(std::mt19937_64& rng) {
    auto draw = [&rng](std::int64_t low, std::int64_t high) {
        return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
    };
    ConvShapes s = random_small_shape(rng);
    s.spatial_rank = 3;
    s.H = std::min<std::int64_t>(s.H, std::max<std::int64_t>(8, s.dilation_h * (s.R - 1) + 1));
    s.W = std::min<std::int64_t>(s.W, std::max<std::int64_t>(9, s.dilation_w * (s.S - 1) + 1));
    s.T = draw(1, 3);
    s.stride_d = draw(1, 2);
    s.dilation_d = draw(0, 3) == 0 ? 2 : 1;
    s.pad_front = draw(0, 2), s.pad_back = draw(0, 2);
    const std::int64_t extent_d = s.dilation_d * (s.T - 1) + 1;
    s.D = draw(std::max<std::int64_t>(1, extent_d - s.pad_front - s.pad_back), extent_d + 4);
    return s;
}

// 40 random layers, every direction through the selector's plan, and
// forward through each GEMM-engine variant that takes the layer.
TEST(Conv3d, RandomLayersMatchTheReferenceInEveryDirection) {
    std::mt19937_64 rng(2026);
    const auto& profile = shared_context()->profile();
    int engine_runs = 0;
    for (int i = 0; i < 40; ++i) {
        const ConvShapes forward = random_small_3d(rng);
        ASSERT_NO_THROW(forward.validate()) << forward.str();
        for (const ConvDirection direction : all_conv_directions()) {
            const ConvShapes s = forward.in_direction(direction);
            ConvCaseOptions options;
            options.seed = 100 + static_cast<std::uint64_t>(i);
            const ConvCaseResult r = run_conv_case(s, options);
            EXPECT_TRUE(r.passed()) << describe(s, r);
        }
        for (const char* id : {"implicit-gemm", "wino3d-f2-gemm", "wino3d-f4-gemm"}) {
            const Variant v(id);
            if (why_not(v, forward, profile)) continue;
            const ConvCaseResult r = run_conv_case(forward, implementation_of(v).kernel(), v, 7, tolerance_factor(v));
            EXPECT_TRUE(r.passed()) << describe(forward, r);
            ++engine_runs;
        }
    }
    EXPECT_GE(engine_runs, 20);  // the draw reaches the GEMM engine, not only the direct kernel
}

// The accuracy bound decides between the 3-D tiles as it does in 2-D: 16
// admits F(4x4x4), 4 leaves F(2x2x2) (error factors 16 and 4), 1 the direct sums.
TEST(Conv3d, TheAccuracyBoundChoosesTheTile) {
    const ConvShapes s = make3d(1, 64, 64, {8, 3, 1, 1, 1}, {16, 3, 1, 1, 1}, {16, 3, 1, 1, 1});
    const std::vector<std::pair<double, std::string>> expected = {
        {16.0, "wino3d-f4-gemm"}, {4.0, "wino3d-f2-gemm"}, {1.0, "implicit-gemm"}};
    for (const auto& [bound, variant] : expected) {
        Conv3dOptions o = Conv3dOptions::for_shapes(s);
        o.max_error_factor = bound;
        Conv3d conv(shared_context(), o);
        const Plan& plan = conv.plan_for(s.input_shape());
        EXPECT_EQ(plan.variant.id, variant) << "max_error_factor " << bound << ": " << plan.str();
        EXPECT_LE(plan.error_factor, bound);
    }
}

// Every 2-D weight gradient in 3-D, as the 2-D one it equals (depth slices
// as images, x's depth taps as channels; ops/as_2d/). The GEMM engine's on
// every shape of the 3-D table (dilated, strided and grouped ones, depth 1,
// six pads, one voxel), 20 random layers and a wider one under beta 1; CLBlast's
// and both Winograd tiles' on the table and the wide one (the tiles take the
// five whose rows and columns are 3x3 at stride 1, ungrouped, undilated,
// whatever their depth, refusing the others for their 2-D problem). Each plan says so, and a workspace limit below the copies is a
// refusal that names them.
TEST(Conv3d, EveryWeightGradientTakesLayersAsTheirTwoDimensionalEqual) {
    const auto& profile = shared_context()->profile();
    std::vector<ConvShapes> table = edge_case_shapes_3d();
    table.push_back(make3d(2, 16, 20, {6, 3, 1, 1, 0}, {10, 3, 1, 1, 1}, {11, 3, 1, 1, 1}));
    std::vector<ConvShapes> shapes = table;
    std::mt19937_64 rng(3303);
    for (int i = 0; i < 20; ++i) shapes.push_back(random_small_3d(rng));
    std::uint64_t seed = 4400;
    for (const char* id : {"wgrad-gemm", "wgrad-clblast", "wino-wgrad-f2", "wino-wgrad-f4"}) {
        const Variant variant(id);
        const bool gemm = variant.id == "wgrad-gemm";
        int ran = 0;
        for (const ConvShapes& forward : gemm ? shapes : table) {
            const ConvShapes s = forward.in_direction(ConvDirection::BACKWARD_WEIGHTS);
            if (const auto reason = why_not(variant, s, profile)) {
                EXPECT_FALSE(gemm) << s.str() << ": " << *reason;
                EXPECT_EQ(reason->rfind("as the 2-D weight gradient", 0), 0u) << *reason;
                continue;
            }
            const ConvCaseResult r =
                run_conv_case(s, implementation_of(variant).kernel(), variant, seed++, tolerance_factor(variant));
            EXPECT_TRUE(r.passed()) << id << ": " << describe(s, r);
            EXPECT_EQ(r.compared, static_cast<std::size_t>(s.weight_numel() + (s.bias ? s.K : 0)));
            EXPECT_NE(r.plan.config.find("depth slices as images"), std::string::npos) << r.plan.config;
            ++ran;
        }
        EXPECT_EQ(ran, static_cast<int>(gemm ? shapes.size() : variant.id == "wgrad-clblast" ? table.size() : 5)) << id;
    }
    const ConvShapes wide = table.back().in_direction(ConvDirection::BACKWARD_WEIGHTS);
    for (const char* id : {"wgrad-gemm", "wino-wgrad-f4"}) {
        ConvCaseOptions accumulate;
        accumulate.strategy = implementation_of(Variant(id)).kernel();
        accumulate.variant = Variant(id);
        accumulate.seed = 4500;
        accumulate.beta = 1.0f;
        accumulate.tolerance_factor = tolerance_factor(Variant(id));
        const ConvCaseResult r = run_conv_case(wide, accumulate);
        EXPECT_TRUE(r.passed()) << id << " beta 1: " << describe(wide, r);
    }
    // Its 2-D problem needs 219 KiB, the copies 292 KiB more: a limit of 300 KiB refuses for the copies.
    DeviceProfile small = profile;
    small.tuned["wgrad_gemm_workspace_limit_bytes"] = 300 * 1024;
    const auto refusal = why_not(Variant("wgrad-gemm"), wide, small);
    ASSERT_TRUE(refusal.has_value());
    EXPECT_NE(refusal->find("depth taps"), std::string::npos) << *refusal;
}

TEST(Conv3d, WeightGradientsAccumulateUnderBetaOne) {
    const ConvShapes s = edge_case_shapes_3d()[3].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ConvCaseOptions options;
    options.beta = 1.0f;
    options.seed = 7;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
}

TEST(Conv3d, PostOpsApplyAsEachOutputIsWritten) {
    ConvShapes s = edge_case_shapes_3d()[0];
    s.post_ops = PostOps::relu().with_sum();
    const ConvCaseResult r = run_conv_case(s);
    EXPECT_TRUE(r.passed()) << describe(s, r);
}

TEST(Conv3d, TheSelectorPlansUnderItsOwnOpAndSaysWhyTheOthersCannot) {
    // Above the profile's naive_max_flops, so the ranking is asked, not the tiny-layer rule.
    const ConvShapes s = make3d(1, 16, 16, {8, 3, 1, 1, 1}, {16, 3, 1, 1, 1}, {16, 3, 1, 1, 1});
    const auto& profile = shared_context()->profile();
    for (const ConvDirection d : all_conv_directions()) {
        const ConvShapes problem = s.in_direction(d);
        const std::string op = selector_op(problem);
        EXPECT_EQ(op.rfind("conv3d", 0), 0u) << op;
        const Decision decision = KernelSelector::global().explain(op, problem, profile);
        // Forward on the GEMM engine, backward data as its forward convolution there (stride 1), and the
        // weight gradient as its 2-D equal (here Winograd's F(3x3,4x4), as for a 2-D layer of 16 channels).
        EXPECT_EQ(decision.plan.variant.id, d == ConvDirection::BACKWARD_WEIGHTS ? "wino-wgrad-f4" : "implicit-gemm")
            << decision.str();
        if (d == ConvDirection::BACKWARD_WEIGHTS) {
            EXPECT_NE(decision.plan.config.find("depth slices as images"), std::string::npos) << decision.str();
        }
        // Backward data's candidates are judged on its forward problem (2-D and 3-D alike), and every weight
        // gradient takes 3-D layers, so none refuses for the rank.
        if (d != ConvDirection::FORWARD) continue;
        std::size_t refused_for_rank = 0;
        for (const auto& candidate : decision.candidates) {
            if (candidate.reason.find("3-D") != std::string::npos) ++refused_for_rank;
        }
        EXPECT_GT(refused_for_rank, 0u) << decision.str();
    }
    // min(C, K) = 16: the 3-D Winograd rule passes over it, saying why.
    const Decision forward = KernelSelector::global().explain("conv3d", s, profile);
    EXPECT_NE(forward.str().find("winograd3d_min_channels"), std::string::npos) << forward.str();
    // A global default that cannot take the layer (Winograd, under a depth
    // stride) falls through to one that can.
    ConvShapes strided = s;
    strided.stride_d = 2;
    set_default_conv_strategy(Kernel::CONV2D_WINOGRAD);
    Conv3d conv(shared_context(), Conv3dOptions::for_shapes(strided));
    const Plan& fallen = conv.plan_for(strided.input_shape());
    EXPECT_NE(fallen.kernel, Kernel::CONV2D_WINOGRAD) << fallen.str();
    EXPECT_NE(fallen.reason.find("built-in"), std::string::npos) << fallen.str();
    reload_default_conv_strategy_from_environment();
}

// A 1x3x3 filter: the 3-D tiles take 3x3x3 only, the 2-D ones 2-D layers only.
TEST(Conv3d, AStrictStrategyThatCannotTakeTheLayerSaysWhy) {
    const ConvShapes s = edge_case_shapes_3d()[1];
    Conv3dOptions o = Conv3dOptions::for_shapes(s);
    o.strategy = Kernel::CONV2D_WINOGRAD;
    Conv3d conv(shared_context(), o);
    try {
        conv.plan_for(s.input_shape());
        FAIL() << "Winograd planned a 1x3x3 layer";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("takes 3x3x3 filters; this layer has 1x3x3"), std::string::npos) << what;
    }
}

TEST(Conv3d, AutoPadSameKeepsEveryAxisAtCeilOfSizeOverStride) {
    Conv3dOptions o;
    o.in_channels = 2, o.out_channels = 3, o.kernel = {3, 2, 3}, o.stride = {2, 1, 3};
    o.auto_pad = AutoPad::SAME_UPPER;
    Conv3d conv(shared_context(), o);
    const ConvShapes s = conv.shapes_for({1, 2, 7, 5, 8});
    EXPECT_EQ(s.O(), 4);
    EXPECT_EQ(s.P(), 5);
    EXPECT_EQ(s.Q(), 3);
    EXPECT_EQ(s.pad_front + s.pad_back, 2);
    EXPECT_EQ(s.pad_top, 0);  // SAME_UPPER puts the odd pixel at the end
    EXPECT_EQ(s.pad_bottom, 1);
    const ConvCaseResult r = run_conv_case(s);
    EXPECT_TRUE(r.passed()) << describe(s, r);
}

// The naive kernel is one source for both ranks: a Conv3d of depth 1 and a
// Conv2d of the same layer run the same sums in the same order.
TEST(Conv3d, DepthOneIsTheTwoDimensionalLayerBitForBit) {
    ConvShapes s2;
    s2.N = 2, s2.C = 3, s2.H = 9, s2.W = 11, s2.K = 6, s2.R = 3, s2.S = 3, s2.stride_w = 2;
    s2.set_padding(1, 2, 0, 1), s2.bias = true;
    ConvShapes s3 = s2;
    s3.spatial_rank = 3;
    const auto context = shared_context();
    const auto x = random_uniform(static_cast<std::size_t>(s2.input_numel()), 11);
    const auto w = random_uniform(static_cast<std::size_t>(s2.weight_numel()), 12);
    const auto b = random_uniform(static_cast<std::size_t>(s2.K), 13);
    Conv2dOptions o2 = Conv2dOptions::for_shapes(s2);
    o2.strategy = Kernel::CONV2D_NAIVE;
    Conv3dOptions o3 = Conv3dOptions::for_shapes(s3);
    o3.strategy = Kernel::CONV2D_NAIVE;
    Conv2d conv2(context, o2);
    Conv3d conv3(context, o3);
    conv2.set_weights(w, b);
    conv3.set_weights(w, b);
    const Tensor y2 = conv2.forward(Tensor::from_host(context, x, s2.input_shape()));
    const Tensor y3 = conv3.forward(Tensor::from_host(context, x, s3.input_shape()));
    EXPECT_EQ(y3.shape(), (Tensor::Shape{2, 6, 1, s2.P(), s2.Q()}));
    EXPECT_EQ(y2.to_host(), y3.to_host());
}

template <typename Body>
std::string error_of(Body&& body) {
    try {
        body();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Conv3d, BadInputIsAnErrorThatSaysWhatWasExpectedAndWritesNothing) {
    const auto context = shared_context();
    const ConvShapes s = edge_case_shapes_3d()[0];
    Conv3d conv(context, Conv3dOptions::for_shapes(s));
    conv.set_weights(random_uniform(static_cast<std::size_t>(s.weight_numel()), 1),
                     random_uniform(static_cast<std::size_t>(s.K), 2));
    Tensor y = Tensor::empty(context, s.output_shape());
    y.fill(std::numeric_limits<float>::quiet_NaN());

    // A 4-D tensor.
    const Tensor four_d = Tensor::empty(context, {s.N, s.C, s.H, s.W});
    EXPECT_NE(error_of([&] { conv.forward(four_d, y); }).find("expected rank 5, N x C x D x H x W"), std::string::npos);
    // A kernel deeper than the padded input.
    const Tensor shallow = Tensor::empty(context, {1, s.C, 0 + 1, s.H, s.W});
    Conv3dOptions deep = Conv3dOptions::for_shapes(s);
    deep.padding = Padding3d(0);
    Conv3d unpadded(context, deep);
    EXPECT_NE(error_of([&] { unpadded.shapes_for(shallow.shape()); }).find("depth (3) is larger than the padded input's (1)"),
              std::string::npos);
    // Groups not dividing C.
    Conv3dOptions bad_groups = Conv3dOptions::for_shapes(s);
    bad_groups.groups = 2;
    EXPECT_NE(error_of([&] { Conv3d(context, bad_groups); }).find("groups = 2 must divide in_channels = 3"),
              std::string::npos);
    // Weights of a 2-D layer's size.
    EXPECT_NE(error_of([&] { conv.set_weights(std::vector<float>(static_cast<std::size_t>(s.K * s.C * 9)), {}); })
                  .find("out_channels x in_channels/groups x T x R x S"),
              std::string::npos);
    // An output of the wrong depth.
    const Tensor x = Tensor::from_host(context, random_uniform(static_cast<std::size_t>(s.input_numel()), 3), s.input_shape());
    Tensor wrong = Tensor::empty(context, {s.N, s.K, s.O() + 1, s.P(), s.Q()});
    wrong.fill(std::numeric_limits<float>::quiet_NaN());
    EXPECT_NE(error_of([&] { conv.forward(x, wrong); }).find("expected " + shape_string(s.output_shape())),
              std::string::npos);
    for (const float v : wrong.to_host()) ASSERT_TRUE(std::isnan(v)) << "a refused run wrote to the caller's tensor";
    // A negative depth padding.
    Conv3dOptions negative = Conv3dOptions::for_shapes(s);
    negative.padding.back = -1;
    EXPECT_NE(error_of([&] { Conv3d(context, negative); }).find("padding (back) = -1"), std::string::npos);
    for (const float v : y.to_host()) ASSERT_TRUE(std::isnan(v)) << "an error wrote to the caller's output";
}

}  // namespace
}  // namespace netcl::test
