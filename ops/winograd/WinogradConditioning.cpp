#include "ops/winograd/WinogradConditioning.hpp"

#include <algorithm>
#include <cmath>

namespace netcl {

namespace {

// Singular values of a rows x cols row-major matrix by one-sided Jacobi
// rotations on its columns (accurate to working precision even at condition
// numbers near 1e8, where forming A^T A would square them past double's reach).
std::vector<double> singular_values(std::vector<double> a, int rows, int cols) {
    if (rows < cols) {  // the same singular values as the transpose
        std::vector<double> t(a.size());
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) t[static_cast<std::size_t>(j * rows + i)] = a[static_cast<std::size_t>(i * cols + j)];
        a.swap(t);
        std::swap(rows, cols);
    }
    auto at = [&](int i, int j) -> double& { return a[static_cast<std::size_t>(i * cols + j)]; };
    for (int sweep = 0; sweep < 60; ++sweep) {
        double off = 0;
        for (int p = 0; p < cols; ++p) {
            for (int q = p + 1; q < cols; ++q) {
                double alpha = 0, beta = 0, gamma = 0;
                for (int i = 0; i < rows; ++i) {
                    alpha += at(i, p) * at(i, p);
                    beta += at(i, q) * at(i, q);
                    gamma += at(i, p) * at(i, q);
                }
                if (gamma == 0) continue;
                off = std::max(off, std::fabs(gamma) / std::sqrt(alpha * beta));
                const double zeta = (beta - alpha) / (2 * gamma);
                const double t = std::copysign(1.0, zeta) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
                const double c = 1 / std::sqrt(1 + t * t), s = c * t;
                for (int i = 0; i < rows; ++i) {
                    const double x = at(i, p), y = at(i, q);
                    at(i, p) = c * x - s * y;
                    at(i, q) = s * x + c * y;
                }
            }
        }
        if (off < 1e-15) break;
    }
    std::vector<double> sigma(static_cast<std::size_t>(cols));
    for (int j = 0; j < cols; ++j) {
        double norm = 0;
        for (int i = 0; i < rows; ++i) norm += at(i, j) * at(i, j);
        sigma[static_cast<std::size_t>(j)] = std::sqrt(norm);
    }
    return sigma;
}

double condition(const std::vector<double>& a, int rows, int cols) {
    const auto sigma = singular_values(a, rows, cols);
    const auto [low, high] = std::minmax_element(sigma.begin(), sigma.end());
    return *low > 0 ? *high / *low : INFINITY;
}

}  // namespace

WinogradConditioning condition_numbers(const WinogradMatrices& w) {
    return {condition(w.AT, w.m, w.alpha), condition(w.BT, w.alpha, w.tile), condition(w.G, w.alpha, w.r)};
}

std::vector<WinogradScale> power_of_two_output_scaling(const WinogradMatrices& unscaled) {
    const int m = unscaled.m, alpha = unscaled.alpha, tile = unscaled.tile;
    std::vector<int> e(static_cast<std::size_t>(alpha));
    for (int i = 0; i < alpha; ++i) {
        double largest = 0;
        for (int j = 0; j < tile; ++j) largest = std::max(largest, std::fabs(unscaled.bt(i, j)));
        e[static_cast<std::size_t>(i)] = static_cast<int>(std::lround(std::log2(largest)));
    }
    // Scaling by 2^e: AT's column i times 2^e_i, BT's row i times 2^-e_i.
    const auto cost = [&](const std::vector<int>& exponents) {
        WinogradMatrices s = unscaled;
        for (int i = 0; i < alpha; ++i) {
            const double f = std::ldexp(1.0, exponents[static_cast<std::size_t>(i)]);
            for (int j = 0; j < m; ++j) s.AT[static_cast<std::size_t>(j * alpha + i)] *= f;
            for (int j = 0; j < tile; ++j) s.BT[static_cast<std::size_t>(i * tile + j)] /= f;
        }
        const WinogradConditioning c = condition_numbers(s);
        return std::log(c.Y) + std::log(c.X);
    };
    double best = cost(e);
    for (bool improved = true; improved;) {
        improved = false;
        for (int i = 0; i < alpha; ++i) {
            for (const int step : {1, -1}) {
                std::vector<int> trial = e;
                trial[static_cast<std::size_t>(i)] += step;
                const double c = cost(trial);
                if (c < best - 1e-12) best = c, e = trial, improved = true;
            }
        }
    }
    std::vector<WinogradScale> s_y;
    for (const int exponent : e) {
        s_y.push_back(exponent >= 0 ? WinogradScale{std::int64_t{1} << exponent, 1}
                                    : WinogradScale{1, std::int64_t{1} << -exponent});
    }
    return s_y;
}

}  // namespace netcl
