// The Toom-Cook / Vandermonde generator against Lavin & Gray's printed
// matrices and against direct 1-D correlation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "ops/winograd/WinogradConditioning.hpp"
#include "ops/winograd/WinogradMatrices.hpp"
#include "netcl/Error.hpp"

namespace netcl {
namespace {

// Lavin & Gray eq. 7, F(2,3).
const std::vector<double> kLavinBT2 = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
const std::vector<double> kLavinG2 = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
const std::vector<double> kLavinAT2 = {1, 1, 1, 0, 0, 1, -1, -1};

// Lavin & Gray eq. 15, F(4,3).
const std::vector<double> kLavinBT4 = {4, 0, -5, 0, 1, 0,  0, -4, -4, 1, 1, 0, 0, 4, -4, -1, 1, 0,
                                       0, -2, -1, 2, 1, 0, 0, 2, -1, -2, 1, 0, 0, 4, 0, -5, 0, 1};
const std::vector<double> kLavinG4 = {1.0 / 4,  0,        0,       -1.0 / 6, -1.0 / 6, -1.0 / 6,
                                      -1.0 / 6, 1.0 / 6,  -1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6,
                                      1.0 / 24, -1.0 / 12, 1.0 / 6, 0,        0,        1};
const std::vector<double> kLavinAT4 = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};

void expect_equal(const std::vector<double>& actual, const std::vector<double>& expected, const char* name) {
    ASSERT_EQ(actual.size(), expected.size()) << name;
    for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-15) << name << "[" << i << "]";
}

// Rows of `actual` (rows x cols) equal rows of `expected` up to one non-zero
// factor per row: the diagonal scaling S_Y, S_X, S_W the construction allows.
// Columns of AT are the rows of the transform scaled by S_Y, so AT is checked
// transposed (per column).
void expect_equal_up_to_row_scaling(const std::vector<double>& actual, const std::vector<double>& expected, int rows,
                                    int cols, bool per_column, const char* name) {
    const int outer = per_column ? cols : rows, inner = per_column ? rows : cols;
    for (int o = 0; o < outer; ++o) {
        auto at = [&](const std::vector<double>& v, int i) {
            return per_column ? v[static_cast<std::size_t>(i * cols + o)] : v[static_cast<std::size_t>(o * cols + i)];
        };
        double factor = 0;
        for (int i = 0; i < inner && factor == 0; ++i)
            if (at(expected, i) != 0) factor = at(actual, i) / at(expected, i);
        ASSERT_NE(factor, 0) << name << " line " << o << " is zero where Lavin's is not";
        for (int i = 0; i < inner; ++i) EXPECT_NEAR(at(actual, i), factor * at(expected, i), 1e-12) << name << " line " << o;
    }
}

TEST(WinogradMatrices, PresetsReproduceLavinExactly) {
    const auto f2 = lavin_gray_matrices(2);
    EXPECT_EQ(f2.alpha, 4);
    expect_equal(f2.BT, kLavinBT2, "BT F(2,3)");
    expect_equal(f2.G, kLavinG2, "G F(2,3)");
    expect_equal(f2.AT, kLavinAT2, "AT F(2,3)");
    EXPECT_EQ(winograd_matrices(2, 3).BT, f2.BT);  // netcl's F(2x2,3x3) is theirs
    const auto f4 = lavin_gray_matrices(4);
    EXPECT_EQ(f4.alpha, 6);
    expect_equal(f4.BT, kLavinBT4, "BT F(4,3)");
    expect_equal(f4.G, kLavinG4, "G F(4,3)");
    expect_equal(f4.AT, kLavinAT4, "AT F(4,3)");
}

TEST(WinogradMatrices, UnscaledGeneratorMatchesLavinUpToDiagonalScaling) {
    const std::vector<WinogradPoint> lavin4 = {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {2, 1, 1}, {-2, 1, 1}, {1, 1, 0}};
    for (int m : {2, 4}) {
        const auto w = generate_winograd_matrices(m, 3, m == 2 ? winograd_points(2, 3) : lavin4);
        const auto& bt = m == 2 ? kLavinBT2 : kLavinBT4;
        const auto& g = m == 2 ? kLavinG2 : kLavinG4;
        const auto& at = m == 2 ? kLavinAT2 : kLavinAT4;
        expect_equal_up_to_row_scaling(w.BT, bt, w.alpha, w.alpha, false, "BT");
        expect_equal_up_to_row_scaling(w.G, g, w.alpha, 3, false, "G");
        expect_equal_up_to_row_scaling(w.AT, at, m, w.alpha, true, "AT");
    }
}

// AT [(G g) .* (BT d)] against y_i = sum_j d_(i+j) g_j in double precision.
void expect_correlation(const WinogradMatrices& w, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> d(static_cast<std::size_t>(w.tile)), g(static_cast<std::size_t>(w.r));
        for (auto& v : d) v = dist(rng);
        for (auto& v : g) v = dist(rng);
        std::vector<double> product(static_cast<std::size_t>(w.alpha));
        for (int i = 0; i < w.alpha; ++i) {
            double gg = 0, bd = 0;
            for (int j = 0; j < w.r; ++j) gg += w.g(i, j) * g[static_cast<std::size_t>(j)];
            for (int j = 0; j < w.tile; ++j) bd += w.bt(i, j) * d[static_cast<std::size_t>(j)];
            product[static_cast<std::size_t>(i)] = gg * bd;
        }
        for (int i = 0; i < w.m; ++i) {
            double y = 0, direct = 0;
            for (int j = 0; j < w.alpha; ++j) y += w.at(i, j) * product[static_cast<std::size_t>(j)];
            for (int j = 0; j < w.r; ++j) direct += d[static_cast<std::size_t>(i + j)] * g[static_cast<std::size_t>(j)];
            EXPECT_NEAR(y, direct, 1e-13) << "F(" << w.m << "," << w.r << ") output " << i;
        }
    }
}

TEST(WinogradMatrices, OneDimensionalAlgorithmEqualsDirectCorrelation) {
    expect_correlation(winograd_matrices(2, 3), 1);
    expect_correlation(winograd_matrices(4, 3), 2);
    expect_correlation(lavin_gray_matrices(4), 12);
    expect_correlation(generate_winograd_matrices(2, 3, winograd_points(2, 3)), 3);
    expect_correlation(generate_winograd_matrices(4, 3, winograd_points(4, 3)), 4);
    // Other points and tiles come from the same generator: F(3,2), F(6,3) with 1/2 points.
    expect_correlation(generate_winograd_matrices(3, 2, winograd_points(2, 3)), 5);
    expect_correlation(generate_winograd_matrices(
                           6, 3, {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {2, 1, 1}, {-2, 1, 1}, {1, 2, 1}, {-1, 2, 1}, {1, 1, 0}}),
                       6);
}

// The weight gradient's tiles (Lavin & Gray section 4.2): F(3,2), whose
// unscaled matrices are their eq. 14 up to the diagonal scalings, and
// F(3,4); both as the kernels get them (scaled) correlate exactly.
TEST(WinogradMatrices, WeightGradientTilesMatchLavinAndCorrelate) {
    const std::vector<double> bt = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, -1, 0, 1};
    const std::vector<double> g = {1, 0, 0.5, 0.5, 0.5, -0.5, 0, 1};
    const std::vector<double> at = {1, 1, 1, 0, 0, 1, -1, 0, 0, 1, 1, 1};
    const auto w = generate_winograd_matrices(3, 2, winograd_points(3, 2));
    ASSERT_EQ(w.alpha, 4);
    expect_equal_up_to_row_scaling(w.BT, bt, 4, 4, false, "BT F(3,2)");
    expect_equal_up_to_row_scaling(w.G, g, 4, 2, false, "G F(3,2)");
    expect_equal_up_to_row_scaling(w.AT, at, 3, 4, true, "AT F(3,2)");
    expect_correlation(winograd_matrices(3, 2), 21);
    expect_correlation(winograd_matrices(3, 4), 22);
    EXPECT_EQ(winograd_matrices(3, 4).alpha, 6);
}

// Quadratic factors: each adds three products (Karatsuba) for two degrees of
// the modulus; BT has alpha rows over the tile's m + r - 1 inputs.
TEST(WinogradMatrices, QuadraticFactorsGiveACorrelationWithThreeProductsEach) {
    const auto f2 = generate_winograd_matrices(2, 3, {{0, 1, 1}, {1, 1, 0}}, {}, {}, {{0, 1, 1, 1}});  // 0, inf, x^2 + 1
    EXPECT_EQ(f2.alpha, 5);
    EXPECT_EQ(f2.tile, 4);
    expect_correlation(f2, 14);
    // x^2 - x/2 + 1/4 (not monic in integers) and a point in place of infinity.
    expect_correlation(generate_winograd_matrices(4, 3, {{0, 1, 1}, {1, 1, 1}}, {}, {}, {{1, 1, 1, 1}, {-1, 2, 1, 4}}), 15);
    const auto f9 = winograd_matrices(9, 5, /*scaled=*/false);
    EXPECT_EQ(f9.alpha, 16);
    EXPECT_EQ(f9.tile, 13);
    // Why F(9x9,5x5) takes them: with 13 real points X^T's entries reach 92
    // and Y^T's 6561 (0, +-1, +-1/2, +-2, +-3, +-4/5, 1/4); with +-1, +-1/2,
    // +-2 and the three factors, 4 and 256 (+-2 to the 8th).
    double largest_bt = 0, largest_at = 0;
    for (const double v : f9.BT) largest_bt = std::max(largest_bt, std::fabs(v));
    for (const double v : f9.AT) largest_at = std::max(largest_at, std::fabs(v));
    EXPECT_LE(largest_bt, 4);
    EXPECT_EQ(largest_at, 256);
}

TEST(WinogradMatrices, FiveByFiveTilesEqualDirectCorrelation) {
    expect_correlation(winograd_matrices(4, 5), 7);
    expect_correlation(winograd_matrices(5, 5), 12);
    expect_correlation(winograd_matrices(5, 5, /*scaled=*/false), 13);
    expect_correlation(winograd_matrices(9, 5), 8);
    expect_correlation(winograd_matrices(9, 5, /*scaled=*/false), 9);
    expect_correlation(generate_winograd_matrices(9, 5, vincent_f9_r5_points(), vincent_f9_r5_output_scaling()), 10);
    expect_correlation(winograd_matrices(6, 3), 11);
}

// Vincent et al. section 3: their F(9x9,5x5) points give condition numbers
// 36279 / 113237696 / 64 for Y, X, W unscaled and 125 / 2094 / 64 with their
// hand-picked S_Y. The generator reproduces both (the paper rounds X's to 6
// digits of a float computation), and netcl's rule beats the hand-picked
// scaling on Y and X.
TEST(WinogradConditioning, ReproducesVincentEtAlAndTheRuleBeatsTheirScaling) {
    const auto points = vincent_f9_r5_points();
    const auto unscaled = condition_numbers(generate_winograd_matrices(9, 5, points));
    EXPECT_NEAR(unscaled.Y, 36279, 1);
    EXPECT_NEAR(unscaled.X, 113237696, 113237696 * 1e-6);
    EXPECT_NEAR(unscaled.W, 64, 0.5);
    const auto paper = condition_numbers(generate_winograd_matrices(9, 5, points, vincent_f9_r5_output_scaling()));
    EXPECT_NEAR(paper.Y, 125, 0.5);
    EXPECT_NEAR(paper.X, 2094, 0.5);
    EXPECT_NEAR(paper.W, 64, 0.5);
    const auto rule_scaling = power_of_two_output_scaling(generate_winograd_matrices(9, 5, points));
    const auto rule = condition_numbers(generate_winograd_matrices(9, 5, points, rule_scaling));
    EXPECT_LT(rule.Y, paper.Y);
    EXPECT_LT(rule.X, paper.X);
    EXPECT_NEAR(rule.W, 64, 0.5);  // S_W = I
    // Every scale is a power of two, so the scaled transforms round exactly as the unscaled ones.
    for (const auto& s : rule_scaling) {
        const std::int64_t p = s.num == 1 ? s.den : s.num;
        EXPECT_TRUE(s.num == 1 || s.den == 1);
        EXPECT_EQ(p & (p - 1), 0) << s.num << "/" << s.den;
    }
    // Lavin & Gray's F(4x4,3x3) for scale: its input transform is well conditioned.
    EXPECT_LT(condition_numbers(lavin_gray_matrices(4)).X, 100);
}

TEST(WinogradMatrices, RejectsBadInput) {
    EXPECT_THROW(winograd_matrices(3, 3), Error);
    EXPECT_THROW(winograd_matrices(9, 3), Error);
    EXPECT_THROW(winograd_matrices(6, 5), Error);
    EXPECT_THROW(generate_winograd_matrices(2, 3, {{0, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 0}}), Error);  // repeated
    EXPECT_THROW(generate_winograd_matrices(2, 3, {{0, 1, 1}, {1, 1, 1}, {1, 1, 0}}), Error);             // too few
    EXPECT_THROW(generate_winograd_matrices(2, 3, winograd_points(2, 3), {{1}, {0}, {1}, {1}}), Error);   // zero scale
    // x^2 - 1 shares the root 1 with a point; one factor too many for the degrees.
    EXPECT_THROW(generate_winograd_matrices(2, 3, {{0, 1, 1}, {1, 1, 1}}, {}, {}, {{0, 1, -1, 1}}), Error);
    EXPECT_THROW(generate_winograd_matrices(2, 3, {{0, 1, 1}, {1, 1, 0}}, {}, {}, {{0, 1, 1, 1}, {1, 1, 1, 1}}), Error);
}

}  // namespace
}  // namespace netcl
