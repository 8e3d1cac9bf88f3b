#include "WinogradReport.hpp"

#include <cstdio>

#include "netcl/Error.hpp"
#include "ops/winograd/WinogradConditioning.hpp"
#include "ops/winograd/WinogradMatrices.hpp"

namespace netcl::info {

namespace {

std::string rational(std::int64_t num, std::int64_t den) {
    return den == 1 ? std::to_string(num) : std::to_string(num) + "/" + std::to_string(den);
}

void print_points(const std::vector<WinogradPoint>& points, const std::vector<WinogradQuadratic>& quadratics) {
    std::printf("points   ");
    for (const auto& p : points) std::printf(" %s", p.g == 0 ? "inf" : rational(p.f_num, p.f_den).c_str());
    std::printf("\n");
    if (quadratics.empty()) return;
    std::printf("factors  ");
    for (const auto& q : quadratics) {
        const std::string b = rational(q.b_num < 0 ? -q.b_num : q.b_num, q.b_den);
        const std::string linear = q.b_num == 0 ? "" : (q.b_num < 0 ? " - " : " + ") + (b == "1" ? "" : b + " ") + "x";
        std::printf("  x^2%s + %s,", linear.c_str(), rational(q.c_num, q.c_den).c_str());
    }
    std::printf(" three products each\n");
}

void print_scaling(const char* name, const std::vector<WinogradScale>& scale) {
    std::printf("%s     ", name);
    for (const auto& s : scale) std::printf(" %s", rational(s.num, s.den).c_str());
    std::printf("\n");
}

void print_matrix(const char* name, const std::vector<double>& values, int rows, int cols) {
    std::printf("%s (%d x %d)\n", name, rows, cols);
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) std::printf(" %11.4g", values[static_cast<std::size_t>(i * cols + j)]);
        std::printf("\n");
    }
}

void print_condition(const char* what, const WinogradMatrices& w) {
    const WinogradConditioning c = condition_numbers(w);
    std::printf("  %-44s Y %12.0f   X %12.0f   W %8.1f\n", what, c.Y, c.X, c.W);
}

}  // namespace

void print_winograd_report(const std::string& tile) {
    int m = 0, r = 0;
    NETCL_REQUIRE(std::sscanf(tile.c_str(), "%d,%d", &m, &r) == 2,
                  "--winograd: expected m,r (e.g. 4,3 or 9,5); got '" + tile + "'");
    const auto points = winograd_points(m, r);
    const auto quadratics = winograd_quadratics(m, r);
    const WinogradMatrices scaled = winograd_matrices(m, r), unscaled = winograd_matrices(m, r, false);
    std::printf("F(%dx%d,%dx%d), alpha = %d (input tile %d): the transforms netcl's kernels use\n", m, m, r, r,
                scaled.alpha, scaled.tile);
    print_points(points, quadratics);
    const bool lavin = r == 3 && m == 2;
    if (!lavin) print_scaling("S_Y", power_of_two_output_scaling(unscaled));
    print_matrix("AT = Y^T", scaled.AT, m, scaled.alpha);
    print_matrix("G = W", scaled.G, scaled.alpha, r);
    print_matrix("BT = X^T", scaled.BT, scaled.alpha, scaled.tile);
    std::printf("\n2-norm condition numbers (largest / smallest singular value):\n");
    print_condition("these points, unscaled", unscaled);
    print_condition(lavin ? "these points, Lavin & Gray's scaling" : "these points, netcl's power-of-two rule", scaled);
    if (r == 3 && m == 4) {
        print_condition("Lavin & Gray's F(4x4,3x3) (0, +-1, +-2, inf)", lavin_gray_matrices(4));
    }
    if (m == 9 && r == 5) {
        const auto vincent = vincent_f9_r5_points();
        print_condition("Vincent et al.'s points, unscaled", generate_winograd_matrices(m, r, vincent));
        print_condition("Vincent et al.'s points, their S_Y",
                        generate_winograd_matrices(m, r, vincent, vincent_f9_r5_output_scaling()));
        print_condition("Vincent et al.'s points, netcl's rule",
                        generate_winograd_matrices(m, r, vincent, power_of_two_output_scaling(generate_winograd_matrices(m, r, vincent))));
        std::printf("  (the paper: 36279 / 113237696 / 64 unscaled, 125 / 2094 / 64 scaled)\n");
    }
}

}  // namespace netcl::info
