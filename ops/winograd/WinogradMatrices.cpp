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

// Gauss-Jordan inverse; throws when singular (repeated points).
Matrix inverse(Matrix a) {
    const std::size_t n = a.size();
    Matrix inv(n, std::vector<Rational>(n));
    for (std::size_t i = 0; i < n; ++i) inv[i][i] = {1, 1};
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        while (pivot < n && a[pivot][col].zero()) ++pivot;
        NETCL_REQUIRE(pivot < n, "Winograd polynomial points give a singular Vandermonde matrix; expected distinct points");
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

}  // namespace

WinogradMatrices generate_winograd_matrices(int m, int r, const std::vector<WinogradPoint>& points,
                                            const std::vector<WinogradScale>& s_y_in,
                                            const std::vector<WinogradScale>& s_w_in) {
    NETCL_REQUIRE(m >= 1 && r >= 1, "F(m, r) needs m >= 1 and r >= 1; got m=" + std::to_string(m) + " r=" + std::to_string(r));
    const int alpha = m + r - 1;
    NETCL_REQUIRE(static_cast<int>(points.size()) == alpha,
                  "F(" + std::to_string(m) + "," + std::to_string(r) + ") needs alpha = " + std::to_string(alpha) +
                      " polynomial points; got " + std::to_string(points.size()));
    for (const auto& p : points) {
        NETCL_REQUIRE(p.f_den != 0 && (p.g == 0 || p.g == 1) && (p.g == 1 || p.f_num != 0),
                      "a Winograd polynomial point must be (f, 1) with a non-zero denominator or (1, 0)");
    }
    const auto s_y = diagonal(s_y_in, alpha, "S_Y");
    const auto s_w = diagonal(s_w_in, alpha, "S_W");
    const Matrix v_out = vandermonde(points, m);
    const Matrix v_in_inv = inverse(vandermonde(points, alpha));
    const Matrix v_filter = vandermonde(points, r);

    WinogradMatrices w;
    w.m = m;
    w.r = r;
    w.alpha = alpha;
    w.AT.resize(static_cast<std::size_t>(m * alpha));
    w.BT.resize(static_cast<std::size_t>(alpha * alpha));
    w.G.resize(static_cast<std::size_t>(alpha * r));
    const auto a = static_cast<std::size_t>(alpha);
    for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i)
        for (std::size_t j = 0; j < a; ++j) w.AT[i * a + j] = (v_out[j][i] * s_y[j]).value();
    for (std::size_t i = 0; i < a; ++i) {
        const Rational s_x = Rational{1, 1} / (s_y[i] * s_w[i]);  // S_Y S_X S_W = I
        for (std::size_t j = 0; j < a; ++j) w.BT[i * a + j] = (s_x * v_in_inv[j][i]).value();
        for (std::size_t j = 0; j < static_cast<std::size_t>(r); ++j)
            w.G[i * static_cast<std::size_t>(r) + j] = (s_w[i] * v_filter[i][j]).value();
    }
    return w;
}

std::vector<WinogradPoint> winograd_points(int m, int r) {
    const bool known = (r == 3 && (m == 2 || m == 4 || m == 6)) || (r == 5 && (m == 4 || m == 5 || m == 9));
    NETCL_REQUIRE(known, "netcl generates F(2,3), F(4,3), F(6,3), F(4,5), F(5,5) and F(9,5); got F(" +
                             std::to_string(m) + "," + std::to_string(r) + ")");
    if (m == 2) return {{0, 1, 1}, {1, 1, 1}, {-1, 1, 1}, {1, 1, 0}};
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
    // F(9,5), alpha = 13: 0, +-1, +-1/2, +-2, infinity and five more. Searched
    // over two +- pairs and one single point from 3, 1/3, 3/2, 2/3, 4, 1/4,
    // 3/4, 4/3, 5/2, 2/5, 5/4, 4/5 (fp32 simulation of F(9x9,5x5), C = 48,
    // max error over the largest output): +-3, +-4/5, 1/4 gave 2.6e-3, half of
    // Vincent et al.'s set (5.4e-3, vincent_f9_r5_points) on the same data.
    return {{0, 1, 1},  {1, 1, 1},  {-1, 1, 1}, {1, 2, 1}, {-1, 2, 1}, {2, 1, 1},  {-2, 1, 1},
            {3, 1, 1},  {-3, 1, 1}, {4, 5, 1},  {-4, 5, 1}, {1, 4, 1}, {1, 1, 0}};
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
    const auto points = winograd_points(m, r);
    if (r == 3 && m == 2) return lavin_gray_matrices(2);
    if (!scaled) return generate_winograd_matrices(m, r, points);
    return generate_winograd_matrices(m, r, points, power_of_two_output_scaling(m, r, points));
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
