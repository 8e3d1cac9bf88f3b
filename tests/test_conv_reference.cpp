// The fp64 reference itself, on cases small enough to work out by hand, so the
// strategies' suites compare against something known to be right.
#include <gtest/gtest.h>

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

TEST(ReferenceConv, ToleranceScalesWithReductionLength) {
    ConvShapes a = one_channel(8, 8, 3, 3);
    ConvShapes b = a;
    b.C = 64;
    EXPECT_DOUBLE_EQ(conv_tolerance(a), 9 * kConvTolerancePerTerm);
    EXPECT_DOUBLE_EQ(conv_tolerance(b), 64 * 9 * kConvTolerancePerTerm);
    EXPECT_DOUBLE_EQ(conv_tolerance(b, 10.0), 10 * conv_tolerance(b));
}

}  // namespace
}  // namespace netcl
