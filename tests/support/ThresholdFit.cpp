#include "tests/support/ThresholdFit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ops/winograd/WinogradVariants.hpp"
#include "selector/Thresholds.hpp"

namespace netcl {

namespace {

// The fastest correct candidate that `keep` accepts, in ms; infinity when none.
double best_ms(const ShapeTiming& t, const std::function<bool(const CandidateTiming&)>& keep) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& c : t.correct) {
        if (keep(c)) best = std::min(best, c.median_ms);
    }
    return best;
}

bool is_winograd(const CandidateTiming& c) { return c.kernel == Kernel::CONV2D_WINOGRAD; }
// The Winograd variant's fields, for votes between variant families.
WinogradVariant winograd_of(const CandidateTiming& c) { return winograd_variant(c.variant).value_or(WinogradVariant{0}); }

// Which of two variant families was faster on more layers where both ran:
// 1 for `a`, 0 for `b`; nothing without a layer that ran both or on a tie.
std::optional<double> majority(const std::vector<ShapeTiming>& timings,
                               const std::function<bool(const CandidateTiming&)>& a,
                               const std::function<bool(const CandidateTiming&)>& b) {
    int a_wins = 0, b_wins = 0;
    for (const auto& t : timings) {
        const double ta = best_ms(t, a), tb = best_ms(t, b);
        if (std::isinf(ta) || std::isinf(tb)) continue;
        (ta < tb ? a_wins : b_wins)++;
    }
    if (a_wins == b_wins) return std::nullopt;
    return a_wins > b_wins ? 1.0 : 0.0;
}

}  // namespace

std::optional<CandidateTiming> fastest(const ShapeTiming& timing) {
    if (timing.correct.empty()) return std::nullopt;
    return *std::min_element(timing.correct.begin(), timing.correct.end(),
                             [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; });
}

std::optional<double> fit_cut(std::vector<std::pair<double, bool>> points) {
    const auto above = std::count_if(points.begin(), points.end(), [](const auto& p) { return p.second; });
    if (above == 0 || above == static_cast<long>(points.size())) return std::nullopt;
    std::sort(points.begin(), points.end());
    // Cut before index i: points [0, i) are predicted below, [i, n) above.
    long errors = static_cast<long>(points.size()) - above;  // i = 0, all predicted above: the below-class ones are wrong
    long best_errors = errors;
    std::size_t best_i = 0;
    for (std::size_t i = 1; i <= points.size(); ++i) {
        errors += points[i - 1].second ? 1 : -1;  // point i-1 moves to the "below" side
        const bool distinct = i == points.size() || points[i].first != points[i - 1].first;
        if (distinct && errors < best_errors) {
            best_errors = errors;
            best_i = i;
        }
    }
    if (best_i == 0) return points.front().first;
    if (best_i == points.size()) return points.back().first * 2;
    return std::sqrt(points[best_i - 1].first * points[best_i].first);
}

std::map<std::string, double> fit_thresholds(const std::vector<ShapeTiming>& timings, std::vector<std::string>* notes) {
    namespace k = threshold_key;
    std::map<std::string, double> fitted;
    const auto note = [&](const std::string& text) {
        if (notes) notes->push_back(text);
    };
    const auto put = [&](const char* key, const std::optional<double>& value, const std::string& evidence) {
        if (value) {
            fitted[key] = *value;
            note(std::string(key) + " = " + std::to_string(*value) + " (" + evidence + ")");
        } else {
            note(std::string(key) + " not fitted: " + evidence + " gave no evidence either way");
        }
    };

    std::vector<std::pair<double, bool>> naive_points, im2col_points, winograd_points;
    for (const auto& t : timings) {
        const auto win = fastest(t);
        if (!win || t.correct.size() < 2) continue;
        naive_points.emplace_back(t.shapes.direct_flops(), win->kernel != Kernel::CONV2D_NAIVE);
        const bool ran_im2col = !std::isinf(best_ms(t, [](const auto& c) { return c.kernel == Kernel::IM2COL; }));
        const bool ran_naive = !std::isinf(best_ms(t, [](const auto& c) { return c.kernel == Kernel::CONV2D_NAIVE; }));
        if (ran_im2col && ran_naive && !is_winograd(*win)) {
            im2col_points.emplace_back(t.shapes.direct_flops(), win->kernel == Kernel::IM2COL);
        }
        if (!std::isinf(best_ms(t, is_winograd))) winograd_points.emplace_back(static_cast<double>(t.shapes.C), is_winograd(*win));
    }
    put(k::naive_max_flops, fit_cut(naive_points), "flops of layers direct convolution won vs lost");
    put(k::im2col_min_flops, fit_cut(im2col_points), "flops of layers im2col won vs lost against direct");
    const auto min_c = fit_cut(winograd_points);
    put(k::winograd_min_channels, min_c ? std::optional<double>(std::ceil(*min_c)) : std::nullopt,
        "C of 3x3 layers Winograd won vs lost");
    const auto four = majority(timings, [](const auto& c) { return is_winograd(c) && winograd_of(c).m == 4; },
                               [](const auto& c) { return is_winograd(c) && winograd_of(c).m == 2; });
    put(k::winograd_tile, four ? std::optional<double>(*four == 1.0 ? 4.0 : 2.0) : std::nullopt,
        "F(4x4) vs F(2x2) on layers that ran both");
    put(k::winograd_prefer_low_local_memory,
        majority(timings, [](const auto& c) { return is_winograd(c) && winograd_of(c).low_local_memory; },
                 [](const auto& c) { return is_winograd(c) && !winograd_of(c).low_local_memory; }),
        "low-local-memory vs fused on layers that ran both");
    put(k::winograd_constant_weights,
        majority(timings, [](const auto& c) { return is_winograd(c) && winograd_of(c).constant_weights; },
                 [](const auto& c) { return is_winograd(c) && !winograd_of(c).constant_weights; }),
        "__constant vs __global weights on layers that ran both");
    return fitted;
}

}  // namespace netcl
