// IM2COL's variants against the fp64 reference: im2col + CLBlast, im2col +
// netcl's GEMM engine, the 1x1
// GEMM and the implicit GEMM of netcl's GEMM engine, each on the edge-case
// table and 200 random small shapes (fixed seed) where it can take them, and
// a VGG-like layer; im2col + CLBlast's passes of fewer images under a small
// workspace limit, and the workspace each reports.
// Tolerance: conv_tolerance(shapes) = 1e-6 x (C/groups·R·S + bias), see
// ops/ReferenceConv.hpp; CLBlast's blocked summation order stays well inside it.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ops/Implementations.hpp"
#include "ops/gemm/Gemm1x1Config.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/implicit_gemm/ImplicitGemmConfig.hpp"
#include "ops/internal/ClblastCall.hpp"
#include "ops/internal/ClblastStatus.hpp"
#include "ops/internal/EventChain.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

// Every variant under IM2COL (im2col + CLBlast, the 1x1 GEMM, the implicit
// GEMM) on the edge table and 200 random shapes, each where its why_not lets
// it, with the workspace it declares; each must take a good share of them.
class Im2colVariants : public ::testing::TestWithParam<std::string> {};

TEST_P(Im2colVariants, EdgeCaseShapesMatchReference) {
    const Variant variant(GetParam());
    std::uint64_t seed = 200;
    // As the layer plans (the device's facts under the shipped profile's values): what it declares.
    const DeviceProfile profile = KernelSelector::resolve_profile(shared_context()->profile());
    int ran = 0;
    for (const ConvShapes& s : edge_case_shapes()) {
        if (why_not(variant, s, profile)) continue;
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, seed++);
        EXPECT_TRUE(r.passed()) << variant.id << " " << describe(s, r);
        EXPECT_EQ(r.plan.variant, variant) << s.str();
        EXPECT_EQ(r.workspace_bytes, implementation_of(variant).workspace_bytes(variant, s, profile)) << s.str();
        ++ran;
    }
    EXPECT_GE(ran, variant.id == "gemm-1x1" ? 3 : 15) << variant.id << " took too few edge shapes";
}

TEST_P(Im2colVariants, RandomSmallShapesMatchReference) {
    const Variant variant(GetParam());
    std::mt19937_64 rng(20261123);
    int ran = 0;
    for (int i = 0; i < 200; ++i) {
        ConvShapes s = random_small_shape(rng);
        if (variant.id == "gemm-1x1") {  // its own kind of layer: the same draw made 1x1, stride 1, unpadded
            s.R = s.S = 1, s.stride_h = s.stride_w = 1;
            s.set_padding(0);
        }
        if (why_not(variant, s, KernelSelector::resolve_profile(shared_context()->profile()))) continue;
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, variant, 3000 + i);
        ASSERT_TRUE(r.passed()) << variant.id << " random shape #" << i << ": " << describe(s, r);
        ++ran;
    }
    EXPECT_GE(ran, 100) << variant.id << " took too few random shapes";
}

TEST_P(Im2colVariants, LargerLayerMatchesSampledReference) {
    // A VGG-like layer (or its 1x1 version for the 1x1 GEMM), checked on 2000
    // sampled outputs plus a scan of all outputs for NaN poison, the way
    // netcl-bench checks full-size layers.
    ConvShapes s = sampled_vgg_like_shape();
    if (GetParam() == "gemm-1x1") s.R = s.S = 1, s.set_padding(0);
    ConvCaseOptions options;
    options.strategy = Kernel::IM2COL;
    options.variant = Variant(GetParam());
    options.seed = 42;
    options.samples = 2000;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_EQ(r.compared, 2000u);
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, Im2colVariants, ::testing::ValuesIn([] {
                             std::vector<std::string> ids;
                             for (const Variant& v : variants_of(Kernel::IM2COL, ConvDirection::FORWARD)) {
                                 ids.push_back(v.id);
                             }
                             return ids;
                         }()),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name) c = c == '-' ? '_' : c;
                             return name;
                         });

TEST(ConvIm2col, WorkspaceIsOneImagesColumnsPerPassUnderASmallLimit) {
    ConvShapes s;
    s.N = 3, s.C = 4, s.H = 13, s.W = 7, s.K = 6, s.R = 3, s.S = 3, s.set_padding(1), s.groups = 2, s.bias = true;
    const std::size_t per_image = static_cast<std::size_t>(s.C * s.R * s.S * s.P() * s.Q()) * sizeof(float);
    const Im2colLayout whole = im2col_layout(s);
    EXPECT_FALSE(whole.direct);
    EXPECT_EQ(whole.columns_per_image_bytes, per_image);
    EXPECT_EQ(whole.images_per_pass, 3);
    EXPECT_EQ(whole.workspace_bytes, 3 * per_image);

    // A limit of 1.5 images' columns: one image per pass, three passes.
    ConvCaseOptions options;
    options.strategy = Kernel::IM2COL;
    options.variant = Variant("im2col-clblast");
    options.workspace_limit_bytes = per_image + per_image / 2;
    options.seed = 11;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_EQ(r.workspace_bytes, per_image);
}

// A profile's im2col_pass_bytes caps a pass's columns below the workspace
// limit (passes that stay in the caches), and a value under one image still
// expands one image a pass; a value under 1 is an error that names the key.
TEST(ConvIm2col, ProfilePassTargetSetsImagesPerPass) {
    ConvShapes s;
    s.N = 5, s.C = 3, s.H = 11, s.W = 9, s.K = 4, s.R = 3, s.S = 3, s.set_padding(1);
    const std::size_t per_image = im2col_layout(s).columns_per_image_bytes;
    EXPECT_EQ(im2col_layout(s).images_per_pass, 5);
    EXPECT_EQ(im2col_layout(s, kIm2colPassBytes, 2 * per_image + 1).images_per_pass, 2);
    EXPECT_EQ(im2col_layout(s, per_image, 3 * per_image).images_per_pass, 1) << "the limit still caps the pass";
    DeviceProfile profile;
    profile.tuned_source = "test profile";
    EXPECT_EQ(im2col_pass_bytes(profile), kIm2colPassBytes);
    profile.tuned["im2col_pass_bytes"] = static_cast<double>(3 * per_image);
    const Im2colLayout three = im2col_layout(s, profile);
    EXPECT_EQ(three.images_per_pass, 3);
    EXPECT_EQ(three.workspace_bytes, 3 * per_image);
    profile.tuned["im2col_pass_bytes"] = static_cast<double>(per_image / 2);
    EXPECT_EQ(im2col_layout(s, profile).images_per_pass, 1);
    profile.tuned["im2col_pass_bytes"] = 1e300;  // past any buffer: the whole batch in one pass
    EXPECT_EQ(im2col_layout(s, profile).images_per_pass, 5);
    for (const double bad : {0.0, -4096.0}) {
        profile.tuned["im2col_pass_bytes"] = bad;
        try {
            im2col_layout(s, profile);
            ADD_FAILURE() << "im2col_pass_bytes " << bad << " was taken";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("test profile: im2col_pass_bytes"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("at least 1"), std::string::npos) << e.what();
        }
    }
    // Through Conv2d on a device whose profile sets it: passes of 2, 2 and 1
    // images against the fp64 reference.
    auto context = context_with_profile();  // its own, every implementation on (TestData.hpp)
    DeviceProfile device = context->profile();
    device.tuned["im2col_pass_bytes"] = static_cast<double>(2 * per_image);
    device.tuned["im2col_gemm_panels_max_pixels"] = 0;  // the row-major columns (panels: their own test)
    device.tuned["im2col_gemm_panels_max_channels"] = 0;
    context->set_profile(device);
    ConvCaseOptions options;
    options.strategy = Kernel::IM2COL;
    options.variant = Variant("im2col-gemm");
    options.context = context;
    options.seed = 12;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_EQ(r.workspace_bytes, 2 * per_image);
}

// Both column copies (im2col a row of columns a work-item, profile key
// im2col_rows, and an element a work-item) under both GEMMs, whatever this
// device's profile says: strides, dilation, asymmetric pads wider than the
// filter reach, groups, N = 3 in one pass and in passes of one image, rows
// wide enough for the row copy's stride-2 vectors.
TEST(ConvIm2col, RowAndElementColumnCopiesMatchReference) {
    std::vector<ConvShapes> shapes;
    ConvShapes a;
    a.N = 3, a.C = 4, a.H = 13, a.W = 17, a.K = 6, a.R = 3, a.S = 3, a.set_padding(1), a.groups = 2, a.bias = true;
    shapes.push_back(a);
    ConvShapes b;
    b.N = 2, b.C = 3, b.H = 20, b.W = 31, b.K = 9, b.R = 7, b.S = 5, b.stride_h = 2, b.stride_w = 3;
    b.set_padding(3, 1, 0, 4);
    shapes.push_back(b);
    ConvShapes c;
    c.N = 1, c.C = 5, c.H = 11, c.W = 9, c.K = 7, c.R = 3, c.S = 3, c.dilation_h = 2, c.dilation_w = 3, c.set_padding(2);
    c.bias = true;
    shapes.push_back(c);
    // Stride 2 along output rows of 38: the row copy's 16-column vectors of every other float (two from each
    // row under the left padding, the rest a column at a time), in float32 and half.
    ConvShapes d;
    d.N = 2, d.C = 3, d.H = 9, d.W = 75, d.K = 5, d.R = 3, d.S = 5, d.stride_h = d.stride_w = 2;
    d.set_padding(1, 2, 0, 3);
    shapes.push_back(d);
    d.dtype = DataType::FLOAT16;
    shapes.push_back(d);
    std::uint64_t seed = 700;
    // One context, re-profiled: every context is a PoCL context of its own, and fewer keep the
    // sanitizer runs' process exit simple.
    auto context = context_with_profile();  // its own, every implementation on (TestData.hpp)
    const DeviceProfile base = context->profile();
    for (const int rows : {0, 1}) {
        DeviceProfile profile = base;
        profile.tuned["im2col_rows"] = rows;
        profile.tuned["im2col_gemm_panels_max_pixels"] = 0;  // the row-major columns (panels: their own test)
        profile.tuned["im2col_gemm_panels_max_channels"] = 0;
        context->set_profile(profile);
        for (const char* id : {"im2col-gemm", "im2col-clblast"}) {
            for (const auto& s : shapes) {
                for (const bool passes : {false, true}) {
                    SCOPED_TRACE(std::string(id) + " im2col_rows " + std::to_string(rows) + (passes ? ", passes" : ""));
                    ConvCaseOptions options;
                    options.strategy = Kernel::IM2COL;
                    options.variant = Variant(id);
                    options.seed = ++seed;
                    options.context = context;
                    // A pass of one image: its columns (and, where CLBlast's GEMM runs on a half layer, its
                    // output staged in float32).
                    std::size_t per_image = im2col_layout(s).columns_per_image_bytes;
                    if (std::string(id) == "im2col-clblast" && s.dtype == DataType::FLOAT16) {
                        per_image += static_cast<std::size_t>(s.K * s.P() * s.Q()) * sizeof(float);
                    }
                    if (passes) options.workspace_limit_bytes = per_image;
                    const ConvCaseResult r = run_conv_case(s, options);
                    EXPECT_TRUE(r.passed()) << describe(s, r);
                    EXPECT_EQ(r.plan.config.find("columns a row a work-item") != std::string::npos, rows == 1)
                        << r.plan.config;
                    if (passes) {
                        EXPECT_EQ(r.workspace_bytes, per_image);
                    }
                }
            }
        }
    }
}

// netcl's GEMM engine at every vector width it builds (float4, float8,
// float16), whatever this device's profile picks: matrices narrower than a
// tile (the clamped loads and per-lane stores, LANE), K off the tile, a
// shifted-back last tile, for the 1x1 GEMM, the implicit GEMM and
// im2col-gemm.
TEST(ConvIm2col, GemmEngineAtEveryVectorWidth) {
    ConvShapes narrow;  // 3x3 = 9 pixels, under every tile's width; K = 5 under MR
    narrow.N = 2, narrow.C = 6, narrow.H = 3, narrow.W = 3, narrow.K = 5, narrow.R = 1, narrow.S = 1, narrow.bias = true;
    ConvShapes ragged;  // 7x11 = 77 pixels: a shifted-back last tile; K = 37 off the channel panels
    ragged.N = 1, ragged.C = 9, ragged.H = 7, ragged.W = 11, ragged.K = 37, ragged.R = 1, ragged.S = 1;
    ConvShapes strided = ragged;  // 3x3 stride 2, padded: the implicit GEMM's gathered path, im2col's copy
    strided.R = strided.S = 3, strided.stride_h = strided.stride_w = 2, strided.set_padding(1);
    std::uint64_t seed = 800;
    auto context = context_with_profile();  // its own, every implementation on (TestData.hpp)
    const DeviceProfile base = context->profile();
    for (const int vw : {4, 8, 16}) {
        DeviceProfile profile = base;
        for (const char* prefix : {"gemm", "implicit_gemm", "implicit_gemm_thin", "implicit_gemm_few_pixels",
                                   "implicit_gemm_pointwise", "im2col_gemm"}) {
            set_gemm_tile(profile, prefix, GemmTile{6, 2, vw, {4, 2}});
        }
        context->set_profile(profile);
        for (const char* id : {"gemm-1x1", "implicit-gemm", "im2col-gemm"}) {
            for (const ConvShapes& s : {narrow, ragged, strided}) {
                if (why_not(Variant(id), s, profile)) continue;
                SCOPED_TRACE(std::string(id) + " float" + std::to_string(vw));
                ConvCaseOptions options;
                options.strategy = Kernel::IM2COL;
                options.variant = Variant(id);
                options.seed = ++seed;
                options.context = context;
                const ConvCaseResult r = run_conv_case(s, options);
                EXPECT_TRUE(r.passed()) << describe(s, r);
                EXPECT_NE(r.plan.config.find("(float" + std::to_string(vw) + ")"), std::string::npos) << r.plan.config;
            }
        }
    }
}

// A 1x1 layer with a bias; one run of a layer on the 1x1 GEMM under a context's profile, against the fp64
// reference (the plan's config says which of the GEMM's paths it took).
ConvShapes one_by_one(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k) {
    ConvShapes s;
    s.N = n, s.C = c, s.H = h, s.W = w, s.K = k, s.R = s.S = 1, s.bias = true;
    return s;
}

// A layer, the context it is planned on, and whether the plan should take the path a test is about.
struct PlannedCase {
    ConvShapes s;
    std::shared_ptr<Context> context;
    bool takes;
};

// One IM2COL variant (its id) under a context's profile.
ConvCaseResult run_on(const char* variant, const ConvShapes& s, std::shared_ptr<Context> context,
                      std::uint64_t seed) {
    ConvCaseOptions options;
    options.strategy = Kernel::IM2COL;
    options.variant = Variant(variant);
    options.seed = seed;
    options.context = std::move(context);
    return run_conv_case(s, options);
}

ConvCaseResult run_on_gemm1x1(const ConvShapes& s, std::shared_ptr<Context> context, std::uint64_t seed) {
    return run_on("gemm-1x1", s, std::move(context), seed);
}

// The 1x1 GEMM's work-groups one tile wide and as tall as the layer's rows
// (Gemm1x1Config.cpp), rounded up to a power of two: 7 row tiles (K = 40)
// in 1 x 8, the eighth tile past the rows; a group's 4 in 1 x 4. Every layer
// up to gemm1x1_tall_max_row_tiles, and a reduction (C at least
// gemm1x1_tall_reduction_min_ratio times K) over at least
// gemm1x1_tall_reduction_min_pixels up to its own limit, over a work-group
// the profile sets; an expansion, too few pixels and too small a ratio keep
// the profile's. Forward, with a bias and groups, and backward data through
// the same kernel.
TEST(ConvIm2col, OneByOneGemmRunsTallWorkGroupsWhereTheProfileSays) {
    const auto layer = [](std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t groups) {
        ConvShapes s;
        s.N = 2, s.C = c, s.H = h, s.W = w, s.K = k, s.R = s.S = 1, s.groups = groups, s.bias = true;
        return s;
    };
    const auto tall_for = [](double every, double reductions, double ratio) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["gemm1x1_pack_x_max_pixels"] = 0;  // packed x runs its own work-groups (the next test)
            p.tuned["gemm1x1_tall_max_row_tiles"] = every;
            p.tuned["gemm1x1_tall_reduction_max_row_tiles"] = reductions;
            p.tuned["gemm1x1_tall_reduction_min_pixels"] = 20;
            p.tuned["gemm1x1_tall_reduction_min_ratio"] = ratio;
        });
    };
    const auto reductions_only = tall_for(0, 8, 1), every_layer = tall_for(8, 0, 1), twice = tall_for(0, 8, 2);
    const auto work_group_set = context_planned_as_avx2([](DeviceProfile& p) {
        p.tuned["gemm1x1_pack_x_max_pixels"] = 0;
        p.tuned["gemm1x1_tall_max_row_tiles"] = 8;
        set_gemm_tile(p, "gemm", GemmTile{6, 2, 8, {4, 2}});
    });
    const std::vector<std::tuple<ConvShapes, std::shared_ptr<Context>, std::string>> cases = {
        {layer(48, 5, 7, 40, 1), reductions_only, "work-group 1x8"},
        {layer(48, 5, 7, 40, 2), reductions_only, "work-group 1x4"},
        {layer(8, 5, 7, 40, 1), reductions_only, "work-group 8x2"},   // an expansion
        {layer(48, 3, 5, 40, 1), reductions_only, "work-group 8x2"},  // 15 pixels
        {layer(40, 5, 7, 40, 1), reductions_only, "work-group 1x8"},  // C = K: a reduction by default
        {layer(48, 5, 7, 40, 1), twice, "work-group 8x2"},            // C < 2K
        {layer(80, 5, 7, 40, 1), twice, "work-group 1x8"},
        {layer(8, 5, 7, 40, 1), every_layer, "work-group 1x8"},
        {layer(8, 5, 7, 60, 1), every_layer, "work-group 8x2"},       // 10 row tiles, over 8
        {layer(8, 5, 7, 40, 1), work_group_set, "work-group 1x8"},   // tall over the profile's work-group
        {layer(8, 5, 7, 60, 1), work_group_set, "work-group 4x2"},   // and the profile's where not tall
        {layer(48, 5, 7, 40, 1).in_direction(ConvDirection::BACKWARD_DATA), every_layer, "work-group 1x8"}};
    std::uint64_t seed = 860;
    for (const auto& [s, context, expected] : cases) {
        const ConvCaseResult r = run_on_gemm1x1(s, context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_NE(r.plan.config.find(expected), std::string::npos) << s.str() << ": " << r.plan.config;
    }
}

// The 1x1 GEMM's packed operands (kernels_cl/panels.cl): the weights in
// panels of MR rows (per group; K = 5 under MR, clamped), and x in panels
// across the images where an image has few enough pixels: 3 images of 7x7
// (panels crossing two image boundaries, the last padded), with a bias, the
// output stage (sum and ReLU) and in half; a strided layer (2x2 and 3x1,
// odd sizes) only packed, and its backward data through the same kernel; a
// group, or more pixels than the profile allows, keeps x in place.
TEST(ConvIm2col, OneByOneGemmPacksItsOperandsWhereTheProfileSays) {
    const auto layer = one_by_one;
    const auto packing = [](double weights, double pixels, double strided_pixels, double pass_bytes = 64 << 20) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["gemm1x1_pack_weights"] = weights;
            p.tuned["gemm1x1_training_weights_in_place"] = 0;  // backward data's filters packed too (below)
            p.tuned["gemm1x1_pack_x_max_pixels"] = pixels;
            p.tuned["gemm1x1_pack_strided_max_pixels"] = strided_pixels;
            p.tuned["im2col_pass_bytes"] = pass_bytes;
        });
    };
    const auto packed = packing(1, 49, 30), in_place = packing(0, 0, 0), weights_only = packing(1, 0, 0);
    const auto training_in_place = context_planned_as_avx2([](DeviceProfile& p) {
        p.tuned["gemm1x1_pack_weights"] = 1;
        p.tuned["gemm1x1_pack_transposed_filters"] = 1;
        p.tuned["gemm1x1_training_weights_in_place"] = 1;
        p.tuned["gemm1x1_pack_x_max_pixels"] = 49;
        p.tuned["gemm1x1_pack_strided_max_pixels"] = 30;
    });
    const auto training = [](ConvShapes s) {
        s.training = true;
        return s;
    };
    // Output rows of 12 and 11 pixels: each row's run in a 16-column panel is whole eights as vectors (stride 2:
    // the even lanes of 16-float loads) and the rest a pixel at a time; panels one tile wide and up to 8 (here
    // 4: K = 21, 4 row tiles) or 2 row tiles tall (gemm1x1_pack_x_work_group_rows).
    const auto packed_tall = [&](double rows) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["gemm1x1_pack_weights"] = 0;
            p.tuned["gemm1x1_pack_x_max_pixels"] = 64;
            p.tuned["gemm1x1_pack_strided_max_pixels"] = 64;
            p.tuned["gemm1x1_pack_x_work_group_rows"] = rows;
        });
    };
    const auto tall = packed_tall(8), two_tall = packed_tall(3);
    ConvShapes wide_strided = layer(2, 6, 5, 23, 21);  // 3x12 outputs
    wide_strided.stride_h = wide_strided.stride_w = 2;
    ConvShapes wide_half = layer(3, 6, 5, 11, 21);  // 5x11, stride 1
    wide_half.dtype = DataType::FLOAT16;
    // 20 channels of 49 pixels, 4 panels an image (the pass target counts whole images so): passes of two
    // images (7 panels, crossing an image's end mid-panel), the last of one.
    const auto two_a_pass = packing(1, 49, 30, 2 * 20 * 4 * 16 * sizeof(float));
    ConvShapes summed = layer(3, 20, 7, 7, 37);
    summed.post_ops = PostOps::relu().with_sum();
    ConvShapes half = layer(3, 20, 7, 7, 37);
    half.dtype = DataType::FLOAT16;
    ConvShapes grouped = layer(3, 20, 7, 7, 38);
    grouped.groups = 2;
    ConvShapes strided = layer(2, 9, 11, 6, 13);  // 6x3 outputs
    strided.stride_h = strided.stride_w = 2;
    ConvShapes rows_strided = layer(3, 7, 9, 5, 11);  // 3x5 outputs
    rows_strided.stride_h = 3;
    constexpr const char* kWeights = "weights in panels";
    constexpr const char* kX = "x in panels across images";
    struct Case {
        ConvShapes s;
        std::shared_ptr<Context> context;
        std::vector<std::string> config_has, config_lacks;
    };
    const std::vector<Case> cases = {
        {layer(3, 20, 7, 7, 37), packed, {kWeights, kX, "(3 a pass)"}, {}},
        {layer(3, 20, 7, 7, 37), two_a_pass, {kWeights, kX, "(2 a pass)"}, {}},
        {layer(3, 20, 7, 7, 5), packed, {kWeights, kX, "rows clamped"}, {}},
        {summed, packed, {kWeights, kX}, {}},
        {half, packed, {kWeights, kX}, {}},
        {grouped, packed, {kWeights}, {kX}},
        {layer(3, 20, 5, 11, 37), packed, {kWeights}, {kX}},  // 55 pixels an image
        {strided, packed, {kWeights, kX}, {}},
        {rows_strided, packed, {kWeights, kX}, {}},
        {strided.in_direction(ConvDirection::BACKWARD_DATA), packed, {kWeights, kX}, {}},
        {layer(3, 20, 7, 7, 37), in_place, {}, {kWeights, kX}},
        {grouped, weights_only, {kWeights}, {kX}},
        {wide_strided, tall, {kX, "work-group 1x4"}, {kWeights}},
        {wide_strided, two_tall, {kX, "work-group 1x2"}, {kWeights}},
        {layer(3, 6, 5, 11, 21), tall, {kX, "work-group 1x4"}, {kWeights}},
        {wide_half, tall, {kX, "work-group 1x4"}, {kWeights}},
        {layer(3, 20, 7, 7, 37), packed, {kX, "work-group 8x2"}, {}},  // the profile's where the key is unset
        // gemm1x1_training_weights_in_place: a training forward reads the weights where they lie (x still
        // packed), in half too; backward data reads its filters transposed in place over at most
        // gemm1x1_transposed_filters_max_columns (98) columns of dy, and packs them from their transpose over
        // more; inference packs.
        {training(layer(3, 20, 7, 7, 37)), training_in_place, {kX}, {kWeights}},
        {training(half), training_in_place, {kX}, {kWeights}},
        {training(strided), training_in_place, {kX}, {kWeights}},
        {layer(3, 20, 7, 7, 37), training_in_place, {kWeights, kX}, {}},
        {strided.in_direction(ConvDirection::BACKWARD_DATA), training_in_place, {"weights read transposed", kX},
         {kWeights}},  // 36 columns
        {layer(3, 20, 7, 7, 37).in_direction(ConvDirection::BACKWARD_DATA), training_in_place,
         {"weights in panels from their transpose"}, {}}};  // 147 columns
    std::uint64_t seed = 880;
    for (const Case& c : cases) {
        const ConvCaseResult r = run_on_gemm1x1(c.s, c.context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(c.s, r);
        for (const std::string& part : c.config_has)
            EXPECT_NE(r.plan.config.find(part), std::string::npos) << c.s.str() << ": " << r.plan.config;
        for (const std::string& part : c.config_lacks)
            EXPECT_EQ(r.plan.config.find(part), std::string::npos) << c.s.str() << ": " << r.plan.config;
    }
    // A strided layer the profile does not pack is not the 1x1 GEMM's, and says why.
    const auto reason = why_not(Variant("gemm-1x1"), strided, in_place->profile());
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("only where it packs x"), std::string::npos) << *reason;
    EXPECT_FALSE(why_not(Variant("gemm-1x1"), strided, packed->profile()).has_value());
    // A strided layer has its own limit: 6x7 outputs are under the stride-1 limit (49) but over it (30).
    ConvShapes wider = strided;
    wider.W = 13;
    EXPECT_TRUE(why_not(Variant("gemm-1x1"), wider, packed->profile()).has_value());
}

// x prefetched channels ahead (gemm1x1_prefetch_x_rows; kernels_cl/gemm.cl's PREFETCH_B) wherever the 1x1
// GEMM reads it in place image by image: forward with a bias, the output stage (sum and ReLU), in half, and
// backward data (dy as x); the last channels' prefetches run past x's end, which must change nothing. Folded
// images, packed x, an image narrower than the tile (columns clamped), a profile without the key and a device
// other than a CPU (a CPU's build option) do not.
TEST(ConvIm2col, OneByOneGemmPrefetchesXAheadWhereTheProfileSays) {
    const auto layer = one_by_one;
    const auto prefetching = [](double rows, double fold = 0, double pack_pixels = 0) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["gemm1x1_pack_weights"] = 0;
            p.tuned["gemm1x1_pack_x_max_pixels"] = pack_pixels;
            p.tuned["gemm1x1_fold_images_min_saving"] = fold;
            p.tuned["gemm1x1_prefetch_x_rows"] = rows;
        });
    };
    const auto ahead = prefetching(8), none = prefetching(0), folded = prefetching(8, 0.1), packed = prefetching(8, 0, 64);
    constexpr const char* kPrefetched = "x prefetched 8 channels ahead";
    ConvShapes summed = layer(2, 20, 5, 11, 37);
    summed.post_ops = PostOps::relu().with_sum();
    ConvShapes half = layer(3, 13, 4, 9, 21);
    half.dtype = DataType::FLOAT16;
    const std::vector<PlannedCase> cases = {
        {layer(2, 20, 5, 11, 37), ahead, true},  {summed, ahead, true}, {half, ahead, true},
        {layer(2, 20, 5, 11, 37).in_direction(ConvDirection::BACKWARD_DATA), ahead, true},
        {layer(1, 5, 3, 3, 7), ahead, false},     // 9 pixels under the tile's width: columns clamped
        {layer(3, 20, 5, 5, 37), folded, false},  // 75 columns across the images
        {layer(3, 20, 5, 5, 37), packed, false},  // x packed across the images
        {layer(2, 20, 5, 11, 37), none, false}};
    std::uint64_t seed = 980;
    for (const PlannedCase& c : cases) {
        const ConvCaseResult r = run_on_gemm1x1(c.s, c.context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(c.s, r);
        const bool prefetches = c.takes && c.context->profile().type == DeviceType::CPU;
        EXPECT_EQ(r.plan.config.find(kPrefetched) != std::string::npos, prefetches) << c.s.str() << ": " << r.plan.config;
        const std::string options =
            gemm1x1_config(c.s, KernelSelector::resolve_profile(c.context->profile())).program().options;
        EXPECT_EQ(options.find("-DPREFETCH_B=8") != std::string::npos, prefetches) << c.s.str() << ": " << options;
    }
}

// The 1x1 GEMM with the images folded into its columns, x read where it lies
// (Gemm1x1Config::fold_images, gemm.cl's B_IMAGES): 16-column tiles over
// images of 25 and 9 pixels, so that 8-float vectors cross an image's end
// (two loads blended) and the last tile is shifted back over its neighbour
// (the output stage's sum must add once), K off the tile (and under it), a
// bias, half, the weights in panels, tall work-groups, backward data (the
// same GEMM on dy); one image, fewer pixels than a vector and a
// profile that asks for more saving keep the GEMM per image.
TEST(ConvIm2col, OneByOneGemmFoldsTheImagesIntoItsColumnsWhereTheProfileSays) {
    const auto layer = one_by_one;
    const auto folding = [](double saving, double rows = 0, double packed_weights = 0) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["gemm1x1_pack_weights"] = packed_weights;
            p.tuned["gemm1x1_pack_x_max_pixels"] = 0;
            p.tuned["gemm1x1_fold_images_min_saving"] = saving;
            p.tuned["gemm1x1_pack_x_work_group_rows"] = rows;
        });
    };
    const auto folded = folding(0.1), folded_tall = folding(0.1, 4), stingy = folding(0.5);
    const auto folded_packed_weights = folding(0.1, 0, 1);  // A in panels beside B's images in place
    constexpr const char* kFolded = "columns across images";
    ConvShapes summed = layer(3, 20, 5, 5, 37);  // 75 columns: 5 tiles, the last shifted back by 5
    summed.post_ops = PostOps::relu().with_sum();
    ConvShapes half = layer(4, 7, 3, 3, 5);  // 36 columns of 9-pixel images; 5 rows under the tile
    half.dtype = DataType::FLOAT16;
    const std::vector<PlannedCase> cases = {
        {layer(3, 20, 5, 5, 37), folded, true},      {summed, folded, true},
        {layer(3, 20, 5, 5, 37), folded_packed_weights, true},
        {layer(3, 20, 5, 5, 37).in_direction(ConvDirection::BACKWARD_DATA), folded, true},  // dy as x
        {half, folded, true},                       {layer(4, 7, 3, 3, 21), folded_tall, true},
        {layer(1, 20, 5, 5, 37), folded, false},     // one image
        {layer(3, 20, 5, 5, 37), stingy, false}};   // 80 columns for 96 saves 17%, under 50%
    std::uint64_t seed = 940;
    for (const PlannedCase& c : cases) {
        const ConvCaseResult r = run_on_gemm1x1(c.s, c.context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(c.s, r);
        EXPECT_EQ(r.plan.config.find(kFolded) != std::string::npos, c.takes) << c.s.str() << ": " << r.plan.config;
    }
    EXPECT_NE(gemm1x1_config(layer(4, 7, 3, 3, 21), folded_tall->profile()).str().find("work-group 1x4"),
              std::string::npos);
    EXPECT_FALSE(gemm1x1_config(layer(4, 7, 2, 3, 5), folded->profile()).fold_images);  // 6 pixels < a vector
}

// The GEMM engine's outputs streamed past the caches (STREAM_OUTPUT,
// kernels_cl/storage.cl) where a launch writes at least
// stream_output_min_bytes: the 1x1 GEMM image by image (25 and 37 pixels an
// image: some vectors aligned, some not, the last tile shifted back), with
// its images folded into the columns (C_IMAGES: vectors across an image's
// end stored lane by lane), groups 2, a ReLU, backward
// data (dx from the same GEMM); im2col-gemm row-major and in panels; a sum
// post-op and half never streamed. The launch's bytes, not the layer's: a
// group's.
TEST(ConvIm2col, GemmEngineStreamsLargeOutputsPastTheCaches) {
    const auto streaming = [](double min_bytes, double fold) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["stream_output_min_bytes"] = min_bytes;
            p.tuned["gemm1x1_pack_x_max_pixels"] = 0;
            p.tuned["gemm1x1_fold_images_min_saving"] = fold;
            p.tuned["im2col_gemm_panels_max_pixels"] = 12;
        });
    };
    const auto streamed = streaming(1, 0), folded = streaming(1, 0.1);
    const bool cpu = streamed->profile().type == DeviceType::CPU;  // a GPU never streams (its suite runs plain)
    constexpr const char* kStreamed = "outputs streamed past the caches";
    ConvShapes grouped = one_by_one(3, 8, 5, 5, 12);
    grouped.groups = 2;
    ConvShapes relu = one_by_one(2, 20, 5, 7, 37);
    relu.post_ops = PostOps::relu();
    ConvShapes summed = relu;
    summed.post_ops = PostOps::relu().with_sum();
    ConvShapes half = one_by_one(2, 20, 5, 7, 37);
    half.dtype = DataType::FLOAT16;
    const std::vector<PlannedCase> one_by_ones = {
        {one_by_one(3, 20, 5, 5, 37), streamed, true}, {one_by_one(3, 20, 5, 5, 37), folded, true},
        {grouped, streamed, true},                      {relu, streamed, true},
        {summed, streamed, false},                      {half, streamed, false},
        {one_by_one(3, 20, 5, 5, 37).in_direction(ConvDirection::BACKWARD_DATA), streamed, true}};
    std::uint64_t seed = 1200;
    for (const PlannedCase& c : one_by_ones) {
        const ConvCaseResult r = run_on_gemm1x1(c.s, c.context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(c.s, r);
        EXPECT_EQ(r.plan.config.find(kStreamed) != std::string::npos, c.takes && cpu) << c.s.str() << ": " << r.plan.config;
    }
    EXPECT_NE(run_on_gemm1x1(one_by_one(3, 20, 5, 5, 37), folded, ++seed).plan.config.find("columns across images"),
              std::string::npos);
    ConvShapes padded;  // 4 x 37 outputs of a 3x3, rows of 37 pixels
    padded.N = 2, padded.C = 3, padded.H = 4, padded.W = 37, padded.K = 10, padded.R = padded.S = 3;
    padded.set_padding(1), padded.bias = true;
    ConvShapes small = padded;  // 3 x 3 outputs: panels across the images
    small.H = small.W = 3;
    for (const ConvShapes& s : {padded, small}) {
        const ConvCaseResult r = run_on("im2col-gemm", s, streamed, ++seed);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.config.find(kStreamed) != std::string::npos, cpu) << r.plan.config;
        EXPECT_EQ(r.plan.config.find("in panels") != std::string::npos, s.H == 3) << r.plan.config;
    }
    // A launch of the grouped layer writes 3 images x 6 channels x 25 pixels.
    DeviceProfile p = streaming(3 * 6 * 25 * sizeof(float), 0)->profile();
    p.type = DeviceType::CPU;
    EXPECT_TRUE(gemm1x1_config(grouped, p).stream_output);
    p.tuned["stream_output_min_bytes"] = 3 * 6 * 25 * sizeof(float) + 1;
    EXPECT_FALSE(gemm1x1_config(grouped, p).stream_output);
}

// im2col-gemm with its columns in panels across the images and its weights
// in panels (Im2colGemmConfig::panels): strided, padded asymmetrically,
// dilated, K off MR (and under it), N = 5 images in passes of one, two and
// all five (the last pass short), a bias and the output stage, half; a
// group, or an image past the profile's pixels, keeps the row-major columns.
// A training forward reads the weights where they lie, row-major beside the
// panels of columns, where im2col_gemm_training_weights_in_place says (the
// same edges, the stem's reduction of 147 an odd row stride); float16 and
// inference still pack them.
TEST(ConvIm2col, Im2colGemmPacksPanelsWhereTheProfileSays) {
    const auto panels_for = [](double pixels, double pass_bytes, double channels = 0, double in_place = 0) {
        return context_planned_as_avx2([=](DeviceProfile& p) {
            p.tuned["im2col_gemm_panels_max_pixels"] = pixels;
            p.tuned["im2col_pass_bytes"] = pass_bytes;
            p.tuned["im2col_gemm_panels_max_channels"] = channels;
            p.tuned["im2col_gemm_max_reduction"] = 32;
            p.tuned["im2col_gemm_training_weights_in_place"] = in_place;
        });
    };
    const auto training = [](ConvShapes s) {
        s.training = true;
        return s;
    };
    ConvShapes strided;  // 5 images of 4x3 outputs
    strided.N = 5, strided.C = 7, strided.H = 9, strided.W = 6, strided.K = 13, strided.R = 3, strided.S = 2;
    strided.stride_h = 2, strided.stride_w = 2, strided.set_padding(1, 0, 0, 1), strided.bias = true;
    ConvShapes dilated = strided;  // 5x4 outputs through a dilated 3x3
    dilated.S = 3, dilated.stride_h = dilated.stride_w = 1, dilated.dilation_h = 2, dilated.set_padding(0, 1, 1, 0);
    dilated.H = 8, dilated.W = 5, dilated.K = 4, dilated.post_ops = PostOps::relu().with_sum();
    ConvShapes half = strided;
    half.dtype = DataType::FLOAT16;
    ConvShapes grouped = strided;
    grouped.C = 8, grouped.K = 12, grouped.groups = 2;
    // Output rows of 32 and 18 pixels: the pack's runs of 16 columns along a row, as vectors where a tap's run
    // lies inside its input row (stride 2 and 1), element by element at the pads and where a panel wraps a row.
    ConvShapes stem;  // 2 images of 5x32 outputs, the stem's 7x7 stride 2 over 3 channels
    stem.N = 2, stem.C = 3, stem.H = 9, stem.W = 63, stem.K = 10, stem.R = stem.S = 7;
    stem.stride_h = stem.stride_w = 2, stem.set_padding(2, 3, 4, 3);
    ConvShapes rows = stem;  // 3 images of 5x18 outputs, stride 1
    rows.N = 3, rows.C = 2, rows.H = 5, rows.W = 18, rows.K = 7, rows.R = rows.S = 3, rows.stride_h = rows.stride_w = 1;
    rows.set_padding(1), rows.bias = true;
    ConvShapes stem_half = stem;
    stem_half.dtype = DataType::FLOAT16;
    const std::size_t image_bytes = 7 * 3 * 2 * 16 * sizeof(float);  // one image's 12 columns: one panel
    const auto every_pass = panels_for(20, 64 << 20), one_image = panels_for(20, image_bytes),
               two_images = panels_for(20, 2 * image_bytes + 1), too_few = panels_for(11, 64 << 20),
               few_channels_one_image = panels_for(0, 3 * 49 * 160 * sizeof(float), 3),
               in_place_two_images = panels_for(20, 2 * image_bytes + 1, 0, 1),
               in_place_few_channels = panels_for(0, 3 * 49 * 160 * sizeof(float), 3, 1);
    struct Case {
        ConvShapes s;
        std::shared_ptr<Context> context;
        std::string config_has;
    };
    const std::vector<Case> cases = {
        {strided, every_pass, "5 image(s) per pass, columns and weights in panels"},
        {strided, one_image, "1 image(s) per pass, columns and weights in panels"},
        {strided, two_images, "2 image(s) per pass, columns and weights in panels"},
        {dilated, two_images, "columns and weights in panels"},
        {half, every_pass, "columns and weights in panels"},
        {strided.in_direction(ConvDirection::BACKWARD_DATA), every_pass, "columns and weights in panels"},
        {grouped, every_pass, "image(s) per pass, workspace"},
        {stem, few_channels_one_image, "1 image(s) per pass, columns and weights in panels"},
        {stem_half, few_channels_one_image, "columns and weights in panels"},
        {rows, panels_for(90, 64 << 20), "3 image(s) per pass, columns and weights in panels"},
        {rows, panels_for(0, 64 << 20, 3), "image(s) per pass, workspace"},  // 18 steps: a short reduction's rows
        {strided, too_few, "image(s) per pass, workspace"},
        {training(strided), in_place_two_images, "2 image(s) per pass, columns in panels, weights read in place"},
        {training(dilated), in_place_two_images, "columns in panels, weights read in place"},
        {training(stem), in_place_few_channels, "1 image(s) per pass, columns in panels, weights read in place"},
        {training(half), in_place_two_images, "columns and weights in panels"},
        {strided, in_place_two_images, "2 image(s) per pass, columns and weights in panels"},
        {training(strided), two_images, "2 image(s) per pass, columns and weights in panels"}};
    std::uint64_t seed = 940;
    for (const Case& c : cases) {
        ConvCaseOptions options;
        options.strategy = Kernel::IM2COL;
        options.variant = Variant("im2col-gemm");
        options.seed = ++seed;
        options.context = c.context;
        const ConvCaseResult r = run_conv_case(c.s, options);
        EXPECT_TRUE(r.passed()) << describe(c.s, r);
        EXPECT_NE(r.plan.config.find(c.config_has), std::string::npos) << c.s.str() << ": " << r.plan.config;
    }
}

// The implicit GEMM counts its pixels over the whole batch: tiles that wrap
// rows and images (a 3x3 or 2x4 output is under every tile's height), the
// last tile shifted back across an image boundary, groups (each group's
// launch starts mid-image), asymmetric padding, bias, K off the panel, at
// several tile heights; and a batch whose pixels fit under 64 takes the
// few-pixel tile, a larger one the wide tile, or the pointwise tile for a
// strided 1x1 filter (the wide one where a profile sets none).
TEST(ConvIm2col, ImplicitGemmTilesSpanImages) {
    ConvShapes odd;  // 5 images of 3x3 outputs: 45 pixels
    odd.N = 5, odd.C = 9, odd.H = 6, odd.W = 5, odd.K = 37, odd.R = 3, odd.S = 3, odd.stride_h = odd.stride_w = 2;
    odd.set_padding(1, 0, 0, 2), odd.bias = true;
    ConvShapes grouped;  // 3 images of 2x4, two groups of 8 -> 5 channels, 1x1 stride 2
    grouped.N = 3, grouped.C = 16, grouped.H = 3, grouped.W = 7, grouped.K = 10, grouped.R = 1, grouped.S = 1;
    grouped.stride_h = grouped.stride_w = 2, grouped.groups = 2;
    ConvShapes wide = odd;  // 9 images of 3x3 = 81 pixels: past the few-pixel tile
    wide.N = 9, wide.bias = false;
    ConvShapes projection = grouped;  // 1x1 stride 2, 3 images of 6x4 = 72 pixels
    projection.H = 11, projection.groups = 1;
    ConvShapes tall = wide, flat = wide;  // 3x1 and 1x3 filters are not pointwise
    tall.S = 1, flat.R = 1;
    std::uint64_t seed = 900;
    auto context = context_with_profile();  // its own, every implementation on (TestData.hpp)
    const DeviceProfile base = context->profile();
    EXPECT_EQ(implicit_gemm_config(odd, base).tile.prefix, "implicit_gemm_few_pixels");
    EXPECT_EQ(implicit_gemm_config(wide, base).tile.prefix, "implicit_gemm");
    EXPECT_EQ(implicit_gemm_config(tall, base).tile.prefix, "implicit_gemm");
    EXPECT_EQ(implicit_gemm_config(flat, base).tile.prefix, "implicit_gemm");
    EXPECT_EQ(implicit_gemm_config(projection, base).tile.prefix, "implicit_gemm_pointwise");
    {
        DeviceProfile unset = base;
        for (const auto& key : gemm_tile_keys("implicit_gemm_pointwise")) unset.tuned.erase(key);
        set_gemm_tile(unset, "implicit_gemm", GemmTile{7, 1, 4, {2, 2}});
        const GemmTile tile = implicit_gemm_config(projection, unset).tile;
        EXPECT_EQ(tile.prefix, "implicit_gemm_pointwise");
        EXPECT_EQ(tile.mr, 7);
        EXPECT_EQ(tile.nr(), 4);
        EXPECT_EQ(tile.work_group[0], 2u);
    }
    for (const int mr : {5, 8}) {
        DeviceProfile profile = base;
        for (const char* prefix : {"implicit_gemm", "implicit_gemm_few_pixels", "implicit_gemm_thin",
                                   "implicit_gemm_pointwise"}) {
            set_gemm_tile(profile, prefix, GemmTile{mr, 2, 8, {2, 4}});
        }
        context->set_profile(profile);
        for (const ConvShapes& s : {odd, grouped, wide, projection, tall, flat}) {
            SCOPED_TRACE("MR " + std::to_string(mr) + " " + s.str());
            const ConvCaseResult r = run_on("implicit-gemm", s, context, ++seed);
            EXPECT_TRUE(r.passed()) << describe(s, r);
            EXPECT_NE(r.plan.config.find(std::to_string(mr) + "x16 tile"), std::string::npos) << r.plan.config;
        }
    }
}

// Blocked tiles (conv_kvec.cl's KT and KCB): each work-item owns 3 pixel
// tiles, taken in turn over blocks of 5 channels (C = 9: a block and a
// remainder), so the last work-item of a launch may have fewer tiles (the
// residual sum's shifted-back last tile alone in its group, its rows stored
// once), the padded stride-2 tiles take the border path with taps all inside
// and taps partly outside, and a wider layer the interior path, also in one
// block larger than its 12 channels. Float16 (its widened x, the half store),
// groups, a 1x1 stride-2 layer and a 3-D layer (the DEPTH plane loop) ride
// the same builds' options. Then the rule, and profiles it refuses.
TEST(ConvIm2col, ImplicitGemmBlockedTilesMatchReference) {
    ConvShapes odd;  // 5 images of 3x3 outputs: 15 tiles of 3 pixels in 5 work-items of 3 tiles
    odd.N = 5, odd.C = 9, odd.H = 6, odd.W = 5, odd.K = 37, odd.R = 3, odd.S = 3, odd.stride_h = odd.stride_w = 2;
    odd.set_padding(1, 0, 0, 2), odd.bias = true;
    ConvShapes summed = odd;  // one image of 4x5: 20 pixels, 7 tiles, the last shifted back, alone in its group
    summed.N = 1, summed.H = 8, summed.W = 9, summed.bias = false;
    summed.post_ops = PostOps::leaky_relu(0.125f).with_sum();
    ConvShapes half = odd;
    half.dtype = DataType::FLOAT16;
    ConvShapes interior;  // unpadded 3x3 stride 1: the interior path, K off the panel
    interior.N = 2, interior.C = 12, interior.H = 9, interior.W = 11, interior.K = 20, interior.R = interior.S = 3;
    ConvShapes grouped;  // 1x1 stride 2, two groups of 8 -> 5 channels
    grouped.N = 3, grouped.C = 16, grouped.H = 3, grouped.W = 7, grouped.K = 10, grouped.R = grouped.S = 1;
    grouped.stride_h = grouped.stride_w = 2, grouped.groups = 2;
    ConvShapes depth;  // 3-D 3x3x3, padded: planes in and out of the input
    depth.spatial_rank = 3, depth.N = 2, depth.C = 9, depth.D = 4, depth.H = 5, depth.W = 6, depth.K = 11;
    depth.T = depth.R = depth.S = 3, depth.pad_front = depth.pad_back = 1, depth.set_padding(1);
    ConvShapes thin = odd;  // C = 3 under 8: the thin tile, never blocked
    thin.C = 3;

    auto context = context_with_profile();  // its own, every implementation on (TestData.hpp)
    DeviceProfile profile = context->profile();
    for (const char* prefix : {"implicit_gemm", "implicit_gemm_few_pixels", "implicit_gemm_pointwise"}) {
        set_gemm_tile(profile, prefix, GemmTile{3, 2, 8, {1, 2}});
    }
    profile.tuned["implicit_gemm_blocked_tiles"] = 3;
    profile.tuned["implicit_gemm_blocked_channels"] = 5;
    profile.tuned["implicit_gemm_blocked_min_panel_bytes"] = 0;
    profile.tuned["implicit_gemm_blocked_wg1"] = 2;
    profile.tuned["implicit_gemm_blocked_min_items_per_unit"] = 0;
    context->set_profile(profile);
    const ImplicitGemmConfig blocked = implicit_gemm_config(odd, profile);
    EXPECT_EQ(blocked.tiles_per_item, 3);
    EXPECT_EQ(blocked.channel_block, 5);
    EXPECT_EQ(blocked.local()[1], 2u);
    EXPECT_EQ(blocked.global(odd, odd.N)[1], 5u);  // 45 pixels, 15 tiles, 5 groups of 3
    EXPECT_NE(blocked.program().options.find("-DKT=3 -DKCB=5"), std::string::npos) << blocked.program().options;
    EXPECT_EQ(implicit_gemm_config(thin, profile).tiles_per_item, 1);
    std::uint64_t seed = 950;
    for (const ConvShapes& s : {odd, summed, half, interior, grouped, depth}) {
        SCOPED_TRACE(s.str());
        const ConvCaseResult r = run_on("implicit-gemm", s, context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_NE(r.plan.config.find("3 tiles a work-item over blocks of 5 channels"), std::string::npos)
            << r.plan.config;
    }
    {
        DeviceProfile one_block = profile;
        one_block.tuned["implicit_gemm_blocked_channels"] = 64;
        context->set_profile(one_block);
        const ConvCaseResult r = run_on("implicit-gemm", interior, context, ++seed);
        EXPECT_TRUE(r.passed()) << describe(interior, r);
        EXPECT_NE(r.plan.config.find("over blocks of 64 channels"), std::string::npos) << r.plan.config;
    }
    for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{
             {"implicit_gemm_blocked_channels", 0}, {"implicit_gemm_blocked_wg1", 0},
             {"implicit_gemm_blocked_tiles", 17}, {"implicit_gemm_blocked_tiles", 2.5}}) {
        DeviceProfile bad = profile;
        bad.tuned[key] = value;
        try {
            implicit_gemm_config(odd, bad);
            ADD_FAILURE() << key << " " << value << " was taken";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("expected tiles 2..16, channels >= 1"), std::string::npos) << e.what();
        }
    }

    // The rule: a panel of at least the profile's bytes. ResNet's res5.3x3.stride2 (512 channels x 9 taps x 64
    // output channels: 1.2 MB) is blocked, res3's (128 channels: 295 KB) is not.
    profile.tuned["implicit_gemm_blocked_min_panel_bytes"] = 589824;
    set_gemm_tile(profile, "implicit_gemm", GemmTile{4, 4, 16, {1, 16}});
    ConvShapes res5;
    res5.N = 8, res5.C = 512, res5.H = res5.W = 14, res5.K = 512, res5.R = res5.S = 3;
    res5.stride_h = res5.stride_w = 2, res5.set_padding(1);
    ConvShapes res3 = res5;
    res3.C = res3.K = 128, res3.H = res3.W = 56;
    EXPECT_EQ(implicit_gemm_config(res5, profile).tiles_per_item, 3);
    EXPECT_EQ(implicit_gemm_config(res3, profile).tiles_per_item, 1);
    EXPECT_EQ(implicit_gemm_config(res3, profile).local()[1], 16u);
    EXPECT_EQ(implicit_gemm_config(res3, profile).program().options.find("-DKT"), std::string::npos);
    // And only where a launch keeps 4 work-items a compute unit: res5's at N = 1 has 8 panels x 5 groups of 3
    // tiles (49 pixels), enough for 2 cores, not for 16.
    profile.tuned.erase("implicit_gemm_blocked_min_items_per_unit");
    ConvShapes res5_one = res5;
    res5_one.N = 1;
    set_gemm_tile(profile, "implicit_gemm_few_pixels", GemmTile{4, 4, 16, {1, 16}});
    profile.compute_units = 2;
    EXPECT_EQ(implicit_gemm_config(res5_one, profile).tiles_per_item, 3);
    profile.compute_units = 16;
    EXPECT_EQ(implicit_gemm_config(res5_one, profile).tiles_per_item, 1);
    EXPECT_EQ(implicit_gemm_config(res5, profile).tiles_per_item, 3);  // 8 x 33 work-items at N = 8
}

// One launch of the implicit GEMM takes as many images as keep its int
// offsets in range: the whole batch of an ordinary layer, fewer of a huge
// image, never none.
TEST(ConvIm2col, ImplicitGemmSplitsOnlyBatchesPastIntOffsets) {
    ConvShapes s;
    s.N = 64, s.C = 256, s.H = 56, s.W = 56, s.K = 256, s.R = 3, s.S = 3;
    s.set_padding(1);
    EXPECT_EQ(ImplicitGemmConfig::images_per_launch(s), 64);
    s.C = 64, s.H = s.W = 4096, s.K = 8;  // 2^30 floats an image: one a launch
    EXPECT_EQ(ImplicitGemmConfig::images_per_launch(s), 1);
    s.C = 16;  // 2^28: seven fit in INT_MAX
    EXPECT_EQ(ImplicitGemmConfig::images_per_launch(s), 7);
    s.C = 8, s.K = 512;  // an output image past INT_MAX floats: one a launch, not zero
    EXPECT_EQ(ImplicitGemmConfig::images_per_launch(s), 1);
}

TEST(ConvIm2col, OneByOneUnpaddedLayersNeedNoWorkspace) {
    ConvShapes s;
    s.N = 3, s.C = 12, s.H = 7, s.W = 13, s.K = 10, s.R = 1, s.S = 1, s.groups = 2, s.bias = true;
    const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, Variant("im2col-clblast"), 12);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_EQ(r.workspace_bytes, 0u);
    EXPECT_TRUE(im2col_layout(s).direct);
}

TEST(ConvIm2col, ClblastFailuresNameTheStatus) {
    try {
        internal::check_clblast(clblast::StatusCode::kInvalidLeadDimB, "a GEMM");
        ADD_FAILURE() << "expected a netcl::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("a GEMM failed"), std::string::npos) << message;
        EXPECT_NE(message.find("kInvalidLeadDimB (-1015)"), std::string::npos) << message;
    }
    EXPECT_NE(internal::clblast_status_name(clblast::StatusCode::kOpenCLOutOfResources).find("CL_OUT_OF_RESOURCES"),
              std::string::npos);
    EXPECT_NO_THROW(internal::check_clblast(clblast::StatusCode::kSuccess, "a GEMM"));

    // Through a chain: a failing routine's error names what the operation says; a routine that succeeds
    // records its event and never builds the message.
    const auto context = shared_context();
    int described = 0;
    const auto operation = [&] {
        ++described;
        return std::string("a batched GEMM");
    };
    internal::EventChain failing(true, {});
    try {
        internal::enqueue_clblast(
            failing, context->queue(),
            [](cl_command_queue*, cl_event*) { return clblast::StatusCode::kInvalidLeadDimB; }, operation);
        ADD_FAILURE() << "expected a netcl::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("a batched GEMM failed"), std::string::npos) << message;
        EXPECT_NE(message.find("kInvalidLeadDimB (-1015)"), std::string::npos) << message;
    }
    EXPECT_EQ(described, 1);
    internal::EventChain ok(true, {});
    internal::enqueue_clblast(
        ok, context->queue(),
        [](cl_command_queue* queue, cl_event* event) {
            return clEnqueueMarkerWithWaitList(*queue, 0, nullptr, event) == CL_SUCCESS
                       ? clblast::StatusCode::kSuccess
                       : clblast::StatusCode::kOpenCLOutOfResources;
        },
        operation);
    EXPECT_EQ(described, 1);
    ASSERT_EQ(ok.events().size(), 1u);
    EXPECT_EQ(ok.events().front().wait(), CL_SUCCESS);
}

}  // namespace
}  // namespace netcl::test
