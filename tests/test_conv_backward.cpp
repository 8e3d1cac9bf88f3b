// The gradients through Conv2d: backward data (dx) and backward weights (dw,
// db) against the fp64 reference on the edge table and random shapes, beta
// (accumulation), determinism, the selector's per-direction ops, the
// framework path (views at offsets, events, no host synchronisation) and the
// bad-input contract (a netcl::Error, nothing written).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "netcl/Conv2d.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "ops/as_forward/BackwardDataPhases.hpp"
#include "ops/col2im/Col2imGemmConfig.hpp"
#include "ops/weight_gradient/ClblastWeightGradientConfig.hpp"
#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "ops/winograd_wgrad/WinogradWgradConfig.hpp"
#include "selector/ProfileStore.hpp"
#include "tests/support/ClInterposer.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

constexpr ConvDirection kGradients[] = {ConvDirection::BACKWARD_DATA, ConvDirection::BACKWARD_WEIGHTS};

ConvShapes layer_shapes() {
    ConvShapes s;
    s.N = 2, s.C = 5, s.H = 9, s.W = 11, s.K = 6, s.R = 3, s.S = 3, s.stride_h = 2, s.bias = true;
    s.set_padding(1, 0, 2, 1);
    return s;
}

bool all_nan(const std::vector<float>& values) {
    for (const float v : values) {
        if (!std::isnan(v)) return false;
    }
    return true;
}

TEST(ConvBackward, NaiveEdgeShapesMatchReference) {
    std::uint64_t seed = 3000;
    for (const ConvDirection direction : kGradients) {
        for (const ConvShapes& edge : edge_case_shapes()) {
            const ConvShapes s = edge.in_direction(direction);
            const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, Variant("naive"), seed++);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            EXPECT_EQ(r.plan.variant, Variant("naive")) << s.str();
            EXPECT_EQ(r.workspace_bytes, 0u) << s.str();
        }
    }
}

TEST(ConvBackward, NaiveRandomShapesMatchReference) {
    std::mt19937_64 rng(20261125);
    for (int i = 0; i < 120; ++i) {
        const ConvShapes s = random_small_shape(rng).in_direction(kGradients[i % 2]);
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, Variant("naive"), 4000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
}

// Backward data through every forward implementation (ops/as_forward/): each
// variant on every edge shape its why_not takes (every phase of a strided
// layer a forward problem it takes), the sub-filters rotated once per
// set_weights; the separate-transform Winograd tiles (stride 1: the whole
// filter) transform U from the layer's filters rotated in place instead.
TEST(ConvBackward, EveryVariantTakesBackwardDataAsForwardWhereItCan) {
    const DeviceProfile& profile = shared_context()->profile();
    std::map<std::string, int> ran;
    std::uint64_t seed = 5000;
    for (const ConvShapes& edge : edge_case_shapes()) {
        const ConvShapes s = edge.in_direction(ConvDirection::BACKWARD_DATA);
        for (const Kernel kernel : all_kernels()) {
            for (const Variant& v : variants_of(kernel)) {
                if (v.id == "naive" || v.id == "col2im-gemm" || why_not(v, s, profile)) continue;  // their own kernels
                const ConvCaseResult r = run_conv_case(s, kernel, v, seed++, tolerance_factor(v));
                EXPECT_TRUE(r.passed()) << describe(s, r);
                EXPECT_EQ(r.plan.variant, v);
                EXPECT_NE(r.plan.config.find("as forward"), std::string::npos) << r.plan.config;
                if (winograd_gemm_tile(v)) {
                    EXPECT_NE(r.plan.config.find("the filters read rotated in place"), std::string::npos)
                        << r.plan.config;
                }
                ++ran[v.id];
            }
        }
    }
    // The implementations each took some: Winograd's tiles (fused and separate), the GEMM engine, im2col.
    for (const char* id : {"wino-f2-fused-global", "wino-f4-gemm", "wino-f4r5-gemm", "gemm-1x1", "implicit-gemm",
                           "im2col-clblast"}) {
        EXPECT_GE(ran[id], 1) << id << " ran no edge shape's backward data";
    }
}

// Strided backward data as forward convolutions, one per stride phase: stride
// 3, strides that differ by axis, paddings past the filter's reach, images
// smaller than the stride (phases with no dx rows), a 1x1 filter under stride
// 2 (phases with no taps: zeros, written over the poisoned dx), groups and
// depthwise. The implicit GEMM takes every phase; gemm-1x1 the 1x1 ones.
TEST(ConvBackward, StridePhasesRunBackwardDataOnTheGemmEngine) {
    auto make = [](std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t r,
                   std::int64_t sz, std::int64_t sh, std::int64_t sw, std::int64_t groups) {
        ConvShapes s;
        s.N = n, s.C = c, s.H = h, s.W = w, s.K = k, s.R = r, s.S = sz, s.stride_h = sh, s.stride_w = sw;
        s.groups = groups;
        return s.in_direction(ConvDirection::BACKWARD_DATA);
    };
    std::vector<ConvShapes> shapes;
    shapes.push_back(make(2, 5, 13, 11, 7, 3, 3, 3, 3, 1));      // stride 3, 3x3: one tap a phase
    shapes.back().set_padding(1);
    shapes.push_back(make(1, 4, 12, 17, 6, 5, 3, 2, 3, 2));      // 5x3, strides 2 and 3, groups 2
    shapes.back().set_padding(2, 0, 1, 2);
    shapes.push_back(make(3, 6, 9, 9, 6, 3, 3, 2, 2, 6));        // depthwise, stride 2
    shapes.back().set_padding(0, 1, 1, 0);
    shapes.push_back(make(2, 3, 2, 1, 5, 3, 3, 3, 2, 1));        // 2x1 image under stride 3x2
    shapes.back().set_padding(2, 2, 2, 2);                          // past the reach: pads of 2 on a 3x3
    shapes.push_back(make(2, 8, 9, 10, 12, 1, 1, 2, 2, 1));      // 1x1 stride 2: three phases of zeros
    shapes.push_back(make(1, 3, 23, 23, 16, 7, 7, 2, 2, 1));     // ResNet's stem, small
    shapes.back().set_padding(3);
    // Under stride 2 each row phase's two column phases interleave in one pass (gather_phase_pair), 32 dx
    // columns a work-item: rows of 75 (two runs and a tail) whose odd columns come first in the phase list
    // (left padding 1); rows of 40 under a top padding of 2 on a 3x3 (the odd row phase's first forward row
    // skipped); rows of exactly 64; a 1x1 layer's rows of 70 (its odd phases' zeros); and the first in half.
    shapes.push_back(make(2, 3, 9, 75, 5, 3, 3, 2, 2, 1));
    shapes.back().set_padding(1, 1, 0, 2);
    shapes.push_back(make(1, 2, 7, 40, 3, 3, 3, 2, 2, 1));
    shapes.back().set_padding(2, 1, 1, 0);
    shapes.push_back(make(1, 2, 6, 64, 4, 3, 3, 2, 2, 1));
    shapes.push_back(make(2, 4, 5, 70, 6, 1, 1, 2, 2, 1));
    shapes.push_back(shapes[6]);
    shapes.back().dtype = DataType::FLOAT16;
    std::uint64_t seed = 5600;
    for (const ConvShapes& s : shapes) {
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, Variant("implicit-gemm"), seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_NE(r.plan.config.find("stride phases"), std::string::npos) << r.plan.config;
        EXPECT_GT(r.workspace_bytes, 0u) << s.str();  // the phases' outputs before they are copied into dx
    }
    const ConvCaseResult one = run_conv_case(shapes[4], Kernel::IM2COL, Variant("gemm-1x1"), seed++);
    EXPECT_TRUE(one.passed()) << describe(shapes[4], one);
    // A 3x1 filter under stride 3 on a one-row image: one phase has dx rows, whose sub-filter is the filter's
    // middle row, 1x1: the 1x1 GEMM runs it, but from a rotated copy, since the layer's filters are not it.
    ConvShapes middle_row = make(2, 5, 1, 6, 7, 3, 1, 3, 1, 1);
    middle_row.set_padding(1, 0, 1, 0);
    const BackwardDataPhases phases = backward_data_phases(middle_row);
    ASSERT_EQ(phases.forward_count(), 1);
    EXPECT_FALSE(phases.whole_filter);
    const ConvCaseResult row = run_conv_case(middle_row, Kernel::IM2COL, Variant("gemm-1x1"), seed++);
    EXPECT_TRUE(row.passed()) << describe(middle_row, row);
    EXPECT_EQ(row.plan.config.find("in place"), std::string::npos) << row.plan.config;
    // A stride and a dilation on one axis: the phases would not be stride-1 convolutions.
    ConvShapes both = shapes[0];
    both.dilation_h = 2;
    const auto reason = why_not(Variant("implicit-gemm"), both, shared_context()->profile());
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("a stride or a dilation on an axis, not both"), std::string::npos) << *reason;
}

// Backward data of a 1x1 layer on the 1x1 GEMM reads the layer's filters
// transposed in place (ConvShapes::weights_transposed, gemm.cl's
// A_TRANSPOSED): no rotated copy, no rotation program; under stride 2 for its
// one phase with taps. On x (dy) in place,
// folded across the images and packed into panels (the panel GEMM's lda),
// one and two groups, K and C off the tile, N > 1; where the profile packs
// the weights into panels it rotates them as before, unless it packs them
// from their transpose too (gemm1x1_pack_transposed_filters, panels.cl's
// pack_row_panels_transposed).
TEST(ConvBackward, OneByOneBackwardDataReadsTheFiltersInPlace) {
    const Variant variant("gemm-1x1");
    struct Layout {
        const char* name;
        double pack_x_pixels, fold_saving, pack_weights, pack_transposed;
    };
    // gemm1x1_fold_images_min_saving 0 never folds: 1e-9 folds wherever it saves anything.
    const Layout layouts[] = {{"in place", 0, 0, 0, 0},          {"folded", 0, 1e-9, 0, 0},
                              {"packed", 1e9, 0, 0, 0},          {"weights in panels", 0, 0, 1, 0},
                              {"panels from the transpose", 0, 0, 1, 1}, {"x and W packed", 1e9, 0, 0, 1},
                              {"in place, prefetched", 0, 0, 0, 0}};
    std::uint64_t seed = 8500;
    for (const Layout& layout : layouts) {
        const auto context = context_with_profile([&](DeviceProfile& p) {
            p.tuned["gemm1x1_pack_x_max_pixels"] = layout.pack_x_pixels;
            p.tuned["gemm1x1_pack_x_min_images"] = 1;
            p.tuned["gemm1x1_fold_images_min_saving"] = layout.fold_saving;
            p.tuned["gemm1x1_pack_weights"] = layout.pack_weights;
            p.tuned["gemm1x1_pack_transposed_filters"] = layout.pack_transposed;
            // Each layout as named: pocl-cpu's gemm1x1_training_weights_in_place would read packed
            // layouts' filters in place over these few columns (test_conv_im2col has that case).
            p.tuned["gemm1x1_training_weights_in_place"] = 0;
            p.tuned["gemm1x1_transposed_filters_max_columns"] = 1e9;
            p.tuned["gemm1x1_prefetch_transposed_filters_steps"] =
                std::string(layout.name) == "in place, prefetched" ? 4.0 : 0.0;
        });
        // 5x5 images: 25 pixels fill no tile width whole (AVX2's 16 columns, AVX-512's 48), so "folded" saves
        // columns on every ISA; a 4x4 image fills AVX2's tile and folding saves nothing there.
        //            N  C  H  W   K  groups stride (2: dx's other three phases zeros)
        for (const auto& [n, c, h, w, k, groups, stride] : std::vector<std::array<std::int64_t, 7>>{
                 {4, 13, 5, 5, 21, 1, 1}, {2, 8, 6, 5, 12, 2, 1}, {2, 9, 9, 10, 14, 1, 2}}) {
            ConvShapes s;
            s.N = n, s.C = c, s.H = h, s.W = w, s.K = k, s.R = s.S = 1, s.groups = groups;
            s.stride_h = s.stride_w = stride;
            s = s.in_direction(ConvDirection::BACKWARD_DATA);
            const ConvCaseResult r =
                run_conv_case(s, {.strategy = Kernel::IM2COL, .variant = variant, .seed = seed++, .context = context});
            EXPECT_TRUE(r.passed()) << layout.name << ": " << describe(s, r);
            const bool in_place = layout.pack_weights == 0 || layout.pack_transposed > 0;
            const std::string name = layout.name;
            EXPECT_EQ(r.plan.config.find("weights in panels from their transpose") != std::string::npos,
                      layout.pack_transposed > 0)
                << layout.name << ": " << r.plan.config;
            if (name == "folded" && groups == 1 && stride == 1) {
                EXPECT_NE(r.plan.config.find("columns across images"), std::string::npos) << r.plan.config;
            }
            EXPECT_EQ(r.plan.config.find("weights read transposed (prefetched 4 steps ahead)") != std::string::npos,
                      name == "in place, prefetched" && context->profile().type == DeviceType::CPU)
                << layout.name << ": " << r.plan.config;
            if ((name == "packed" || name == "x and W packed") && groups == 1) {
                EXPECT_NE(r.plan.config.find("x in panels"), std::string::npos) << r.plan.config;
            }
            EXPECT_EQ(r.plan.config.find("filters as they lie, transposed") != std::string::npos, in_place)
                << layout.name << ": " << r.plan.config;
            const DeviceProfile resolved = KernelSelector::resolve_profile(context->profile());
            bool rotation = false, prefetch_a = false;
            for (const ProgramSpec& spec : implementation_of(variant).programs(variant, s, resolved)) {
                rotation |= spec.label == "rotate_filters";
                prefetch_a |= spec.options.find("-DPREFETCH_A=4") != std::string::npos;
            }
            EXPECT_EQ(rotation, !in_place) << layout.name << ": " << s.str();
            EXPECT_EQ(prefetch_a, name == "in place, prefetched" && context->profile().type == DeviceType::CPU)
                << layout.name << ": " << s.str();
        }
    }
    // Over at most gemm1x1_transposed_filters_max_columns columns of the whole batch (98 here, the built-in
    // default: two 7x7 images, not three; pocl-cpu-avx512-intel.json sets 196).
    const auto context = context_with_profile([](DeviceProfile& p) {
        p.tuned["gemm1x1_pack_weights"] = 0;
        p.tuned["gemm1x1_pack_transposed_filters"] = 0;
        p.tuned["gemm1x1_transposed_filters_max_columns"] = 98;
    });
    const DeviceProfile resolved = KernelSelector::resolve_profile(context->profile());
    for (const std::int64_t n : {2, 3}) {
        ConvShapes s;
        s.N = n, s.C = 24, s.H = s.W = 7, s.K = 40, s.R = s.S = 1;
        s = s.in_direction(ConvDirection::BACKWARD_DATA);
        const std::string config = implementation_of(variant).config(variant, s, resolved);
        EXPECT_EQ(config.find("filters as they lie, transposed") != std::string::npos, n == 2) << config;
    }
}

// Backward data as W^T dy on the GEMM engine, gathered into dx from the
// column matrix (ops/col2im/): every edge shape (strides 2 and 3, dilation,
// groups, depthwise, asymmetric pads, images smaller than the stride, N > 1)
// and random ones, W^T and dy in panels (one group, where the profile's
// col2im_gemm_panels says) and read in place (prefetched ahead where
// col2im_gemm_prefetch_dy_rows says), a set_weights that changes the
// filters (transposed again), and a workspace limit below one image's
// columns as a reason.
TEST(ConvBackward, Col2imGemmBackwardDataMatchesReference) {
    const Variant variant("col2im-gemm");
    const DeviceProfile& profile = shared_context()->profile();
    std::uint64_t seed = 8000;
    // W in place prefetched 4 steps ahead with dy prefetched (gemm.cl's PREFETCH_A and PREFETCH_B).
    for (const auto& [panels, prefetch, prefetch_w] :
         std::vector<std::array<double, 3>>{{0, 0, 0}, {1, 0, 0}, {0, 8, 4}}) {
        const auto context = context_with_profile([=](DeviceProfile& p) {
            p.tuned["col2im_gemm_panels"] = panels;
            p.tuned["col2im_gemm_in_place_max_columns"] = 0;  // the edge shapes' few columns in panels too
            p.tuned["col2im_gemm_prefetch_dy_rows"] = prefetch;
            p.tuned["col2im_gemm_prefetch_w_steps"] = prefetch_w;
        });
        for (const ConvShapes& edge : edge_case_shapes()) {
            const ConvShapes s = edge.in_direction(ConvDirection::BACKWARD_DATA);
            ASSERT_FALSE(why_not(variant, s, context->profile())) << s.str();
            ConvCaseOptions options;
            options.strategy = Kernel::IM2COL;
            options.variant = variant;
            options.seed = seed++;
            options.context = context;
            const ConvCaseResult r = run_conv_case(s, options);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            const bool packed = panels != 0.0 && s.groups == 1;
            EXPECT_EQ(r.plan.config.find("W^T and dy in panels") != std::string::npos, packed) << r.plan.config;
            // Not in panels, a float32 layer's W is read transposed where it lies: no copy at set_weights.
            EXPECT_EQ(r.plan.config.find("W read transposed in place") != std::string::npos,
                      !packed && s.dtype == DataType::FLOAT32)
                << r.plan.config;
            const Col2imGemmConfig config = col2im_gemm_config(s, KernelSelector::resolve_profile(context->profile()));
            const bool prefetched = prefetch != 0.0 && !packed && !config.edge_n &&
                                    context->profile().type == DeviceType::CPU;  // a CPU's build option
            EXPECT_EQ(r.plan.config.find("dy prefetched 8 channels ahead") != std::string::npos, prefetched)
                << r.plan.config;
            EXPECT_EQ(config.programs()[1].options.find("-DPREFETCH_B=8") != std::string::npos, prefetched)
                << config.programs()[1].options;
            const bool w_prefetched = prefetch_w != 0.0 && !packed && s.dtype == DataType::FLOAT32 &&
                                      context->profile().type == DeviceType::CPU;
            EXPECT_EQ(r.plan.config.find("(prefetched 4 steps ahead)") != std::string::npos, w_prefetched)
                << r.plan.config;
            EXPECT_EQ(config.programs()[1].options.find("-DPREFETCH_A=4") != std::string::npos, w_prefetched)
                << config.programs()[1].options;
            const auto columns = static_cast<std::size_t>(s.C * s.R * s.S * s.P() * s.Q()) * sizeof(float);
            if (packed) {
                // dy's K planes in panels of the GEMM tile's NR columns after the columns, the last panel padded.
                const std::int64_t nr =
                    col2im_gemm_config(s, KernelSelector::resolve_profile(context->profile())).tile.nr();
                const auto dy_panels = static_cast<std::size_t>(s.K * ((s.P() * s.Q() + nr - 1) / nr) * nr) * sizeof(float);
                EXPECT_EQ(r.workspace_bytes, columns + dy_panels) << s.str();
            } else {
                EXPECT_EQ(r.workspace_bytes, columns) << s.str();
            }
        }
    }
    std::mt19937_64 rng(20261128);
    for (int i = 0; i < 30; ++i) {
        const ConvShapes s = random_small_shape(rng).in_direction(ConvDirection::BACKWARD_DATA);
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, 8100 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
    ConvShapes s = layer_shapes().in_direction(ConvDirection::BACKWARD_DATA);
    s.bias = false;
    const auto context = shared_context();
    Conv2dOptions options = Conv2dOptions::for_shapes(s);
    options.strategy = Kernel::IM2COL;
    options.variant = variant;
    Conv2d conv(context, options);
    const auto dy = random_uniform(static_cast<std::size_t>(s.output_numel()), 41);
    const Tensor dy_tensor = Tensor::from_host(context, dy, {s.N, s.K, s.P(), s.Q()});
    for (const std::uint64_t w_seed : {42u, 43u}) {
        const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), w_seed);
        conv.set_weights(w);
        Tensor dx = Tensor::empty(context, {s.N, s.C, s.H, s.W});
        dx.fill(std::numeric_limits<float>::quiet_NaN());
        conv.backward_data(dy_tensor, dx);
        EXPECT_EQ(conv.last_plan().variant, variant);
        const Comparison c = compare(dx.to_host(), reference_conv_backward_data(s, dy, w));
        EXPECT_EQ(c.non_finite, 0u);
        EXPECT_LE(c.max_abs_error, conv_tolerance(s, 1.0)) << "weights " << w_seed;
    }
    DeviceProfile tight = profile;
    tight.tuned["col2im_gemm_workspace_limit_bytes"] = 64;
    const auto reason = why_not(variant, s, tight);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("col2im_gemm_workspace_limit_bytes"), std::string::npos) << *reason;
}

// The selector's rule for col2im-gemm: backward data of a layer of at most
// col2im_gemm_max_channels input channels (a stem) goes to it first, others
// (and every layer where the threshold is 0) as forward.
TEST(ConvBackward, SelectorRunsFewChannelBackwardDataOnCol2imGemm) {
    ConvShapes stem;
    stem.N = 2, stem.C = 3, stem.H = stem.W = 23, stem.K = 16, stem.R = stem.S = 7, stem.stride_h = stem.stride_w = 2;
    stem.set_padding(3);
    ConvShapes wider = stem;
    wider.C = 8;
    const auto plan_of = [](const ConvShapes& s, double threshold) {
        const auto context =
            context_with_profile([=](DeviceProfile& p) { p.tuned["col2im_gemm_max_channels"] = threshold; });
        Conv2dOptions options = Conv2dOptions::for_shapes(s);
        options.strategy = Kernel::IM2COL;
        Conv2d conv(context, options);
        conv.set_weights(random_uniform(static_cast<std::size_t>(s.weight_numel()), 51));
        const Tensor dy = Tensor::from_host(context, random_uniform(static_cast<std::size_t>(s.output_numel()), 53),
                                            {s.N, s.K, s.P(), s.Q()});
        Tensor dx = Tensor::empty(context, {s.N, s.C, s.H, s.W});
        conv.backward_data(dy, dx);
        return conv.last_plan();
    };
    EXPECT_EQ(plan_of(stem, 3).variant, Variant("col2im-gemm")) << plan_of(stem, 3).str();
    EXPECT_NE(plan_of(wider, 3).variant, Variant("col2im-gemm")) << plan_of(wider, 3).str();
    EXPECT_NE(plan_of(stem, 0).variant, Variant("col2im-gemm")) << plan_of(stem, 0).str();
}

// Winograd's dgrad on a VGG-like layer, chosen by the selector as forward's
// would be, through a set_weights that changes the filters (rotated again).
TEST(ConvBackward, SelectorRunsWinogradBackwardDataOnAVggLayer) {
    ConvShapes s = sampled_vgg_like_shape().in_direction(ConvDirection::BACKWARD_DATA);
    s.bias = false;
    const auto context = shared_context();
    Conv2d conv(context, Conv2dOptions::for_shapes(s));
    const auto dy = random_uniform(static_cast<std::size_t>(s.output_numel()), 31);
    const Tensor dy_tensor = Tensor::from_host(context, dy, {s.N, s.K, s.P(), s.Q()});
    for (const std::uint64_t seed : {32u, 33u}) {
        const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), seed);
        conv.set_weights(w);
        Tensor dx = Tensor::empty(context, {s.N, s.C, s.H, s.W});
        dx.fill(std::numeric_limits<float>::quiet_NaN());
        conv.backward_data(dy_tensor, dx);
        const Plan& plan = conv.last_plan();
        EXPECT_EQ(plan.kernel, Kernel::CONV2D_WINOGRAD) << plan.str();
        const Comparison c = compare(dx.to_host(), reference_conv_backward_data(s, dy, w));
        EXPECT_EQ(c.non_finite, 0u);
        EXPECT_LE(c.max_abs_error, conv_tolerance(s, plan.error_factor)) << plan.str();
    }
}

// The GEMM engine's weight gradient (ops/weight_gradient/) on every edge
// shape and random shapes, in the layout the default rule picks and with the
// patches forced (the columns' own test is below), and in chunks that add
// into the first's sum.
TEST(ConvBackward, GemmWeightGradientMatchesReference) {
    const Variant variant("wgrad-gemm");
    // What the plans see: the shipped profiles under the context's own values.
    const DeviceProfile profile = KernelSelector::resolve_profile(shared_context()->profile());
    const auto patches = context_with_profile([](DeviceProfile& p) { p.tuned["wgrad_gemm_dy_copy_max_ratio"] = 0; });
    std::uint64_t seed = 6000;
    for (const ConvShapes& edge : edge_case_shapes()) {
        const ConvShapes s = edge.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        ASSERT_FALSE(why_not(variant, s, profile)) << s.str();
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.workspace_bytes, implementation_of(variant).workspace_bytes(variant, s, profile))
            << s.str() << ": " << r.plan.config;
        ConvCaseOptions options;
        options.strategy = Kernel::IM2COL;
        options.variant = variant;
        options.context = patches;
        options.seed = seed++;
        const ConvCaseResult p = run_conv_case(s, options);
        EXPECT_TRUE(p.passed()) << "patches: " << describe(s, p);
        EXPECT_EQ(p.plan.config.find("dy copied"), std::string::npos) << p.plan.config;
    }
    std::mt19937_64 rng(20261126);
    for (int i = 0; i < 40; ++i) {
        const ConvShapes s = random_small_shape(rng).in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, 7000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
    // N = 5 images of 50 output pixels in chunks of 13, 13, 13 and 11 pixels
    // (a 2340-byte chunk target: 13 pixels of 45 patch floats): 20 GEMMs,
    // the first writing the sum and 19 adding to it, overwriting dw and
    // accumulating into it.
    ConvShapes s = layer_shapes().in_direction(ConvDirection::BACKWARD_WEIGHTS);
    s.N = 5;
    ASSERT_EQ(s.P() * s.Q(), 50);
    const std::size_t chunk_bytes = 13 * 45 * sizeof(float), sum_bytes = 270 * sizeof(float);
    const auto chunked = context_with_profile([&](DeviceProfile& p) {
        p.tuned["wgrad_gemm_chunk_bytes"] = static_cast<double>(chunk_bytes);
        p.tuned["wgrad_gemm_dy_copy_max_ratio"] = 0;  // the patches (6 dy floats a pixel would take the columns)
    });
    for (const float beta : {0.0f, 1.0f}) {
        const ConvCaseResult r = run_im2col_variant(variant, s, chunked, 91, beta);
        EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(s, r);
        EXPECT_NE(r.plan.config.find("4 chunk(s) of 13 pixels an image"), std::string::npos) << r.plan.config;
        EXPECT_EQ(r.workspace_bytes, chunk_bytes + sum_bytes);
    }
    // One image in one chunk (float32): the GEMM writes dw itself, storing
    // it (beta 0, dw poisoned) or adding to it (beta 1); any other beta goes
    // through the sum and the blend. K = 7 rows and 45 columns, off the 6 x
    // 16 tile: the shifted-back last tiles must add only their own part.
    ConvShapes single = s;
    single.N = 1;
    single.K = 7;
    for (const float beta : {0.0f, 1.0f, 0.5f}) {
        const ConvCaseResult r = run_im2col_variant(variant, single, patches, 93, beta);
        EXPECT_TRUE(r.passed()) << "one chunk, beta " << beta << ": " << describe(single, r);
        EXPECT_NE(r.plan.config.find("1 chunk(s) of 50 pixels an image (the GEMM writes dw where beta is 0 or 1)"),
                  std::string::npos)
            << r.plan.config;
    }
    // A limit below one chunk's needs is a reason, not a failure.
    DeviceProfile tight = profile;
    tight.tuned["wgrad_gemm_workspace_limit_bytes"] = 64;
    const auto reason = why_not(variant, s, tight);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("wgrad_gemm_workspace_limit_bytes"), std::string::npos) << *reason;
}

// wgrad-clblast (ClblastWeightGradientConv.hpp): every edge shape (groups,
// depthwise, strides, dilation, asymmetric pads) and random ones; passes of
// images (three passes of 2, 2 and 1 images) and an image's pixels in pieces
// (ClblastWeightGradientConfig.hpp), each with beta 0 (dw poisoned), 1 and
// 0.5, each later image adding to dw; images in slots of their own, a call a
// piece over five images and two images a call over three passes; whole
// images added into dw one by one; a 1x1 stride-1 unpadded layer reading x
// in place; and the workspace limit as a reason.
TEST(ConvBackward, ClblastWeightGradientMatchesReference) {
    const Variant variant("wgrad-clblast");
    const DeviceProfile& profile = shared_context()->profile();
    std::uint64_t seed = 8000;
    for (const ConvShapes& edge : edge_case_shapes()) {
        const ConvShapes s = edge.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        ASSERT_FALSE(why_not(variant, s, profile)) << s.str();
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.variant, variant);
        EXPECT_EQ(r.workspace_bytes, implementation_of(variant).workspace_bytes(variant, s, profile));
    }
    std::mt19937_64 rng(20261127);
    for (int i = 0; i < 20; ++i) {
        const ConvShapes s = random_small_shape(rng).in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, 9000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
    ConvShapes s = layer_shapes().in_direction(ConvDirection::BACKWARD_WEIGHTS);
    s.N = 5;
    const std::size_t image_bytes = static_cast<std::size_t>(s.C * s.R * s.S * s.P() * s.Q()) * sizeof(float);
    const auto passes = context_with_profile([&](DeviceProfile& p) {
        p.tuned["im2col_pass_bytes"] = static_cast<double>(2 * image_bytes);
    });
    for (const float beta : {0.0f, 1.0f, 0.5f}) {
        const ConvCaseResult r = run_im2col_variant(variant, s, passes, 95, beta);
        EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(s, r);
        EXPECT_NE(r.plan.config.find("2 image(s) of columns a pass"), std::string::npos) << r.plan.config;
    }
    // An image's 50 pixels in 7 pieces of 8 (the last of 2), two groups: a batched GEMM for the six whole
    // pieces and one for the last, each into its partial, over three images (a slot each), summed into dw.
    ConvShapes grouped = s;
    grouped.N = 3, grouped.C = 6, grouped.groups = 2;
    const auto pieces = context_with_profile([](DeviceProfile& p) {
        p.tuned["wgrad_clblast_split_outputs"] = 1e9;
        p.tuned["wgrad_clblast_min_chunk"] = 7;
    });
    for (const float beta : {0.0f, 1.0f, 0.5f}) {
        const ConvCaseResult r = run_im2col_variant(variant, grouped, pieces, 97, beta);
        EXPECT_TRUE(r.passed()) << "pieces, beta " << beta << ": " << describe(grouped, r);
        EXPECT_NE(r.plan.config.find("pixels in 7 pieces of 8, CLBlast GEMMs into 21"), std::string::npos)
            << r.plan.config;
        EXPECT_EQ(r.workspace_bytes, implementation_of(variant).workspace_bytes(variant, grouped, pieces->profile()));
    }
    // Slots of their own for the images: a call a piece over three images (2 pieces of 25); and two images
    // a call in passes of two, the later images adding into the first call's slots.
    const double dw_size = static_cast<double>(grouped.K * grouped.C / grouped.groups * grouped.R * grouped.S);
    const auto image_slots = context_with_profile([](DeviceProfile& p) {
        p.tuned["wgrad_clblast_split_outputs"] = 1e9;
        p.tuned["wgrad_clblast_min_chunk"] = 20;
    });
    const auto two_a_call = context_with_profile([&](DeviceProfile& p) {
        p.tuned["wgrad_clblast_split_outputs"] = 2.5 * dw_size;
        p.tuned["im2col_pass_bytes"] =  // two images' operands (dy and columns): passes of two, two a call
            static_cast<double>(2 * (grouped.K + grouped.C * grouped.R * grouped.S) * grouped.P() * grouped.Q()) *
            sizeof(float);
    });
    grouped.N = 5;
    for (const auto& [context, expected] :
         {std::pair{image_slots, "2 pieces of 25, CLBlast GEMMs into 10 float32 partial(s) (a call a piece over 5 images"},
          std::pair{two_a_call, "2 image(s) of columns a pass; each image whole, CLBlast GEMMs into 2 float32 partial(s) "
                                "(a call a piece over 2 images"}}) {
        for (const float beta : {0.0f, 0.5f}) {
            const ConvCaseResult r = run_im2col_variant(variant, grouped, context, 98, beta);
            EXPECT_TRUE(r.passed()) << expected << ", beta " << beta << ": " << describe(grouped, r);
            EXPECT_NE(r.plan.config.find(expected), std::string::npos) << r.plan.config;
        }
    }
    ConvShapes pointwise = s;  // 1x1, stride 1, unpadded, two groups: x is the column matrix
    pointwise.R = pointwise.S = 1;
    pointwise.stride_h = pointwise.stride_w = 1;
    pointwise.set_padding(0, 0, 0, 0);
    pointwise.C = 6;
    pointwise.groups = 2;
    // Whole images, each GEMM adding into dw itself (no partials: a dW that fills the device alone), in
    // passes of two images and on x in place.
    const auto whole = context_with_profile([&](DeviceProfile& p) {
        p.tuned["wgrad_clblast_split_outputs"] = 1;
        p.tuned["im2col_pass_bytes"] = static_cast<double>(2 * image_bytes);
    });
    for (const ConvShapes& shapes : {s, pointwise}) {
        for (const float beta : {0.0f, 0.5f}) {
            const ConvCaseResult r = run_im2col_variant(variant, shapes, whole, 99, beta);
            EXPECT_TRUE(r.passed()) << "whole images, beta " << beta << ": " << describe(shapes, r);
            EXPECT_NE(r.plan.config.find("one CLBlast GEMM an image, summed into dw in order"), std::string::npos)
                << r.plan.config;
        }
    }
    const ConvCaseResult r = run_conv_case(pointwise, Kernel::IM2COL, variant, 96);
    EXPECT_TRUE(r.passed()) << describe(pointwise, r);
    const ClblastWeightGradientConfig in_place = clblast_weight_gradient_config(pointwise, profile);
    EXPECT_EQ(in_place.layout.workspace_bytes, 0u);  // no columns: only the partial sums take workspace
    EXPECT_EQ(r.workspace_bytes, in_place.partials_bytes);
    EXPECT_NE(r.plan.config.find("x is the column matrix"), std::string::npos) << r.plan.config;
    DeviceProfile tight = profile;
    tight.tuned["im2col_workspace_limit_bytes"] = 64;
    const auto reason = why_not(variant, s, tight);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("im2col_workspace_limit_bytes"), std::string::npos) << *reason;
}

// A weight gradient GEMM of few tiles on smaller work-groups (wgrad_gemm_min_work_groups_per_unit): every edge
// shape with its work-groups halved down to 1 x 1, against the reference.
TEST(ConvBackward, GemmWeightGradientOnSmallerWorkGroupsMatchesReference) {
    const Variant variant("wgrad-gemm");
    const auto small = context_with_profile([](DeviceProfile& p) { p.tuned["wgrad_gemm_min_work_groups_per_unit"] = 1e6; });
    std::uint64_t seed = 7950;
    for (const ConvShapes& edge : edge_case_shapes()) {
        const ConvShapes s = edge.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const ConvCaseResult r = run_im2col_variant(variant, s, small, seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_NE(r.plan.config.find("work-group 1x1"), std::string::npos) << s.str() << ": " << r.plan.config;
    }
}

// The weight gradient the other way round (WeightGradientGemmConfig.hpp):
// x's columns (read in place for 1x1 stride-1 unpadded layers, else copied
// by either im2col kernel, a chunk of output rows at a time) x dy copied
// transposed, the sum transposed back. Every edge shape and random ones with
// the layout forced; in chunks of rows (the last one short, under a stride
// and padding) and of pixels (in place), with beta 0 and 1; and the default
// rule, which takes it where dy's rows are no longer than the patches'
// (and, for copied columns, output rows of at least 16 pixels).
// wgrad-gemm's layout forced to x's columns and dy copied transposed (whatever the ratio, the rows' width or
// the profile's saving rule), the columns copied or read from x's stride phases wherever those may be, by
// either copy kernel, in chunks of chunk_bytes (0: the profile's).
std::shared_ptr<Context> columns_forced(bool from_phases, double by_rows, double chunk_bytes) {
    return context_with_profile([=](DeviceProfile& p) {
        p.tuned["wgrad_gemm_dy_copy_max_ratio"] = 1e9;
        p.tuned["wgrad_gemm_dy_copy_min_saving"] = 0;
        p.tuned["wgrad_gemm_columns_min_width"] = 0;
        p.tuned["wgrad_gemm_columns_from_phases"] = from_phases ? 1 : 0;
        p.tuned["wgrad_gemm_phases_min_width"] = 0;
        p.tuned["im2col_rows"] = by_rows;
        if (chunk_bytes > 0) p.tuned["wgrad_gemm_chunk_bytes"] = chunk_bytes;     // copied columns
        if (chunk_bytes > 0) p.tuned["wgrad_gemm_dy_chunk_bytes"] = chunk_bytes;  // x in place or from phases
    });
}

bool x_in_place(const ConvShapes& s) {
    return s.R == 1 && s.S == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 && s.pad_bottom == 0 &&
           s.pad_left == 0 && s.pad_right == 0;
}

TEST(ConvBackward, GemmWeightGradientFromColumnsMatchesReference) {
    const Variant variant("wgrad-gemm");
    const auto forced = [](double by_rows, double chunk_bytes) { return columns_forced(false, by_rows, chunk_bytes); };
    const auto in_place = x_in_place;
    std::vector<ConvShapes> shapes;
    for (const ConvShapes& edge : edge_case_shapes()) shapes.push_back(edge.in_direction(ConvDirection::BACKWARD_WEIGHTS));
    std::mt19937_64 rng(20261127);
    for (int i = 0; i < 12; ++i) shapes.push_back(random_small_shape(rng).in_direction(ConvDirection::BACKWARD_WEIGHTS));
    std::uint64_t seed = 7600;
    for (const double by_rows : {1.0, 0.0}) {
        const auto context = forced(by_rows, 0);
        for (const ConvShapes& s : shapes) {
            ConvCaseOptions options;
            options.strategy = Kernel::IM2COL;
            options.variant = variant;
            options.context = context;
            options.seed = seed++;
            const ConvCaseResult r = run_conv_case(s, options);
            EXPECT_TRUE(r.passed()) << "im2col_rows " << by_rows << ": " << describe(s, r);
            const std::string expected = in_place(s) ? "x in place, dy copied transposed"
                                         : by_rows   ? "x's columns (im2col_rows) and dy copied transposed"
                                                     : "x's columns (im2col) and dy copied transposed";
            EXPECT_NE(r.plan.config.find(expected), std::string::npos) << s.str() << ": " << r.plan.config;
        }
    }
    // Stride 2 and padding 1 (3 images of 7 x 14 outputs, 11 dy and 36
    // column floats a pixel): chunks of 3, 3 and 1 output rows, the later
    // ones' top padding shifted up by their first row; and groups 2, 1x1
    // stride 1 (3 images of 7x13, 12 dy floats a pixel, x in place): chunks
    // of 23, 23, 23 and 22 pixels. Every GEMM after the first adds to the sum.
    ConvShapes strided = edge_case_shapes()[8].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ConvShapes grouped = edge_case_shapes()[13].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ASSERT_TRUE(strided.stride_h == 2 && strided.pad_top == 1 && strided.P() == 7 && strided.Q() == 14) << strided.str();
    ASSERT_TRUE(grouped.groups == 2 && in_place(grouped)) << grouped.str();
    // And output rows of 38 under stride 2 (the row copy's 16-column vectors), dy's 16 planes transposed, in 3
    // chunks of 2 rows.
    ConvShapes wide;
    wide.N = 2, wide.C = 3, wide.H = 12, wide.W = 75, wide.K = 16, wide.R = 3, wide.S = 5;
    wide.stride_h = wide.stride_w = 2, wide.set_padding(1, 2, 0, 3);
    wide = wide.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ASSERT_TRUE(wide.P() == 6 && wide.Q() == 38) << wide.str();
    const std::vector<std::tuple<ConvShapes, double, std::string>> chunked = {
        {strided, 3 * 14 * (11 + 36) * sizeof(float), "3 chunk(s) of 42 pixels an image"},
        {wide, 2 * 38 * (16 + 45) * sizeof(float), "dy's planes in 8 x 8 blocks, 3 chunk(s) of 76 pixels an image"},
        {grouped, 23 * 12 * sizeof(float), "4 chunk(s) of 23 pixels an image"}};
    for (const auto& [s, chunk_bytes, expected] : chunked) {
        const auto context = forced(1.0, chunk_bytes);
        for (const float beta : {0.0f, 1.0f}) {
            ConvCaseOptions options;
            options.strategy = Kernel::IM2COL;
            options.variant = variant;
            options.context = context;
            options.beta = beta;
            options.seed = 92;
            const ConvCaseResult r = run_conv_case(s, options);
            EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(s, r);
            EXPECT_NE(r.plan.config.find(expected), std::string::npos) << r.plan.config;
        }
    }
    const DeviceProfile& profile = shared_context()->profile();
    const auto config = [&](const ConvShapes& layer) { return implementation_of(variant).config(variant, layer, profile); };
    const auto layer = [](std::int64_t c, std::int64_t k, std::int64_t r, std::int64_t stride) {
        ConvShapes s;
        s.N = 1, s.C = c, s.H = s.W = 56, s.K = k, s.R = s.S = r, s.stride_h = s.stride_w = stride;
        s.set_padding(r / 2);
        return s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    };
    EXPECT_NE(config(layer(256, 64, 1, 1)).find("x in place"), std::string::npos);    // ResNet's reduction
    EXPECT_NE(config(layer(3, 64, 7, 2)).find("x's columns"), std::string::npos);     // the stem: 147 taps
    EXPECT_EQ(config(layer(64, 256, 1, 1)).find("dy copied"), std::string::npos);     // an expansion
    EXPECT_EQ(config(layer(3, 64, 3, 1)).find("dy copied"), std::string::npos);       // VGG's conv1.1: 27 taps
    ConvShapes narrow = layer(512, 512, 3, 2);  // res5's 3x3 stride 2: 7 output columns to copy along
    narrow.H = narrow.W = 14;
    EXPECT_EQ(config(narrow).find("dy copied"), std::string::npos) << config(narrow);
}

// x's columns read in place from its stride phases (gemm.cl's A_PHASES): a
// chunk's phase rows copied by either im2col kernel under a stride_h x
// stride_w filter, each tap's row of A at its own offset in them, the GEMM's
// reduction an output row at a time. Every strided edge shape and random
// ones with it forced (strides 2 and 3, unequal strides, dilation, groups,
// depthwise, asymmetric pads), the others (stride 1, a filter no larger than
// its stride) on copied columns; in chunks of output rows, the last one
// short, each chunk's phases from its first row's on, with beta 0 and 1; and
// the rule.
TEST(ConvBackward, GemmWeightGradientFromStridePhasesMatchesReference) {
    const Variant variant("wgrad-gemm");
    const auto forced = [](double by_rows, double chunk_bytes) { return columns_forced(true, by_rows, chunk_bytes); };
    const auto in_place = x_in_place;
    const auto phased = [](const ConvShapes& s) {
        return s.stride_h * s.stride_w > 1 && s.R * s.S > s.stride_h * s.stride_w;
    };
    std::vector<ConvShapes> shapes;
    int phased_edges = 0;
    for (const ConvShapes& edge : edge_case_shapes()) {
        if (!in_place(edge)) shapes.push_back(edge.in_direction(ConvDirection::BACKWARD_WEIGHTS));
        phased_edges += phased(edge);
    }
    std::mt19937_64 rng(20261129);
    for (int drawn = 0; drawn < 8;) {
        const ConvShapes s = random_small_shape(rng);
        if (phased(s)) shapes.push_back(s.in_direction(ConvDirection::BACKWARD_WEIGHTS)), ++drawn;
    }
    EXPECT_GE(phased_edges, 6);
    std::uint64_t seed = 7700;
    for (const double by_rows : {1.0, 0.0}) {
        const auto context = forced(by_rows, 0);
        for (const ConvShapes& s : shapes) {
            const ConvCaseResult r = run_im2col_variant(variant, s, context, seed++);
            EXPECT_TRUE(r.passed()) << "im2col_rows " << by_rows << ": " << describe(s, r);
            const std::string kernel = by_rows ? "im2col_rows" : "im2col";
            const std::string expected = phased(s) ? "stride phases (" + kernel + ") and dy copied transposed"
                                                   : "x's columns (" + kernel + ") and dy copied transposed";
            EXPECT_NE(r.plan.config.find(expected), std::string::npos) << s.str() << ": " << r.plan.config;
        }
    }
    // Stride 2, padding 1 (3 images of 7 x 14 outputs; 11 dy and 4 x 4 phase floats a pixel): chunks of 3, 3 and
    // 1 output rows, 4 x 15 phases a chunk. Output rows of 38 under stride 2 and pads on three sides (the
    // copy's 16-column vectors): 3 chunks of 2 rows, 3 x 40 phases. Strides 3 x 2, dilations 2 x 2, a 3 x 3
    // filter, groups 2 and pads on three sides (2 images of 5 x 10 outputs): chunks of 2, 2 and 1 rows, 3 x 12
    // phases; its taps' column phase and shift (dilated offsets 0, 2, 4 over a stride of 2) differ from what
    // their index or the vertical stride would give.
    ConvShapes strided = edge_case_shapes()[8].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ASSERT_TRUE(strided.stride_h == 2 && strided.pad_top == 1 && strided.P() == 7 && strided.Q() == 14)
        << strided.str();
    ConvShapes wide;
    wide.N = 2, wide.C = 3, wide.H = 12, wide.W = 75, wide.K = 16, wide.R = 3, wide.S = 5;
    wide.stride_h = wide.stride_w = 2, wide.set_padding(1, 2, 0, 3);
    wide = wide.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ASSERT_TRUE(wide.P() == 6 && wide.Q() == 38) << wide.str();
    ConvShapes dilated;
    dilated.N = 2, dilated.C = 4, dilated.H = 17, dilated.W = 20, dilated.K = 6, dilated.R = 3, dilated.S = 3;
    dilated.stride_h = 3, dilated.stride_w = 2, dilated.dilation_h = 2, dilated.dilation_w = 2, dilated.groups = 2;
    dilated.set_padding(2, 1, 0, 2);
    dilated = dilated.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ASSERT_TRUE(dilated.P() == 5 && dilated.Q() == 10) << dilated.str();
    ConvShapes wide_half = wide;  // and in half: x's phases widened by the copy, dy by its transposed copy
    wide_half.dtype = DataType::FLOAT16;
    const std::vector<std::tuple<ConvShapes, double, std::string>> chunked = {
        {strided, 3 * 14 * (11 + 16) * sizeof(float), "from its 4 x 15 stride phases (im2col_rows) and dy copied "
                                                      "transposed, 3 chunk(s) of 42 pixels an image"},
        {wide_half, 2 * 38 * (16 + 12) * sizeof(float), "from its 3 x 40 stride phases (im2col_rows) and dy copied "
                                                        "transposed, dy's planes in 8 x 8 blocks, 3 chunk(s) of 76"},
        {wide, 2 * 38 * (16 + 12) * sizeof(float), "from its 3 x 40 stride phases (im2col_rows) and dy copied "
                                                   "transposed, dy's planes in 8 x 8 blocks, 3 chunk(s) of 76 pixels"},
        {dilated, 2 * 10 * (6 + 24) * sizeof(float), "from its 3 x 12 stride phases (im2col_rows) and dy copied "
                                                     "transposed, 3 chunk(s) of 20 pixels an image"}};
    for (const auto& [s, chunk_bytes, expected] : chunked) {
        const auto context = forced(1.0, chunk_bytes);
        for (const float beta : {0.0f, 1.0f}) {
            const ConvCaseResult r = run_im2col_variant(variant, s, context, seed++, beta);
            EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(s, r);
            EXPECT_NE(r.plan.config.find(expected), std::string::npos) << r.plan.config;
        }
    }
    // The rule: output rows of at least wgrad_gemm_phases_min_width (28) where columns are copied, on a CPU.
    DeviceProfile cpu;
    cpu.type = DeviceType::CPU;
    cpu.tuned["wgrad_gemm_columns_min_width"] = 14;  // res4's rows copied as columns (the Intel profile's)
    const auto layer = [](std::int64_t c, std::int64_t k, std::int64_t r, std::int64_t hw) {
        ConvShapes s;
        s.N = 1, s.C = c, s.H = s.W = hw, s.K = k, s.R = s.S = r, s.stride_h = s.stride_w = 2;
        s.set_padding(r / 2);
        return s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    };
    EXPECT_TRUE(weight_gradient_gemm_config(layer(3, 64, 7, 224), cpu).columns_from_phases);   // the stem, Q = 112
    EXPECT_TRUE(weight_gradient_gemm_config(layer(256, 128, 1, 112), cpu).columns);
    EXPECT_FALSE(weight_gradient_gemm_config(layer(256, 128, 1, 112), cpu).columns_from_phases);  // 1x1: 1 plane of 4
    EXPECT_TRUE(weight_gradient_gemm_config(layer(128, 128, 3, 56), cpu).columns_from_phases);  // res3, Q = 28
    EXPECT_TRUE(weight_gradient_gemm_config(layer(256, 256, 3, 28), cpu).columns);
    EXPECT_FALSE(weight_gradient_gemm_config(layer(256, 256, 3, 28), cpu).columns_from_phases);  // res4, Q = 14
    DeviceProfile gpu = cpu;
    gpu.type = DeviceType::GPU;
    EXPECT_FALSE(weight_gradient_gemm_config(layer(3, 64, 7, 224), gpu).columns_from_phases);
    cpu.tuned["wgrad_gemm_columns_from_phases"] = 0;
    EXPECT_FALSE(weight_gradient_gemm_config(layer(3, 64, 7, 224), cpu).columns_from_phases);
}

// Whole images a GEMM (gemm.cl's A_IMAGES: the reduction runs over the
// images of A where each lies, their patches side by side): x's patches
// under a 3x3 filter (K 5 and 27 taps: the tile's clamped rows and
// columns), x's planes transposed (K > C) and x in place with dy transposed
// (K <= C); 3 images as GEMMs of 2 and 1, beta 0, 1 and 0.5; 2 images in one
// GEMM writing dw itself. Float16 (A widened a chunk at a time), groups and
// copied columns keep an image a GEMM.
TEST(ConvBackward, GemmWeightGradientFoldsImagesIntoTheReduction) {
    const Variant variant("wgrad-gemm");
    const auto folding = [](double image_bytes) {
        return context_with_profile([=](DeviceProfile& p) {
            p.tuned["wgrad_gemm_fold_images_max_pixels"] = 1e9;
            p.tuned["wgrad_gemm_fold_images_bytes"] = image_bytes;
            p.tuned["wgrad_gemm_dot_min_pixels"] = 0;
        });
    };
    const auto layer = [](std::int64_t n, std::int64_t c, std::int64_t k, std::int64_t r) {
        ConvShapes s;
        s.N = n, s.C = c, s.H = 6, s.W = 7, s.K = k, s.R = s.S = r;
        s.set_padding(r / 2);
        return s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    };
    struct Case {
        ConvShapes shapes;
        std::int64_t patch_floats;  // one pixel's patch row
        std::string expected;
    };
    const std::vector<Case> cases = {
        {layer(3, 3, 5, 3), 27, "2 images a GEMM, workspace"},
        {layer(3, 16, 40, 1), 16, "x's planes in 8 x 8 blocks, 2 images a GEMM, workspace"},
        {layer(3, 40, 16, 1), 16, "x in place, dy copied transposed, dy's planes in 8 x 8 blocks, 2 images a GEMM"}};
    std::uint64_t seed = 8300;
    for (const Case& c : cases) {
        const auto context = folding(2.0 * 42 * c.patch_floats * sizeof(float));  // 2 images of 6 x 7 outputs
        for (const float beta : {0.0f, 1.0f, 0.5f}) {
            const ConvCaseResult r = run_im2col_variant(variant, c.shapes, context, seed++, beta);
            EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(c.shapes, r);
            EXPECT_NE(r.plan.config.find(c.expected), std::string::npos) << r.plan.config;
        }
    }
    ConvShapes pair = layer(2, 3, 5, 3);
    for (const float beta : {0.0f, 1.0f}) {
        const ConvCaseResult r = run_im2col_variant(variant, pair, folding(1e9), seed++, beta);
        EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(pair, r);
        EXPECT_NE(r.plan.config.find("2 images a GEMM (the GEMM writes dw where beta is 0 or 1)"), std::string::npos)
            << r.plan.config;
    }
    pair.dtype = DataType::FLOAT16;
    const ConvCaseResult half = run_im2col_variant(variant, pair, folding(1e9), seed++);
    EXPECT_TRUE(half.passed()) << describe(pair, half);
    EXPECT_NE(half.plan.config.find("A widened to float32 a chunk at a time, 1 chunk(s) of 42 pixels an image"),
              std::string::npos)
        << half.plan.config;
    // Nor do groups (each group's patches lie a whole chunk apart) or copied columns (a chunk's copy at a time):
    // a 1x1 layer of 2 groups, and 3x3 stride 2 over rows of 18 outputs (x's columns, dy transposed).
    ConvShapes grouped = layer(3, 16, 8, 1);
    grouped.groups = 2;
    ConvShapes strided;
    strided.N = 3, strided.C = 4, strided.H = strided.W = 36, strided.K = 8, strided.R = strided.S = 3;
    strided.stride_h = strided.stride_w = 2;
    strided.set_padding(1);
    strided = strided.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    for (const auto& [s, expected] : {std::pair{grouped, std::string("1 chunk(s) of 42 pixels an image")},
                                      std::pair{strided, std::string("x's columns (")}}) {
        const ConvCaseResult r = run_im2col_variant(variant, s, folding(1e9), seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.config.find("images a GEMM"), std::string::npos) << r.plan.config;
        EXPECT_NE(r.plan.config.find(expected), std::string::npos) << r.plan.config;
    }
}

// The weight gradient in dot-product form (kernels_cl/gemm_dot.cl): dy's
// planes and x's columns both read along the pixels, neither transposed.
// Forced on every edge shape and random ones, with either column copy, a
// tile a work-item and 2 x 3 tiles a work-item over blocks of 32 pixels
// (tiles past M and N skipped); in chunks of rows (copied columns under
// stride 2 and padding, the last chunk short) and of whole images a launch
// (x in place, groups 2: 3 images as 2 launches of 2 and 1), float32 and
// half, beta 0 and 1; one launch in all writing dw itself; and the profile's
// rule (an image's pixels and dW's size).
TEST(ConvBackward, GemmWeightGradientInDotFormMatchesReference) {
    const Variant variant("wgrad-gemm");
    const auto forced = [](double by_rows, double chunk_bytes, bool blocked = false, int lanes = 0) {
        return context_with_profile([=](DeviceProfile& p) {
            p.tuned["wgrad_gemm_dot_min_pixels"] = 1;
            p.tuned["wgrad_gemm_dot_max_weights"] = 1e12;
            // Copied columns, whatever the device's profile and lanes say (the next test reads x's phases):
            // with 8 lanes (AVX2) the strided layer's 14-pixel rows would take the phases.
            p.tuned["wgrad_gemm_dot_columns_from_phases"] = 0;
            p.tuned["im2col_rows"] = by_rows;
            if (lanes > 0) p.tuned["wgrad_gemm_dot_vw"] = lanes;
            if (chunk_bytes > 0) p.tuned["wgrad_gemm_dot_chunk_bytes"] = chunk_bytes;
            if (blocked) {
                p.tuned["wgrad_gemm_dot_tiles_m"] = 2;
                p.tuned["wgrad_gemm_dot_tiles_n"] = 3;
                p.tuned["wgrad_gemm_dot_kb"] = 32;
            }
        });
    };
    std::vector<ConvShapes> shapes;
    for (const ConvShapes& edge : edge_case_shapes()) shapes.push_back(edge.in_direction(ConvDirection::BACKWARD_WEIGHTS));
    std::mt19937_64 rng(20261129);
    for (int i = 0; i < 12; ++i) shapes.push_back(random_small_shape(rng).in_direction(ConvDirection::BACKWARD_WEIGHTS));
    std::uint64_t seed = 8100;
    for (const double by_rows : {1.0, 0.0}) {
        const bool blocked = by_rows == 0.0;
        const auto context = forced(by_rows, 0, blocked);
        for (const ConvShapes& s : shapes) {
            const ConvCaseResult r = run_im2col_variant(variant, s, context, seed++);
            EXPECT_TRUE(r.passed()) << "im2col_rows " << by_rows << ": " << describe(s, r);
            EXPECT_NE(r.plan.config.find("dot-product form, dy in place"), std::string::npos) << s.str() << ": " << r.plan.config;
            EXPECT_EQ(r.plan.config.find("2 x 3 tiles a work-item over blocks of 32 pixels") != std::string::npos, blocked)
                << r.plan.config;
        }
    }
    // 8 lanes, AVX2's 4 x 3 tile (pocl-cpu-intel.json takes the form on an AVX2 Intel CPU), blocked, on the
    // random shapes.
    {
        const auto context = forced(0.0, 0, true, 8);
        for (std::size_t i = shapes.size() - 12; i < shapes.size(); ++i) {
            const ConvCaseResult r = run_im2col_variant(variant, shapes[i], context, seed++);
            EXPECT_TRUE(r.passed()) << "8 lanes: " << describe(shapes[i], r);
            EXPECT_NE(r.plan.config.find("dot-product form"), std::string::npos) << r.plan.config;
            EXPECT_NE(r.plan.config.find("tile 4 x 3 rows of 8 lanes, 2 x 3 tiles"), std::string::npos) << r.plan.config;
        }
    }
    // Stride 2 and padding 1 (7 x 14 outputs, K 11 and 36 taps): chunks of 3, 3 and 1 output rows. Groups 2,
    // 1x1 stride 1 (7 x 13 outputs, C 8, K 12): whole images, 2 a launch.
    ConvShapes strided = edge_case_shapes()[8].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ConvShapes grouped = edge_case_shapes()[13].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ASSERT_TRUE(strided.stride_h == 2 && strided.pad_top == 1 && strided.P() == 7 && strided.Q() == 14 &&
                strided.K == 11 && strided.C * strided.R * strided.S == 36)
        << strided.str();
    ASSERT_TRUE(grouped.groups == 2 && grouped.R == 1 && grouped.stride_h == 1 && grouped.pad_top == 0 &&
                grouped.N == 3 && grouped.P() * grouped.Q() == 91 && grouped.C + grouped.K == 20)
        << grouped.str();
    for (const DataType dtype : {DataType::FLOAT32, DataType::FLOAT16}) {
        strided.dtype = grouped.dtype = dtype;
        const std::vector<std::tuple<ConvShapes, double, std::string>> chunked = {
            {strided, 3 * 14 * (11 + 36) * sizeof(float), "x's columns (im2col_rows), 3 chunk(s) of 42 pixels an image"},
            {grouped, 2 * 91 * 20 * sizeof(float), "x in place, 2 images a launch"}};
        for (const auto& [s, chunk_bytes, expected] : chunked) {
            const auto context = forced(1.0, chunk_bytes, dtype == DataType::FLOAT16);
            for (const float beta : {0.0f, 1.0f}) {
                const ConvCaseResult r = run_im2col_variant(variant, s, context, seed++, beta);
                EXPECT_TRUE(r.passed()) << "beta " << beta << " " << to_string(dtype) << ": " << describe(s, r);
                EXPECT_NE(r.plan.config.find(expected), std::string::npos) << r.plan.config;
            }
        }
    }
    ConvShapes single = edge_case_shapes()[8].in_direction(ConvDirection::BACKWARD_WEIGHTS);
    single.N = 1;
    for (const float beta : {0.0f, 1.0f, 0.5f}) {  // 0.5: the sum blended into dw, which the GEMM cannot scale
        const ConvCaseResult r = run_im2col_variant(variant, single, forced(1.0, 0), seed++, beta);
        EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(single, r);
        EXPECT_NE(r.plan.config.find("1 chunk(s) of 98 pixels an image (the GEMM writes dw"), std::string::npos)
            << r.plan.config;
    }
    // The workspace: a chunk's copied columns, then the float32 sum (dW's size); x in place, the sum alone.
    const std::size_t sum_bytes = static_cast<std::size_t>(strided.weight_numel()) * sizeof(float);
    strided.dtype = grouped.dtype = DataType::FLOAT32;
    EXPECT_EQ(run_im2col_variant(variant, strided, forced(1.0, 3 * 14 * (11 + 36) * sizeof(float)), seed++)
                  .workspace_bytes,
              42 * 36 * sizeof(float) + sum_bytes);
    EXPECT_EQ(run_im2col_variant(variant, grouped, forced(1.0, 2 * 91 * 20 * sizeof(float)), seed++).workspace_bytes,
              static_cast<std::size_t>(grouped.weight_numel()) * sizeof(float));
    DeviceProfile profile = shared_context()->profile();
    profile.tuned["wgrad_gemm_dot_min_pixels"] = 784;
    profile.tuned["wgrad_gemm_dot_max_weights"] = 4096;
    const auto dot = [&](std::int64_t c, std::int64_t k, std::int64_t r, std::int64_t hw) {
        ConvShapes s;
        s.N = 8, s.C = c, s.H = s.W = hw, s.K = k, s.R = s.S = r;
        s.set_padding(r / 2);
        return implementation_of(variant).config(variant, s.in_direction(ConvDirection::BACKWARD_WEIGHTS), profile)
                   .find("dot-product form") != std::string::npos;
    };
    EXPECT_TRUE(dot(3, 64, 3, 224));   // VGG's conv1.1: 27 taps x 64
    EXPECT_TRUE(dot(64, 64, 1, 28));   // 784 pixels
    EXPECT_FALSE(dot(64, 64, 1, 27));  // 729
    EXPECT_FALSE(dot(256, 64, 1, 56)); // dW of 16384
}

// The dot form with x's columns read from its stride phases (gemm_dot.cl's
// D_PHASES): forced on every edge shape and random ones with 4-lane vectors
// (rows of at least 4 take the phases where the filter is larger than the
// stride; the rest keep copied columns or x in place), a tile a work-item and
// 2 x 3 tiles over blocks of 8 pixels; then 16 lanes on wide layers: rows of
// 37 (two vectors and a tail of 5 a row), asymmetric padding, N = 2, and
// N = 1 (one launch: in float32 the GEMM writes dw, adding at beta 1);
// stride 2 with dilation 2, groups 2 and padding on three sides (rows of
// 35); rows of exactly 16; in float32 and half, beta 0, 1 and 0.5. And the
// rule: the key off, a 1x1 stride-2 filter (its phases 4 planes to read 1),
// rows narrower than a vector, phases past the workspace limit.
TEST(ConvBackward, GemmWeightGradientInDotFormFromStridePhasesMatchesReference) {
    const Variant variant("wgrad-gemm");
    const auto forced = [](int lanes, bool phases, bool blocked) {
        return context_with_profile([=](DeviceProfile& p) {
            p.tuned["wgrad_gemm_dot_min_pixels"] = 1;
            p.tuned["wgrad_gemm_dot_max_weights"] = 1e12;
            p.tuned["wgrad_gemm_dot_vw"] = lanes;
            p.tuned["wgrad_gemm_dot_columns_from_phases"] = phases ? 1 : 0;
            if (blocked) {
                p.tuned["wgrad_gemm_dot_tiles_m"] = 2;
                p.tuned["wgrad_gemm_dot_tiles_n"] = 3;
                p.tuned["wgrad_gemm_dot_kb"] = 8;
            }
        });
    };
    const auto takes_phases = [](const ConvShapes& s, int lanes) {
        const bool in_place = s.R == 1 && s.S == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
                              s.pad_left == 0 && s.pad_bottom == 0 && s.pad_right == 0;
        return !in_place && s.R * s.S > s.stride_h * s.stride_w && s.Q() >= lanes;
    };
    std::vector<ConvShapes> shapes;
    for (const ConvShapes& edge : edge_case_shapes()) shapes.push_back(edge.in_direction(ConvDirection::BACKWARD_WEIGHTS));
    std::mt19937_64 rng(20261130);
    for (int i = 0; i < 8; ++i) shapes.push_back(random_small_shape(rng).in_direction(ConvDirection::BACKWARD_WEIGHTS));
    std::uint64_t seed = 8400;
    int from_phases = 0;
    for (const bool blocked : {false, true}) {
        const auto context = forced(4, true, blocked);
        for (const ConvShapes& s : shapes) {
            const ConvCaseResult r = run_im2col_variant(variant, s, context, seed++);
            EXPECT_TRUE(r.passed()) << (blocked ? "blocked: " : "") << describe(s, r);
            const bool phases = r.plan.config.find("stride phases") != std::string::npos;
            EXPECT_EQ(phases, takes_phases(s, 4)) << s.str() << ": " << r.plan.config;
            from_phases += phases ? 1 : 0;
        }
    }
    EXPECT_GE(from_phases, 20) << "too few shapes read x's columns from its phases";

    ConvShapes tails;  // Q = 37
    tails.N = 2, tails.C = 3, tails.H = 9, tails.W = 37, tails.K = 10, tails.R = tails.S = 3;
    tails.set_padding(1, 0, 2, 2);
    ConvShapes dilated;  // stride 2, dilation 2, groups 2: Q = (70 + 1 + 2 - 5) / 2 + 1 = 35
    dilated.N = 3, dilated.C = 4, dilated.H = 11, dilated.W = 70, dilated.K = 6, dilated.R = dilated.S = 3;
    dilated.stride_h = dilated.stride_w = 2, dilated.dilation_h = dilated.dilation_w = 2, dilated.groups = 2;
    dilated.set_padding(2, 1, 0, 2);
    ConvShapes exact;  // Q = 16
    exact.N = 2, exact.C = 2, exact.H = 5, exact.W = 16, exact.K = 7, exact.R = exact.S = 3, exact.set_padding(1);
    ConvShapes single = tails;  // one launch in all: the GEMM writes dw (beta 1: adds to it)
    single.N = 1;
    ASSERT_EQ(tails.in_direction(ConvDirection::BACKWARD_WEIGHTS).Q(), 37);
    ASSERT_EQ(dilated.in_direction(ConvDirection::BACKWARD_WEIGHTS).Q(), 35);
    const auto context = forced(16, true, false);
    for (const DataType dtype : {DataType::FLOAT32, DataType::FLOAT16}) {
        for (ConvShapes s : {tails, dilated, exact, single}) {
            s.dtype = dtype;
            s = s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
            for (const float beta : {0.0f, 1.0f, 0.5f}) {
                const ConvCaseResult r = run_im2col_variant(variant, s, context, seed++, beta);
                EXPECT_TRUE(r.passed()) << "beta " << beta << " " << to_string(dtype) << ": " << describe(s, r);
                EXPECT_NE(r.plan.config.find("stride phases"), std::string::npos) << r.plan.config;
                EXPECT_NE(r.plan.config.find("rows of 16 lanes"), std::string::npos) << r.plan.config;
            }
        }
    }

    // The rule: the key off, a 1x1 stride-2 filter, rows of 15 under 16 lanes.
    DeviceProfile profile = forced(16, true, false)->profile();
    const auto phases = [&](const ConvShapes& s) {
        return weight_gradient_gemm_config(s.in_direction(ConvDirection::BACKWARD_WEIGHTS), profile).columns_from_phases;
    };
    EXPECT_TRUE(phases(tails));
    ConvShapes pointwise = dilated;
    pointwise.R = pointwise.S = 1, pointwise.dilation_h = pointwise.dilation_w = 1;
    EXPECT_FALSE(phases(pointwise));
    ConvShapes narrow = exact;
    narrow.W = 15;
    EXPECT_FALSE(phases(narrow));
    const WeightGradientGemmConfig whole = weight_gradient_gemm_config(tails.in_direction(ConvDirection::BACKWARD_WEIGHTS), profile);
    profile.tuned["wgrad_gemm_workspace_limit_bytes"] = static_cast<double>(whole.workspace_bytes - 1);
    EXPECT_FALSE(phases(tails));  // the columns in chunks instead
    profile.tuned.erase("wgrad_gemm_workspace_limit_bytes");
    profile.tuned["wgrad_gemm_dot_columns_from_phases"] = 0;
    EXPECT_FALSE(phases(tails));
    EXPECT_TRUE(weight_gradient_gemm_config(tails.in_direction(ConvDirection::BACKWARD_WEIGHTS), profile).dot);
}

// Where the patches are a 1x1 stride-1 unpadded view's planes transposed
// and their length is a multiple of 8, transpose_planes copies them in 8 x 8
// blocks: dy's (x in place: K/groups 8 and 24) and x's (an expansion, C 16),
// in float32 and half, with groups 2, output pixels off 8 (91, 25, 81), N > 1
// and chunks that start off 8 (23 pixels), beta 0 and 1. A length off 8 (9
// dy floats a group) keeps im2col_patches.
TEST(ConvBackward, GemmWeightGradientTransposesPlanesInBlocks) {
    const Variant variant("wgrad-gemm");
    const auto layer = [](std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k,
                          std::int64_t groups, DataType dtype) {
        ConvShapes s;
        s.N = n, s.C = c, s.H = h, s.W = w, s.K = k, s.R = s.S = 1, s.groups = groups, s.dtype = dtype;
        return s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    };
    const auto chunked = context_with_profile([](DeviceProfile& p) {
        p.tuned["wgrad_gemm_dy_chunk_bytes"] = 23 * 8 * 2 * sizeof(float);  // 23 pixels of 8 dy floats in 2 groups
        p.tuned["wgrad_gemm_dy_copy_min_saving"] = 0;
    });
    const std::shared_ptr<Context> shared = shared_context();
    // dy copied wherever dy's rows are the shorter, whatever a profile's wgrad_gemm_dy_copy_min_saving says.
    const auto dy_copied = context_with_profile([](DeviceProfile& p) { p.tuned["wgrad_gemm_dy_copy_min_saving"] = 0; });
    struct Case {
        ConvShapes shapes;
        std::shared_ptr<Context> context;
        std::string expected;
    };
    std::vector<Case> cases;
    for (const DataType dtype : {DataType::FLOAT32, DataType::FLOAT16}) {
        cases.push_back({layer(3, 40, 7, 13, 16, 2, dtype), chunked, "x in place, dy copied transposed, dy's planes in 8 x 8 blocks"});
        cases.push_back({layer(1, 48, 5, 5, 24, 1, dtype), dy_copied, "dy's planes in 8 x 8 blocks"});
        cases.push_back({layer(2, 16, 9, 9, 40, 1, dtype), shared, "x's planes in 8 x 8 blocks"});
    }
    std::uint64_t seed = 7800;
    for (const Case& c : cases) {
        for (const float beta : {0.0f, 1.0f}) {
            const ConvCaseResult r = run_im2col_variant(variant, c.shapes, c.context, seed++, beta);
            EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(c.shapes, r);
            EXPECT_NE(r.plan.config.find(c.expected), std::string::npos) << r.plan.config;
        }
    }
    const ConvCaseResult f32 = run_im2col_variant(variant, cases[0].shapes, chunked, seed++);
    EXPECT_NE(f32.plan.config.find("4 chunk(s) of 23 pixels an image"), std::string::npos) << f32.plan.config;
    const ConvShapes off = layer(2, 20, 5, 19, 18, 2, DataType::FLOAT32);
    const ConvCaseResult r = run_im2col_variant(variant, off, shared, seed++);
    EXPECT_TRUE(r.passed()) << describe(off, r);
    EXPECT_NE(r.plan.config.find("dy copied transposed"), std::string::npos) << r.plan.config;
    EXPECT_EQ(r.plan.config.find("8 x 8 blocks"), std::string::npos) << r.plan.config;
    // The planes prefetched ahead where the profile says (wgrad_gemm_transpose_prefetch_floats), past the planes'
    // end in the last blocks, dy's and x's, in float32 and half; not without the key, nor where nothing is
    // transposed, nor on a device other than a CPU (a CPU's build option).
    const auto prefetching = [](double floats) {
        return context_with_profile([=](DeviceProfile& p) { p.tuned["wgrad_gemm_transpose_prefetch_floats"] = floats; });
    };
    const auto ahead = prefetching(64), none = prefetching(0);
    constexpr const char* kPrefetched = "planes prefetched 64 pixels ahead";
    const std::vector<std::tuple<ConvShapes, std::shared_ptr<Context>, bool>> prefetched = {
        {layer(2, 48, 9, 11, 24, 1, DataType::FLOAT32), ahead, true},   // dy's planes
        {layer(2, 16, 9, 11, 40, 1, DataType::FLOAT16), ahead, true},   // x's planes, half
        {layer(2, 48, 9, 11, 24, 1, DataType::FLOAT32), none, false},
        {off, ahead, false}};
    for (const auto& [s, context, listed] : prefetched) {
        const bool prefetches = listed && context->profile().type == DeviceType::CPU;
        const ConvCaseResult p = run_im2col_variant(variant, s, context, seed++);
        EXPECT_TRUE(p.passed()) << describe(s, p);
        EXPECT_EQ(p.plan.config.find(kPrefetched) != std::string::npos, prefetches) << p.plan.config;
        const auto config = weight_gradient_gemm_config(s, KernelSelector::resolve_profile(context->profile()));
        EXPECT_EQ(config.programs().front().options.find("-DPREFETCH_PLANES=64") != std::string::npos, prefetches)
            << config.programs().front().options;
    }
}

// Winograd's weight gradient (ops/winograd_wgrad/, Lavin & Gray section 4.2)
// in both tiles, the multiply on the GEMM engine and on CLBlast, on every
// edge shape it takes (3x3, stride and dilation 1,
// ungrouped: images smaller than a dy tile, odd sizes, asymmetric pads, C
// and K off the GEMM's tile, N > 1), a wide one and random ones, in one pass and in
// passes of a few tiles (a workspace limit) that add into the first's sums,
// overwriting dw and accumulating into it.
TEST(ConvBackward, WinogradWeightGradientMatchesReference) {
    const DeviceProfile& profile = shared_context()->profile();
    std::map<std::string, int> ran;
    std::uint64_t seed = 6500;
    for (const Variant& v : winograd_wgrad_variants()) {
        SCOPED_TRACE(v.id);
        for (const ConvShapes& edge : edge_case_shapes()) {
            const ConvShapes s = edge.in_direction(ConvDirection::BACKWARD_WEIGHTS);
            if (why_not(v, s, profile)) continue;
            const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_WINOGRAD, v, seed++, tolerance_factor(v));
            EXPECT_TRUE(r.passed()) << describe(s, r);
            EXPECT_EQ(r.plan.variant, v);
            ++ran[v.id];
        }
        // dy 9 x 37: rows of 19 and 10 tiles, whose groups of 8 lie in one row inside dy (the dy
        // transform's vector path: F(3x3,4x4) only from 32 columns on) or wrap it, an odd last row.
        ConvShapes wide;
        wide.N = 2, wide.C = 16, wide.H = 9, wide.W = 37, wide.K = 24, wide.R = wide.S = 3;
        wide.set_padding(1);
        wide = wide.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const ConvCaseResult w = run_conv_case(wide, Kernel::CONV2D_WINOGRAD, v, seed++, tolerance_factor(v));
        EXPECT_TRUE(w.passed()) << describe(wide, w);
        std::mt19937_64 rng(20261127);
        for (int i = 0, taken = 0; taken < 12 && i < 400; ++i) {
            ConvShapes s = random_small_shape(rng).in_direction(ConvDirection::BACKWARD_WEIGHTS);
            s.R = s.S = 3, s.stride_h = s.stride_w = 1, s.dilation_h = s.dilation_w = 1, s.groups = 1;
            try {
                s.validate();  // a forced 3x3 filter may not fit a drawn image and padding
            } catch (const Error&) {
                continue;
            }
            if (why_not(v, s, profile)) continue;
            ++taken;
            const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_WINOGRAD, v, 6800 + i, tolerance_factor(v));
            ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
        }
        // N = 3 images of 9 x 13 (P x Q) dy: F(3x3,2x2) 5 x 7 tiles an image, F(3x3,4x4) 3 x 4; at most 4
        // tiles a pass (the workspace limit): 27 and 9 passes, the first writing the sums, the rest adding
        // (C = 13 and K = 21: the GEMM's last row and column tiles shifted back, adding only their own).
        ConvShapes s;
        s.N = 3, s.C = 13, s.H = 10, s.W = 13, s.K = 21, s.R = s.S = 3, s.bias = true;
        s.set_padding(1, 1, 0, 1);
        s = s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const int r = *winograd_wgrad_dy_tile(v), alpha = r + 2;
        const std::size_t sums = 13 * 21 * alpha * alpha * sizeof(float);
        const std::size_t tile = (13 + 21) * alpha * alpha * sizeof(float);
        for (const float beta : {0.0f, 1.0f}) {
            ConvCaseOptions options;
            options.strategy = Kernel::CONV2D_WINOGRAD;
            options.variant = v;
            options.workspace_limit_bytes = sums + 4 * tile;
            options.beta = beta;
            options.seed = 93;
            options.tolerance_factor = tolerance_factor(v);
            const ConvCaseResult result = run_conv_case(s, options);
            EXPECT_TRUE(result.passed()) << "beta " << beta << ": " << describe(s, result);
            const std::string passes = r == 2 ? "4 of 105 dy tiles a pass (27 passes)" : "4 of 36 dy tiles a pass (9 passes)";
            EXPECT_NE(result.plan.config.find(passes), std::string::npos) << result.plan.config;
            EXPECT_EQ(result.plan.config.find("CLBlast") != std::string::npos, winograd_wgrad_on_clblast(v))
                << result.plan.config;
            EXPECT_EQ(result.workspace_bytes, sums + 4 * tile);
        }
        // A limit below the sums and one tile is a reason, not a failure.
        DeviceProfile tight = profile;
        tight.tuned["winograd_wgrad_workspace_limit_bytes"] = static_cast<double>(sums + tile - 4);
        const auto reason = why_not(v, s, tight);
        ASSERT_TRUE(reason.has_value());
        EXPECT_NE(reason->find("winograd_wgrad_workspace_limit_bytes"), std::string::npos) << *reason;
    }
    for (const Variant& v : winograd_wgrad_variants()) EXPECT_GE(ran[v.id], 3) << v.id << " ran too few edge shapes";
    EXPECT_EQ(winograd_wgrad_variants().size(), 4u);  // the engine's two tiles and CLBlast's
    // What it cannot take, it says.
    ConvShapes strided = layer_shapes().in_direction(ConvDirection::BACKWARD_WEIGHTS);
    const auto reason = why_not(Variant("wino-wgrad-f2"), strided, profile);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("stride 1"), std::string::npos) << *reason;
}

// The selector puts a VGG layer's weight gradient on Winograd (F(3x3,4x4)
// with enough dy tiles, F(3x3,2x2) with few), and a layer Winograd cannot
// take (stride 2) on the GEMM engine, each run against the reference.
TEST(ConvBackward, SelectorRunsWinogradOrTheGemmWeightGradient) {
    const ConvShapes vgg = sampled_vgg_like_shape().in_direction(ConvDirection::BACKWARD_WEIGHTS);
    ConvShapes few = vgg;  // 2 x 2 x 2 = 8 dy tiles of 4x4: fewer than the default 32
    few.H = few.W = 8;
    ConvShapes strided = vgg;
    strided.stride_h = strided.stride_w = 2;
    const DeviceProfile profile = KernelSelector::resolve_profile(shared_context()->profile());
    const std::pair<ConvShapes, const char*> cases[] = {
        {vgg, "wino-wgrad-f4"}, {few, "wino-wgrad-f2"}, {strided, "wgrad-gemm"}};
    std::uint64_t seed = 92;
    for (const auto& [s, expected] : cases) {
        const Decision d = KernelSelector::global().explain(selector_op(s), s, profile);
        EXPECT_EQ(d.plan.variant, Variant(expected)) << d.str();
        if (d.plan.kernel == Kernel::CONV2D_WINOGRAD) {
            EXPECT_NE(d.plan.reason.find(std::string(expected) == "wino-wgrad-f4" ? "F(3x3,4x4) first" : "F(3x3,2x2) first"),
                      std::string::npos)
                << d.plan.reason;
        }
        ConvCaseOptions options;
        options.seed = seed++;
        options.tolerance_factor = tolerance_factor(Variant(expected));
        const ConvCaseResult r = run_conv_case(s, options);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.variant, Variant(expected));
    }
}

// Where the profile turns netcl's GEMM engine and Winograd's weight gradient
// off (nvidia-gpu), a weight gradient large enough for a GEMM runs on CLBlast,
// not on the direct kernel (on an H100 the direct kernel took VGG-16's weight
// gradients 120x cuDNN's time: tools/gpu/README.md), in float32 and float16.
TEST(ConvBackward, NvidiaProfileRunsWeightGradientsOnClblast) {
    DeviceProfile profile = KernelSelector::resolve_profile(shared_context()->profile());
    profile.tuned = load_profile("nvidia-gpu").tuned;
    ConvShapes strided = sampled_vgg_like_shape();
    strided.stride_h = strided.stride_w = 2;
    ConvShapes half = sampled_vgg_like_shape();
    half.dtype = DataType::FLOAT16;
    for (const ConvShapes& forward : {sampled_vgg_like_shape(), strided, half}) {
        const ConvShapes s = forward.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const Decision d = KernelSelector::global().explain(selector_op(s), s, profile);
        EXPECT_EQ(d.plan.variant, Variant("wgrad-clblast")) << d.str();
        const auto engine_off = why_not(Variant("wgrad-gemm"), s, profile);
        ASSERT_TRUE(engine_off.has_value());
        EXPECT_NE(engine_off->find("wgrad_gemm_enabled = 0"), std::string::npos) << *engine_off;
    }
}

TEST(ConvBackward, WeightGradientsBlendWithBeta) {
    // beta 1 accumulates (micro-batches), 0.5 scales what was there; the
    // reference blends the same random prior values in.
    const ConvShapes s = layer_shapes().in_direction(ConvDirection::BACKWARD_WEIGHTS);
    for (const float beta : {1.0f, 0.5f, -2.0f}) {
        ConvCaseOptions options;
        options.strategy = Kernel::CONV2D_NAIVE;
        options.beta = beta;
        options.seed = 77;
        const ConvCaseResult r = run_conv_case(s, options);
        EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(s, r);
    }
}

TEST(ConvBackward, WeightGradientIsTheSameBitForBitOnEveryRun) {
    for (const char* id : {"naive", "wgrad-gemm", "wgrad-clblast", "wino-wgrad-f2", "wino-wgrad-f4"}) {
        SCOPED_TRACE(id);
        ConvShapes s = layer_shapes();
        if (std::string(id).rfind("wino", 0) == 0) s.stride_h = 1;  // Winograd takes stride 1
        const auto context = shared_context();
        Conv2dOptions options = Conv2dOptions::for_shapes(s);
        options.strategy = implementation_of(Variant(id)).kernel();
        options.variant = Variant(id);
        Conv2d conv(context, options);
        const Tensor x = Tensor::from_host(context, random_uniform(s.input_numel(), 1), {s.N, s.C, s.H, s.W});
        const Tensor dy = Tensor::from_host(context, random_uniform(s.output_numel(), 2), {s.N, s.K, s.P(), s.Q()});
        std::vector<float> first_dw, first_db;
        for (int run = 0; run < 3; ++run) {
            Tensor dw = Tensor::empty(context, {s.K, s.C, s.R, s.S});
            Tensor db = Tensor::empty(context, {s.K});
            conv.backward_weights(x, dy, dw, &db);
            const auto dw_host = dw.to_host(), db_host = db.to_host();
            if (run == 0) {
                first_dw = dw_host, first_db = db_host;
                continue;
            }
            EXPECT_EQ(std::memcmp(dw_host.data(), first_dw.data(), dw_host.size() * sizeof(float)), 0) << "run " << run;
            EXPECT_EQ(std::memcmp(db_host.data(), first_db.data(), db_host.size() * sizeof(float)), 0) << "run " << run;
        }
    }
}

TEST(ConvBackward, EachDirectionIsPlannedUnderItsOwnOp) {
    const ConvShapes s = layer_shapes();
    const auto context = shared_context();
    KernelSelector selector;
    const DeviceProfile profile = KernelSelector::resolve_profile(context->profile());
    EXPECT_EQ(selector_op(s), "conv2d");
    EXPECT_EQ(selector_op(s.in_direction(ConvDirection::BACKWARD_DATA)), "conv2d_backward_data");
    EXPECT_EQ(selector_op(s.in_direction(ConvDirection::BACKWARD_WEIGHTS)), "conv2d_backward_weights");

    // A backward problem asked about under the forward op, and the reverse, is an error naming the right op.
    expect_error([&] { (void)selector.select("conv2d", s.in_direction(ConvDirection::BACKWARD_DATA), profile); },
                 {"'conv2d' does not match", "expected 'conv2d_backward_data'"});
    expect_error([&] { (void)selector.select("conv2d_backward_weights", s, profile); }, {"expected 'conv2d'"});
    expect_error([&] { (void)selector.select("conv2d_backward", s, profile); },
                 {"unknown op 'conv2d_backward'", "conv2d_backward_data"});

    // Every candidate that does not take the problem says why; the plan says why it was taken.
    // (Backward data: with a dilation on the strided axis, so no stride phase is a forward problem.)
    const std::map<ConvDirection, std::string> refusal = {
        {ConvDirection::BACKWARD_DATA, "a stride or a dilation on an axis, not both; this layer has stride 2x1"},
        {ConvDirection::BACKWARD_WEIGHTS, "takes forward, backward_data; this problem is backward_weights"}};
    for (const ConvDirection direction : kGradients) {
        ConvShapes g = s.in_direction(direction);
        if (direction == ConvDirection::BACKWARD_DATA) g.dilation_h = 2;
        const Decision d = selector.explain(selector_op(g), g, profile);
        EXPECT_EQ(d.plan.variant, Variant("naive")) << d.str();
        EXPECT_FALSE(d.plan.reason.empty());
        for (const Variant& v : variants_of(Kernel::IM2COL)) {
            // Their own kernels: wgrad-gemm takes backward weights only, col2im-gemm backward data only.
            if (v.id == "wgrad-gemm" || v.id == "wgrad-clblast" || v.id == "col2im-gemm") continue;
            const auto reason = why_not(v, g, profile);
            ASSERT_TRUE(reason.has_value()) << v.id;
            EXPECT_NE(reason->find(refusal.at(direction)), std::string::npos) << *reason;
        }
    }

    // A float16 problem is planned the same way (tests/test_conv_half.cpp
    // runs every implementation that takes it and the refusals of the rest).
    ConvShapes half = s.in_direction(ConvDirection::BACKWARD_WEIGHTS);
    half.dtype = DataType::FLOAT16;
    const Decision half_plan = selector.explain(selector_op(half), half, profile);
    EXPECT_FALSE(half_plan.plan.variant.id.empty()) << half_plan.str();
    EXPECT_NE(half_plan.problem.find("dtype=float16"), std::string::npos) << half_plan.problem;
    // A 3-D problem is asked under its own op; the 2-D-only variants say why not (tests/test_conv3d.cpp).
    ConvShapes volume = s;
    volume.spatial_rank = 3, volume.D = 4;
    const Decision deep = selector.explain("conv3d", volume, profile);
    EXPECT_EQ(deep.plan.variant, Variant("naive")) << deep.str();
    const auto rank_refusal = why_not(Variant("gemm-1x1"), volume, profile);
    ASSERT_TRUE(rank_refusal.has_value());
    EXPECT_NE(rank_refusal->find("takes 2-D convolutions; this one is 3-D"), std::string::npos) << *rank_refusal;

    // A rule registered for backward data is asked only about backward data.
    int asked = 0;
    const auto handle = selector.register_rule(
        "conv2d_backward_data",
        [&](const ConvShapes& shapes, const DeviceProfile&) {
            ++asked;
            EXPECT_EQ(shapes.direction, ConvDirection::BACKWARD_DATA);
            return true;
        },
        Kernel::CONV2D_NAIVE, 5);
    (void)selector.select("conv2d", s, profile);
    (void)selector.select("conv2d_backward_weights", s.in_direction(ConvDirection::BACKWARD_WEIGHTS), profile);
    EXPECT_EQ(asked, 0);
    const Plan ruled = selector.select("conv2d_backward_data", s.in_direction(ConvDirection::BACKWARD_DATA), profile);
    EXPECT_EQ(asked, 1);
    EXPECT_NE(ruled.reason.find("rule #" + std::to_string(handle)), std::string::npos) << ruled.reason;

    // A strict strategy that cannot take the direction says why, through Conv2d.
    Conv2dOptions strict = Conv2dOptions::for_shapes(s);
    strict.strategy = Kernel::CONV2D_WINOGRAD;
    Conv2d conv(context, strict);
    expect_error([&] { (void)conv.plan_for({s.N, s.C, s.H, s.W}, ConvDirection::BACKWARD_WEIGHTS); },
                 {"strict override", "takes forward, backward_data; this problem is backward_weights"});
    // Plans per direction, kept side by side; last_plan follows the last run.
    Conv2d layer(context, Conv2dOptions::for_shapes(s));
    EXPECT_EQ(layer.plan_for({s.N, s.C, s.H, s.W}, ConvDirection::BACKWARD_DATA).variant, Variant("naive"));
    EXPECT_EQ(layer.workspace_bytes({s.N, s.C, s.H, s.W}, ConvDirection::BACKWARD_WEIGHTS), 0u);
}

TEST(ConvBackward, DefaultStrategyThatCannotTakeADirectionFallsBack) {
    ConvShapes s = layer_shapes().in_direction(ConvDirection::BACKWARD_DATA);
    s.dilation_h = 2;  // with the stride on that axis: no stride phase is a forward problem Winograd takes
    set_default_conv_strategy(Kernel::CONV2D_WINOGRAD);
    const DeviceProfile profile = KernelSelector::resolve_profile(shared_context()->profile());
    const Decision d = KernelSelector().explain(selector_op(s), s, profile);
    clear_default_conv_strategy();
    ASSERT_GE(d.candidates.size(), 2u) << d.str();
    EXPECT_EQ(d.candidates.front().source, "default strategy");
    EXPECT_FALSE(d.candidates.front().accepted);
    EXPECT_NE(d.candidates.front().reason.find("not both"), std::string::npos) << d.str();
    EXPECT_EQ(d.plan.kernel, Kernel::CONV2D_NAIVE) << d.str();
}

// The framework path: every operand a view into one buffer of the caller's,
// NaN between them; the gradients wait on the caller's event, return theirs,
// block nothing, and write only dx, dw and db.
TEST(ConvBackward, FrameworkViewsEventsAndNoHostSynchronisation) {
    const ConvShapes s = layer_shapes();
    const auto context = shared_context();
    const std::size_t nx = s.input_numel(), ny = s.output_numel(), nw = s.weight_numel(), nb = s.K;
    // Layout (floats): gap x gap dy gap w gap dx gap dw gap db gap, each gap 3.
    std::size_t at = 3;
    const auto place = [&](std::size_t count) {
        const std::size_t offset = at;
        at += count + 3;
        return offset;
    };
    const std::size_t ox = place(nx), ody = place(ny), ow = place(nw), odx = place(nx), odw = place(nw), odb = place(nb);
    std::vector<float> host(at, std::numeric_limits<float>::quiet_NaN());
    const auto x = random_uniform(nx, 11), dy = random_uniform(ny, 12), w = random_uniform(nw, 13);
    std::copy(x.begin(), x.end(), host.begin() + ox);
    std::copy(dy.begin(), dy.end(), host.begin() + ody);
    std::copy(w.begin(), w.end(), host.begin() + ow);
    Tensor buffer = Tensor::from_host(context, host, {static_cast<std::int64_t>(at)});
    const auto view = [&](std::size_t offset, Tensor::Shape shape) {
        return Tensor::view(context, buffer.buffer()(), offset * sizeof(float), std::move(shape));
    };
    const Tensor xv = view(ox, {s.N, s.C, s.H, s.W}), dyv = view(ody, {s.N, s.K, s.P(), s.Q()});
    const Tensor wv = view(ow, {s.K, s.C, s.R, s.S});
    Tensor dxv = view(odx, {s.N, s.C, s.H, s.W}), dwv = view(odw, {s.K, s.C, s.R, s.S}), dbv = view(odb, {s.K});

    Conv2d conv(context, Conv2dOptions::for_shapes(s));
    const Tensor b = Tensor::from_host(context, random_uniform(nb, 14), {s.K});
    conv.set_weights(wv, &b);
    // Plan and build first: the first run of a shape may compile.
    (void)conv.plan_for(xv.shape(), ConvDirection::BACKWARD_DATA);
    (void)conv.plan_for(xv.shape(), ConvDirection::BACKWARD_WEIGHTS);
    cl::UserEvent ready(context->cl_context());
    const BlockingCalls before = blocking_calls();
    const cl::Event data_done = conv.backward_data(dyv, dxv, {ready});
    const cl::Event weights_done = conv.backward_weights(xv, dyv, dwv, &dbv, {ready});
    EXPECT_EQ(blocking_calls().total(), before.total()) << "a gradient blocked the host";
    EXPECT_EQ(conv.last_plan().variant, Variant("naive"));
    cl_int status = CL_COMPLETE;
    data_done.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
    EXPECT_NE(status, CL_COMPLETE) << "backward data ran before the caller's event";
    ready.setStatus(CL_COMPLETE);
    weights_done.wait();
    data_done.wait();

    const auto all = buffer.to_host();
    const auto slice = [&](std::size_t offset, std::size_t count) {
        return std::vector<float>(all.begin() + offset, all.begin() + offset + count);
    };
    const auto compare_to = [&](const std::vector<float>& actual, const std::vector<double>& expected, double tol,
                                const char* what) {
        const Comparison c = compare(actual, expected);
        EXPECT_EQ(c.non_finite, 0u) << what;
        EXPECT_LE(c.max_abs_error, tol) << what;
    };
    compare_to(slice(odx, nx), reference_conv_backward_data(s, dy, w),
               conv_tolerance(s.in_direction(ConvDirection::BACKWARD_DATA)), "dx");
    const WeightGradients g = reference_conv_backward_weights(s, x, dy);
    const double tol = conv_tolerance(s.in_direction(ConvDirection::BACKWARD_WEIGHTS));
    compare_to(slice(odw, nw), g.dw, tol, "dw");
    compare_to(slice(odb, nb), g.db, tol, "db");
    // Inputs unchanged; every gap still NaN.
    EXPECT_EQ(slice(ox, nx), x);
    EXPECT_EQ(slice(ody, ny), dy);
    for (const std::size_t end : {ox, ody, ow, odx, odw, odb}) {
        EXPECT_TRUE(all_nan(slice(end - 3, 3))) << "gap before offset " << end << " was written";
    }
    EXPECT_TRUE(all_nan(slice(at - 3, 3)));
}

TEST(ConvBackward, BadInputIsAnErrorAndWritesNothing) {
    const ConvShapes s = layer_shapes();
    const auto context = shared_context();
    Conv2d conv(context, Conv2dOptions::for_shapes(s));
    const Tensor x = Tensor::from_host(context, random_uniform(s.input_numel(), 1), {s.N, s.C, s.H, s.W});
    const Tensor dy = Tensor::from_host(context, random_uniform(s.output_numel(), 2), {s.N, s.K, s.P(), s.Q()});
    const Tensor wrong_dy = Tensor::empty(context, {s.N, s.K, s.P(), s.Q() + 1});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Tensor dx = Tensor::empty(context, {s.N, s.C, s.H, s.W});
    Tensor dw = Tensor::empty(context, {s.K, s.C, s.R, s.S});
    Tensor db = Tensor::empty(context, {s.K});
    for (Tensor* t : {&dx, &dw, &db}) t->fill(nan);

    expect_error([&] { conv.backward_data(dy, dx); }, {"before set_weights"});
    conv.set_weights(random_uniform(s.weight_numel(), 3), random_uniform(s.K, 4));
    expect_error([&] { conv.backward_data(wrong_dy, dx); },
                 {"dy tensor is", shape_string({s.N, s.K, s.P(), s.Q()}), "forward output's shape"});
    Tensor small_dx = Tensor::empty(context, {s.N, s.C + 1, s.H, s.W});
    expect_error([&] { conv.backward_data(dy, small_dx); }, {"channels", "in_channels = 5"});
    // dx and dy in one buffer, overlapping.
    const Tensor shared = Tensor::empty(context, {s.input_numel() + s.output_numel()});
    const Tensor dy_in_shared = Tensor::view(context, shared.buffer()(), 0, {s.N, s.K, s.P(), s.Q()});
    Tensor dx_over_dy = Tensor::view(context, shared.buffer()(), 4 * sizeof(float), {s.N, s.C, s.H, s.W});
    expect_error([&] { conv.backward_data(dy_in_shared, dx_over_dy); }, {"overlaps the input"});

    expect_error([&] { conv.backward_weights(x, wrong_dy, dw, &db); }, {"dy tensor is"});
    Tensor wrong_dw = Tensor::empty(context, {s.K, s.C, s.R, s.S + 1});
    expect_error([&] { conv.backward_weights(x, dy, wrong_dw, &db); },
                 {"dw tensor is", "out_channels x in_channels/groups x R x S"});
    expect_error([&] { conv.backward_weights(x, dy, dw, nullptr); }, {"has a bias", "db tensor"});
    Tensor wrong_db = Tensor::empty(context, {s.K + 1});
    expect_error([&] { conv.backward_weights(x, dy, dw, &wrong_db); }, {"db tensor is", "out_channels = 6"});
    expect_error([&] { conv.backward_weights(x, dy, dw, &db, {}, nullptr, nan); }, {"beta", "finite"});
    Tensor dw_over_db = Tensor::view(context, dw.buffer()(), 0, {s.K});
    expect_error([&] { conv.backward_weights(x, dy, dw, &dw_over_db); }, {"two output tensors overlap"});
    expect_error([&] { (void)Tensor::view(context, dw.buffer()(), dw.bytes() - 4, {s.K}); }, {"past"});

    Conv2dOptions no_bias = Conv2dOptions::for_shapes(s);
    no_bias.bias = false;
    Conv2d unbiased(context, no_bias);
    expect_error([&] { unbiased.backward_weights(x, dy, dw, &db); }, {"bias = false"});

    for (Tensor* t : {&dx, &dw, &db}) EXPECT_TRUE(all_nan(t->to_host())) << "an output was written on error";
}

}  // namespace
}  // namespace netcl::test
