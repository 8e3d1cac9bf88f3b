// Shape fuzzing: kCases random valid (shape, parameters, strategy, variant)
// combinations from a fixed seed, each run through Conv2d's strict override
// on random data with a NaN-poisoned output and checked element by element
// against the fp64 reference (tests/support/ConvCase). Every failure prints
// the case number, the exact shape and the plan, so that one case can be
// re-run alone: NETCL_FUZZ_CASE=<n> runs only case n (same draw sequence).
//
// Tolerance: conv_tolerance(shapes, factor) = factor x 1e-6 per term of the
// C/groups·R·S (+bias) reduction; factor 1 for NAIVE and IM2COL, 4 for
// Winograd F(2x2,3x3) and 16 for F(4x4,3x3), as in tests/test_winograd_conv.cpp.
//
// The draw reaches every implementation and the block structure too: a
// quarter of the CONV2D_NAIVE cases run direct-rows (a third of those with
// N >= 2 in passes of fewer images); IM2COL
// cases pick any of its variants (im2col + CLBlast, the 1x1 GEMM on 1x1
// versions of the draw, the implicit GEMM); about 10% of all cases are fused
// Winograd layers whose C and K exceed the variant's C step and K block (up
// to 2.5 of each, off the block), so every variant runs several K blocks and
// C steps; 10% are separate-transform Winograd, a third of them under a
// workspace limit of 1-5 tiles so the tiles run in passes; a third of the
// im2col + CLBlast cases (N >= 2) run under a workspace limit that fits fewer
// images than N, so the column buffer is reused across passes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include "tests/support/ReferenceConv.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "ops/direct_rows/DirectRowsConfig.hpp"
#include "ops/Implementations.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "ops/winograd/WinogradConfig.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

constexpr int kCases = 2000;
constexpr std::uint64_t kSeed = 20261122;

struct Draw {
    ConvShapes shapes;
    Kernel kernel = Kernel::CONV2D_NAIVE;
    Variant variant;
    std::optional<std::size_t> workspace_limit_bytes;
};

std::int64_t uniform(std::mt19937_64& rng, std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
}

// A shape Winograd can take: 3x3, stride 1, dilation 1; everything else drawn
// (ragged tiles, 1x1 and 2x2 images, padding 0..2, groups, K off the blocks).
ConvShapes winograd_shape(std::mt19937_64& rng) {
    ConvShapes s;
    s.R = s.S = 3;
    s.N = uniform(rng, 1, 3);
    s.groups = uniform(rng, 0, 4) == 0 ? 2 : 1;
    s.C = s.groups * uniform(rng, 1, 6);
    s.K = s.groups * uniform(rng, 1, 9);
    const std::int64_t ph = uniform(rng, 0, 2), pw = uniform(rng, 0, 3) == 0 ? uniform(rng, 0, 2) : ph;
    if (uniform(rng, 0, 3) == 0) {
        s.set_padding(uniform(rng, 0, 2), uniform(rng, 0, 2), uniform(rng, 0, 2), uniform(rng, 0, 2));
    } else {
        s.set_padding(ph, pw);
    }
    s.H = uniform(rng, std::max<std::int64_t>(1, 3 - s.pad_top - s.pad_bottom), 13);
    s.W = uniform(rng, std::max<std::int64_t>(1, 3 - s.pad_left - s.pad_right), 13);
    s.bias = uniform(rng, 0, 1) == 1;
    return s;
}

// A Winograd layer past the variant's blocks: C in (BC, 2.5 BC], K in
// (BK, 2.5 BK], on small images so the cost stays in the channels.
ConvShapes winograd_multi_block_shape(std::mt19937_64& rng, const WinogradVariant& variant) {
    const WinogradConfig b = winograd_config(variant, test::shared_context()->profile());
    ConvShapes s;
    s.R = s.S = 3;
    s.N = uniform(rng, 1, 2);
    s.C = uniform(rng, b.block_c + 1, b.block_c * 5 / 2);
    s.K = uniform(rng, b.block_k + 1, b.block_k * 5 / 2);
    s.set_padding(uniform(rng, 0, 1));
    s.H = uniform(rng, 3, 7);
    s.W = uniform(rng, 3, 7);
    s.bias = uniform(rng, 0, 1) == 1;
    return s;
}

// One combination that the strategy can take on this device (why_not() is
// asked; a refused draw is drawn again, so every case runs).
Draw draw_case(std::mt19937_64& rng, const DeviceProfile& profile, int& refused) {
    for (;;) {
        Draw d;
        const auto pick = uniform(rng, 0, 9);
        if (pick < 4) {
            d.kernel = Kernel::CONV2D_NAIVE;
            d.shapes = test::random_small_shape(rng);
            if (uniform(rng, 0, 3) == 0) {
                // direct-rows: ungrouped, bias on and column strides 1-2 (its builds, one per filter
                // width and column stride, stay few); a third in passes of fewer images.
                d.variant = Variant("direct-rows");
                d.shapes.C /= d.shapes.groups, d.shapes.K /= d.shapes.groups, d.shapes.groups = 1;
                d.shapes.bias = true;
                d.shapes.stride_w = std::min<std::int64_t>(d.shapes.stride_w, 2);
                if (d.shapes.N >= 2 && uniform(rng, 0, 2) == 0) {
                    const std::size_t per_image = direct_rows_config(d.shapes, profile).split_bytes_per_image;
                    d.workspace_limit_bytes = per_image * static_cast<std::size_t>(uniform(rng, 1, d.shapes.N - 1));
                }
            } else {
                d.variant = Variant("naive");
            }
        } else if (pick < 6) {
            // Any IM2COL variant: im2col + CLBlast, the 1x1 GEMM (on the draw
            // made 1x1, stride 1, unpadded), the implicit GEMM.
            d.kernel = Kernel::IM2COL;
            const auto im2col_variants = variants_of(Kernel::IM2COL, ConvDirection::FORWARD);
            d.variant = im2col_variants[static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(im2col_variants.size()) - 1))];
            d.shapes = test::random_small_shape(rng);
            if (d.variant.id == "gemm-1x1") {
                d.shapes.R = d.shapes.S = 1, d.shapes.stride_h = d.shapes.stride_w = 1;
                d.shapes.set_padding(0);
            }
            if (d.variant.id == "im2col-clblast" && d.shapes.N >= 2 && uniform(rng, 0, 2) == 0) {
                // Room for 1 .. N-1 images' columns: several passes over one buffer.
                const std::size_t per_image = im2col_layout(d.shapes).columns_per_image_bytes;
                if (per_image > 0) d.workspace_limit_bytes = per_image * static_cast<std::size_t>(uniform(rng, 1, d.shapes.N - 1));
            }
        } else if (pick < 9) {
            d.kernel = Kernel::CONV2D_WINOGRAD;
            const WinogradVariant v{2 * static_cast<int>(uniform(rng, 1, 3)), 3, uniform(rng, 0, 1) == 1, uniform(rng, 0, 1) == 1};
            d.variant = v.variant();
            d.shapes = uniform(rng, 0, 2) == 0 ? winograd_multi_block_shape(rng, v) : winograd_shape(rng);
        } else {
            // Separate transforms: ungrouped; a third under a workspace limit
            // that fits a few tiles per pass.
            d.kernel = Kernel::CONV2D_WINOGRAD;
            const auto& gemm_variants = winograd_gemm_variants();  // F(2x2), F(4x4), F(6x6); 5x5: F(4x4), F(9x9)
            d.variant = gemm_variants[static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(gemm_variants.size()) - 1))];
            d.shapes = winograd_shape(rng);
            d.shapes.C /= d.shapes.groups, d.shapes.K /= d.shapes.groups, d.shapes.groups = 1;
            if (winograd_gemm_tile(d.variant)->r == 5) {  // 5x5, any padding 0..2 per side, images from 1x1 to past a 9x9 tile
                d.shapes.R = d.shapes.S = 5;
                // Drawn one by one: argument evaluation order is unspecified, and a seed must give one draw.
                const std::int64_t top = uniform(rng, 0, 2), left = uniform(rng, 0, 2);
                const std::int64_t bottom = uniform(rng, 0, 2), right = uniform(rng, 0, 2);
                d.shapes.set_padding(top, left, bottom, right);
                d.shapes.H = uniform(rng, std::max<std::int64_t>(1, 5 - d.shapes.pad_top - d.shapes.pad_bottom), 14);
                d.shapes.W = uniform(rng, std::max<std::int64_t>(1, 5 - d.shapes.pad_left - d.shapes.pad_right), 14);
            }
            if (uniform(rng, 0, 2) == 0) {
                const int alpha = winograd_gemm_tile(d.variant)->alpha();
                const auto per_tile = static_cast<std::size_t>((d.shapes.C + d.shapes.K) * alpha * alpha) * sizeof(float);
                d.workspace_limit_bytes = per_tile * static_cast<std::size_t>(uniform(rng, 1, 5));
            }
        }
        DeviceProfile limited = profile;
        if (d.workspace_limit_bytes) {
            limited.tuned["im2col_workspace_limit_bytes"] = static_cast<double>(*d.workspace_limit_bytes);
            limited.tuned["winograd_gemm_workspace_limit_bytes"] = static_cast<double>(*d.workspace_limit_bytes);
            limited.tuned["direct_rows_workspace_limit_bytes"] = static_cast<double>(*d.workspace_limit_bytes);
        }
        if (!why_not(d.variant, d.shapes, limited)) return d;
        ++refused;
    }
}

TEST(FuzzShapes, RandomCombinationsMatchTheReference) {
    const auto& profile = test::shared_context()->profile();
    const char* only = std::getenv("NETCL_FUZZ_CASE");
    const int only_case = only ? std::atoi(only) : -1;
    const char* seed_env = std::getenv("NETCL_FUZZ_SEED");  // another draw of 2000, e.g. to hunt races
    const std::uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : kSeed;
    std::mt19937_64 rng(seed);
    int refused = 0, failures = 0, ran = 0;
    std::map<std::string, int> per_plan;
    double worst_ratio = 0;
    std::string worst;
    for (int i = 0; i < kCases; ++i) {
        const Draw d = draw_case(rng, profile, refused);
        if (only_case >= 0 && i != only_case) continue;
        test::ConvCaseOptions options;
        options.strategy = d.kernel;
        options.variant = d.variant;
        options.seed = seed + static_cast<std::uint64_t>(i);
        options.workspace_limit_bytes = d.workspace_limit_bytes;
        options.tolerance_factor = tolerance_factor(d.variant);
        const auto result = test::run_conv_case(d.shapes, options);
        ++ran;
        const auto wino = winograd_variant(d.variant);
        ++per_plan[to_string(d.kernel) + " " + d.variant.id + (d.workspace_limit_bytes ? " (workspace limit)" : "") +
                   (wino && d.shapes.C > winograd_config(*wino, profile).block_c ? " (multi-block)" : "")];
        if (d.workspace_limit_bytes) {
            EXPECT_LE(result.workspace_bytes, *d.workspace_limit_bytes) << "case " << i;
            if (d.variant.id == "im2col-clblast") {
                EXPECT_LT(result.workspace_bytes, im2col_layout(d.shapes).columns_per_image_bytes * static_cast<std::size_t>(d.shapes.N))
                    << "case " << i << ": the limit should force more than one pass";
            }
        }
        const double ratio = result.max_abs_error / result.tolerance;
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            worst = "case " + std::to_string(i) + ": " + test::describe(d.shapes, result);
        }
        if (!result.passed()) {
            ++failures;
            ADD_FAILURE() << "fuzz case " << i << " (re-run alone with NETCL_FUZZ_CASE=" << i
                          << "): " << test::describe(d.shapes, result)
                          << " variant " << d.variant.id;
            if (failures >= 20) break;  // enough to act on; keep the log readable
        }
    }
    std::printf("fuzz: %d cases run (seed %llu), %d failed, %d draws refused by why_not and redrawn\n", ran,
                static_cast<unsigned long long>(seed), failures, refused);
    for (const auto& [plan, count] : per_plan) std::printf("  %5d  %s\n", count, plan.c_str());
    std::printf("fuzz: largest error / tolerance %.3f at %s\n", worst_ratio, worst.c_str());
    EXPECT_EQ(ran, only_case >= 0 ? 1 : kCases);
}

}  // namespace
}  // namespace netcl
