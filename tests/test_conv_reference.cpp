// The fp64 reference itself, on cases small enough to work out by hand, so the
// strategies' suites compare against something known to be right.
#include <gtest/gtest.h>

#include <random>

#include "tests/support/ConvCase.hpp"

#include "tests/support/ReferenceConv.hpp"
#include "netcl/Error.hpp"

namespace netcl {
namespace {

ConvShapes one_channel(std::int64_t H, std::int64_t W, std::int64_t R, std::int64_t S) {
    ConvShapes s;
    s.H = H, s.W = W, s.R = R, s.S = S;
    return s;
}

TEST(ReferenceConv, HandComputedValidConvolution) {
    // x = [1 2 3; 4 5 6; 7 8 9], w = [1 0; 0 -1]: y[p][q] = x[p][q] - x[p+1][q+1] = -4 everywhere.
    const ConvShapes s = one_channel(3, 3, 2, 2);
    const auto y = reference_conv(s, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 0, 0, -1}, {});
    EXPECT_EQ(y, (std::vector<double>{-4, -4, -4, -4}));
}

TEST(ReferenceConv, PaddingStrideDilationAndBias) {
    // 1x3x3 input 1..9, 1x1 filter weight 2, bias 0.5, pad 1, stride 2: a 3x3
    // output reading x at rows/cols -1, 1, 3; only x[1][1] = 5 is inside.
    ConvShapes s = one_channel(3, 3, 1, 1);
    s.set_padding(1), s.stride_h = s.stride_w = 2, s.bias = true;
    EXPECT_EQ(reference_conv(s, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2}, {0.5f}),
              (std::vector<double>{0.5, 0.5, 0.5, 0.5, 10.5, 0.5, 0.5, 0.5, 0.5}));
    // 2x2 filter of ones, dilation 2 on a 3x3 input: corners 1 + 3 + 7 + 9 = 20.
    ConvShapes d = one_channel(3, 3, 2, 2);
    d.dilation_h = d.dilation_w = 2;
    EXPECT_EQ(reference_conv(d, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 1, 1}, {}), (std::vector<double>{20}));
}

TEST(ReferenceConv, GroupsOnlySeeTheirOwnChannels) {
    // C = 2, K = 2, groups = 2, 1x1 filters [3] and [5]: y0 = 3·x0, y1 = 5·x1.
    ConvShapes s = one_channel(1, 2, 1, 1);
    s.C = 2, s.K = 2, s.groups = 2;
    EXPECT_EQ(reference_conv(s, {1, 2, 10, 20}, {3, 5}, {}), (std::vector<double>{3, 6, 50, 100}));
}

TEST(ReferenceConv, SampledMatchesFullAndChecksIndices) {
    ConvShapes s = one_channel(5, 4, 3, 2);
    s.N = 2, s.C = 2, s.K = 3, s.pad_top = s.pad_bottom = 1, s.bias = true;
    std::vector<float> x(static_cast<std::size_t>(s.input_numel())), w(static_cast<std::size_t>(s.weight_numel()));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) - 2.0f;
    const std::vector<float> b{1, -2, 3};
    const auto full = reference_conv(s, x, w, b);
    const auto indices = sample_output_indices(s, 10, 3);
    ASSERT_EQ(indices.size(), 10u);
    EXPECT_EQ(indices.front(), 0u);
    EXPECT_EQ(indices[1], full.size() - 1);
    const auto sampled = reference_conv_sampled(s, x, w, b, indices);
    for (std::size_t i = 0; i < indices.size(); ++i) EXPECT_EQ(sampled[i], full[indices[i]]);
    EXPECT_THROW(reference_conv_at(s, x, w, b, full.size()), Error);
    EXPECT_THROW(reference_conv(s, x, {1, 2}, b), Error);
}

TEST(ReferenceConv, HandComputedGradients) {
    // x = [1 2 3; 4 5 6; 7 8 9], w = [1 0; 0 -1], dy = [1 2; 3 4] (2x2 output):
    // dx[h][w] = sum dy[p][q] w[h-p][w-q]: dy placed once as is, once negated
    // one step down and right.
    const ConvShapes s = one_channel(3, 3, 2, 2);
    EXPECT_EQ(reference_conv_backward_data(s, {1, 2, 3, 4}, {1, 0, 0, -1}),
              (std::vector<double>{1, 2, 0, 3, 3, -2, 0, -3, -4}));
    // dw[r][t] = sum dy[p][q] x[p+r][q+t]; db = sum dy = 10.
    ConvShapes b = s;
    b.bias = true;
    const WeightGradients g = reference_conv_backward_weights(b, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4});
    EXPECT_EQ(g.dw, (std::vector<double>{1 + 4 + 12 + 20, 2 + 6 + 15 + 24, 4 + 10 + 21 + 32, 5 + 12 + 24 + 36}));
    EXPECT_EQ(g.db, (std::vector<double>{10}));
    // Stride 2 and padding 1 on a 1x1 filter: dx takes dy where a tap read x, 0 elsewhere.
    ConvShapes strided = one_channel(3, 3, 1, 1);
    strided.set_padding(1), strided.stride_h = strided.stride_w = 2;
    EXPECT_EQ(reference_conv_backward_data(strided, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2}),
              (std::vector<double>{0, 0, 0, 0, 10, 0, 0, 0, 0}));
    EXPECT_THROW(reference_conv_backward_data(s, {1, 2, 3}, {1, 0, 0, -1}), Error);
    EXPECT_THROW(reference_conv_backward_weights(s, {1, 2}, {1, 2, 3, 4}), Error);
}

// The three directions are one bilinear form read three ways:
// <conv(x, w), dy> = <x, dgrad(dy, w)> = <w, wgrad(x, dy)>, and db = sum dy,
// on random shapes with every parameter (stride, dilation, groups, uneven padding).
TEST(ReferenceConv, GradientsAreTheForwardSumsAdjoint) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 60; ++i) {
        ConvShapes s = test::random_small_shape(rng);
        s.bias = false;
        const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 10 * i + 1);
        const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 10 * i + 2);
        const auto dy = random_uniform(static_cast<std::size_t>(s.output_numel()), 10 * i + 3);
        const auto dot = [](const auto& a, const auto& b) {
            double sum = 0;
            for (std::size_t j = 0; j < a.size(); ++j) sum += static_cast<double>(a[j]) * static_cast<double>(b[j]);
            return sum;
        };
        const double forward = dot(reference_conv(s, x, w, {}), dy);
        const double data = dot(reference_conv_backward_data(s, dy, w), x);
        const auto g = reference_conv_backward_weights(s, x, dy);
        const double weights = dot(g.dw, w);
        const double scale = 1e-9 * (1 + std::abs(forward));
        EXPECT_NEAR(data, forward, scale) << s.str();
        EXPECT_NEAR(weights, forward, scale) << s.str();
        EXPECT_TRUE(g.db.empty());
        s.bias = true;
        double total = 0;
        for (const float v : dy) total += v;
        double bias_total = 0;
        for (const double v : reference_conv_backward_weights(s, x, dy).db) bias_total += v;
        EXPECT_NEAR(bias_total, total, 1e-9 * (1 + std::abs(total))) << s.str();
    }
}

// The one-element gradients (netcl-bench's sampled check) equal the whole ones.
TEST(ReferenceConv, GradientElementsMatchTheWholeGradients) {
    std::mt19937_64 rng(11);
    for (int i = 0; i < 40; ++i) {
        const ConvShapes s = test::random_small_shape(rng);
        const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 5 * i + 1);
        const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 5 * i + 2);
        const auto dy = random_uniform(static_cast<std::size_t>(s.output_numel()), 5 * i + 3);
        const auto dx = reference_conv_backward_data(s, dy, w);
        for (std::size_t j = 0; j < dx.size(); ++j) {
            ASSERT_NEAR(reference_conv_backward_data_at(s, dy, w, j), dx[j], 1e-12) << s.str() << " dx " << j;
        }
        const auto g = reference_conv_backward_weights(s, x, dy);
        for (std::size_t j = 0; j < g.dw.size(); ++j) {
            ASSERT_NEAR(reference_conv_backward_weights_at(s, x, dy, j), g.dw[j], 1e-12) << s.str() << " dw " << j;
        }
        for (std::size_t j = 0; j < g.db.size(); ++j) {
            ASSERT_NEAR(reference_conv_backward_weights_at(s, x, dy, g.dw.size() + j), g.db[j], 1e-12) << s.str();
        }
        EXPECT_THROW(reference_conv_backward_data_at(s, dy, w, dx.size()), Error);
        EXPECT_THROW(reference_conv_backward_weights_at(s, x, dy, g.dw.size() + g.db.size()), Error);
    }
}

TEST(ReferenceConv, ToleranceScalesWithReductionLength) {
    ConvShapes a = one_channel(8, 8, 3, 3);
    ConvShapes b = a;
    b.C = 64;
    EXPECT_DOUBLE_EQ(conv_tolerance(a), 9 * kConvTolerancePerTerm);
    EXPECT_DOUBLE_EQ(conv_tolerance(b), 64 * 9 * kConvTolerancePerTerm);
    EXPECT_DOUBLE_EQ(conv_tolerance(b, 10.0), 10 * conv_tolerance(b));
    // Backward data reduces over K/groups·R·S, backward weights over N·P·Q.
    ConvShapes c = b;
    c.K = 12, c.N = 2, c.set_padding(1);
    EXPECT_DOUBLE_EQ(conv_tolerance(c.in_direction(ConvDirection::BACKWARD_DATA)), 12 * 9 * kConvTolerancePerTerm);
    EXPECT_DOUBLE_EQ(conv_tolerance(c.in_direction(ConvDirection::BACKWARD_WEIGHTS)),
                     2 * 8 * 8 * kConvTolerancePerTerm);
}

}  // namespace
}  // namespace netcl
