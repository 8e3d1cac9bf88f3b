#include "ops/winograd/WinogradSource.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace netcl {

namespace {

std::string literal(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.9gf", value);  // float round trip
    std::string s = text;
    if (s.find_first_of(".e") == std::string::npos) s.insert(s.size() - 1, ".0");
    return s;
}

struct Term {
    double coefficient;
    std::string value;  // "(X(3))", or "((X(1)) + (X(2)))" for a mirrored pair of columns
};

// The sum of `terms`, zero coefficients dropped and +-1 without a multiply ("" when none).
std::string sum_of(const std::vector<Term>& terms) {
    std::string sum;
    for (const Term& t : terms) {
        if (t.coefficient == 0) continue;
        const std::string sign = t.coefficient < 0 ? " - " : (sum.empty() ? "" : " + ");
        const double magnitude = std::fabs(t.coefficient);
        sum += (sum.empty() && t.coefficient < 0 ? "-" : sign) +
               (magnitude == 1 ? t.value : literal(magnitude) + " * " + t.value);
    }
    return sum;
}

std::string x_of(int j) { return "(X(" + std::to_string(j) + "))"; }

// Toom-Cook's points come in pairs p, -p (+-1, +-1/2, +-2): B^T's and G's
// rows of p and -p agree on even columns and are opposite on odd ones, and
// A^T's columns of p and -p agree on even rows and are opposite on odd ones.
// For each line (row, or column with `columns`), its mirror after it, or -1.
template <typename Coefficient>
std::vector<int> mirrors(int rows, int cols, Coefficient c, bool columns) {
    const int lines = columns ? cols : rows, along = columns ? rows : cols;
    auto at = [&](int line, int k) { return columns ? c(k, line) : c(line, k); };
    std::vector<int> partner(lines, -1);
    std::vector<bool> taken(lines, false);
    for (int i = 0; i < lines; ++i) {
        bool even = false, odd = false;
        for (int k = 0; k < along; ++k) {
            if (at(i, k) != 0) (k % 2 ? odd : even) = true;
        }
        if (taken[i] || !even || !odd) continue;  // a line without both parities gains nothing
        for (int l = i + 1; l < lines && partner[i] < 0; ++l) {
            bool mirror = !taken[l];
            for (int k = 0; k < along && mirror; ++k) mirror = at(l, k) == (k % 2 ? -1 : 1) * at(i, k);
            if (mirror) partner[i] = l, taken[l] = true;
        }
    }
    return partner;
}

// "#define NAME(X, Y) Y(0) = ...; Y(1) = ...;" for rows x cols `coefficient`.
// Mirrored rows i, k are written E + O and E - O (E, O: the sums over even
// and odd columns), mirrored columns j, l as c * (X(j) + X(l)) on even rows
// and c * (X(j) - X(l)) on odd ones, in the same text wherever they recur so
// that the compiler computes each once: half the multiplies of each pair
// (OpenCL C without fast-math may not reassociate the sums itself). Measured
// (PoCL 3.1, AVX-512, per-round ratios against oneDNN in one run, three runs
// each, alternating builds): Inception's 5x5 layer on F(4x4,5x5) at N = 32
// 0.90-0.97x -> 0.99-1.04x; VGG's conv3.2 and conv4.2 on F(4x4) 1.54-1.70x ->
// 1.67-1.72x, on F(6x6) 1.31-1.44x -> 1.42-1.47x. The sums' order changes, and
// with it the rounding: netcl-bench --accuracy's figures moved by -24% to +35%
// (F(4x4,5x5) on AlexNet's layer 6.38e-6 -> 8.62e-6, F(6x6) fused on conv3.2
// 1.19e-3 -> 9.06e-4), every one still inside its bar.
template <typename Coefficient>
std::string transform_macro(const char* name, int rows, int cols, Coefficient coefficient) {
    const std::vector<int> row_mirror = mirrors(rows, cols, coefficient, false);
    const bool by_rows = std::any_of(row_mirror.begin(), row_mirror.end(), [](int k) { return k >= 0; });
    const std::vector<int> col_mirror = by_rows ? std::vector<int>(cols, -1) : mirrors(rows, cols, coefficient, true);
    std::vector<bool> mirrored_col(cols, false);
    for (const int l : col_mirror) {
        if (l >= 0) mirrored_col[l] = true;
    }
    std::vector<std::string> sums(rows);
    for (int i = 0; i < rows; ++i) {
        std::vector<Term> all, even, odd;
        for (int j = 0; j < cols; ++j) {
            const double c = coefficient(i, j);
            if (mirrored_col[j]) continue;  // inside its partner's term
            if (col_mirror[j] >= 0) {
                all.push_back({c, "(" + x_of(j) + (i % 2 ? " - " : " + ") + x_of(col_mirror[j]) + ")"});
            } else {
                all.push_back({c, x_of(j)});
                (j % 2 ? odd : even).push_back({c, x_of(j)});
            }
        }
        if (row_mirror[i] >= 0) {
            sums[i] = "(" + sum_of(even) + ") + (" + sum_of(odd) + ")";
            sums[row_mirror[i]] = "(" + sum_of(even) + ") - (" + sum_of(odd) + ")";
        } else if (sums[i].empty()) {
            sums[i] = sum_of(all);
            if (sums[i].empty()) sums[i] = "0.0f";
        }
    }
    std::string text = std::string("#define ") + name + "(X, Y) \\\n";
    for (int i = 0; i < rows; ++i) {
        text += "    Y(" + std::to_string(i) + ") = " + sums[i] + ";" + (i + 1 < rows ? " \\\n" : "\n");
    }
    return text;
}

}  // namespace

std::string winograd_cl_prelude(const WinogradMatrices& w) {
    std::string text = "// Generated by ops/winograd/WinogradSource.cpp from the Toom-Cook points.\n";
    text += "#define WINO_M " + std::to_string(w.m) + "\n";
    text += "#define WINO_R " + std::to_string(w.r) + "\n";
    text += "#define WINO_ALPHA " + std::to_string(w.alpha) + "\n";
    text += "#define WINO_TILE " + std::to_string(w.tile) + "\n";
    text += transform_macro("WINO_BT", w.alpha, w.tile, [&](int i, int j) { return w.bt(i, j); });
    text += transform_macro("WINO_G", w.alpha, w.r, [&](int i, int j) { return w.g(i, j); });
    text += transform_macro("WINO_AT", w.m, w.alpha, [&](int i, int j) { return w.at(i, j); });
    return text;
}

namespace {

// "(floatN)(A[q].sXYZ, B[q].s.., ...)" taking lane l from vector name(pos(l) / lanes),
// component pos(l) % lanes, runs of one vector joined in swizzles of <= 4 components.
template <typename Position>
std::string lanes_expression(const char* name, int lanes, Position pos) {
    static const char* digits = "0123456789abcdef";
    std::string text = "(float" + std::to_string(lanes) + ")(";
    int l = 0;
    bool first = true;
    while (l < lanes) {
        const int q = pos(l) / lanes;
        std::string comps;
        while (l < lanes && pos(l) / lanes == q && comps.size() < 4) comps += digits[pos(l++) % lanes];
        if (comps.size() == 3) {  // .sXYZ is a float3; keep every part a size OpenCL C 1.2 composes freely
            text += std::string(first ? "" : ", ") + name + "[" + std::to_string(q) + "].s" + comps.substr(0, 2);
            text += std::string(", ") + name + "[" + std::to_string(q) + "].s" + comps.substr(2);
        } else {
            text += std::string(first ? "" : ", ") + name + "[" + std::to_string(q) + "].s" + comps;
        }
        first = false;
    }
    return text + ")";
}

}  // namespace

std::string winograd_row_lanes_prelude(int m, int alpha, int lanes) {
    std::string text = "// Generated by ops/winograd/WinogradSource.cpp: lanes <-> tile rows.\n";
    const int span_in = lanes * m + alpha - m;
    text += "#define WINO_SPAN_VECS " + std::to_string((span_in + lanes - 1) / lanes) + "\n";
    text += "#define WINO_DEAL(S, D) \\\n";
    for (int j = 0; j < alpha; ++j) {
        text += "    D[" + std::to_string(j) + "] = " + lanes_expression("S", lanes, [&](int l) { return l * m + j; }) +
                ";" + (j + 1 < alpha ? " \\\n" : "\n");
    }
    text += "#define WINO_UNDEAL(O, S) \\\n";
    for (int q = 0; q < m; ++q) {
        // Float p = q * lanes + c of the span is output column p % m of tile p / m.
        std::string expr = "(float" + std::to_string(lanes) + ")(";
        for (int c = 0; c < lanes; ++c) {
            const int p = q * lanes + c;
            static const char* digits = "0123456789abcdef";
            expr += std::string(c ? ", " : "") + "O[" + std::to_string(p % m) + "].s" + digits[p / m];
        }
        text += "    S[" + std::to_string(q) + "] = " + expr + ");" + (q + 1 < m ? " \\\n" : "\n");
    }
    return text;
}

}  // namespace netcl
