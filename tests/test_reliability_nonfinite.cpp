// NaN and ±Inf in the input: no strategy may turn a non-finite value into a
// finite one. For every output the fp64 reference makes non-finite, every
// strategy and variant must give a non-finite output too; and where the
// reference is finite and a strategy's output is finite as well, it must
// still be right (within conv_tolerance). Strategies may make MORE outputs
// non-finite than the reference: Winograd's input transform B^T d B mixes a
// whole alpha x alpha input tile into every transform element, so one Inf
// reaches outputs of its tile whose 3x3 window never touches it, and an
// Inf·0 or Inf - Inf inside the transforms becomes NaN. Those counts are
// printed for the README: "extra" = reference finite, output not;
// "Inf->NaN" = reference ±Inf, output NaN. The direct sums (NAIVE, IM2COL)
// must reproduce the reference exactly, as the README says: no extra
// non-finite output, and each non-finite output the same NaN, +Inf or -Inf
// as the reference's (a bound masked by multiplying with 0 would turn an
// Inf it reads into NaN, and is caught here).
//
// Finite inputs never give a non-finite output: asserted here for each
// strategy on the same data without the specials, and on 2000 random shapes
// by tests/test_fuzz_shapes.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "netcl/Conv2d.hpp"
#include "ops/Implementations.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

struct Strategy {
    Kernel kernel;
    Variant variant;
    std::string name() const { return to_string(kernel) + " " + variant.id; }
    // A direct sum over the window: it must reproduce the reference's non-finite outputs exactly.
    bool direct() const { return kernel != Kernel::CONV2D_WINOGRAD; }
};


// 3x3 stride 1 (every strategy takes it), odd sizes, padding 1, bias, N = 2.
ConvShapes layer_shape() {
    ConvShapes s;
    s.N = 2, s.C = 3, s.H = 11, s.W = 13, s.K = 5, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    return s;
}

// Every variant that takes the 3x3 layer above (the 1x1 GEMM does not).
std::vector<Strategy> every_strategy() {
    std::vector<Strategy> all;
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const Variant& v : impl->variants()) {
            if (!why_not(v, layer_shape(), test::shared_context()->profile())) all.push_back({impl->kernel(), v});
        }
    }
    return all;
}


// Sets about `fraction` of x (at seeded positions) to NaN, +Inf or -Inf.
std::vector<float> with_specials(std::vector<float> x, double fraction, bool nan, bool inf, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const float specials[3] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity()};
    for (auto& v : x) {
        if (u(rng) >= fraction) continue;
        const int which = nan && inf ? static_cast<int>(u(rng) * 3) : (nan ? 0 : 1 + static_cast<int>(u(rng) * 2));
        v = specials[which];
    }
    return x;
}

std::vector<float> run(const Strategy& strategy, const ConvShapes& s, const std::vector<float>& x,
                       const std::vector<float>& w, const std::vector<float>& b,
                       std::shared_ptr<Context> ctx = test::shared_context()) {
    Conv2dOptions o = Conv2dOptions::for_shapes(s);
    o.strategy = strategy.kernel;
    o.variant = strategy.variant;
    Conv2d conv(ctx, o);
    conv.set_weights(w, b);
    const Tensor xt = Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W});
    Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
    y.fill(0.0f);  // not NaN: an unwritten output must not pass as "non-finite as expected"
    conv.forward(xt, y);
    return y.to_host();
}

struct Counts {
    std::size_t reference_non_finite = 0, output_non_finite = 0;
    std::size_t finitised = 0;  // reference non-finite, output finite: the defect
    std::size_t extra = 0;      // reference finite, output non-finite
    std::size_t inf_to_nan = 0; // reference ±Inf, output NaN
    std::size_t wrong_finite = 0;
    std::size_t other_class = 0; // both non-finite, but not the same NaN / +Inf / -Inf
    std::size_t first_finitised = 0;
};

// NaN, +Inf or -Inf: what a non-finite value is, as a direct sum must reproduce it.
int special_class(double v) { return std::isnan(v) ? 0 : (v > 0 ? 1 : -1); }

Counts classify(const std::vector<float>& out, const std::vector<double>& ref, double tolerance) {
    Counts c;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const bool ref_finite = std::isfinite(ref[i]), out_finite = std::isfinite(out[i]);
        c.reference_non_finite += !ref_finite;
        c.output_non_finite += !out_finite;
        if (!ref_finite && out_finite && c.finitised++ == 0) c.first_finitised = i;
        if (ref_finite && !out_finite) ++c.extra;
        if (std::isinf(ref[i]) && std::isnan(out[i])) ++c.inf_to_nan;
        if (ref_finite && out_finite && std::abs(out[i] - ref[i]) > tolerance) ++c.wrong_finite;
        if (!ref_finite && !out_finite && special_class(ref[i]) != special_class(out[i])) ++c.other_class;
    }
    return c;
}

void expect_exact_where_direct(const Strategy& strategy, const Counts& c) {
    if (!strategy.direct()) return;
    EXPECT_EQ(c.output_non_finite, c.reference_non_finite) << "a direct sum must give exactly the reference's non-finite outputs";
    EXPECT_EQ(c.extra, 0u) << "finite reference outputs came out non-finite";
    EXPECT_EQ(c.inf_to_nan, 0u) << "reference ±Inf came out NaN";
    EXPECT_EQ(c.other_class, 0u) << "non-finite outputs of another kind (NaN / +Inf / -Inf) than the reference's";
}

void check_specials(bool nan, bool inf, double fraction, std::uint64_t seed) {
    const ConvShapes s = layer_shape();
    const auto clean = test::random_uniform(static_cast<std::size_t>(s.input_numel()), seed);
    const auto x = with_specials(clean, fraction, nan, inf, seed + 100);
    const auto w = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), seed + 1);
    const auto b = test::random_uniform(static_cast<std::size_t>(s.K), seed + 2);
    const auto ref = reference_conv(s, x, w, b);
    const auto clean_ref = reference_conv(s, clean, w, b);
    for (const auto& strategy : every_strategy()) {
        SCOPED_TRACE(strategy.name());
        const double factor = tolerance_factor(strategy.variant);
        const double tolerance = conv_tolerance(s, factor);
        const Counts c = classify(run(strategy, s, x, w, b), ref, tolerance);
        std::printf("%-55s %s: reference non-finite %zu of %zu; output non-finite %zu; extra %zu; Inf->NaN %zu\n",
                    strategy.name().c_str(), nan && inf ? "NaN+Inf" : (nan ? "NaN" : "Inf"), c.reference_non_finite,
                    ref.size(), c.output_non_finite, c.extra, c.inf_to_nan);
        ASSERT_GT(c.reference_non_finite, 0u) << "the specials reached no output: the test checks nothing";
        EXPECT_EQ(c.finitised, 0u) << "non-finite reference output " << c.first_finitised << " came out finite";
        EXPECT_EQ(c.wrong_finite, 0u) << "finite outputs beyond tolerance " << tolerance;
        expect_exact_where_direct(strategy, c);
        // The same layer on the data without specials: all finite, all right.
        const Counts f = classify(run(strategy, s, clean, w, b), clean_ref, tolerance);
        EXPECT_EQ(f.output_non_finite, 0u) << "finite input gave non-finite output";
        EXPECT_EQ(f.wrong_finite, 0u);
    }
}

TEST(ReliabilityNonFinite, NaNInInputsStaysNaN) { check_specials(true, false, 0.01, 31); }
TEST(ReliabilityNonFinite, InfInInputsStaysNonFinite) { check_specials(false, true, 0.01, 41); }
TEST(ReliabilityNonFinite, MixedNaNAndInf) { check_specials(true, true, 0.03, 51); }

// The implicit GEMM's border taps read a pixel outside the input at a clamped
// address, x[c][0][0] of the launch's first image, and clear it by a mask of
// its bits: NaN and Inf there must reach exactly the reference's outputs
// (those whose window covers (0, 0) of image 0), not every border output of
// every image, a tile a work-item and in blocked tiles.
TEST(ReliabilityNonFinite, SpecialsAtTheImplicitGemmsClampedAddressStayPut) {
    ConvShapes s;
    s.N = 2, s.C = 9, s.H = 9, s.W = 11, s.K = 10, s.R = s.S = 3, s.stride_h = s.stride_w = 2, s.set_padding(1);
    s.bias = true;
    auto x = test::random_uniform(static_cast<std::size_t>(s.input_numel()), 71);
    for (std::int64_t c = 0; c < s.C; ++c) {
        x[static_cast<std::size_t>(c * s.H * s.W)] =
            c % 2 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    }
    const auto w = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 72);
    const auto b = test::random_uniform(static_cast<std::size_t>(s.K), 73);
    const auto ref = reference_conv(s, x, w, b);
    const auto blocked = test::context_with_profile([](DeviceProfile& profile) {
        profile.tuned["implicit_gemm_blocked_tiles"] = 2;
        profile.tuned["implicit_gemm_blocked_min_panel_bytes"] = 0;
        profile.tuned["implicit_gemm_blocked_min_items_per_unit"] = 0;
        profile.tuned["implicit_gemm_blocked_channels"] = 4;
    });
    const Strategy implicit{Kernel::IM2COL, Variant("implicit-gemm")};
    for (const auto& context : {test::shared_context(), blocked}) {
        const Counts c = classify(run(implicit, s, x, w, b, context), ref, conv_tolerance(s));
        ASSERT_GT(c.reference_non_finite, 0u);
        EXPECT_LT(c.reference_non_finite, ref.size() / 4) << "the specials should reach only image 0's corner";
        EXPECT_EQ(c.finitised, 0u) << "non-finite reference output " << c.first_finitised << " came out finite";
        EXPECT_EQ(c.wrong_finite, 0u);
        expect_exact_where_direct(implicit, c);
    }
}

// One NaN weight: every output of that filter whose window covers the tap
// inside the image is NaN in the reference and must be NaN from every strategy.
TEST(ReliabilityNonFinite, NaNWeightStaysNaN) {
    const ConvShapes s = layer_shape();
    const auto x = test::random_uniform(static_cast<std::size_t>(s.input_numel()), 61);
    auto w = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 62);
    w[1 * 27 + 4] = std::numeric_limits<float>::quiet_NaN();  // filter k=1, c=0, centre tap
    const auto b = test::random_uniform(static_cast<std::size_t>(s.K), 63);
    const auto ref = reference_conv(s, x, w, b);
    for (const auto& strategy : every_strategy()) {
        SCOPED_TRACE(strategy.name());
        const double factor = tolerance_factor(strategy.variant);
        const Counts c = classify(run(strategy, s, x, w, b), ref, conv_tolerance(s, factor));
        std::printf("%-55s NaN weight: reference non-finite %zu of %zu; output non-finite %zu; extra %zu\n",
                    strategy.name().c_str(), c.reference_non_finite, ref.size(), c.output_non_finite, c.extra);
        ASSERT_GT(c.reference_non_finite, 0u);
        EXPECT_EQ(c.finitised, 0u) << "non-finite reference output " << c.first_finitised << " came out finite";
        EXPECT_EQ(c.wrong_finite, 0u);
        expect_exact_where_direct(strategy, c);
    }
}

}  // namespace
}  // namespace netcl
