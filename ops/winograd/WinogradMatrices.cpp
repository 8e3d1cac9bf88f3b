#include "ops/winograd/WinogradMatrices.hpp"

#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <numeric>
#include <string>

#include "netcl/Error.hpp"
#include "ops/winograd/WinogradConditioning.hpp"

namespace netcl {

namespace {

// Exact rational arithmetic; the matrices of small tiles have small entries,
// so 64-bit parts with 128-bit intermediates never overflow in practice, and
// an overflow is reported rather than silently wrapped.
struct Rational {
    std::int64_t num = 0;
    std::int64_t den = 1;

    static Rational make(__int128 n, __int128 d) {
        NETCL_REQUIRE(d != 0, "Winograd matrix generation divided by zero");
        if (d < 0) n = -n, d = -d;
        __int128 a = n < 0 ? -n : n, b = d;
        while (b != 0) {
            const __int128 t = a % b;
            a = b;
            b = t;
        }
        if (a > 1) n /= a, d /= a;
        const __int128 limit = static_cast<__int128>(INT64_MAX);
        NETCL_REQUIRE(n <= limit && -n <= limit && d <= limit,
                      "Winograd matrix generation overflowed 64-bit rationals; expected smaller polynomial points");
        return {static_cast<std::int64_t>(n), static_cast<std::int64_t>(d)};
    }
    Rational operator+(const Rational& o) const {
        return make(static_cast<__int128>(num) * o.den + static_cast<__int128>(o.num) * den,
                    static_cast<__int128>(den) * o.den);
    }
    Rational operator-(const Rational& o) const { return *this + Rational{-o.num, o.den}; }
    Rational operator*(const Rational& o) const {
        return make(static_cast<__int128>(num) * o.num, static_cast<__int128>(den) * o.den);
    }
    Rational operator/(const Rational& o) const {
        return make(static_cast<__int128>(num) * o.den, static_cast<__int128>(den) * o.num);
    }
    bool zero() const { return num == 0; }
    double value() const { return static_cast<double>(num) / static_cast<double>(den); }
};

using Matrix = std::vector<std::vector<Rational>>;

Rational power(Rational base, int exponent) {
    Rational result{1, 1};
    for (int i = 0; i < exponent; ++i) result = result * base;
    return result;
}

// Trimmed Vandermonde matrix of homogeneous points, Vincent et al. eq. 6:
// row i = [f^0 g^(b-1), f^1 g^(b-2), ..., f^(b-1) g^0].
Matrix vandermonde(const std::vector<WinogradPoint>& points, int b) {
    Matrix v(points.size(), std::vector<Rational>(static_cast<std::size_t>(b)));
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Rational f = Rational::make(points[i].f_num, points[i].f_den);
        const Rational g{points[i].g, 1};
        for (int j = 0; j < b; ++j) v[i][static_cast<std::size_t>(j)] = power(f, j) * power(g, b - 1 - j);
    }
    return v;
}

// Gauss-Jordan inverse; throws when singular (repeated points, or a factor
// sharing a root with a point or another factor).
Matrix inverse(Matrix a) {
    const std::size_t n = a.size();
    Matrix inv(n, std::vector<Rational>(n));
    for (std::size_t i = 0; i < n; ++i) inv[i][i] = {1, 1};
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        while (pivot < n && a[pivot][col].zero()) ++pivot;
        NETCL_REQUIRE(pivot < n, "Winograd polynomial points give a singular Vandermonde matrix; expected distinct points (and quadratic factors without a root in common)");
        std::swap(a[pivot], a[col]);
        std::swap(inv[pivot], inv[col]);
        const Rational p = a[col][col];
        for (std::size_t j = 0; j < n; ++j) a[col][j] = a[col][j] / p, inv[col][j] = inv[col][j] / p;
        for (std::size_t row = 0; row < n; ++row) {
            if (row == col || a[row][col].zero()) continue;
            const Rational factor = a[row][col];
            for (std::size_t j = 0; j < n; ++j) {
                a[row][j] = a[row][j] - factor * a[col][j];
                inv[row][j] = inv[row][j] - factor * inv[col][j];
            }
        }
    }
    return inv;
}

std::vector<Rational> diagonal(const std::vector<WinogradScale>& scale, int alpha, const char* name) {
    if (scale.empty()) return std::vector<Rational>(static_cast<std::size_t>(alpha), Rational{1, 1});
    NETCL_REQUIRE(static_cast<int>(scale.size()) == alpha,
                  std::string("Winograd scaling ") + name + " has " + std::to_string(scale.size()) +
                      " entries; expected alpha = " + std::to_string(alpha));
    std::vector<Rational> d;
    for (const auto& s : scale) {
        NETCL_REQUIRE(s.num != 0, std::string("Winograd scaling ") + name + " has a zero entry; expected non-zero");
        d.push_back(Rational::make(s.num, s.den));
    }
    return d;
}

// x^0 .. x^(n-1) modulo x^2 + b x + c: row 0 their constant terms, row 1
// their x terms, so that row . u is the residue of u's coefficients.
Matrix quadratic_residues(const Rational& b, const Rational& c, int n) {
    Matrix rows(2, std::vector<Rational>(static_cast<std::size_t>(n)));
    Rational constant{1, 1}, linear{0, 1};  // x^k mod the factor
    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
        rows[0][k] = constant;
        rows[1][k] = linear;
        // x (k0 + k1 x) = k0 x + k1 x^2 = -c k1 + (k0 - b k1) x
        const Rational next_constant = Rational{0, 1} - c * linear;
        linear = constant - b * linear;
        constant = next_constant;
    }
    return rows;
}

std::vector<Rational> sum(const std::vector<Rational>& a, const std::vector<Rational>& b) {
    std::vector<Rational> s(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) s[i] = a[i] + b[i];
    return s;
}

}  // namespace

WinogradMatrices generate_winograd_matrices(int m, int r, const std::vector<WinogradPoint>& points,
                                            const std::vector<WinogradScale>& s_y_in,
                                            const std::vector<WinogradScale>& s_w_in,
                                            const std::vector<WinogradQuadratic>& quadratics) {
    NETCL_REQUIRE(m >= 1 && r >= 1, "F(m, r) needs m >= 1 and r >= 1; got m=" + std::to_string(m) + " r=" + std::to_string(r));
    const int tile = m + r - 1;
    const int degrees = static_cast<int>(points.size() + 2 * quadratics.size());
    NETCL_REQUIRE(degrees == tile,
                  "F(" + std::to_string(m) + "," + std::to_string(r) + ") needs " + std::to_string(tile) +
                      " degrees of modulus (a point is one, a quadratic factor two); got " + std::to_string(points.size()) +
                      " points and " + std::to_string(quadratics.size()) + " quadratic factors");
    for (const auto& p : points) {
        NETCL_REQUIRE(p.f_den != 0 && (p.g == 0 || p.g == 1) && (p.g == 1 || p.f_num != 0),
                      "a Winograd polynomial point must be (f, 1) with a non-zero denominator or (1, 0)");
    }
    for (const auto& q : quadratics) {
        NETCL_REQUIRE(q.b_den != 0 && q.c_den != 0, "a Winograd quadratic factor needs non-zero denominators");
    }
    const int alpha = static_cast<int>(points.size() + 3 * quadratics.size());
    const auto s_y = diagonal(s_y_in, alpha, "S_Y");
    const auto s_w = diagonal(s_w_in, alpha, "S_W");

    // Product p multiplies data_form[p] . d by filter_form[p] . g; the
    // product polynomial s (tile coefficients) has residues `residue` . s,
    // each a combination `from_products` of the products.
    Matrix data_form = vandermonde(points, m), filter_form = vandermonde(points, r);
    Matrix residue = vandermonde(points, tile);
    Matrix from_products(static_cast<std::size_t>(tile), std::vector<Rational>(static_cast<std::size_t>(alpha)));
    for (std::size_t i = 0; i < points.size(); ++i) from_products[i][i] = {1, 1};
    for (std::size_t q = 0; q < quadratics.size(); ++q) {
        const Rational b = Rational::make(quadratics[q].b_num, quadratics[q].b_den);
        const Rational c = Rational::make(quadratics[q].c_num, quadratics[q].c_den);
        const auto d = quadratic_residues(b, c, m), f = quadratic_residues(b, c, r), s = quadratic_residues(b, c, tile);
        // (d0 + d1 x)(f0 + f1 x) mod x^2 + b x + c from P1 = d0 f0, P2 = d1 f1,
        // P3 = (d0 + d1)(f0 + f1): constant P1 - c P2, x: P3 - P1 - (1 + b) P2.
        const std::size_t p = points.size() + 3 * q;
        data_form.insert(data_form.end(), {d[0], d[1], sum(d[0], d[1])});
        filter_form.insert(filter_form.end(), {f[0], f[1], sum(f[0], f[1])});
        const std::size_t row = residue.size();
        residue.insert(residue.end(), {s[0], s[1]});
        from_products[row][p] = {1, 1};
        from_products[row][p + 1] = Rational{0, 1} - c;
        from_products[row + 1][p + 2] = {1, 1};
        from_products[row + 1][p] = {-1, 1};
        from_products[row + 1][p + 1] = Rational{-1, 1} - b;
    }
    // The coefficients of s from the products: residue^-1 from_products.
    const Matrix residue_inv = inverse(residue);
    const auto t = static_cast<std::size_t>(tile), a = static_cast<std::size_t>(alpha);
    Matrix coefficients(t, std::vector<Rational>(a));
    for (std::size_t i = 0; i < t; ++i)
        for (std::size_t k = 0; k < t; ++k) {
            if (residue_inv[i][k].zero()) continue;
            for (std::size_t j = 0; j < a; ++j)
                if (!from_products[k][j].zero()) coefficients[i][j] = coefficients[i][j] + residue_inv[i][k] * from_products[k][j];
        }

    WinogradMatrices w;
    w.m = m;
    w.r = r;
    w.alpha = alpha;
    w.tile = tile;
    w.AT.resize(static_cast<std::size_t>(m) * a);
    w.BT.resize(a * t);
    w.G.resize(a * static_cast<std::size_t>(r));
    for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i)
        for (std::size_t j = 0; j < a; ++j) w.AT[i * a + j] = (data_form[j][i] * s_y[j]).value();
    for (std::size_t i = 0; i < a; ++i) {
        const Rational s_x = Rational{1, 1} / (s_y[i] * s_w[i]);  // S_Y S_X S_W = I
        for (std::size_t j = 0; j < t; ++j) w.BT[i * t + j] = (s_x * coefficients[j][i]).value();
        for (std::size_t j = 0; j < static_cast<std::size_t>(r); ++j)
            w.G[i * static_cast<std::size_t>(r) + j] = (s_w[i] * filter_form[i][j]).value();
    }
    return w;
}

std::vector<WinogradPoint> winograd_points(int m, int r) {
    const bool known = (r == 3 && (m == 2 || m == 4 || m == 6)) || (r == 5 && (m == 4 || m == 5 || m == 9)) ||
                       (m == 3 && (r == 2 || r == 4));
    NETCL_REQUIRE(known, "netcl generates F(2,3), F(4,3), F(6,3), F(4,5), F(5,5), F(9,5) and, for weight "
                         "gradients, F(3,2) and F(3,4); got F(" +
                             std::to_string(m) + "," + std::to_string(r) + ")");
    // The weight gradient's F(3, 2) and F(3, 4) (3 filter taps out, dy tiles
    // of 2 and 4 in) have forward's F(2, 3) and F(4, 3) points: the points
    // depend on alpha = m + r - 1 only, and the error of a product of the
    // two polynomials does not care which of them is the filter.
    if (m == 2 || (m == 3 && r == 2)) return {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {1, 1, 0}};
    if (m == 3 && r == 4) return winograd_points(4, 3);
    // F(4, 3): max error of F(4x4,3x3) in an fp32 simulation (C = 64, 40
    // tiles, 3 seeds): Lavin & Gray's 0, +-1, +-2: 6.2-8.2e-6; 0, +-1, -1/2,
    // 2: 2.7-2.9e-6; 0, +-1, 1/2, -2: 3.0-4.1e-6; 0, +-1, +-1/2: 7.1-8.8e-6.
    if (m == 4 && r == 3) return {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {-1, 2, 1}, {2, 1, 1}, {1, 1, 0}};
    // alpha = 8 (F(6,3), F(4,5)): the best of the small-rational sets searched
    // (max error of F(6x6,3x3) on random VGG-like tiles, fp32 simulated): 0,
    // +-1, +-1/2, +-2 and infinity, Vincent et al.'s choice for alpha = 8 too;
    // +-1/3 or +-3 in place of +-1/2 or +-2 were 2-5x worse.
    if (m + r - 1 == 8) return {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {1, 2, 1}, {-1, 2, 1}, {2, 1, 1}, {-2, 1, 1}, {1, 1, 0}};
    // F(5,5), alpha = 9: alpha = 8's set and one more point, searched over
    // +-3, +-1/3, +-3/2, +-2/3, +-4, +-1/4, 3/4, 4/3 (fp32 simulation of
    // F(5x5,5x5), C = 48, 20 x 25 outputs, max error against fp64): -4 gave
    // 2.2e-3 (of outputs up to 40), 4/3 2.7e-3, 4 2.9e-3, 3/2 3.0e-3, the
    // rest 3.3-6.9e-3. F(4x4,5x5) gave 1.4e-4 on the same data, F(6x6,3x3)
    // 1.7e-4 (of 26).
    if (m == 5 && r == 5) return {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {1, 2, 1}, {-1, 2, 1}, {2, 1, 1}, {-2, 1, 1}, {-4, 1, 1}, {1, 1, 0}};
    // F(9,5): +-1, +-1/2, +-2, infinity and three quadratic factors
    // (winograd_quadratics), 16 products where 13 real points make 13. The
    // 13 real points are too many to keep small: the best set searched (0,
    // +-1, +-1/2, +-2, +-3, +-4/5, 1/4 of two +- pairs and one point from 3,
    // 1/3, 3/2, 2/3, 4, 1/4, 3/4, 4/3, 5/2, 2/5, 5/4, 4/5) erred 3.00e-3 and
    // 2.08e-3 on AlexNet's and Inception's 5x5 layers (netcl-bench --accuracy,
    // N = 32, at 906bf2f), 5.5x and 4.2x Vincent et al.'s 5.49e-4 and
    // 4.98e-4. Searched in an fp32 simulation of the two layers (N = 2-8, max
    // |error| / max |output|) over 0, +-1, +-1/2, +-2 (some dropped), one to
    // three factors of x^2 + 1, x^2 +- x + 1, x^2 + 1/4, x^2 + 4, x^2 + 1/2,
    // x^2 + 2, x^2 +- x/2 + 1/4 and the real points above: one factor (14
    // products) at best 1.1-2.0e-4, two (15) 1.1-2.1e-5, three (16) 1.8-3.7e-6,
    // the best with 0, +-1, +-1/2, +-2, infinity kept 3.6e-6 (F(4x4,5x5)
    // simulated: 5-7e-6). These three (the primitive 4th, 3rd and 6th roots
    // of unity) erred 2.3-3.5e-6, within 1.4x of the best and with integer
    // coefficients.
    return {{1, 1, 1}, {-1, 1, 1}, {1, 2, 1}, {-1, 2, 1}, {2, 1, 1}, {-2, 1, 1}, {1, 1, 0}};
}

std::vector<WinogradQuadratic> winograd_quadratics(int m, int r) {
    if (m != 9 || r != 5) return {};
    return {{0, 1, 1, 1}, {1, 1, 1, 1}, {-1, 1, 1, 1}};  // x^2 + 1, x^2 + x + 1, x^2 - x + 1
}

std::vector<WinogradPoint> vincent_f9_r5_points() {
    return {{0, 1, 1},  {1, 1, 1},  {-1, 1, 1}, {1, 2, 1}, {-1, 2, 1}, {1, 3, 1}, {-1, 3, 1},
            {3, 2, 1},  {-3, 2, 1}, {-3, 1, 1}, {2, 1, 1}, {-2, 1, 1}, {1, 1, 0}};
}

std::vector<WinogradScale> vincent_f9_r5_output_scaling() {
    // Printed to 7 significant digits; as exact rationals with denominator 10^9.
    const double printed[] = {-1.333333,   0.05,         0.1,         -0.7314286, -1.024,
                              1.314635,    1.643293,     -0.005277263, -0.01583179, -1.587302e-05,
                              0.0003265306, 0.001632653, 1};
    std::vector<WinogradScale> s;
    for (const double value : printed) s.push_back({static_cast<std::int64_t>(std::llround(value * 1e9)), 1000000000});
    return s;
}

WinogradMatrices lavin_gray_matrices(int m) {
    NETCL_REQUIRE(m == 2 || m == 4, "Lavin & Gray give F(2,3) and F(4,3); got F(" + std::to_string(m) + ",3)");
    // Vincent et al.'s scalings for Lavin & Gray's matrices.
    if (m == 2) {
        return generate_winograd_matrices(2, 3, winograd_points(2, 3), {{1}, {1}, {1}, {-1}}, {{1}, {1, 2}, {1, 2}, {1}});
    }
    return generate_winograd_matrices(4, 3, {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {2, 1, 1}, {-2, 1, 1}, {1, 1, 0}}, {},
                                      {{1, 4}, {-1, 6}, {-1, 6}, {1, 24}, {1, 24}, {1}});
}

namespace {

WinogradMatrices make_winograd_matrices(int m, int r, bool scaled) {
    if (r == 3 && m == 2) return lavin_gray_matrices(2);
    const auto points = winograd_points(m, r);
    const auto quadratics = winograd_quadratics(m, r);
    WinogradMatrices unscaled = generate_winograd_matrices(m, r, points, {}, {}, quadratics);
    if (!scaled) return unscaled;
    return generate_winograd_matrices(m, r, points, power_of_two_output_scaling(unscaled), {}, quadratics);
}

}  // namespace

WinogradMatrices winograd_matrices(int m, int r, bool scaled) {
    // Kept per tile: every program spec asks for them (planning, building a
    // strategy), and the scaling rule runs a few hundred small SVDs.
    static std::mutex mutex;
    static std::map<std::tuple<int, int, bool>, WinogradMatrices> made;
    const auto key = std::make_tuple(m, r, scaled);
    {
        std::lock_guard lock(mutex);
        if (const auto it = made.find(key); it != made.end()) return it->second;
    }
    WinogradMatrices matrices = make_winograd_matrices(m, r, scaled);  // throws for an unknown tile: nothing kept
    std::lock_guard lock(mutex);
    return made.emplace(key, std::move(matrices)).first->second;
}

}  // namespace netcl
