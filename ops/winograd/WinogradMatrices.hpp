#pragma once
#include <cstdint>
#include <vector>

namespace netcl {

// A polynomial point in homogeneous coordinates (f, g) with rational f: the
// point f_num/f_den when g = 1, infinity when (f, g) = (1, 0).
struct WinogradPoint {
    std::int64_t f_num = 0;
    std::int64_t f_den = 1;
    std::int64_t g = 1;  // 1, or 0 for the point at infinity
};

// A quadratic factor x^2 + b x + c of the Toom-Cook modulus, meant for one
// without a rational root (one with two would cost a product more than its
// two points; the generator takes it all the same): a pair of complex
// points (x^2 + 1: +-i; x^2 + x + 1 and x^2 - x + 1: the primitive cube and
// sixth roots of unity). It costs three products (Karatsuba) where two real
// points cost two, and the powers of roots on the unit circle stay there
// where real points beyond +-2 grow as p^(m-1): Barabasz and Gregg's
// "beyond linear polynomials" idea for larger tiles.
struct WinogradQuadratic {
    std::int64_t b_num = 0, b_den = 1;
    std::int64_t c_num = 1, c_den = 1;
};

// The transforms of F(m, r): y = AT [(G g) .* (BT d)] for m outputs of an
// r-tap correlation over tile = m + r - 1 inputs, through alpha products
// (alpha = tile with real points only; each quadratic factor adds one).
// Row-major doubles.
struct WinogradMatrices {
    int m = 0;
    int r = 0;
    int alpha = 0;  // products per dimension: the transformed tile's side
    int tile = 0;   // m + r - 1: the input tile's side
    std::vector<double> AT;  // m x alpha
    std::vector<double> G;   // alpha x r
    std::vector<double> BT;  // alpha x tile

    double at(int i, int j) const { return AT[static_cast<std::size_t>(i * alpha + j)]; }
    double g(int i, int j) const { return G[static_cast<std::size_t>(i * r + j)]; }
    double bt(int i, int j) const { return BT[static_cast<std::size_t>(i * tile + j)]; }
};

// Toom-Cook / Vandermonde construction (Vincent et al. section 2), in exact
// rational arithmetic: AT = V(alpha x m)^T S_Y, BT = S_X V(alpha x alpha)^-T,
// G = S_W V(alpha x r), with S_X = (S_Y S_W)^-1 so the product is exact.
// `points` must be m + r - 1 distinct points; `s_y` and `s_w` are the
// diagonals given as (numerator, denominator) pairs (empty: identity).
// With `quadratics`, the points and the quadratic factors (two degrees each)
// together give m + r - 1 degrees; BT then inverts the map from the
// product polynomial's coefficients to its residues (Chinese remainder
// theorem) instead of a Vandermonde matrix, and each factor's residues of
// the data and the filter are multiplied by Karatsuba's three products.
// Throws netcl::Error on a wrong count, a zero scale, or points and factors
// that share a root (the residues would not determine the product).
struct WinogradScale {
    std::int64_t num = 1;
    std::int64_t den = 1;
};
WinogradMatrices generate_winograd_matrices(int m, int r, const std::vector<WinogradPoint>& points,
                                            const std::vector<WinogradScale>& s_y = {},
                                            const std::vector<WinogradScale>& s_w = {},
                                            const std::vector<WinogradQuadratic>& quadratics = {});

// The points netcl uses. F(2, 3): 0, 1, -1, infinity (Lavin & Gray's eq. 7).
// F(4, 3): 0, 1, -1, -1/2, 2, infinity, not Lavin & Gray's 0, +-1, +-2:
// their max error is 2.3x lower (fp32 simulation, C = 64; Barabasz et al.
// found the same), which brings netcl's F(4x4,3x3) under Lavin & Gray's
// Table 4. F(6, 3) and F(4, 5) (alpha = 8): 0, +-1, +-1/2, +-2, infinity.
// F(9, 5): +-1, +-1/2, +-2, infinity and the quadratic factors of
// winograd_quadratics (alpha = 16; WinogradMatrices.cpp has the search).
// The weight gradient's F(3, 2) and F(3, 4) (Lavin & Gray section 4.2: dy
// the filter, x the data, the 3 filter taps the outputs): F(2, 3)'s and
// F(4, 3)'s points. Throws netcl::Error for any other tile.
std::vector<WinogradPoint> winograd_points(int m, int r);
// The quadratic factors netcl uses beside winograd_points: F(9, 5) only.
std::vector<WinogradQuadratic> winograd_quadratics(int m, int r);
// Lavin & Gray's points for F(2, 3) and F(4, 3) with the scalings Vincent
// et al. list for them: exactly their equations 7 and 15.
WinogradMatrices lavin_gray_matrices(int m);
// Vincent et al.'s F(9x9,5x5) points (section 3): 0, +-1, +-1/2, +-1/3,
// +-3/2, -3, +-2, infinity; their hand-picked S_Y for them, as rationals.
std::vector<WinogradPoint> vincent_f9_r5_points();
std::vector<WinogradScale> vincent_f9_r5_output_scaling();
// The matrices netcl's kernels use: F(2,3) Lavin & Gray's; the others
// scaled by netcl's rule (WinogradConditioning.hpp) unless `scaled` is false.
WinogradMatrices winograd_matrices(int m, int r, bool scaled = true);

}  // namespace netcl
