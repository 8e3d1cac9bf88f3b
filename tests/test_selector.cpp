// KernelSelector: the built-in rules on the shipped profiles (table-driven),
// framework rules, the default strategy, names, and concurrent use. No OpenCL
// device is needed: profiles come from the shipped JSON files.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "ops/winograd/WinogradVariants.hpp"
#include "ops/Implementations.hpp"
#include "ops/im2col/Im2colGemmConfig.hpp"
#include "ops/winograd/WinogradConfig.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "netcl/Error.hpp"
#include "selector/BuiltinRules.hpp"
#include "selector/VariantChoice.hpp"
#include "netcl/KernelSelector.hpp"
#include "tests/support/LayerSets.hpp"
#include "selector/ProfileStore.hpp"
#include "tests/support/ThresholdFit.hpp"
#include "selector/Thresholds.hpp"
#include "tests/selector/SelectorTestSupport.hpp"

namespace netcl::test {
namespace {

struct RuleCase {
    const char* what;
    ConvShapes shapes;
    const char* profile;      // shipped profile name
    Kernel kernel;
    int tile;                 // Winograd m; 0 otherwise
    const char* reason_part;  // the plan's reason must say this
};

std::string case_name(const ::testing::TestParamInfo<RuleCase>& info) {
    std::string name = std::string(info.param.profile) + "_" + info.param.what;
    for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

class BuiltinRules : public SelectorTest, public ::testing::WithParamInterface<RuleCase> {};

TEST_P(BuiltinRules, ChoosesTheExpectedPlan) {
    const RuleCase& c = GetParam();
    const DeviceProfile profile = load_profile(c.profile);
    KernelSelector selector;
    const Decision d = selector.explain("conv2d", c.shapes, profile);
    SCOPED_TRACE(c.shapes.str() + " on " + c.profile + "\n" + d.str());
    EXPECT_EQ(to_string(d.plan.kernel), to_string(c.kernel));
    EXPECT_NE(d.plan.reason.find(c.reason_part), std::string::npos) << d.plan.reason;
    EXPECT_NE(d.plan.reason.find("built-in"), std::string::npos);
    EXPECT_EQ(implementation_of(d.plan.variant).kernel(), d.plan.kernel) << d.plan.variant.id;
    EXPECT_FALSE(d.plan.config.empty());
    if (c.kernel != Kernel::CONV2D_WINOGRAD) {
        // The first variant of the strategy, in the profile's ranking, that takes the layer.
        Variant first;
        for (const Variant& v : candidate_variants(c.kernel, c.shapes, profile)) {
            if (!why_not(v, c.shapes, profile)) {
                first = v;
                break;
            }
        }
        EXPECT_EQ(d.plan.variant, first);
        return;
    }
    if (const auto t = winograd_gemm_tile(d.plan.variant)) {  // separate transforms, where the profile prefers them
        EXPECT_EQ(t->m, c.tile);
        // 3x3 layers have fused variants too; 5x5 layers only these.
        if (t->r == 3) {
            EXPECT_NE(threshold(profile, threshold_key::winograd_prefer_gemm), 0) << d.plan.variant.id;
        }
        return;
    }
    const auto chosen = winograd_variant(d.plan.variant);
    ASSERT_TRUE(chosen.has_value()) << d.plan.variant.id;
    EXPECT_EQ(threshold(profile, threshold_key::winograd_prefer_gemm), 0) << "a profile preferring winograd-gemm got " << d.plan.variant.id;
    EXPECT_EQ(chosen->m, c.tile);
    // Fused unless the fused kernel of that tile does not fit the profile's
    // local memory or work-group size; constant weights exactly when the
    // profile allows them and they fit the constant buffer.
    EXPECT_EQ(chosen->low_local_memory, why_not(winograd_variant_id(c.tile, false, false), c.shapes, profile).has_value());
    WinogradVariant constant = *chosen;
    constant.constant_weights = true;
    const bool allowed = threshold(profile, threshold_key::winograd_constant_weights) != 0;
    EXPECT_EQ(chosen->constant_weights,
              allowed && winograd_config(constant, profile).weight_bytes(c.shapes) <= profile.max_constant_buffer_bytes);
    EXPECT_FALSE(why_not(d.plan.variant, c.shapes, profile).has_value());
}

constexpr Kernel NAIVE = Kernel::CONV2D_NAIVE, IM2COL = Kernel::IM2COL, WINO = Kernel::CONV2D_WINOGRAD;

std::vector<RuleCase> cases() {
    std::vector<RuleCase> all;
    for (const char* p : {"default", "pocl-cpu", "nvidia-gpu"}) {
        const std::vector<RuleCase> common = {
            {"vgg_conv3_2_3x3s1", shape(1, 256, 56, 56, 256, 3, 3, 1, 1), p, WINO, 4, "C = 256 >= 16"},
            {"vgg_conv5_batch8", shape(8, 512, 14, 14, 512, 3, 3, 1, 1), p, WINO, 4, "winograd"},
            {"resnet_3x3s2", shape(1, 128, 56, 56, 128, 3, 3, 2, 1), p, IM2COL, 0, "im2col"},
            {"resnet_1x1", shape(1, 256, 56, 56, 64, 1, 1), p, IM2COL, 0, "within the limit"},
            {"resnet_1x1s2_projection", shape(1, 512, 28, 28, 1024, 1, 1, 2, 0), p, IM2COL, 0, "im2col"},
            {"5x5_K_below_winograd_min", shape(1, 64, 56, 56, 8, 5, 5, 1, 2), p, IM2COL, 0, "im2col"},
            {"7x7s2_first_layer", shape(1, 3, 224, 224, 64, 7, 7, 2, 3), p, IM2COL, 0, "im2col"},
            {"C3_first_layer_3x3", shape(1, 3, 224, 224, 64, 3, 3, 1, 1), p, IM2COL, 0, "im2col"},
            {"depthwise_3x3", shape(1, 256, 56, 56, 256, 3, 3, 1, 1, 256), p, NAIVE, 0, "depthwise"},
            {"grouped_2_per_group", shape(1, 256, 56, 56, 256, 3, 3, 1, 1, 128), p, NAIVE, 0, "grouped"},
            {"grouped_wide_groups", shape(1, 256, 56, 56, 256, 3, 3, 1, 1, 8), p, IM2COL, 0, "im2col"},
            {"tiny_layer", shape(1, 8, 8, 8, 8, 3, 3, 1, 1), p, NAIVE, 0, "tiny layer"},
            {"1x1_image_3x3", shape(1, 512, 1, 1, 512, 3, 3, 1, 1), p, NAIVE, 0, "tiny image"},
            {"2x2_image_1x1", shape(4, 1024, 2, 2, 1024, 1, 1), p, NAIVE, 0, "tiny image"},
            {"dilated_3x3", shape(1, 64, 32, 32, 64, 3, 3, 1, 2, 1, 2), p, IM2COL, 0, "im2col"},
            {"odd_13x13_3x3s1", shape(3, 64, 13, 13, 96, 3, 3, 1, 1), p, WINO, 4, "winograd"},
            {"K_below_winograd_min", shape(1, 64, 56, 56, 8, 3, 3, 1, 1), p, IM2COL, 0, "im2col"},
        };
        all.insert(all.end(), common.begin(), common.end());
    }
    // Where the profiles differ. A 3x3 layer with a 6x6 output: 2.65 MFLOP is
    // above the default's and NVIDIA's naive_max_flops, below PoCL's; the
    // output is under winograd_f4_min_output, so F(2x2).
    all.push_back({"small_output_3x3", shape(1, 64, 6, 6, 64, 3, 3, 1, 1), "default", WINO, 2, "winograd"});
    all.push_back({"small_output_3x3", shape(1, 64, 6, 6, 64, 3, 3, 1, 1), "nvidia-gpu", WINO, 2, "winograd"});
    all.push_back({"small_output_3x3", shape(1, 64, 6, 6, 64, 3, 3, 1, 1), "pocl-cpu", NAIVE, 0, "tiny layer"});
    // A 151 MB im2col workspace: over the default profile's limit (a quarter of
    // its 128 MiB max allocation), under PoCL's and NVIDIA's.
    // im2col + CLBlast's columns are over the default limit; the implicit GEMM needs none.
    all.push_back({"huge_workspace_3x3s2", shape(1, 64, 512, 512, 64, 3, 3, 2, 1), "default", IM2COL, 0, "workspace 0 bytes"});
    all.push_back({"huge_workspace_3x3s2", shape(1, 64, 512, 512, 64, 3, 3, 2, 1), "pocl-cpu", IM2COL, 0, "im2col"});
    all.push_back({"huge_workspace_3x3s2", shape(1, 64, 512, 512, 64, 3, 3, 2, 1), "nvidia-gpu", IM2COL, 0, "im2col"});
    // 5x5 stride 1: F(4x4,5x5) with separate transforms, which the NVIDIA
    // profile turns off (winograd_gemm_enabled = 0: unmeasured there).
    all.push_back({"5x5", shape(1, 32, 28, 28, 64, 5, 5, 1, 2), "default", WINO, 4, "winograd"});
    all.push_back({"5x5", shape(1, 32, 28, 28, 64, 5, 5, 1, 2), "pocl-cpu", WINO, 4, "winograd"});
    all.push_back({"5x5", shape(1, 32, 28, 28, 64, 5, 5, 1, 2), "nvidia-gpu", IM2COL, 0, "im2col"});
    // 3x3 stride 1 with C = 16 = K on NVIDIA: F(2x2)'s U is 64 KiB, F(4x4)'s 72 KiB.
    all.push_back({"C16_K16_3x3s1", shape(1, 16, 32, 32, 16, 3, 3, 1, 1), "nvidia-gpu", WINO, 4, "winograd"});
    return all;
}

INSTANTIATE_TEST_SUITE_P(Profiles, BuiltinRules, ::testing::ValuesIn(cases()), case_name);

TEST_F(SelectorTest, ProfileDrivesFusedVersusLowLocalMemory) {
    DeviceProfile profile = load_profile("nvidia-gpu");
    const ConvShapes s = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    KernelSelector selector;
    const Variant fused4 = winograd_variant_id(4, false, false);
    const std::size_t fused4_local = winograd_config(*winograd_variant(fused4), profile).local_bytes();
    profile.local_mem_bytes = fused4_local;
    EXPECT_EQ(selector.select("conv2d", s, profile).variant, fused4);
    profile.local_mem_bytes = fused4_local - 1;
    const Plan low = selector.select("conv2d", s, profile);
    EXPECT_EQ(low.variant, winograd_variant_id(4, true, false)) << low.str();
    // A measured preference for the low-local-memory variant wins even where fused fits.
    profile.local_mem_bytes = 1 << 20;
    profile.tuned[threshold_key::winograd_prefer_low_local_memory] = 1;
    EXPECT_EQ(selector.select("conv2d", s, profile).variant, winograd_variant_id(4, true, false));
    // A measured preference for F(2x2).
    profile.tuned[threshold_key::winograd_prefer_low_local_memory] = 0;
    profile.tuned[threshold_key::winograd_tile] = 2;
    EXPECT_EQ(selector.select("conv2d", s, profile).variant, winograd_variant_id(2, false, false));
}

// The profile's max_error_factor keeps the selector off tiles that may err
// more (F(6x6,3x3) 64, F(4x4,3x3) 16, F(2x2,3x3) 4), and the reason names
// what it passed over; 1 leaves only direct sums.
TEST_F(SelectorTest, AccuracyBoundPassesOverLargerTiles) {
    KernelSelector selector;
    DeviceProfile profile = load_profile("pocl-cpu");
    const ConvShapes s = shape(1, 64, 224, 224, 64, 3, 3, 1, 1);  // PoCL runs F(6x6) from 112x112 outputs
    EXPECT_EQ(selector.select("conv2d", s, profile).variant, Variant("wino-f6-gemm"));
    profile.tuned[threshold_key::max_error_factor] = 16;
    const Plan f4 = selector.select("conv2d", s, profile);
    EXPECT_EQ(f4.variant, Variant("wino-f4-gemm"));
    EXPECT_EQ(f4.error_factor, 16);
    EXPECT_NE(f4.reason.find("wino-f6-gemm: its error factor 64 exceeds max_error_factor 16 (the accuracy bound)"),
              std::string::npos) << f4.reason;
    profile.tuned[threshold_key::max_error_factor] = 4;
    EXPECT_EQ(selector.select("conv2d", s, profile).variant, Variant("wino-f2-gemm"));
    profile.tuned[threshold_key::max_error_factor] = 1;
    const Decision direct = selector.explain("conv2d", s, profile);
    EXPECT_NE(direct.plan.kernel, WINO) << direct.str();
    EXPECT_EQ(direct.plan.error_factor, 1);
    EXPECT_NE(direct.str().find("exceeds max_error_factor 1"), std::string::npos) << direct.str();
    // A framework rule naming a variant beyond the bound is passed over with the reason; a direct sum
    // (factor 1) is never beyond any bound.
    profile.tuned[threshold_key::max_error_factor] = 16;
    KernelSelector ruled;
    ruled.register_rule("conv2d", [](const ConvShapes&, const DeviceProfile&) { return true; }, WINO, 10,
                        Variant("wino-f6-gemm"));
    const Decision passed = ruled.explain("conv2d", s, profile);
    ASSERT_FALSE(passed.candidates.empty());
    EXPECT_FALSE(passed.candidates[0].accepted);
    EXPECT_NE(passed.candidates[0].reason.find("wino-f6-gemm is passed over: its error factor 64 exceeds"),
              std::string::npos) << passed.candidates[0].reason;
    EXPECT_EQ(passed.plan.variant, Variant("wino-f4-gemm"));
    EXPECT_FALSE(beyond_error_bound(Variant("naive"), profile).has_value());
    // 5x5 filters: F(9x9,5x5) (8) where the profile prefers it, within a
    // bound of 8 too; F(5x5,5x5) (128) passed over for F(4x4,5x5) (16) under
    // a bound of 16; nothing of Winograd's under 4.
    const ConvShapes alexnet = shape(1, 48, 27, 27, 128, 5, 5, 1, 2);
    profile.tuned[threshold_key::max_error_factor] = 0;
    profile.tuned[threshold_key::winograd_5x5_tile] = 9;
    EXPECT_EQ(selector.select("conv2d", alexnet, profile).variant, Variant("wino-f9r5-gemm"));
    profile.tuned[threshold_key::max_error_factor] = 8;
    EXPECT_EQ(selector.select("conv2d", alexnet, profile).variant, Variant("wino-f9r5-gemm"));
    profile.tuned[threshold_key::max_error_factor] = 4;
    EXPECT_NE(selector.select("conv2d", alexnet, profile).kernel, WINO);
    profile.tuned[threshold_key::winograd_5x5_tile] = 5;
    profile.tuned[threshold_key::max_error_factor] = 16;
    EXPECT_EQ(selector.select("conv2d", alexnet, profile).variant, Variant("wino-f4r5-gemm"));
    // By padding: F(5x5,5x5) (128) where it pads the output less than
    // F(4x4,5x5) and F(9x9,5x5) (35 = 7 x 5 against 36; 30 against 32 and
    // 36), F(9x9) where it pads least (27 = 3 x 9 against 28 and 30), F(4x4)
    // where it pads as little as the others (20x20; 36x36 with F(9x9)), and
    // under a bound below 128.
    profile.tuned[threshold_key::max_error_factor] = 0;
    profile.tuned[threshold_key::winograd_5x5_tile] = 4;
    profile.tuned[threshold_key::winograd_5x5_tile_by_padding] = 1;
    const ConvShapes inception = shape(1, 48, 35, 35, 64, 5, 5, 1, 2);
    const Decision fitted = selector.explain("conv2d", inception, profile);
    EXPECT_EQ(fitted.plan.variant, Variant("wino-f5r5-gemm"));
    EXPECT_NE(fitted.plan.reason.find("F(5x5,5x5) first: it pads the output 35x35 to 35x35, F(4x4,5x5) to 36x36"),
              std::string::npos) << fitted.plan.reason;
    EXPECT_EQ(selector.select("conv2d", shape(2, 48, 30, 40, 64, 5, 5, 1, 2), profile).variant, Variant("wino-f5r5-gemm"));
    const Decision ninefold = selector.explain("conv2d", alexnet, profile);
    EXPECT_EQ(ninefold.plan.variant, Variant("wino-f9r5-gemm"));
    EXPECT_NE(ninefold.plan.reason.find("F(9x9,5x5) first: it pads the output 27x27 to 27x27, F(4x4,5x5) to 28x28, "
                                        "F(5x5,5x5) to 30x30 (winograd_5x5_tile_by_padding)"),
              std::string::npos) << ninefold.plan.reason;
    EXPECT_EQ(selector.select("conv2d", shape(1, 48, 20, 20, 64, 5, 5, 1, 2), profile).variant, Variant("wino-f4r5-gemm"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 48, 36, 36, 64, 5, 5, 1, 2), profile).variant, Variant("wino-f4r5-gemm"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 48, 35, 27, 64, 5, 5, 1, 2), profile).variant, Variant("wino-f9r5-gemm"));  // 36x27
    profile.tuned[threshold_key::max_error_factor] = 64;
    const Decision bounded = selector.explain("conv2d", inception, profile);
    EXPECT_EQ(bounded.plan.variant, Variant("wino-f4r5-gemm"));
    EXPECT_NE(bounded.str().find("wino-f5r5-gemm: its error factor 128 exceeds max_error_factor 64"), std::string::npos)
        << bounded.str();
    // Without the rule, winograd_5x5_tile = 5 prefers F(5x5,5x5) everywhere.
    profile.tuned[threshold_key::max_error_factor] = 0;
    profile.tuned[threshold_key::winograd_5x5_tile_by_padding] = 0;
    profile.tuned[threshold_key::winograd_5x5_tile] = 5;
    EXPECT_EQ(selector.select("conv2d", alexnet, profile).variant, Variant("wino-f5r5-gemm"));
    // The AVX-512 PoCL profile sets the rule (measured there).
    const DeviceProfile avx512 = load_profile("pocl-cpu-avx512");
    EXPECT_EQ(selector.select("conv2d", inception, avx512).variant, Variant("wino-f5r5-gemm"));
    EXPECT_EQ(selector.select("conv2d", alexnet, avx512).variant, Variant("wino-f9r5-gemm"));
    // The 3x3 tiles' reason names the threshold too.
    const Plan f6 = selector.select("conv2d", shape(1, 64, 112, 112, 64, 3, 3, 1, 1), load_profile("pocl-cpu"));
    EXPECT_NE(f6.reason.find("F(6x6) first: output 112x112 >= winograd_f6_min_output 112"), std::string::npos)
        << f6.reason;
}

TEST_F(SelectorTest, ConstantWeightsWhereTheyFitTheConstantBuffer) {
    DeviceProfile profile = load_profile("nvidia-gpu");
    const ConvShapes s = shape(1, 16, 32, 32, 16, 3, 3, 1, 1);
    const Variant f4c = winograd_variant_id(4, false, true);
    KernelSelector selector;
    profile.max_constant_buffer_bytes = winograd_config(*winograd_variant(f4c), profile).weight_bytes(s);
    EXPECT_EQ(selector.select("conv2d", s, profile).variant, f4c);
    profile.max_constant_buffer_bytes -= 1;
    const Decision d = selector.explain("conv2d", s, profile);
    EXPECT_EQ(d.plan.variant, winograd_variant_id(4, false, false));
    EXPECT_NE(d.plan.reason.find("constant buffer"), std::string::npos) << d.plan.reason;
}

// A 1x1 layer with a long reduction over enough pixels goes to the implicit
// GEMM before the 1x1 GEMM where the profile says so (here C >= 1024 at 100
// pixels or more; backward data reduces over K); fewer pixels or channels
// keep the 1x1 GEMM, and so do a float16 layer (the implicit GEMM would
// widen its input first) and pocl-cpu (the 1x1 GEMM's tall work-groups win
// those layers); pocl-cpu-avx512 yields outputs of at most 64 pixels, in
// float16 too.
TEST_F(SelectorTest, OneByOneLayersYieldToTheImplicitGemmWhereTheProfileSays) {
    KernelSelector selector;
    DeviceProfile pocl = load_profile("pocl-cpu");
    const DeviceProfile shipped = pocl, fallback = load_profile("default");
    pocl.tuned[threshold_key::gemm1x1_max_channels] = 1024;
    pocl.tuned[threshold_key::gemm1x1_min_pixels_to_yield] = 100;
    EXPECT_EQ(selector.select("conv2d", shape(1, 1024, 14, 14, 256, 1, 1), pocl).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 1024, 10, 10, 256, 1, 1), pocl).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 1024, 10, 9, 256, 1, 1), pocl).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 2048, 7, 7, 512, 1, 1), pocl).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 1023, 14, 14, 256, 1, 1), pocl).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 512, 28, 28, 128, 1, 1), pocl).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 1024, 14, 14, 256, 1, 1), fallback).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", shape(8, 1024, 14, 14, 256, 1, 1), shipped).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 2048, 7, 7, 512, 1, 1), shipped).variant, Variant("gemm-1x1"));
    // Few pixels: pocl-cpu-avx512 yields outputs of at most 64 (the implicit GEMM folds the batch into them).
    const DeviceProfile avx512 = load_profile("pocl-cpu-avx512");
    EXPECT_EQ(selector.select("conv2d", shape(1, 2048, 7, 7, 512, 1, 1), avx512).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 512, 7, 7, 2048, 1, 1), avx512).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", shape(1, 1024, 14, 14, 256, 1, 1), avx512).variant, Variant("gemm-1x1"));
    const ConvShapes expand_data = shape(1, 256, 14, 14, 1024, 1, 1).in_direction(ConvDirection::BACKWARD_DATA);
    const ConvShapes reduce_data = shape(1, 1024, 14, 14, 256, 1, 1).in_direction(ConvDirection::BACKWARD_DATA);
    EXPECT_EQ(selector.select("conv2d_backward_data", expand_data, pocl).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d_backward_data", reduce_data, pocl).variant, Variant("gemm-1x1"));
    for (ConvShapes half : {shape(1, 2048, 7, 7, 512, 1, 1), shape(8, 1024, 14, 14, 256, 1, 1)}) {
        half.dtype = DataType::FLOAT16;
        EXPECT_EQ(selector.select("conv2d", half, pocl).variant, Variant("gemm-1x1")) << half.str();
    }
    // The few-pixel rule holds in float16 as well (measured on an Intel Xeon: VariantChoice.cpp).
    for (ConvShapes half : {shape(8, 2048, 7, 7, 512, 1, 1), shape(1, 512, 7, 7, 2048, 1, 1)}) {
        half.dtype = DataType::FLOAT16;
        EXPECT_EQ(selector.select("conv2d", half, avx512).variant, Variant("implicit-gemm")) << half.str();
    }
    ConvShapes half_wide = shape(1, 1024, 14, 14, 256, 1, 1);
    half_wide.dtype = DataType::FLOAT16;
    EXPECT_EQ(selector.select("conv2d", half_wide, avx512).variant, Variant("gemm-1x1"));
}

// im2col_gemm_panels_max_pixels (pocl-cpu: 196): a filter larger than 1x1
// over at most that many output pixels an image goes to im2col-gemm
// (its columns and weights in panels); more pixels, a group, a 1x1 filter
// (the 1x1 GEMM's, packed from x) or a profile without the key keep their
// variant. So does a strided 1x1 layer: the 1x1 GEMM takes it where it packs x.
TEST_F(SelectorTest, FewPixelFiltersGoToIm2colGemmPanelsWhereTheProfileSays) {
    KernelSelector selector;
    const DeviceProfile pocl = load_profile("pocl-cpu"), fallback = load_profile("default");
    const ConvShapes res5 = shape(8, 512, 14, 14, 512, 3, 3, 2, 1), res4 = shape(8, 256, 28, 28, 256, 3, 3, 2, 1);
    const ConvShapes res3 = shape(8, 128, 56, 56, 128, 3, 3, 2, 1), projection = shape(8, 1024, 14, 14, 2048, 1, 1, 2, 0);
    ConvShapes grouped = res5;
    grouped.groups = 2;
    EXPECT_EQ(selector.select("conv2d", res5, pocl).variant, Variant("im2col-gemm"));
    EXPECT_EQ(selector.select("conv2d", res4, pocl).variant, Variant("im2col-gemm"));
    EXPECT_EQ(selector.select("conv2d", res3, pocl).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", grouped, pocl).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", projection, pocl).variant, Variant("gemm-1x1"));
    EXPECT_EQ(selector.select("conv2d", res5, fallback).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", projection, fallback).variant, Variant("implicit-gemm"));
    EXPECT_NE(selector.explain("conv2d", res5, pocl).str().find("columns and weights in panels"), std::string::npos)
        << selector.explain("conv2d", res5, pocl).str();
    // im2col_gemm_panels_max_channels (pocl-cpu: 3): the stem at any size; VGG's conv1.1 (27 steps) keeps the
    // short reduction's rows.
    const ConvShapes stem = shape(8, 3, 224, 224, 64, 7, 7, 2, 3), conv1_1 = shape(8, 3, 224, 224, 64, 3, 3, 1, 1);
    EXPECT_EQ(selector.select("conv2d", stem, pocl).variant, Variant("im2col-gemm"));
    EXPECT_NE(selector.explain("conv2d", stem, pocl).str().find("columns and weights in panels"), std::string::npos)
        << selector.explain("conv2d", stem, pocl).str();
    EXPECT_EQ(selector.explain("conv2d", conv1_1, pocl).str().find("columns and weights in panels"), std::string::npos)
        << selector.explain("conv2d", conv1_1, pocl).str();
    EXPECT_EQ(selector.select("conv2d", stem, fallback).variant, Variant("implicit-gemm"));
    DeviceProfile two = pocl;
    two.tuned[threshold_key::im2col_gemm_panels_max_channels] = 2;
    EXPECT_EQ(selector.select("conv2d", stem, two).variant, Variant("implicit-gemm"));
}

// im2col_gemm_panels_training_min_columns (pocl-cpu: 98): where the weights
// are new every run (a training forward, backward data's stride phases) the
// few-pixel rule above takes a layer only from that many columns in the
// batch (N x P x Q), since its weight panels are packed again every step;
// below, the implicit GEMM. Not a training forward whose weights im2col-gemm
// reads in place (im2col_gemm_training_weights_in_place, pocl-cpu: 1; float32
// only): no pack to carry. Inference keeps the rule at any batch, and a
// profile without the key changes nothing.
TEST_F(SelectorTest, FewPixelPanelsInTrainingOnlyOverEnoughColumnsWhereTheProfileSays) {
    KernelSelector selector;
    const DeviceProfile pocl = load_profile("pocl-cpu");
    EXPECT_EQ(pocl.tuned.at(threshold_key::im2col_gemm_panels_training_min_columns), 98);
    const auto res5 = [](std::int64_t n, bool training) {  // 3x3 stride 2, 7x7 = 49 output pixels an image
        ConvShapes s = shape(n, 512, 14, 14, 512, 3, 3, 2, 1);
        s.training = training;
        return s;
    };
    const auto variant = [&](const ConvShapes& s, const DeviceProfile& profile) {
        const Plan plan = selector.select(
            s.direction == ConvDirection::BACKWARD_DATA ? "conv2d_backward_data" : "conv2d", s, profile);
        return plan.variant.id;
    };
    EXPECT_EQ(variant(res5(1, false), pocl), "im2col-gemm");
    EXPECT_EQ(pocl.tuned.at("im2col_gemm_training_weights_in_place"), 1);
    EXPECT_EQ(variant(res5(1, true), pocl), "im2col-gemm");  // 49 columns, the weights read in place
    EXPECT_TRUE(im2col_gemm_config(res5(1, true), pocl).weights_in_place);
    EXPECT_FALSE(im2col_gemm_config(res5(1, false), pocl).weights_in_place);  // inference packs them once
    ConvShapes half = res5(1, true);
    half.dtype = DataType::FLOAT16;  // its weights widened into float32 panels: the pack is that copy
    EXPECT_FALSE(im2col_gemm_config(half, pocl).weights_in_place);
    EXPECT_EQ(variant(half, pocl), "implicit-gemm");
    DeviceProfile packed = pocl;
    packed.tuned["im2col_gemm_training_weights_in_place"] = 0;
    EXPECT_EQ(variant(res5(1, true), packed), "implicit-gemm");  // 49 < 98
    EXPECT_EQ(variant(res5(2, true), packed), "im2col-gemm");    // 98: the threshold itself
    // Backward data over at most 98 columns in at most 2 images goes to col2im-gemm first on pocl-cpu
    // (col2im_gemm_training_max_columns, W read in place there: col2im_gemm_in_place_max_columns); without
    // that rule its four stride phases (7x7 each) are judged as the forward is.
    EXPECT_EQ(variant(res5(1, false).in_direction(ConvDirection::BACKWARD_DATA), pocl), "col2im-gemm");
    EXPECT_EQ(variant(res5(2, false).in_direction(ConvDirection::BACKWARD_DATA), pocl), "col2im-gemm");
    DeviceProfile phases = pocl;
    phases.tuned[threshold_key::col2im_gemm_training_max_columns] = 0;
    EXPECT_EQ(variant(res5(1, false).in_direction(ConvDirection::BACKWARD_DATA), phases), "implicit-gemm");
    EXPECT_EQ(variant(res5(2, false).in_direction(ConvDirection::BACKWARD_DATA), phases), "im2col-gemm");
    DeviceProfile without = phases;
    without.tuned[threshold_key::im2col_gemm_panels_training_min_columns] = 0;
    EXPECT_EQ(variant(res5(1, true), without), "im2col-gemm");
    EXPECT_EQ(variant(res5(1, false).in_direction(ConvDirection::BACKWARD_DATA), without), "im2col-gemm");
}

// winograd_min_output (no shipped profile sets it now): res5's 7x7 3x3 layer
// goes to IM2COL with the reason (im2col-gemm in panels on pocl-cpu: 49
// pixels); 14x14 stays Winograd; 0 (the default) never rejects.
TEST_F(SelectorTest, WinogradPassesOverOutputsUnderItsMinimum) {
    KernelSelector selector;
    DeviceProfile profile = load_profile("pocl-cpu");
    const ConvShapes res5 = shape(1, 512, 7, 7, 512, 3, 3, 1, 1), conv5 = shape(1, 512, 14, 14, 512, 3, 3, 1, 1);
    EXPECT_EQ(selector.select("conv2d", res5, profile).kernel, WINO);
    profile.tuned[threshold_key::winograd_min_output] = 8;
    const Decision d = selector.explain("conv2d", res5, profile);
    EXPECT_EQ(d.plan.variant, Variant("im2col-gemm")) << d.str();
    EXPECT_NE(d.str().find("output 7x7 < winograd_min_output 8"), std::string::npos) << d.str();
    EXPECT_EQ(selector.select("conv2d", conv5, profile).kernel, WINO);
}

// The output tile m of the separate-transform Winograd plan the selector makes
// (0, and a failure, for any other plan).
int tile_of(const KernelSelector& selector, const ConvShapes& s, const DeviceProfile& profile) {
    const Plan plan = selector.select("conv2d", s, profile);
    const auto t = winograd_gemm_tile(plan.variant);
    EXPECT_TRUE(t.has_value()) << s.str() << ": " << plan.variant.id << " (" << plan.reason << ")";
    return t ? t->m : 0;
}

// winograd_f4_min_tiles (pocl-cpu, under every PoCL CPU profile: 16): F(4x4)
// first only where the batch has at least that many of its tiles, F(2x2)
// below; res5's 7x7 is Winograd on those profiles at every batch size.
TEST_F(SelectorTest, FourByFourTilesNeedEnoughTilesInTheBatchWhereTheProfileSays) {
    KernelSelector selector;
    const DeviceProfile layered = pocl_avx512_profile();
    EXPECT_EQ(layered.tuned.at(threshold_key::winograd_f4_min_tiles), 16);
    // res5.3x3: 4 tiles of 4x4 an image.
    EXPECT_EQ(tile_of(selector, shape(1, 512, 7, 7, 512, 3, 3, 1, 1), layered), 2);
    EXPECT_EQ(tile_of(selector, shape(3, 512, 7, 7, 512, 3, 3, 1, 1), layered), 2);  // 12
    EXPECT_EQ(tile_of(selector, shape(4, 512, 7, 7, 512, 3, 3, 1, 1), layered), 4);  // 16: the threshold itself
    EXPECT_EQ(tile_of(selector, shape(8, 512, 7, 7, 512, 3, 3, 1, 1), layered), 4);
    // 14x14 (16 tiles an image) and 12x13 (3 x 4 = 12) at N = 1.
    EXPECT_EQ(tile_of(selector, shape(1, 256, 14, 14, 256, 3, 3, 1, 1), layered), 4);
    EXPECT_EQ(tile_of(selector, shape(1, 256, 12, 13, 256, 3, 3, 1, 1), layered), 2);
    const Decision d = selector.explain("conv2d", shape(2, 512, 7, 7, 512, 3, 3, 1, 1), layered);
    EXPECT_NE(d.plan.reason.find("F(2x2) first: 8 F(4x4) tiles in the batch < winograd_f4_min_tiles 16"),
              std::string::npos)
        << d.str();
    EXPECT_EQ(tile_of(selector, shape(1, 512, 7, 7, 512, 3, 3, 1, 1), load_profile("pocl-cpu")), 2);
    // 0 (the default profile's) never applies: F(4x4) at 7x7 (winograd_f4_min_output 7).
    DeviceProfile never = load_profile("pocl-cpu");
    never.tuned[threshold_key::winograd_f4_min_tiles] = 0;
    EXPECT_EQ(tile_of(selector, shape(1, 512, 7, 7, 512, 3, 3, 1, 1), never), 4);
}

// winograd_training_f4_min_tiles (pocl-cpu-avx512-intel: 256) and
// winograd_training_f6_min_tiles (100): where the weights, and so U, are new
// every step (a training forward, and backward data, which only training
// runs) F(4x4) and F(6x6) come first only from that many of their tiles in
// the batch; an inference forward of the same layer keeps
// winograd_f4_min_tiles (16) and winograd_f6_min_output (28), and a profile
// without the keys changes nothing.
TEST_F(SelectorTest, TrainingNeedsMoreTilesForTheLargerTilesWhereTheProfileSays) {
    KernelSelector selector;
    const DeviceProfile intel = pocl_avx512_profile("GenuineIntel");
    EXPECT_EQ(intel.tuned.at(threshold_key::winograd_training_f4_min_tiles), 256);
    const auto tile = [&](const ConvShapes& s, const DeviceProfile& profile) {
        const Plan plan = selector.select(s.direction == ConvDirection::BACKWARD_DATA ? "conv2d_backward_data" : "conv2d",
                                          s, profile);
        const auto t = winograd_gemm_tile(plan.variant);
        EXPECT_TRUE(t.has_value()) << s.str() << ": " << plan.variant.id << " (" << plan.reason << ")";
        return t ? t->m : 0;
    };
    const auto backward = [](ConvShapes s) { return s.in_direction(ConvDirection::BACKWARD_DATA); };
    const auto training = [](ConvShapes s) {
        s.training = true;
        return s;
    };
    // VGG's conv5 (14x14: 16 F(4x4) tiles an image).
    EXPECT_EQ(tile(shape(8, 512, 14, 14, 512, 3, 3, 1, 1), intel), 4);  // inference: 128 >= 16
    EXPECT_EQ(tile(training(shape(8, 512, 14, 14, 512, 3, 3, 1, 1)), intel), 2);   // 128 < 256
    EXPECT_EQ(tile(backward(shape(8, 512, 14, 14, 512, 3, 3, 1, 1)), intel), 2);   // 128 < 256
    EXPECT_EQ(tile(backward(shape(15, 512, 14, 14, 512, 3, 3, 1, 1)), intel), 2);  // 240
    EXPECT_EQ(tile(backward(shape(16, 512, 14, 14, 512, 3, 3, 1, 1)), intel), 4);  // 256: the threshold itself
    EXPECT_EQ(tile(training(shape(16, 512, 14, 14, 512, 3, 3, 1, 1)), intel), 4);
    const Decision d =
        selector.explain("conv2d", training(shape(1, 256, 14, 14, 256, 3, 3, 1, 1)), intel);
    EXPECT_NE(d.plan.reason.find("F(2x2) first: 16 F(4x4) tiles in the batch < winograd_training_f4_min_tiles 256"),
              std::string::npos)
        << d.str();
    EXPECT_EQ(tile(backward(shape(8, 512, 14, 14, 512, 3, 3, 1, 1)), pocl_avx512_profile()), 4);  // Zen 4's: no key
    EXPECT_EQ(tile(training(shape(8, 512, 14, 14, 512, 3, 3, 1, 1)), pocl_avx512_profile()), 4);
    // VGG's conv4 (28x28: 25 F(6x6) tiles an image, 49 F(4x4)).
    EXPECT_EQ(intel.tuned.at(threshold_key::winograd_training_f6_min_tiles), 100);
    EXPECT_EQ(tile(shape(1, 512, 28, 28, 512, 3, 3, 1, 1), intel), 6);            // inference
    EXPECT_EQ(tile(training(shape(1, 512, 28, 28, 512, 3, 3, 1, 1)), intel), 2);  // 25 < 100, then 49 < 256
    EXPECT_EQ(tile(backward(shape(1, 512, 28, 28, 512, 3, 3, 1, 1)), intel), 2);
    EXPECT_EQ(tile(training(shape(3, 128, 28, 28, 128, 3, 3, 1, 1)), intel), 2);  // 75
    EXPECT_EQ(tile(training(shape(4, 128, 28, 28, 128, 3, 3, 1, 1)), intel), 6);  // 100: the threshold itself
    EXPECT_EQ(tile(training(shape(8, 512, 28, 28, 512, 3, 3, 1, 1)), intel), 6);  // 200
    const Decision six = selector.explain("conv2d", training(shape(1, 512, 28, 28, 512, 3, 3, 1, 1)), intel);
    EXPECT_NE(six.plan.reason.find("(25 F(6x6) tiles < winograd_training_f6_min_tiles 100)"), std::string::npos)
        << six.str();
    EXPECT_EQ(tile(training(shape(1, 512, 28, 28, 512, 3, 3, 1, 1)), pocl_avx512_profile()), 6);  // Zen 4's
    // pocl-cpu (AVX2) sets 49 (and no F(6x6) key: F(6x6) comes first there only from 112x112 outputs, where a
    // batch has 361 of its tiles an image); pocl-cpu-avx512 sets it back to 0 for Zen 4, measured without it.
    const DeviceProfile avx2 = load_profile("pocl-cpu");
    EXPECT_EQ(avx2.tuned.at(threshold_key::winograd_training_f4_min_tiles), 49);
    EXPECT_EQ(tile(shape(1, 256, 14, 14, 256, 3, 3, 1, 1), avx2), 4);                     // inference: 16 >= 16
    EXPECT_EQ(tile(training(shape(1, 256, 14, 14, 256, 3, 3, 1, 1)), avx2), 2);           // 16 < 49
    EXPECT_EQ(tile(backward(shape(3, 256, 14, 14, 256, 3, 3, 1, 1)), avx2), 2);           // 48
    EXPECT_EQ(tile(backward(shape(4, 256, 14, 14, 256, 3, 3, 1, 1)), avx2), 4);           // 64
    EXPECT_EQ(tile(training(shape(1, 128, 28, 28, 128, 3, 3, 1, 1)), avx2), 4);           // 49: the threshold itself
    EXPECT_EQ(pocl_avx512_profile().tuned.at(threshold_key::winograd_training_f4_min_tiles), 0);
}

// Where the weights are new every run, over few tiles or columns the plans that
// transform or pack them every step give way (pocl-cpu-avx512-intel):
// Winograd below winograd_training_min_tiles (48) F(2x2) tiles, the implicit
// GEMM to im2col-gemm up to im2col_gemm_training_max_columns (196) columns
// for filters larger than 1x1, and the 1x1 GEMM stops yielding to the
// implicit GEMM. Inference plans and profiles without the keys are unchanged.
TEST_F(SelectorTest, TrainingPassesOverPlansThatRebuildTheWeightsOnFewColumns) {
    KernelSelector selector;
    const DeviceProfile intel = pocl_avx512_profile("GenuineIntel");
    EXPECT_EQ(intel.tuned.at(threshold_key::winograd_training_min_tiles), 48);
    EXPECT_EQ(intel.tuned.at(threshold_key::im2col_gemm_training_max_columns), 196);
    const auto plan = [&](const ConvShapes& s, const DeviceProfile& profile) {
        return selector.select(s.direction == ConvDirection::BACKWARD_DATA ? "conv2d_backward_data" : "conv2d", s,
                               profile);
    };
    const auto training = [](ConvShapes s) {
        s.training = true;
        return s;
    };
    const auto backward = [](ConvShapes s) { return s.in_direction(ConvDirection::BACKWARD_DATA); };
    // res5's 3x3 at 7x7: 16 F(2x2) tiles an image.
    const ConvShapes res5 = shape(1, 512, 7, 7, 512, 3, 3, 1, 1);
    EXPECT_EQ(plan(res5, intel).kernel, Kernel::CONV2D_WINOGRAD);
    const Plan trained = plan(training(res5), intel);
    EXPECT_EQ(trained.variant, Variant("im2col-gemm")) << trained.str();
    const Decision d = selector.explain("conv2d", training(res5), intel);
    EXPECT_NE(d.str().find("16 F(2x2) tiles in the batch < winograd_training_min_tiles 48"), std::string::npos)
        << d.str();
    // Backward data over so few columns goes to col2im-gemm before either (the next test).
    EXPECT_EQ(plan(backward(res5), intel).variant, Variant("col2im-gemm"));
    auto res5_n = [&](std::int64_t n) {
        ConvShapes s = res5;
        s.N = n;
        return s;
    };
    EXPECT_EQ(plan(training(res5_n(2)), intel).variant, Variant("im2col-gemm"));  // 32 tiles, 98 columns
    // pocl-cpu (AVX2) passes over Winograd below 48 F(2x2) tiles too, to im2col-gemm's few-pixel panels,
    // the weights read in place (the previous test); Zen 4 (pocl-cpu-avx512) keeps Winograd, measured without
    // the key.
    const DeviceProfile avx2 = load_profile("pocl-cpu");
    EXPECT_EQ(avx2.tuned.at(threshold_key::winograd_training_min_tiles), 48);
    EXPECT_EQ(plan(res5, avx2).kernel, Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(plan(training(res5), avx2).variant, Variant("im2col-gemm")) << plan(training(res5), avx2).str();
    EXPECT_EQ(plan(training(res5_n(3)), avx2).kernel, Kernel::CONV2D_WINOGRAD);  // 48 tiles
    EXPECT_EQ(plan(training(res5), pocl_avx512_profile()).kernel, Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(plan(training(res5_n(3)), intel).kernel, Kernel::CONV2D_WINOGRAD);  // 48: the threshold itself
    EXPECT_EQ(plan(training(shape(1, 256, 14, 14, 256, 3, 3, 1, 1)), intel).kernel, Kernel::CONV2D_WINOGRAD);  // 49
    // res5's 3x3 stride 2 (14x14 -> 7x7): im2col-gemm up to four images (196 columns), the implicit GEMM beyond.
    const ConvShapes strided = shape(1, 512, 14, 14, 512, 3, 3, 2, 1);
    EXPECT_EQ(plan(strided, intel).variant, Variant("implicit-gemm"));
    EXPECT_EQ(plan(training(strided), intel).variant, Variant("im2col-gemm"));
    EXPECT_EQ(plan(backward(strided), intel).variant, Variant("col2im-gemm"));
    ConvShapes three = strided;
    three.N = 3;  // 147 columns of dy, but three images: past col2im-gemm's rule
    EXPECT_EQ(plan(backward(three), intel).variant, Variant("im2col-gemm"));
    ConvShapes four = strided;
    four.N = 4;  // 196 columns: the threshold itself
    EXPECT_EQ(plan(training(four), intel).variant, Variant("im2col-gemm"));
    ConvShapes five = strided;
    five.N = 5;  // 245 columns
    EXPECT_EQ(plan(training(five), intel).variant, Variant("implicit-gemm"));
    EXPECT_EQ(plan(backward(five), intel).variant, Variant("implicit-gemm"));
    // res5's 1x1 layers (49 pixels <= gemm1x1_max_pixels_to_yield 64) and the stride-2 projection.
    for (const ConvShapes& s : {shape(1, 2048, 7, 7, 512, 1, 1), shape(8, 512, 7, 7, 2048, 1, 1),
                                shape(1, 1024, 14, 14, 2048, 1, 1, 2, 0)}) {
        EXPECT_EQ(plan(s, intel).variant, Variant("implicit-gemm")) << s.str();
        EXPECT_EQ(plan(training(s), intel).variant, Variant("gemm-1x1")) << s.str();
    }
    // Zen 4's profile has none of the keys: training plans as inference.
    const DeviceProfile zen4 = pocl_avx512_profile();
    for (const ConvShapes& s : {res5, strided, shape(1, 2048, 7, 7, 512, 1, 1)}) {
        EXPECT_EQ(plan(training(s), zen4).variant, plan(s, zen4).variant) << s.str();
    }
    // The mode is part of the problem: its own text (tuned records' key), forward only.
    EXPECT_EQ(training(res5).str(), res5.str() + " training");
    ConvShapes backward_training = backward(res5);
    backward_training.training = true;
    EXPECT_THROW(backward_training.validate(), Error);
    EXPECT_FALSE(training(res5).in_direction(ConvDirection::BACKWARD_DATA).training);
}

// col2im_gemm_training_max_columns / _max_images (pocl-cpu-avx512-intel: 196
// columns of dy in at most 2 images): backward data of a float32 2-D filter
// larger than 1x1 goes to col2im-gemm first, ahead of Winograd, its GEMM
// reading the filters in place.
TEST_F(SelectorTest, FewColumnBackwardDataGoesToCol2imGemmAheadOfWinograd) {
    KernelSelector selector;
    const DeviceProfile intel = pocl_avx512_profile("GenuineIntel");
    EXPECT_EQ(intel.tuned.at(threshold_key::col2im_gemm_training_max_columns), 196);
    EXPECT_EQ(intel.tuned.at(threshold_key::col2im_gemm_training_max_images), 2);
    const auto backward = [&](std::int64_t n, std::int64_t c, std::int64_t hw, std::int64_t k, std::int64_t r,
                              std::int64_t stride, std::int64_t pad, const DeviceProfile& profile) {
        ConvShapes s = shape(n, c, hw, hw, k, r, r, stride, pad).in_direction(ConvDirection::BACKWARD_DATA);
        return selector.select("conv2d_backward_data", s, profile);
    };
    const Variant col2im("col2im-gemm");
    EXPECT_EQ(backward(1, 512, 7, 512, 3, 1, 1, intel).variant, col2im);    // res5's 3x3: 49 columns
    EXPECT_EQ(backward(2, 512, 7, 512, 3, 1, 1, intel).variant, col2im);    // 98 columns
    EXPECT_NE(backward(3, 512, 7, 512, 3, 1, 1, intel).variant, col2im);    // 147 columns, three images
    EXPECT_EQ(backward(1, 512, 14, 512, 3, 2, 1, intel).variant, col2im);   // res5's stride 2: dy 7x7
    EXPECT_EQ(backward(1, 512, 14, 512, 3, 1, 1, intel).variant, col2im);   // VGG's conv5: 196, the threshold
    EXPECT_EQ(backward(2, 512, 14, 512, 3, 1, 1, intel).kernel, Kernel::CONV2D_WINOGRAD);  // 392 columns
    EXPECT_EQ(backward(1, 128, 28, 128, 3, 1, 1, intel).kernel, Kernel::CONV2D_WINOGRAD);  // 784 columns
    EXPECT_NE(backward(1, 2048, 7, 512, 1, 1, 0, intel).variant, col2im);   // 1x1 layers keep their GEMM
    const Decision d = selector.explain("conv2d_backward_data",
                                        shape(1, 512, 14, 14, 512, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_DATA),
                                        intel);
    EXPECT_NE(d.str().find("backward data over 196 columns <= col2im_gemm_training_max_columns 196 in 1 image(s)"),
              std::string::npos)
        << d.str();
    // The plan's config says the filters are read in place (float32, W^T not in panels).
    EXPECT_NE(backward(1, 512, 7, 512, 3, 1, 1, intel).config.find("W read transposed in place"), std::string::npos);
    // Forward, float16 and Zen 4's profile (its keys 0) never.
    EXPECT_NE(selector.select("conv2d", shape(1, 512, 7, 7, 512, 3, 3, 1, 1), intel).variant, col2im);
    ConvShapes half = shape(1, 512, 7, 7, 512, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_DATA);
    half.dtype = DataType::FLOAT16;
    EXPECT_NE(selector.select("conv2d_backward_data", half, intel).variant, col2im);
    EXPECT_NE(backward(1, 512, 7, 512, 3, 1, 1, pocl_avx512_profile()).variant, col2im);
    // Nor where col2im-gemm would copy W^T into panels, or cannot take the layer: Winograd stays for
    // VGG's conv5 (49 F(2x2) tiles). Nor a grouped layer or a 5x5 filter (3x3 of one group measured).
    DeviceProfile panels = intel;
    panels.tuned["col2im_gemm_panels"] = 1;
    EXPECT_EQ(backward(1, 512, 14, 512, 3, 1, 1, panels).kernel, Kernel::CONV2D_WINOGRAD);
    DeviceProfile small = intel;
    small.tuned["col2im_gemm_workspace_limit_bytes"] = 1024;
    EXPECT_EQ(backward(1, 512, 14, 512, 3, 1, 1, small).kernel, Kernel::CONV2D_WINOGRAD);
    ConvShapes grouped = shape(1, 512, 7, 7, 512, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_DATA);
    grouped.groups = 2;
    EXPECT_NE(selector.select("conv2d_backward_data", grouped, intel).variant, col2im);
    EXPECT_NE(backward(1, 64, 7, 64, 5, 1, 2, intel).variant, col2im);
}

// winograd_f6_min_output (pocl-cpu-avx512: 28, over pocl-cpu's 112):
// F(6x6) first from 28x28 outputs (VGG's conv4 and ResNet's res3.3x3 on),
// F(4x4) below (14x14, where it is 15-20% faster, and 20x20).
TEST_F(SelectorTest, SixBySixTilesFromTheProfilesOutputSize) {
    KernelSelector selector;
    const DeviceProfile layered = pocl_avx512_profile();
    EXPECT_EQ(tile_of(selector, shape(1, 256, 28, 28, 512, 3, 3, 1, 1), layered), 6);  // conv4.1
    EXPECT_EQ(tile_of(selector, shape(8, 128, 28, 28, 128, 3, 3, 1, 1), layered), 6);  // res3.3x3
    EXPECT_EQ(tile_of(selector, shape(1, 128, 56, 56, 256, 3, 3, 1, 1), layered), 6);  // conv3.1
    EXPECT_EQ(tile_of(selector, shape(1, 128, 28, 27, 128, 3, 3, 1, 1), layered), 4);  // min(P, Q) = 27
    EXPECT_EQ(tile_of(selector, shape(1, 256, 20, 20, 256, 3, 3, 1, 1), layered), 4);
    EXPECT_EQ(tile_of(selector, shape(1, 512, 14, 14, 512, 3, 3, 1, 1), layered), 4);  // conv5
    const Plan f6 = selector.select("conv2d", shape(1, 128, 28, 28, 128, 3, 3, 1, 1), layered);
    EXPECT_NE(f6.reason.find("F(6x6) first: output 28x28 >= winograd_f6_min_output 28"), std::string::npos)
        << f6.reason;
    // pocl-cpu alone (Zen 1's measurement) keeps F(4x4) there.
    EXPECT_EQ(tile_of(selector, shape(1, 128, 28, 28, 128, 3, 3, 1, 1), load_profile("pocl-cpu")), 4);
}

// im2col_gemm_max_reduction (pocl-cpu, under every PoCL CPU profile: 32): VGG's conv1.1
// (C*R*S = 27) goes to im2col + the GEMM engine (its columns row-major), as
// does ResNet's stem (147) through im2col_gemm_panels_max_channels (in panels);
// without the keys (the default profile), or at 0, both are implicit.
TEST_F(SelectorTest, ShortReductionsGoToIm2colGemmWhereTheProfileSays) {
    KernelSelector selector;
    DeviceProfile profile = load_profile("pocl-cpu");
    const ConvShapes conv1_1 = shape(1, 3, 224, 224, 64, 3, 3, 1, 1), stem = shape(1, 3, 224, 224, 64, 7, 7, 2, 3);
    EXPECT_EQ(selector.select("conv2d", conv1_1, profile).variant, Variant("im2col-gemm"));
    EXPECT_EQ(selector.select("conv2d", stem, profile).variant, Variant("im2col-gemm"));
    EXPECT_EQ(selector.select("conv2d", conv1_1, load_profile("default")).variant, Variant("implicit-gemm"));
    profile.tuned[threshold_key::im2col_gemm_max_reduction] = 0;
    EXPECT_NE(selector.explain("conv2d", conv1_1, profile).str().find("columns and weights in panels"), std::string::npos);
    profile.tuned[threshold_key::im2col_gemm_panels_max_channels] = 0;
    EXPECT_EQ(selector.select("conv2d", conv1_1, profile).variant, Variant("implicit-gemm"));
    EXPECT_EQ(selector.select("conv2d", stem, profile).variant, Variant("implicit-gemm"));
}

// Few input channels over a reduction longer than im2col-gemm's: the
// row-vectorised direct convolution, where the profile enables it (the
// AVX-512 PoCL profile: ResNet's stem); short reductions (VGG's conv1.1) stay
// with im2col-gemm, grouped layers with their own rule, and a profile that
// turns the implementation off keeps the stem on im2col-gemm (pocl-cpu's
// im2col_gemm_panels_max_channels).
TEST_F(SelectorTest, FewChannelLayersGoToDirectRowsWhereTheProfileSays) {
    KernelSelector selector;
    DeviceProfile profile = load_profile("pocl-cpu");
    const ConvShapes stem = shape(8, 3, 224, 224, 64, 7, 7, 2, 3), conv1_1 = shape(1, 3, 224, 224, 64, 3, 3, 1, 1);
    EXPECT_EQ(selector.select("conv2d", stem, profile).variant, Variant("im2col-gemm"));
    profile.tuned[threshold_key::direct_rows_max_channels] = 4;
    profile.tuned[threshold_key::im2col_gemm_max_reduction] = 32;
    const Decision d = selector.explain("conv2d", stem, profile);
    EXPECT_EQ(d.plan.kernel, Kernel::CONV2D_NAIVE) << d.str();
    EXPECT_EQ(d.plan.variant, Variant("direct-rows")) << d.str();
    EXPECT_NE(d.plan.reason.find("C/groups 3 <= direct_rows_max_channels 4"), std::string::npos) << d.plan.reason;
    EXPECT_EQ(selector.select("conv2d", conv1_1, profile).variant, Variant("im2col-gemm"));
    EXPECT_NE(selector.explain("conv2d", conv1_1, profile).str().find("reduction C/groups*R*S 27 <= im2col_gemm_max_reduction 32"),
              std::string::npos);
    const ConvShapes eight_channels = shape(8, 8, 224, 224, 64, 7, 7, 2, 3);
    EXPECT_EQ(selector.select("conv2d", eight_channels, profile).variant, Variant("implicit-gemm"));
    profile.tuned["direct_rows_enabled"] = 0;
    const Decision off = selector.explain("conv2d", stem, profile);
    EXPECT_EQ(off.plan.variant, Variant("im2col-gemm")) << off.str();
    EXPECT_NE(off.str().find("direct_rows_enabled = 0"), std::string::npos) << off.str();
    EXPECT_EQ(selector.select("conv2d", stem, load_profile("pocl-cpu-avx512")).variant, Variant("direct-rows"));
}

// Backward data runs as the forward convolution of dy (K channels): VGG's
// conv1.1 (C = 3, K = 64) sums 576 terms there, not im2col-gemm's short
// reduction of 27 (on 2 Zen 3 cores its dx took 22-24 ms on im2col-gemm,
// 8.8-10.3 on the implicit GEMM), and a 3-channel dx is no reason for direct-rows.
// (col2im-gemm, which pocl-cpu puts first for such a dx, is off here.)
TEST_F(SelectorTest, BackwardDataCountsTheReductionOverK) {
    KernelSelector selector;
    DeviceProfile profile = load_profile("pocl-cpu");
    profile.tuned[threshold_key::direct_rows_max_channels] = 4;
    profile.tuned[threshold_key::col2im_gemm_max_channels] = 0;
    const ConvShapes conv1_1 = shape(1, 3, 224, 224, 64, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_DATA);
    const Decision d = selector.explain("conv2d_backward_data", conv1_1, profile);
    EXPECT_EQ(d.plan.variant, Variant("implicit-gemm")) << d.str();
    EXPECT_NE(d.str().find("K/groups 64 > direct_rows_max_channels 4"), std::string::npos) << d.str();
    profile.tuned[threshold_key::col2im_gemm_max_channels] = 3;
    EXPECT_EQ(selector.select("conv2d_backward_data", conv1_1, profile).variant, Variant("col2im-gemm"));
}

TEST_F(SelectorTest, CallerTunedValuesBeatStoredOnes) {
    DeviceProfile profile = load_profile("pocl-cpu");
    const ConvShapes s = shape(1, 256, 56, 56, 256, 3, 3, 1, 1);
    profile.tuned = {{threshold_key::winograd_min_channels, 512}};  // the caller's own override
    KernelSelector selector;
    const Plan plan = selector.select("conv2d", s, profile);
    EXPECT_EQ(plan.kernel, Kernel::IM2COL) << plan.str();
    // An im2col workspace cap below the dilated 7x7 layer's need (the
    // implicit GEMM, which needs none, takes no dilation) sends it to direct
    // convolution.
    profile.tuned = {{"im2col_workspace_limit_bytes", 1 << 20}};
    const Decision d = selector.explain("conv2d", shape(1, 3, 224, 224, 64, 7, 7, 2, 6, 1, 2), profile);
    EXPECT_EQ(d.plan.kernel, Kernel::CONV2D_NAIVE) << d.str();
    EXPECT_NE(d.str().find("the limit is 1048576"), std::string::npos) << d.str();
    EXPECT_NE(d.str().find("implicit-gemm: the implicit GEMM takes dilation 1"), std::string::npos) << d.str();
}

TEST_F(SelectorTest, EveryRejectedCandidateCarriesAReason) {
    KernelSelector selector;
    const Decision d = selector.explain("conv2d", shape(1, 3, 224, 224, 64, 7, 7, 2, 3), load_profile("default"));
    ASSERT_EQ(d.candidates.size(), 5u) << d.str();  // tiny, grouped, winograd, direct-rows rejected; im2col taken
    for (std::size_t i = 0; i + 1 < d.candidates.size(); ++i) {
        EXPECT_FALSE(d.candidates[i].accepted);
        EXPECT_FALSE(d.candidates[i].reason.empty()) << d.candidates[i].source;
    }
    EXPECT_NE(d.candidates[2].reason.find("7x7"), std::string::npos) << d.candidates[2].reason;
    EXPECT_TRUE(d.candidates.back().accepted);
    EXPECT_EQ(builtin_rules().back()->name(), "naive");
}

// --- framework rules ------------------------------------------------------------

TEST_F(SelectorTest, WikiExampleRuleWorksAsWritten) {
    KernelSelector sel;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
    sel.register_rule("conv2d", [](const netcl::ConvShapes& s, const netcl::DeviceProfile& p){ return s.input_numel() % 4 == 0; }, netcl::Kernel::CONV2D_WINOGRAD, 100);
#pragma GCC diagnostic pop
    const DeviceProfile profile = load_profile("default");
    // 1x3x224x224 divides by 4 and is 3x3 stride 1: the rule takes it (the built-in rules would say IM2COL).
    const Plan taken = sel.select("conv2d", shape(1, 3, 224, 224, 64, 3, 3, 1, 1), profile);
    EXPECT_EQ(taken.kernel, Kernel::CONV2D_WINOGRAD) << taken.str();
    EXPECT_NE(taken.reason.find("priority 100"), std::string::npos) << taken.reason;
    // 1x3x7x7 = 147 does not divide by 4: built-in rules decide.
    const Plan odd = sel.select("conv2d", shape(1, 3, 7, 7, 64, 3, 3, 1, 1), profile);
    EXPECT_EQ(odd.kernel, Kernel::CONV2D_NAIVE) << odd.str();
    // Divisible by 4 but 7x7: Winograd cannot take it, so the rule is passed over with that reason.
    const Decision d = sel.explain("conv2d", shape(1, 32, 28, 28, 64, 7, 7, 1, 3), profile);
    EXPECT_EQ(d.plan.kernel, Kernel::IM2COL);
    ASSERT_FALSE(d.candidates.empty());
    EXPECT_FALSE(d.candidates[0].accepted);
    EXPECT_NE(d.candidates[0].reason.find("7x7"), std::string::npos) << d.candidates[0].reason;
}

TEST_F(SelectorTest, PrioritiesTiesAndRemoval) {
    KernelSelector sel;
    const auto always = [](const ConvShapes&, const DeviceProfile&) { return true; };
    const DeviceProfile profile = load_profile("default");
    const ConvShapes s = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    const auto low = sel.register_rule("conv2d", always, Kernel::CONV2D_NAIVE, 1);
    const auto high = sel.register_rule("conv2d", always, Kernel::IM2COL, 50);
    EXPECT_EQ(sel.select("conv2d", s, profile).kernel, Kernel::IM2COL);
    // Same priority, registered later: tried first.
    const auto tie = sel.register_rule("conv2d", always, Kernel::CONV2D_WINOGRAD, 50);
    EXPECT_EQ(sel.select("conv2d", s, profile).kernel, Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(sel.rule_count(), 3u);
    EXPECT_TRUE(sel.remove_rule(tie));
    EXPECT_FALSE(sel.remove_rule(tie));
    EXPECT_EQ(sel.select("conv2d", s, profile).kernel, Kernel::IM2COL);
    EXPECT_TRUE(sel.remove_rule(high));
    EXPECT_EQ(sel.select("conv2d", s, profile).kernel, Kernel::CONV2D_NAIVE);
    EXPECT_TRUE(sel.remove_rule(low));
    EXPECT_EQ(sel.select("conv2d", s, profile).kernel, Kernel::CONV2D_WINOGRAD);  // built-in again
    EXPECT_EQ(sel.rule_count(), 0u);
    // Instances are independent of the global selector.
    sel.register_rule("conv2d", always, Kernel::CONV2D_NAIVE, 1);
    EXPECT_EQ(KernelSelector::global().select("conv2d", s, profile).kernel, Kernel::CONV2D_WINOGRAD);
}

// Priority decides, not the order of registration: the high-priority rule
// registered first must still beat a low-priority rule registered after it
// (a selector that tried the newest rule first would pick CONV2D_NAIVE here).
TEST_F(SelectorTest, HigherPriorityWinsWhateverTheRegistrationOrder) {
    KernelSelector sel;
    const auto always = [](const ConvShapes&, const DeviceProfile&) { return true; };
    const DeviceProfile profile = load_profile("default");
    const ConvShapes s = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    sel.register_rule("conv2d", always, Kernel::IM2COL, 50);
    sel.register_rule("conv2d", always, Kernel::CONV2D_NAIVE, 1);
    sel.register_rule("conv2d", always, Kernel::CONV2D_WINOGRAD, -5);
    const Decision d = sel.explain("conv2d", s, profile);
    EXPECT_EQ(d.plan.kernel, Kernel::IM2COL) << d.str();
    EXPECT_NE(d.plan.reason.find("priority 50"), std::string::npos) << d.plan.reason;
    // Negative priorities rank below zero, and below a newer rule of higher priority.
    KernelSelector neg;
    neg.register_rule("conv2d", always, Kernel::CONV2D_NAIVE, 0);
    neg.register_rule("conv2d", always, Kernel::IM2COL, -1);
    EXPECT_EQ(neg.select("conv2d", s, profile).kernel, Kernel::CONV2D_NAIVE);
}

TEST_F(SelectorTest, RuleWithAnExplicitVariant) {
    KernelSelector sel;
    const auto always = [](const ConvShapes&, const DeviceProfile&) { return true; };
    sel.register_rule("conv2d", always, Kernel::CONV2D_WINOGRAD, 5, winograd_variant_id(2, true, false));
    const Plan plan = sel.select("conv2d", shape(1, 64, 56, 56, 64, 3, 3, 1, 1), load_profile("default"));
    EXPECT_EQ(plan.kernel, Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(plan.variant, winograd_variant_id(2, true, false));
}

TEST_F(SelectorTest, ThrowingPredicateIsSkippedAndLoggedOnce) {
    KernelSelector sel;
    sel.register_rule("conv2d", [](const ConvShapes&, const DeviceProfile&) -> bool { throw std::runtime_error("boom"); },
                      Kernel::CONV2D_NAIVE, 100);
    sel.register_rule("conv2d", [](const ConvShapes&, const DeviceProfile&) -> bool { throw 42; }, Kernel::CONV2D_NAIVE, 90);
    const DeviceProfile profile = load_profile("default");
    const ConvShapes s = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    Decision d;
    ASSERT_NO_THROW(d = sel.explain("conv2d", s, profile));
    EXPECT_EQ(d.plan.kernel, Kernel::CONV2D_WINOGRAD);
    ASSERT_GE(d.candidates.size(), 2u);
    EXPECT_NE(d.candidates[0].reason.find("boom"), std::string::npos) << d.candidates[0].reason;
    EXPECT_NE(d.candidates[1].reason.find("not a std::exception"), std::string::npos) << d.candidates[1].reason;
    sel.select("conv2d", s, profile);
    EXPECT_EQ(count_logged("boom"), 1u) << logged();
}

TEST_F(SelectorTest, UnknownOpsAndEmptyPredicatesAreErrors) {
    KernelSelector sel;
    const auto always = [](const ConvShapes&, const DeviceProfile&) { return true; };
    EXPECT_THROW(sel.register_rule("conv4d", always, Kernel::CONV2D_NAIVE), Error);
    EXPECT_THROW(sel.register_rule("conv2d_backward", always, Kernel::CONV2D_NAIVE), Error);
    // One op per rank and direction (the descriptor's), each taking rules of its own.
    for (const char* op : {"conv2d_backward_data", "conv2d_backward_weights", "conv3d"}) {
        EXPECT_TRUE(sel.remove_rule(sel.register_rule(op, always, Kernel::CONV2D_NAIVE))) << op;
    }
    EXPECT_THROW(sel.register_rule("conv2d", ConvPredicate{}, Kernel::CONV2D_NAIVE), Error);
    EXPECT_THROW(sel.select("matmul", shape(1, 1, 4, 4, 1, 3, 3), load_profile("default")), Error);
    // An invalid shape is the caller's error, said as such.
    try {
        sel.select("conv2d", shape(1, 3, 4, 4, 8, 3, 3, 1, 0, 2), load_profile("default"));
        FAIL() << "expected netcl::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("groups"), std::string::npos) << e.what();
    }
}

// --- the default strategy ------------------------------------------------------

TEST_F(SelectorTest, DefaultStrategySetAndClear) {
    KernelSelector sel;
    const DeviceProfile profile = load_profile("default");
    const ConvShapes s = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    set_default_conv_strategy(Kernel::IM2COL);
    EXPECT_EQ(default_conv_strategy(), Kernel::IM2COL);
    const Plan plan = sel.select("conv2d", s, profile);
    EXPECT_EQ(plan.kernel, Kernel::IM2COL);
    EXPECT_NE(plan.reason.find("default strategy"), std::string::npos) << plan.reason;
    // A framework rule still comes first.
    sel.register_rule("conv2d", [](const ConvShapes&, const DeviceProfile&) { return true; }, Kernel::CONV2D_NAIVE);
    EXPECT_EQ(sel.select("conv2d", s, profile).kernel, Kernel::CONV2D_NAIVE);
    clear_default_conv_strategy();
    EXPECT_FALSE(default_conv_strategy().has_value());
    EXPECT_EQ(KernelSelector::global().select("conv2d", s, profile).kernel, Kernel::CONV2D_WINOGRAD);
}

TEST_F(SelectorTest, DefaultThatCannotTakeTheShapeFallsBackWithOneWarning) {
    KernelSelector sel;
    const DeviceProfile profile = load_profile("default");
    set_default_conv_strategy(Kernel::CONV2D_WINOGRAD);
    const ConvShapes seven = shape(1, 32, 28, 28, 64, 7, 7, 1, 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(sel.select("conv2d", seven, profile).kernel, Kernel::IM2COL);
    EXPECT_EQ(count_logged("default strategy CONV2D_WINOGRAD cannot take"), 1u) << logged();
    // Another shape warns once more.
    sel.select("conv2d", shape(1, 32, 28, 28, 64, 3, 3, 2, 1), profile);
    EXPECT_EQ(count_logged("default strategy CONV2D_WINOGRAD cannot take"), 2u) << logged();
    // A shape it can take runs it, even one the built-in rules give to im2col.
    const Plan first = sel.select("conv2d", shape(1, 3, 224, 224, 64, 3, 3, 1, 1), profile);
    EXPECT_EQ(first.kernel, Kernel::CONV2D_WINOGRAD) << first.str();
}

TEST_F(SelectorTest, DefaultStrategyFromTheEnvironment) {
    KernelSelector sel;
    const DeviceProfile profile = load_profile("default");
    ::setenv("NETCL_CONV_STRATEGY", "CONV2D_NAIVE", 1);
    reload_default_conv_strategy_from_environment();
    EXPECT_EQ(default_conv_strategy(), Kernel::CONV2D_NAIVE);
    EXPECT_EQ(sel.select("conv2d", shape(1, 64, 56, 56, 64, 3, 3, 1, 1), profile).kernel, Kernel::CONV2D_NAIVE);
    // Code overrides the environment.
    set_default_conv_strategy(Kernel::IM2COL);
    EXPECT_EQ(default_conv_strategy(), Kernel::IM2COL);
    ::setenv("NETCL_CONV_STRATEGY", "CONV2D_WINOGRAD", 1);
    reload_default_conv_strategy_from_environment();
    EXPECT_EQ(default_conv_strategy(), Kernel::CONV2D_WINOGRAD);
    ::unsetenv("NETCL_CONV_STRATEGY");
    reload_default_conv_strategy_from_environment();
    EXPECT_FALSE(default_conv_strategy().has_value());
}

TEST_F(SelectorTest, BadEnvironmentValueIsAnErrorNotIgnored) {
    KernelSelector sel;
    const DeviceProfile profile = load_profile("default");
    ::setenv("NETCL_CONV_STRATEGY", "WINOGRAD", 1);
    reload_default_conv_strategy_from_environment();
    try {
        sel.select("conv2d", shape(1, 64, 56, 56, 64, 3, 3, 1, 1), profile);
        FAIL() << "expected netcl::Error for NETCL_CONV_STRATEGY=WINOGRAD";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("NETCL_CONV_STRATEGY='WINOGRAD'"), std::string::npos) << what;
        EXPECT_NE(what.find("CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD"), std::string::npos) << what;
    }
    EXPECT_THROW(default_conv_strategy(), Error);  // every use, not only the first
    // Also where a framework rule would decide.
    sel.register_rule("conv2d", [](const ConvShapes&, const DeviceProfile&) { return true; }, Kernel::CONV2D_NAIVE);
    EXPECT_THROW(sel.select("conv2d", shape(1, 64, 56, 56, 64, 3, 3, 1, 1), profile), Error);
    EXPECT_EQ(count_logged("NETCL_CONV_STRATEGY='WINOGRAD'"), 1u) << logged();
    // Deciding in code ends it.
    clear_default_conv_strategy();
    EXPECT_NO_THROW(sel.select("conv2d", shape(1, 64, 56, 56, 64, 3, 3, 1, 1), profile));
}

TEST_F(SelectorTest, KernelNamesRoundTripAndUnknownNamesListTheValidOnes) {
    for (const Kernel k : all_kernels()) EXPECT_EQ(kernel_from_string(to_string(k)), k);
    EXPECT_EQ(to_string(Kernel::CONV2D_NAIVE), "CONV2D_NAIVE");
    EXPECT_EQ(to_string(Kernel::IM2COL), "IM2COL");
    EXPECT_EQ(to_string(Kernel::CONV2D_WINOGRAD), "CONV2D_WINOGRAD");
    for (const char* bad : {"conv2d_naive", "WINOGRAD", "", "IM2COL "}) {
        try {
            kernel_from_string(bad);
            FAIL() << "expected netcl::Error for '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD"), std::string::npos) << e.what();
        }
    }
}

// --- layer sets and shape specs ----------------------------------------------------

TEST(LayerSets, VggMatchesLavinTable3AndResnetShapesAreDistinct) {
    const auto& vgg = vgg16_layers();
    ASSERT_EQ(vgg.size(), 9u);
    double gflops = 0;
    for (const auto& l : vgg) gflops += l.depth * l.shapes.direct_flops() / 1e9;
    EXPECT_NEAR(gflops, 39.02, 0.05);  // Table 3's total (N = 1)
    EXPECT_NEAR(vgg[5].shapes.direct_flops() * vgg[5].depth / 1e9, 11.10, 0.01);
    std::set<std::string> seen;
    int convolutions = 0;
    for (const auto& l : resnet50_layers()) {
        EXPECT_TRUE(seen.insert(l.shapes.str()).second) << "duplicate shape " << l.name;
        EXPECT_TRUE(l.shapes.R == 1 || l.shapes.R == 3 || l.name == "conv1") << l.name;
        convolutions += l.depth;
    }
    EXPECT_EQ(convolutions, 53);  // 1 stem + 16 blocks x 3 + 4 projections
    EXPECT_THROW(layer_set("alexnet"), Error);
}

TEST(ShapeSpec, ParsesAndRejects) {
    const ConvShapes s = parse_shape_spec("2,64,28,30,128,3,3,2,1");
    EXPECT_EQ(s, shape(2, 64, 28, 30, 128, 3, 3, 2, 1));
    EXPECT_EQ(parse_shape_spec("1,3,7,7,8,3,3"), shape(1, 3, 7, 7, 8, 3, 3));
    for (const char* bad : {"1,3,7,7", "1,3,7,7,8,3,3,1", "1,3,x,7,8,3,3", "1,3,7,7,8,3,3,1,1,1", "", "1,,7,7,8,3,3",
                            "1,3,2,2,8,3,3"}) {
        EXPECT_THROW(parse_shape_spec(bad), Error) << bad;
    }
}

// --- fitting thresholds from netcl-tune's measurements ------------------------------

TEST(ThresholdFit, CutsBetweenWinnersAndLosers) {
    EXPECT_NEAR(*fit_cut({{1, false}, {10, false}, {100, true}, {1000, true}}), std::sqrt(10.0 * 100.0), 1e-9);
    EXPECT_NEAR(*fit_cut({{1000, true}, {1, false}, {100, true}, {10, false}, {20, true}, {30, false}}),
                std::sqrt(10.0 * 20.0), 1e-9);  // 10|20 and 30|100 both misplace one point: ties take the lower cut
    EXPECT_FALSE(fit_cut({{1, true}, {2, true}}).has_value());
    EXPECT_FALSE(fit_cut({}).has_value());
}

TEST(ThresholdFit, FitsFromWinnersAndLeavesOutWhatHasNoEvidence) {
    const Variant f2 = winograd_variant_id(2, false, false), f4 = winograd_variant_id(4, false, false),
                  f4low = winograd_variant_id(4, true, false), f4c = winograd_variant_id(4, false, true);
    const Variant naive = "naive", im2col = "im2col-clblast";
    std::vector<ShapeTiming> t = {
        // A tiny layer direct convolution wins.
        {shape(1, 4, 6, 6, 4, 3, 3, 1, 1), {{Kernel::CONV2D_NAIVE, naive, 0.01}, {Kernel::IM2COL, im2col, 0.05}}},
        // 3x3 layers: Winograd wins from C = 64 on; at C = 8 im2col does.
        {shape(1, 8, 56, 56, 32, 3, 3, 1, 1),
         {{Kernel::CONV2D_NAIVE, naive, 9}, {Kernel::IM2COL, im2col, 1}, {Kernel::CONV2D_WINOGRAD, f4, 2}}},
        {shape(1, 64, 56, 56, 64, 3, 3, 1, 1),
         {{Kernel::CONV2D_NAIVE, naive, 90}, {Kernel::IM2COL, im2col, 10}, {Kernel::CONV2D_WINOGRAD, f4, 4},
          {Kernel::CONV2D_WINOGRAD, f2, 6}, {Kernel::CONV2D_WINOGRAD, f4low, 5}, {Kernel::CONV2D_WINOGRAD, f4c, 4.5}}},
        {shape(1, 128, 28, 28, 128, 3, 3, 1, 1),
         {{Kernel::IM2COL, im2col, 10}, {Kernel::CONV2D_WINOGRAD, f4, 3}, {Kernel::CONV2D_WINOGRAD, f2, 5}}},
        // No correct candidate: ignored.
        {shape(1, 32, 28, 28, 32, 5, 5, 1, 2), {}},
    };
    EXPECT_EQ(fastest(t[2])->variant, f4);
    EXPECT_FALSE(fastest(t[4]).has_value());
    std::vector<std::string> notes;
    const auto fitted = fit_thresholds(t, &notes);
    EXPECT_EQ(fitted.at(threshold_key::winograd_min_channels), std::ceil(std::sqrt(8.0 * 64.0)));
    EXPECT_EQ(fitted.at(threshold_key::winograd_tile), 4);
    EXPECT_EQ(fitted.at(threshold_key::winograd_prefer_low_local_memory), 0);
    EXPECT_EQ(fitted.at(threshold_key::winograd_constant_weights), 0);
    const double tiny = shape(1, 4, 6, 6, 4, 3, 3, 1, 1).direct_flops(), next = shape(1, 8, 56, 56, 32, 3, 3, 1, 1).direct_flops();
    EXPECT_NEAR(fitted.at(threshold_key::naive_max_flops), std::sqrt(tiny * next), 1e-6 * next);
    // im2col vs direct: im2col won every layer where neither lost to Winograd... except the tiny one.
    EXPECT_TRUE(fitted.count(threshold_key::im2col_min_flops));
    EXPECT_EQ(notes.size(), 6u);
    // Without any Winograd measurement, no Winograd key is written.
    const auto none = fit_thresholds({t[0], t[1]});
    EXPECT_FALSE(none.count(threshold_key::winograd_tile));
}

// --- concurrency ------------------------------------------------------------------

TEST_F(SelectorTest, ConcurrentSelectWhileRulesChange) {
    KernelSelector sel;
    const DeviceProfile profile = load_profile("pocl-cpu");
    const ConvShapes wino = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    const ConvShapes matched = shape(1, 48, 28, 28, 48, 3, 3, 1, 1);  // the churned rule's shape
    std::atomic<bool> stop{false};
    std::atomic<int> failures{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t) {
        readers.emplace_back([&] {
            for (int i = 0; i < 300; ++i) {
                const Plan a = sel.select("conv2d", wino, profile);
                const Plan b = sel.select("conv2d", matched, profile);
                const Plan c = KernelSelector::global().select("conv2d", wino, profile);
                // Only the churned rule (IM2COL) or the default strategy (NAIVE) may change these answers.
                if (a.kernel == Kernel::IM2COL) failures++;
                if (c.kernel == Kernel::IM2COL) failures++;
                if (b.kernel == Kernel::IM2COL && b.reason.find("rule #") == std::string::npos) failures++;
                if (a.kernel == Kernel::CONV2D_NAIVE && a.reason.find("default strategy") == std::string::npos) failures++;
            }
        });
    }
    std::thread writer([&] {
        for (int i = 0; !stop; ++i) {
            const auto h = sel.register_rule(
                "conv2d", [](const ConvShapes& s, const DeviceProfile&) { return s.C == 48; }, Kernel::IM2COL, i % 7);
            if (i % 3 == 0) set_default_conv_strategy(Kernel::CONV2D_NAIVE);
            if (i % 3 == 1) clear_default_conv_strategy();
            if (i % 5 == 0) ProfileStore::global().invalidate();
            sel.remove_rule(h);
        }
    });
    for (auto& t : readers) t.join();
    stop = true;
    writer.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(sel.rule_count(), 0u);
}

}  // namespace
}  // namespace netcl::test
