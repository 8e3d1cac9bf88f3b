// CONV2D_WINOGRAD against the fp64 host reference: every tile (F(2x2),
// F(4x4), F(6x6) for 3x3; F(4x4), F(9x9) for 5x5), fused and
// low-local-memory, constant and global weights, separate transforms, on
// shapes that hit every edge of the tiling (ragged tiles, padding, small
// images, K off the block).
//
// Tolerance: conv_tolerance(shapes, factor), i.e. factor x 1e-6 per term of
// the C/groups*R*S (+bias) reduction, the factor each implementation
// declares (error_factor: 4 F(2x2,3x3), 16 F(4x4,3x3), 64 F(6x6,3x3), ...):
// room for the transforms' amplification measured on the VGG layers, yet far
// below the O(0.1) error of a wrong tap, tile offset or transform coefficient.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/support/ReferenceConv.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "ops/Implementations.hpp"
#include "ops/winograd/WinogradConv.hpp"
#include "ops/winograd/WinogradConfig.hpp"
#include "ops/winograd/WinogradMatrices.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "netcl/Error.hpp"
#include "selector/ProfileStore.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

double factor_for(const Variant& v) { return tolerance_factor(v); }
WinogradConfig config_of(const Variant& v) { return winograd_config(*winograd_variant(v), test::shared_context()->profile()); }
Plan plan_of(const Variant& v) {
    Plan plan;
    plan.kernel = Kernel::CONV2D_WINOGRAD;
    plan.variant = v;
    return plan;
}

ConvShapes conv3x3(std::int64_t N, std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t K, std::int64_t pad,
                   bool bias = true, std::int64_t groups = 1, std::int64_t filter = 3) {
    ConvShapes s;
    s.N = N, s.C = C, s.H = H, s.W = W, s.K = K, s.R = filter, s.S = filter;
    s.set_padding(pad);
    s.bias = bias;
    s.groups = groups;
    return s;
}

// Runs `variant` on `shapes` through Conv2d with a strict override
// (tests/support/ConvCase: random data in [-1, 1], NaN-poisoned output, fp64
// reference) and asserts every element within tolerance.
void expect_matches_reference(const Variant& variant, const ConvShapes& s, std::uint64_t seed) {
    const auto result = test::run_conv_case(s, Kernel::CONV2D_WINOGRAD, variant, seed, factor_for(variant));
    EXPECT_TRUE(result.passed()) << variant.str() << " " << test::describe(s, result);
    EXPECT_EQ(result.plan.kernel, Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(result.plan.variant, variant);
}

std::vector<Variant> variants(int tile) {
    std::vector<Variant> all;
    for (bool low : {false, true})
        for (bool constant : {false, true}) all.push_back(winograd_variant_id(tile, low, constant));
    return all;
}

// Shapes every variant runs: the edges of the tiling and of the blocks.
std::vector<ConvShapes> edge_shapes() {
    return {
        conv3x3(1, 3, 13, 13, 8, 1),               // odd image, C = 3
        conv3x3(3, 1, 7, 27, 5, 1, false),         // H != W, C = 1, K off every block, no bias
        conv3x3(1, 4, 1, 1, 3, 1),                 // 1x1 image: only the centre tap
        conv3x3(8, 5, 2, 2, 9, 1),                 // 2x2 images, N = 8 in one tile block
        conv3x3(2, 6, 27, 7, 33, 0),               // pad 0, K one past a 32 block
        conv3x3(1, 9, 13, 7, 17, 2),               // pad 2 (output larger than the input)
        conv3x3(3, 8, 9, 11, 12, 1, true, 2),      // groups 2
        conv3x3(1, 19, 16, 16, 70, 1),             // C off the C block, K past 64
        conv3x3(2, 40, 9, 9, 137, 1, false),       // several C steps, K blocks and output stages
    };
}

// The same edges for 5x5 filters (F(4x4,5x5), F(9x9,5x5): tiles of 8 and 13
// inputs), with asymmetric padding and images smaller than one tile.
ConvShapes conv5x5(std::int64_t N, std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t K, std::int64_t pad,
                   bool bias = true) {
    return conv3x3(N, C, H, W, K, pad, bias, 1, 5);
}
std::vector<ConvShapes> edge_shapes_5x5() {
    ConvShapes asymmetric = conv5x5(2, 7, 12, 19, 11, 0);
    asymmetric.pad_top = 2, asymmetric.pad_left = 1, asymmetric.pad_bottom = 0, asymmetric.pad_right = 3;
    return {
        conv5x5(1, 3, 13, 13, 8, 2),            // odd image, C = 3
        conv5x5(3, 1, 7, 27, 5, 2, false),      // H != W, C = 1, K off every block, no bias
        conv5x5(1, 4, 1, 1, 3, 2),              // 1x1 image: only the centre tap
        conv5x5(8, 5, 3, 3, 9, 2),              // 3x3 images, N = 8
        conv5x5(2, 6, 27, 9, 33, 0),            // pad 0, K one past a 32 block
        asymmetric,                             // pads 2, 1, 0, 3
        conv5x5(1, 19, 20, 20, 70, 2),          // C off the blocks, K past 64, two F(9x9) tiles a side plus a ragged one
        conv5x5(2, 40, 9, 10, 137, 2, false),   // several K blocks; F(9x9): one tile and a sliver
    };
}

class WinogradConvTest : public ::testing::TestWithParam<int> {};

TEST_P(WinogradConvTest, EveryVariantMatchesReferenceOnEdgeShapes) {
    std::uint64_t seed = 100 * static_cast<std::uint64_t>(GetParam());
    const DeviceProfile& profile = test::shared_context()->profile();
    for (const auto& variant : variants(GetParam()))
        for (const auto& s : edge_shapes()) {
            // A device with a small constant buffer (NVIDIA: 64 KiB) refuses
            // __constant U for the larger shapes; one with less local memory
            // than the fused F(6x6) needs (64.3 KiB) refuses it. Those
            // refusals are the result.
            if (winograd_variant(variant)->constant_weights &&
                config_of(variant).weight_bytes(s) > profile.max_constant_buffer_bytes) {
                const auto reason = why_not(variant, s, profile);
                ASSERT_TRUE(reason.has_value());
                // Where the local memory is short too (H200: the fused F(6x6)), either refusal is the result.
                const bool short_of_local = config_of(variant).local_bytes() > profile.local_mem_bytes;
                EXPECT_TRUE(reason->find("constant buffer") != std::string::npos ||
                            (short_of_local && reason->find("local memory") != std::string::npos))
                    << *reason;
                continue;
            }
            if (config_of(variant).local_bytes() > profile.local_mem_bytes) {
                const auto reason = why_not(variant, s, profile);
                ASSERT_TRUE(reason.has_value());
                EXPECT_NE(reason->find("local memory"), std::string::npos) << *reason;
                continue;
            }
            expect_matches_reference(variant, s, seed += 3);
        }
}

TEST_P(WinogradConvTest, SharedEdgeCaseShapesItCanTake) {
    // The project's shared edge shapes, those that are 3x3 stride 1 dilation 1.
    std::uint64_t seed = 500 + static_cast<std::uint64_t>(GetParam());
    int ran = 0;
    const Variant v = winograd_variant_id(GetParam(), false, false);
    const DeviceProfile& profile = test::shared_context()->profile();
    for (const auto& s : test::edge_case_shapes()) {
        if (const auto reason = why_not(v, s, profile)) {
            // A device with less local memory than the fused tile needs (H200's 48 KiB
            // against F(6x6)'s 64.3) takes none of them, and must say why.
            if (config_of(v).local_bytes() > profile.local_mem_bytes && s.R == 3 && s.S == 3 && s.stride_h == 1 &&
                s.stride_w == 1 && s.dilation_h == 1 && s.dilation_w == 1) {
                EXPECT_NE(reason->find("local memory"), std::string::npos) << *reason;
            }
            continue;
        }
        expect_matches_reference(v, s, seed += 5);
        ++ran;
    }
    if (config_of(v).local_bytes() <= profile.local_mem_bytes) {
        EXPECT_GT(ran, 3);
    }
}

TEST_P(WinogradConvTest, LargerChannelCountsStayWithinTolerance) {
    // A VGG-like reduction (C*9 = 1152) on a small image, plus a grouped one.
    const int tile = GetParam();
    const Variant fused = winograd_variant_id(tile, false, false);
    const bool fits = !why_not(fused, conv3x3(1, 128, 14, 14, 64, 1), test::shared_context()->profile());
    expect_matches_reference(fits ? fused : winograd_variant_id(tile, true, false), conv3x3(1, 128, 14, 14, 64, 1), 7);
    expect_matches_reference(winograd_variant_id(tile, true, false), conv3x3(2, 64, 10, 12, 40, 1, true, 2), 8);
}

// A context whose profile forces the multiply's orientation: 0 M_e = U_e V_e
// (tiles along the GEMM's vectors), 1 M_e^T = V_e^T U_e^T (K along them).
std::shared_ptr<Context> oriented_context(int transposed) {
    return test::context_with_profile([&](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = transposed; });
}

// A strict override of `variant` at its own tolerance, on `context`.
test::ConvCaseOptions winograd_case(const Variant& variant, std::uint64_t seed, std::shared_ptr<Context> context) {
    test::ConvCaseOptions options;
    options.strategy = Kernel::CONV2D_WINOGRAD;
    options.variant = variant;
    options.seed = seed;
    options.tolerance_factor = factor_for(variant);
    options.context = std::move(context);
    return options;
}

// Separate transforms (winograd-gemm) on the same edge shapes where it takes
// them (ungrouped), whole and in passes of a few tiles under a workspace
// limit, with the multiply in both orientations.
void check_separate_transforms(const Variant& variant, const std::vector<ConvShapes>& shapes) {
    const WinogradTile tile = *winograd_gemm_tile(variant);
    std::uint64_t seed = 700 + static_cast<std::uint64_t>(tile.m * 10 + tile.r);
    for (int transposed : {0, 1}) {
        SCOPED_TRACE(transposed ? "multiply transposed" : "multiply tiles along vectors");
        const auto context = oriented_context(transposed);
        const DeviceProfile& profile = context->profile();
        int ran = 0, passes = 0;
        for (const auto& s : shapes) {
            if (const auto reason = why_not(variant, s, profile)) {
                EXPECT_EQ(s.groups == 1, false) << variant.id << " refused " << s.str() << ": " << *reason;
                continue;
            }
            test::ConvCaseOptions options = winograd_case(variant, seed += 3, context);
            const auto whole = test::run_conv_case(s, options);
            EXPECT_TRUE(whole.passed()) << variant.id << " " << test::describe(s, whole);
            EXPECT_EQ(whole.plan.config.find("GEMM transposed") != std::string::npos, transposed == 1) << whole.plan.config;
            // A limit of three tiles' transforms: the tiles run in several passes over one workspace.
            options.seed = seed += 3;
            const int alpha = tile.alpha();
            options.workspace_limit_bytes = static_cast<std::size_t>(3 * (s.C + s.K) * alpha * alpha) * sizeof(float);
            const auto result = test::run_conv_case(s, options);
            EXPECT_TRUE(result.passed()) << variant.id << " in passes " << test::describe(s, result);
            EXPECT_LE(result.workspace_bytes, *options.workspace_limit_bytes);
            const std::int64_t tiles = s.N * ((s.P() + tile.m - 1) / tile.m) * ((s.Q() + tile.m - 1) / tile.m);
            if (tiles > 3) {
                const std::string all = std::to_string(tiles);
                EXPECT_NE(result.plan.config.find(" of " + all + " tiles"), std::string::npos) << result.plan.config;
                EXPECT_EQ(result.plan.config.find(", " + all + " of " + all), std::string::npos)
                    << "the limit must split the tiles into passes: " << result.plan.config;
                ++passes;
            }
            ++ran;
        }
        EXPECT_GE(ran, 6);
        EXPECT_GE(passes, 5);
    }
    // C summed in slices of 3 channels (K_SLICE: each slice's sum added to a
    // running total), the last slice short, on a context whose profile says
    // so; the orientation alternates shape by shape.
    auto sliced = test::context_with_profile();  // its own, every implementation on (TestData.hpp)
    DeviceProfile profile3 = sliced->profile();
    profile3.tuned["winograd_gemm_c_slice"] = 3;
    int multi = 0;
    for (const auto& s : shapes) {
        if (why_not(variant, s, profile3) || s.C <= 3) continue;
        profile3.tuned["winograd_gemm_transposed"] = multi % 2;
        sliced->set_profile(profile3);
        const auto result = test::run_conv_case(s, winograd_case(variant, seed += 3, sliced));
        EXPECT_TRUE(result.passed()) << variant.id << " C in slices of 3 " << test::describe(s, result);
        EXPECT_NE(result.plan.config.find("slices of 3"), std::string::npos) << result.plan.config;
        ++multi;
    }
    EXPECT_GE(multi, 5);
}

TEST_P(WinogradConvTest, SeparateTransformsMatchReferenceOnEdgeShapes) {
    check_separate_transforms(Variant("wino-f" + std::to_string(GetParam()) + "-gemm"), edge_shapes());
}

// F(6x6,3x3) with separate transforms on VGG-like reductions (C*9 = 1152,
// 864); its edge shapes run with the other tiles above.
TEST(WinogradConv, SeparateTransformsF6x6OnLargerReductions) {
    expect_matches_reference(Variant("wino-f6-gemm"), conv3x3(1, 128, 14, 14, 64, 1), 9);
    expect_matches_reference(Variant("wino-f6-gemm"), conv3x3(2, 96, 23, 17, 40, 1), 10);
}

// F(4x4,3x3)'s points (0, +-1, -1/2, 2, inf) keep its error within 4x a
// direct sum's on a VGG-like layer (C = 64, 3x3, 56x56): Lavin & Gray's
// 0, +-1, +-2 measure 6x (conv1.2: 3.06e-4 against direct's 5.01e-5),
// netcl's 2.2x (1.10e-4), fused and with separate transforms alike.
TEST(WinogradConv, F4x4ErrorStaysWithinFourTimesDirect) {
    const ConvShapes s = conv3x3(1, 64, 56, 56, 64, 1, false);
    test::ConvCaseOptions direct;
    direct.strategy = Kernel::CONV2D_NAIVE;
    direct.seed = 21;
    const auto reference = test::run_conv_case(s, direct);
    ASSERT_TRUE(reference.passed()) << test::describe(s, reference);
    for (const Variant& v : {Variant("wino-f4-gemm"), winograd_variant_id(4, false, false)}) {
        test::ConvCaseOptions options = direct;
        options.strategy = Kernel::CONV2D_WINOGRAD;
        options.variant = v;
        options.tolerance_factor = factor_for(v);
        const auto result = test::run_conv_case(s, options);
        ASSERT_TRUE(result.passed()) << test::describe(s, result);
        EXPECT_LT(result.max_abs_error, 4 * reference.max_abs_error)
            << v.id << ": " << result.max_abs_error << " against direct's " << reference.max_abs_error;
    }
}

// F(6x6) fused sums at most 128 channels in one fp32 sum (one sum over
// C = 512 measured 2.7e-3 on VGG's conv4.2, twice the sliced 1.2e-3): C = 512
// runs as 4 slices or more (more where the profile wants more work-groups),
// added by the reduction kernel, within tolerance.
TEST(WinogradConv, F6x6FusedSumsCInSlicesOf128) {
    const ConvShapes s = conv3x3(1, 512, 7, 9, 24, 1);
    Variant v = winograd_variant_id(6, false, false);
    if (why_not(v, s, test::shared_context()->profile())) v = winograd_variant_id(6, true, false);  // 8.3 KiB of local memory
    const auto result = test::run_conv_case(s, Kernel::CONV2D_WINOGRAD, v, 31, factor_for(v));
    EXPECT_TRUE(result.passed()) << test::describe(s, result);
    const WinogradConfig config = config_of(v);
    EXPECT_LE(config.c_slice(s), 128) << result.plan.config;
    EXPECT_GE(config.splits(s), 4) << result.plan.config;
    EXPECT_NE(result.plan.config.find("C split in"), std::string::npos) << result.plan.config;
}

// 5x5 filters: F(4x4,5x5), F(5x5,5x5) and F(9x9,5x5), separate transforms,
// on the 5x5 edges, and the AlexNet-like reduction (C*25 = 1200) Vincent et
// al. measure.
TEST(WinogradConv, SeparateTransforms5x5MatchReferenceOnEdgeShapes) {
    for (const char* id : {"wino-f4r5-gemm", "wino-f5r5-gemm", "wino-f9r5-gemm"}) {
        SCOPED_TRACE(id);
        check_separate_transforms(Variant(id), edge_shapes_5x5());
        expect_matches_reference(Variant(id), conv5x5(2, 48, 27, 27, 40, 2), 11);
        // A 3x3 layer is refused, and says why.
        const auto reason = why_not(Variant(id), conv3x3(1, 8, 9, 9, 8, 1), test::shared_context()->profile());
        ASSERT_TRUE(reason.has_value());
        EXPECT_NE(reason->find("takes 5x5 filters"), std::string::npos) << *reason;
    }
}

INSTANTIATE_TEST_SUITE_P(Tiles, WinogradConvTest, ::testing::Values(2, 4, 6),
                         [](const auto& info) { return "F" + std::to_string(info.param) + "x" + std::to_string(info.param); });

// The multiply's GEMM tile is the widest one a pass's tiles fill: a wider
// tile would mostly compute padding.
TEST(WinogradConv, GemmTileNarrowsWithThePass) {
    DeviceProfile profile = test::shared_context()->profile();
    const std::vector<std::pair<std::string, GemmTile>> tiles = {
        {"winograd_gemm", GemmTile{8, 2, 16, {8, 2}}},
        {"winograd_gemm_medium", GemmTile{8, 1, 16, {2, 8}}},
        {"winograd_gemm_narrow", GemmTile{6, 1, 4, {1, 16}}}};
    for (const auto& [prefix, t] : tiles) {
        profile.tuned[prefix + "_mr"] = t.mr, profile.tuned[prefix + "_nv"] = t.nv, profile.tuned[prefix + "_vw"] = t.vw;
        profile.tuned[prefix + "_wg0"] = static_cast<double>(t.work_group[0]);
        profile.tuned[prefix + "_wg1"] = static_cast<double>(t.work_group[1]);
    }
    profile.tuned.erase("winograd_gemm_workspace_limit_bytes");
    profile.tuned["winograd_gemm_transposed"] = 0;
    const WinogradTile f4{4, 3};
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 8, 20, 32, 8, 1), profile).tile.nr(), 32);  // 40 tiles
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 8, 16, 20, 8, 1), profile).tile.nr(), 16);  // 20 tiles
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 8, 4, 20, 8, 1), profile).tile.nr(), 4);    // 5 tiles
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 8, 8, 8, 8, 1), profile).tile.nr(), 4);     // 4 tiles
}

// winograd_gemm_pass_target_bytes cuts the passes to the cache-sized target,
// but never below the tiles whose V and M are 1 / winograd_gemm_pass_max_u_ratio
// of U (read once a pass): C K / ((C + K) ratio) tiles. The passes then take
// equal shares of the tiles, and the workspace shrinks with them.
TEST(WinogradConv, PassesShrinkToTheCacheTargetButNotBelowUsStream) {
    DeviceProfile profile = test::shared_context()->profile();
    profile.tuned.erase("winograd_gemm_workspace_limit_bytes");
    profile.tuned.erase("winograd_gemm_pass_target_bytes");
    profile.tuned.erase("winograd_gemm_pass_max_u_ratio");
    const WinogradTile f6{6, 3}, f4{4, 3};
    const ConvShapes small_channels = conv3x3(1, 64, 224, 224, 64, 1);  // 38 x 38 = 1444 tiles of 32 KiB each
    const ConvShapes wide = conv3x3(8, 512, 14, 14, 512, 1);            // 8 x 16 = 128 tiles of 144 KiB each
    EXPECT_EQ(winograd_gemm_config(f6, small_channels, profile).passes, 1);  // 47 MB: within the 64 MiB limit
    EXPECT_EQ(winograd_gemm_config(f4, wide, profile).passes, 1);
    profile.tuned["winograd_gemm_pass_target_bytes"] = 8 << 20;
    // 256 tiles fill 8 MiB (U's floor: 64 x 64 / (128 x 2) = 16 tiles): 6 passes of 241 or 240.
    const WinogradGemmConfig cached = winograd_gemm_config(f6, small_channels, profile);
    EXPECT_EQ(cached.passes, 6);
    EXPECT_EQ(cached.tiles_per_pass, 241);
    EXPECT_EQ(cached.workspace_bytes(small_channels), std::size_t{241} * 128 * 64 * sizeof(float));
    // 56 tiles would fill 8 MiB, but U's floor is 512 x 512 / (1024 x 2) = 128 tiles: one pass.
    EXPECT_EQ(winograd_gemm_config(f4, wide, profile).passes, 1);
    // A ratio of 8 lowers the floor to 32 tiles: 56 a pass, so 3 passes of 43 or 42.
    profile.tuned["winograd_gemm_pass_max_u_ratio"] = 8;
    const WinogradGemmConfig lowered = winograd_gemm_config(f4, wide, profile);
    EXPECT_EQ(lowered.passes, 3);
    EXPECT_EQ(lowered.tiles_per_pass, 43);
    // The workspace limit still caps a pass below the target.
    profile.tuned["winograd_gemm_workspace_limit_bytes"] = 4 << 20;
    EXPECT_EQ(winograd_gemm_config(f6, small_channels, profile).tiles_per_pass, 121);  // 128 fit: 12 passes of 121 or 120
}

// Passes of at most winograd_gemm_transposed_max_tiles tiles over at least
// winograd_gemm_transposed_min_channels channels in and out multiply
// transposed (K along the vectors, the tiles in rows of the MR in [mr / 2,
// mr] with the fewest padding rows, the transforms tile.vw channels a
// work-item); larger passes, fewer channels, and every pass where the key is
// 0, keep the tiles along the vectors; the forcing key wins.
TEST(WinogradConv, MultiplyTransposesOnPassesOfFewTiles) {
    DeviceProfile profile = test::shared_context()->profile();
    set_gemm_tile(profile, "winograd_gemm_transposed", GemmTile{6, 4, 16, {1, 16}});
    profile.tuned["winograd_gemm_transposed_max_tiles"] = 128;
    profile.tuned.erase("winograd_gemm_transposed");
    profile.tuned.erase("winograd_gemm_transposed_min_channels");
    profile.tuned.erase("winograd_gemm_workspace_limit_bytes");
    const WinogradTile f4{4, 3}, f6{6, 3};
    const WinogradGemmConfig f6_28 = winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), profile);  // T = 25
    EXPECT_TRUE(f6_28.transposed);
    EXPECT_EQ(f6_28.tile.mr, 5);
    EXPECT_EQ(f6_28.tile.nr(), 64);
    EXPECT_EQ(f6_28.tile.work_group[0], 1u);
    EXPECT_EQ(f6_28.tile.work_group[1], 5u);  // the row tiles of one K panel
    EXPECT_FALSE(f6_28.edge_m);
    EXPECT_EQ(f6_28.row_lanes, 0);  // the transforms take channels, not a row's tiles
    EXPECT_NE(f6_28.str().find("GEMM transposed"), std::string::npos) << f6_28.str();
    EXPECT_NE(f6_28.str().find("16 channels a work-item"), std::string::npos) << f6_28.str();
    const ProgramSpec transforms = f6_28.transforms_program();
    EXPECT_NE(transforms.options.find("-DCL=16"), std::string::npos) << transforms.options;
    EXPECT_NE(transforms.options.find("-DU_PANEL=64"), std::string::npos) << transforms.options;
    EXPECT_NE(f6_28.gemm_program().options.find("-DB_PANEL"), std::string::npos) << f6_28.gemm_program().options;
    EXPECT_EQ(f6_28.u_columns(conv3x3(1, 512, 28, 28, 512, 1)), 512);
    EXPECT_EQ(f6_28.u_columns(conv3x3(1, 512, 28, 28, 70, 1)), 128);
    EXPECT_NE(transforms.source.find("winograd_gemm_output_channels"), std::string::npos);
    const WinogradGemmConfig f6_56 = winograd_gemm_config(f6, conv3x3(1, 256, 56, 56, 256, 1), profile);  // T = 100
    EXPECT_TRUE(f6_56.transposed);
    EXPECT_EQ(f6_56.tile.mr, 4);               // rows of 4 and 5 both fit 100 exactly: of equals the smallest
    EXPECT_EQ(f6_56.tile.work_group[1], 16u);  // 25 row tiles, 16 a group
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 8, 8, 200, 8, 1), profile).tile.mr, 4);      // T = 100
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 512, 28, 28, 512, 1), profile).tile.mr, 5);  // T = 49: 50 rows
    EXPECT_EQ(winograd_gemm_config(f4, conv3x3(1, 8, 24, 40, 8, 1), profile).tile.mr, 3);      // T = 60: 3 to 6 all exact
    // Fewer channels in or out than the key: a channel vector's lanes would idle.
    profile.tuned["winograd_gemm_transposed_min_channels"] = 16;
    EXPECT_TRUE(winograd_gemm_config(f4, conv3x3(1, 16, 28, 28, 16, 1), profile).transposed);
    EXPECT_FALSE(winograd_gemm_config(f4, conv3x3(1, 15, 28, 28, 512, 1), profile).transposed);
    EXPECT_FALSE(winograd_gemm_config(f4, conv3x3(1, 512, 28, 28, 15, 1), profile).transposed);
    profile.tuned.erase("winograd_gemm_transposed_min_channels");
    EXPECT_FALSE(winograd_gemm_config(f4, conv3x3(1, 256, 56, 56, 256, 1), profile).transposed);  // T = 196
    const WinogradGemmConfig f4_14 = winograd_gemm_config(f4, conv3x3(1, 512, 14, 14, 512, 1), profile);  // T = 16
    EXPECT_EQ(f4_14.tile.mr, 4);
    const WinogradGemmConfig f4_3 = winograd_gemm_config(f4, conv3x3(1, 8, 4, 12, 8, 1), profile);  // T = 3, K = 8
    EXPECT_EQ(f4_3.tile.mr, 3);
    // U in panels of the tile's 64 columns, K = 8 padded to one: the GEMM
    // reads whole panels and stores only K's columns (B_PANEL, no EDGE_N).
    EXPECT_FALSE(f4_3.edge_n);
    EXPECT_EQ(f4_3.u_columns(conv3x3(1, 8, 4, 12, 8, 1)), 64);
    // Each U_e a cache line more than its panels (16 floats), so that its planes are not 4 KiB apart.
    EXPECT_EQ(f4_3.u_plane(conv3x3(1, 8, 4, 12, 8, 1)), 64 * 8 + 16);
    EXPECT_EQ(f4_3.weight_bytes(conv3x3(1, 8, 4, 12, 8, 1)), 36u * (64 * 8 + 16) * sizeof(float));
    EXPECT_FALSE(winograd_gemm_config(f4, conv3x3(1, 128, 112, 112, 128, 1), profile).transposed);  // T = 784
    EXPECT_FALSE(winograd_gemm_config(f4, conv3x3(8, 512, 28, 28, 512, 1), profile).transposed);    // T = 392
    profile.tuned["winograd_gemm_transposed_max_tiles"] = 0;
    EXPECT_FALSE(winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), profile).transposed);
    profile.tuned["winograd_gemm_transposed"] = 1;
    EXPECT_TRUE(winograd_gemm_config(f4, conv3x3(1, 128, 112, 112, 128, 1), profile).transposed);
    profile.tuned["winograd_gemm_transposed"] = 0;
    profile.tuned["winograd_gemm_transposed_max_tiles"] = 128;
    EXPECT_FALSE(winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), profile).transposed);

    // The shipped AVX-512 profile: every pass of 16 or more channels in and
    // out (VGG-16 from conv1.2 at N = 1, the 5x5 layers at N = 32 and
    // larger passes than fit the workspace), none of fewer (conv1.1, C = 3).
    const DeviceProfile avx512 = load_profile("pocl-cpu-avx512");
    EXPECT_TRUE(winograd_gemm_config(f4, conv3x3(1, 64, 224, 224, 64, 1), avx512).transposed);  // T = 3136
    EXPECT_TRUE(winograd_gemm_config(f6, conv3x3(1, 512, 14, 14, 512, 1), avx512).transposed);  // T = 9
    EXPECT_TRUE(winograd_gemm_config(WinogradTile{5, 5}, conv5x5(32, 48, 35, 35, 64, 2), avx512).transposed);
    EXPECT_FALSE(winograd_gemm_config(f4, conv3x3(1, 3, 224, 224, 64, 1), avx512).transposed);
}

// The transposed multiply prefetches U's next panel (kernels_cl/gemm.cl
// PREFETCH_PANEL) where the row tiles sharing a panel number between the
// profile's two keys: the shipped AVX-512 profile takes VGG's 28x28 layers
// (5 row tiles with F(6x6), 10 with F(4x4)) and not 14x14 (3) or F(6x6) at
// 56x56 (25); no keys, no prefetch. The results stay the reference's with
// the prefetch on every pass: K over two panels and the next image's (the
// last panel's successor in another batch entry, and none after the last),
// passes of a few tiles, N > 1, odd sizes.
TEST(WinogradConv, MultiplyPrefetchesTheNextPanelWhereFewRowTilesShareIt) {
    const WinogradTile f4{4, 3}, f6{6, 3};
    const DeviceProfile avx512 = load_profile("pocl-cpu-avx512");
    const WinogradGemmConfig f6_28 = winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), avx512);
    EXPECT_TRUE(f6_28.prefetch_panels);
    EXPECT_NE(f6_28.gemm_program().options.find("-DPREFETCH_PANEL"), std::string::npos) << f6_28.gemm_program().options;
    EXPECT_NE(f6_28.str().find("U's next panel prefetched"), std::string::npos) << f6_28.str();
    EXPECT_TRUE(winograd_gemm_config(f4, conv3x3(1, 512, 28, 28, 512, 1), avx512).prefetch_panels);   // 10 row tiles
    EXPECT_FALSE(winograd_gemm_config(f6, conv3x3(1, 512, 14, 14, 512, 1), avx512).prefetch_panels);  // 3
    const WinogradGemmConfig f6_56 = winograd_gemm_config(f6, conv3x3(1, 128, 56, 56, 256, 1), avx512);  // 25
    EXPECT_TRUE(f6_56.transposed);
    EXPECT_FALSE(f6_56.prefetch_panels);
    EXPECT_EQ(f6_56.gemm_program().options.find("-DPREFETCH_PANEL"), std::string::npos) << f6_56.gemm_program().options;
    DeviceProfile bare = avx512;
    bare.tuned.erase("winograd_gemm_prefetch_min_row_tiles");
    bare.tuned.erase("winograd_gemm_prefetch_max_row_tiles");
    EXPECT_TRUE(winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), bare).transposed);
    EXPECT_FALSE(winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), bare).prefetch_panels);
    DeviceProfile along = avx512;
    along.tuned["winograd_gemm_transposed"] = 0;  // no panels to prefetch
    EXPECT_FALSE(winograd_gemm_config(f6, conv3x3(1, 512, 28, 28, 512, 1), along).prefetch_panels);

    // PREFETCH_PANEL is a CPU build option (only a CPU profile, pocl-cpu-avx512,
    // sets its keys): NVIDIA's OpenCL compiler rejects its __builtin_prefetch (a
    // global pointer where it wants a generic one: the H200 run in
    // tools/gpu/README.md). The configuration checks above hold on any device;
    // the kernels are forced and run on a CPU device alone, and elsewhere the
    // test says it skipped them.
    const DeviceProfile& device = test::shared_context()->profile();
    if (device.type != DeviceType::CPU) {
        GTEST_SKIP() << "PREFETCH_PANEL is built and run on CPU devices only; '" << device.name << "' is a "
                     << to_string(device.type) << " (the configuration checks above ran)";
    }
    const auto context = test::context_with_profile([](DeviceProfile& p) {
        p.tuned["winograd_gemm_transposed"] = 1;
        p.tuned["winograd_gemm_prefetch_min_row_tiles"] = 1;
        p.tuned["winograd_gemm_prefetch_max_row_tiles"] = 1 << 20;
    });
    std::uint64_t seed = 940;
    int ran = 0;
    for (const WinogradTile tile : {f4, f6}) {
        const Variant variant("wino-f" + std::to_string(tile.m) + "-gemm");
        for (const ConvShapes& s : {conv3x3(1, 24, 20, 20, 80, 1), conv3x3(2, 17, 13, 11, 70, 1, false),
                                    conv3x3(3, 33, 9, 14, 64, 0)}) {
            test::ConvCaseOptions options = winograd_case(variant, seed += 3, context);
            const auto whole = test::run_conv_case(s, options);
            EXPECT_TRUE(whole.passed()) << variant.id << " " << test::describe(s, whole);
            EXPECT_NE(whole.plan.config.find("U's next panel prefetched"), std::string::npos) << whole.plan.config;
            options.seed = seed += 3;
            options.workspace_limit_bytes = static_cast<std::size_t>(7 * (s.C + s.K) * tile.alpha() * tile.alpha()) * sizeof(float);
            const auto passes = test::run_conv_case(s, options);
            EXPECT_TRUE(passes.passed()) << variant.id << " in passes " << test::describe(s, passes);
            ++ran;
        }
    }
    EXPECT_EQ(ran, 6);
}

// The row transforms (kernels_cl/winograd_gemm_rows.cl: 8 or 16 tiles of a
// tile row a work-item, profile key winograd_transform_lanes) on every
// separate-transform tile, on rows wider than a vector of tiles (interior
// spans, the padded first span, a partial last group), edge spans read
// whole and masked, also where they run two rows on (rows of 5 tiles in 8
// lanes: F(4x4) at 20 wide, F(6x6) at 29) and where they would run off the
// tensor, asymmetric padding, N > 1, no bias, and passes of 5 tiles that
// start and end mid-row; F(5x5,5x5) (alpha 9, an odd tile) too;
// F(9x9,5x5) keeps the one-tile kernels.
TEST(WinogradConv, RowTransformsMatchReferenceAtEveryLaneCount) {
    ConvShapes asymmetric = conv3x3(3, 4, 19, 53, 6, 0);
    asymmetric.pad_top = 2, asymmetric.pad_left = 1, asymmetric.pad_bottom = 0, asymmetric.pad_right = 2;
    ConvShapes asymmetric5 = conv5x5(2, 3, 17, 61, 5, 0, false);
    asymmetric5.pad_top = 1, asymmetric5.pad_left = 2, asymmetric5.pad_bottom = 3, asymmetric5.pad_right = 0;
    const std::vector<std::pair<const char*, std::vector<ConvShapes>>> cases = {
        {"wino-f2-gemm", {conv3x3(2, 5, 37, 70, 9, 1), conv3x3(1, 3, 20, 131, 7, 0, false), asymmetric}},
        {"wino-f4-gemm", {conv3x3(2, 5, 37, 70, 9, 1), conv3x3(1, 2, 8, 200, 3, 2), asymmetric, conv3x3(2, 3, 20, 20, 4, 1)}},
        {"wino-f6-gemm",
         {conv3x3(2, 5, 37, 70, 9, 1), conv3x3(1, 3, 20, 131, 7, 0, false), asymmetric, conv3x3(2, 3, 28, 29, 5, 1)}},
        {"wino-f4r5-gemm", {asymmetric5}},
        {"wino-f5r5-gemm", {asymmetric5, conv5x5(1, 2, 11, 93, 4, 2)}},
        {"wino-f9r5-gemm", {conv5x5(2, 3, 21, 150, 5, 2)}},
    };
    std::uint64_t seed = 900;
    auto context = test::context_with_profile();  // one, every implementation on, re-profiled per lane count
    const DeviceProfile base = context->profile();
    for (const int lanes : {8, 16}) {
        DeviceProfile profile = base;
        profile.tuned["winograd_transform_lanes"] = lanes;
        profile.tuned["winograd_gemm_transposed"] = 0;  // the row transforms serve the tiles-along-vectors multiply
        context->set_profile(profile);
        int rows = 0;
        for (const auto& [id, shapes] : cases) {
            // 16 lanes on F(4x4) alone: each (tile, lanes) is a program build of its own, seconds on PoCL.
            if (lanes == 16 && std::string(id) != "wino-f4-gemm") continue;
            const Variant variant(id);
            const int m = winograd_gemm_tile(variant)->m;
            for (const auto& s : shapes) {
                for (const bool passes : {false, true}) {
                    SCOPED_TRACE(std::string(id) + " lanes " + std::to_string(lanes) + (passes ? " in passes" : ""));
                    test::ConvCaseOptions options;
                    options.strategy = Kernel::CONV2D_WINOGRAD;
                    options.variant = variant;
                    options.seed = ++seed;
                    options.tolerance_factor = factor_for(variant);
                    options.context = context;
                    const int alpha = winograd_gemm_tile(variant)->alpha();
                    if (passes) {
                        options.workspace_limit_bytes =
                            static_cast<std::size_t>(5 * (s.C + s.K) * alpha * alpha) * sizeof(float);
                    }
                    const auto result = test::run_conv_case(s, options);
                    EXPECT_TRUE(result.passed()) << test::describe(s, result);
                    const bool wide = 2 * ((s.Q() + m - 1) / m) >= lanes && alpha <= 9;  // F(9x9,5x5): never
                    EXPECT_EQ(result.plan.config.find(std::to_string(lanes) + " tiles a work-item") != std::string::npos,
                              wide)
                        << result.plan.config;
                    if (passes) {
                        EXPECT_NE(result.plan.config.find("5 of "), std::string::npos) << result.plan.config;
                    }
                    rows += wide ? 1 : 0;
                }
            }
        }
        EXPECT_GE(rows, lanes == 8 ? 20 : 4) << "lanes " << lanes;
    }
    // Only 0, 8 and 16 are built.
    DeviceProfile bad = test::shared_context()->profile();
    bad.tuned["winograd_transform_lanes"] = 4;
    EXPECT_THROW(winograd_gemm_config(WinogradTile{4, 3}, conv3x3(1, 8, 30, 30, 8, 1), bad), Error);
}

TEST(WinogradConv, LowLocalMemoryFallbackUnderA16KiBProfile) {
    const auto context = test::shared_context();
    // Restores the shared context's profile however the test ends.
    struct Restore {
        std::shared_ptr<Context> context;
        DeviceProfile profile;
        ~Restore() { context->set_profile(profile); }
    } restore{context, context->profile()};
    DeviceProfile capped = restore.profile;
    capped.local_mem_bytes = 16384;
    context->set_profile(capped);
    const ConvShapes s = conv3x3(2, 16, 13, 11, 20, 1);
    for (int tile : {2, 4}) {
        const Variant fused = winograd_variant_id(tile, false, false), low = winograd_variant_id(tile, true, false);
        EXPECT_LE(config_of(low).local_bytes(), 16384u);
        const auto reason = why_not(fused, s, capped);
        ASSERT_TRUE(reason.has_value()) << "the fused variant needs " << config_of(fused).local_bytes() << " bytes";
        EXPECT_NE(reason->find("local memory"), std::string::npos) << *reason;
        EXPECT_THROW(create_strategy(context, plan_of(fused), s, capped), Error);
        EXPECT_FALSE(why_not(low, s, capped).has_value());
        expect_matches_reference(low, s, 40 + static_cast<std::uint64_t>(tile));
    }
}

TEST(WinogradConv, ConstantWeightsRefusedWhenUExceedsTheConstantBuffer) {
    const auto context = test::shared_context();
    DeviceProfile small = context->profile();
    const ConvShapes s = conv3x3(1, 64, 8, 8, 64, 1);
    const Variant constant = winograd_variant_id(4, false, true);
    small.max_constant_buffer_bytes = config_of(constant).weight_bytes(s) - 1;
    const auto reason = why_not(constant, s, small);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("constant buffer"), std::string::npos) << *reason;
    EXPECT_FALSE(why_not(winograd_variant_id(4, false, false), s, small).has_value());
}

TEST(WinogradConv, RefusesWhatItCannotRun) {
    const auto context = test::shared_context();
    const DeviceProfile& profile = context->profile();
    const Variant f4 = winograd_variant_id(4, false, false), f2 = winograd_variant_id(2, false, false);
    ConvShapes five = conv3x3(1, 4, 8, 8, 4, 1);
    five.R = five.S = 5;
    EXPECT_THROW(create_strategy(context, plan_of(f4), five, profile), Error);
    ConvShapes strided = conv3x3(1, 4, 8, 8, 4, 1);
    strided.stride_h = 2;
    EXPECT_THROW(create_strategy(context, plan_of(f2), strided, profile), Error);
    ConvShapes dilated = conv3x3(1, 4, 8, 8, 4, 1);
    dilated.dilation_w = 2;
    EXPECT_THROW(create_strategy(context, plan_of(f2), dilated, profile), Error);
    EXPECT_THROW(create_strategy(context, plan_of("wino-f3-fused-global"), conv3x3(1, 4, 8, 8, 4, 1), profile), Error);

    const ConvShapes s = conv3x3(1, 4, 8, 8, 4, 1);
    auto conv = create_strategy(context, plan_of(f2), s, profile);
    const Tensor x = Tensor::from_host(context, test::random_uniform(256, 1), {1, 4, 8, 8});
    Tensor y = Tensor::empty(context, {1, 4, 8, 8});
    internal::EventChain chain(true, {});
    EXPECT_THROW(conv->enqueue(x, y, Workspace{}, chain), Error);  // before set_weights
    const Tensor wrong = Tensor::from_host(context, test::random_uniform(4 * 4 * 9, 2), {4, 4, 9});
    EXPECT_THROW(conv->set_weights(wrong, nullptr, chain), Error);
}

// The configuration shipped for NVIDIA (selector/profiles/nvidia-gpu.json:
// its fused block sizes, exact C tails in chunks of 8, C split over slices for
// enough work-groups, 48 KiB of local and 64 KiB of constant memory) built and
// run here, on this device, against the fp64 reference: the configuration
// the nvptx check holds to its budget is the one that is tested.
TEST(WinogradConv, NvidiaProfileConfigurationRunsHere) {
    auto ctx = Context::create();
    const DeviceProfile nvidia = load_profile("nvidia-gpu");
    DeviceProfile profile = ctx->profile();
    profile.tuned = nvidia.tuned;
    profile.local_mem_bytes = nvidia.local_mem_bytes;
    profile.max_constant_buffer_bytes = nvidia.max_constant_buffer_bytes;
    ctx->set_profile(profile);
    const std::vector<ConvShapes> shapes = {
        conv3x3(1, 150, 9, 9, 70, 1),           // C over 2 steps of F(4x4)'s 72 and 4 of F(2x2)'s 32: split, tail
        conv3x3(2, 40, 7, 10, 130, 1, false),   // K over two blocks, C off the chunk of 8
        conv3x3(1, 19, 5, 5, 9, 0),             // small: one tile block, C tail inside one step
        conv3x3(3, 64, 6, 6, 34, 2, true, 2),   // groups 2, pad 2
    };
    int ran = 0, split = 0;
    std::uint64_t seed = 900;
    for (const auto& wv : winograd_variants()) {
        const Variant v = wv.variant();
        const WinogradConfig config = winograd_config(wv, profile);
        EXPECT_TRUE(config.c_tail) << v.id;
        for (const ConvShapes& s : shapes) {
            if (why_not(v, s, profile)) continue;  // e.g. U over the 64 KiB constant buffer
            test::ConvCaseOptions options;
            options.strategy = Kernel::CONV2D_WINOGRAD;
            options.variant = v;
            options.seed = seed++;
            options.tolerance_factor = factor_for(v);
            options.context = ctx;
            const auto result = test::run_conv_case(s, options);
            EXPECT_TRUE(result.passed()) << v.id << " [" << config.str(s) << "] " << test::describe(s, result);
            EXPECT_EQ(result.workspace_bytes, config.workspace_bytes(s)) << v.id << " " << s.str();
            ++ran;
            split += config.splits(s) > 1;
        }
    }
    EXPECT_GE(ran, 16);  // 8 variants x 4 shapes, less the constant-weights ones U outgrows 64 KiB for
    EXPECT_GE(split, 8) << "the split-C path must be exercised";
}

TEST(WinogradConv, WeightTransformMatchesGeneratorOnHost) {
    // U = G g G^T from the device against the generator's G in double.
    const auto context = test::shared_context();
    for (int tile : {2, 4}) {
        const ConvShapes s = conv3x3(1, 3, 8, 8, 5, 1, false, 1);
        Variant v = winograd_variant_id(tile, false, false);
        // Where the fused blocks do not fit (oclgrind's 32 KiB), the small ones do.
        if (why_not(v, s, context->profile())) v = winograd_variant_id(tile, true, false);
        const WinogradConfig config = config_of(v);
        const auto w_host = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 77);
        auto strategy = create_strategy(context, plan_of(v), s, context->profile());
        internal::EventChain chain(!context->out_of_order(), {});
        strategy->set_weights(Tensor::from_host(context, w_host, {s.K, s.C, 3, 3}), nullptr, chain);
        const auto u = dynamic_cast<const WinogradConv&>(*strategy).transformed_weights().to_host(chain.events());
        const auto G = winograd_matrices(tile, 3);
        const int a = G.alpha;
        const std::int64_t Kp = config.padded_k(s);
        const std::int64_t Cp = config.padded_c(s);
        ASSERT_EQ(u.size(), static_cast<std::size_t>(a * a * Cp * Kp));
        for (std::int64_t k = 0; k < Kp; ++k)
            for (std::int64_t c = 0; c < Cp; ++c)
                for (int i = 0; i < a; ++i)
                    for (int j = 0; j < a; ++j) {
                        double expected = 0, magnitude = 0;  // fp32 rounding scales with the terms' size
                        if (k < s.K && c < s.C)
                            for (int p = 0; p < 3; ++p)
                                for (int q = 0; q < 3; ++q) {
                                    const double term = G.g(i, p) * w_host[static_cast<std::size_t>(((k * s.C + c) * 3 + p) * 3 + q)] * G.g(j, q);
                                    expected += term;
                                    magnitude += std::fabs(term);
                                }
                        const std::int64_t bk = config.block_k;  // layout [K block][Cp][e][BK]
                        const float actual = u[static_cast<std::size_t>((((k / bk) * Cp + c) * a * a + i * a + j) * bk + k % bk)];
                        EXPECT_NEAR(actual, expected, 1e-6 * std::max(1.0, magnitude)) << "F" << tile << " k=" << k << " c=" << c << " e=" << i * a + j;
                    }
    }
}

}  // namespace
}  // namespace netcl
