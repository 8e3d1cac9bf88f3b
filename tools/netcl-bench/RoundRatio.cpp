#include "RoundRatio.hpp"

#include "runtime/EventTiming.hpp"

namespace netcl::bench {

std::optional<double> round_ratio(const std::vector<double>& base_ms, const std::vector<double>& result_ms,
                                  double base_median_ms, double result_median_ms, bool paired) {
    if (result_median_ms <= 0) return std::nullopt;
    if (paired && !base_ms.empty() && base_ms.size() == result_ms.size()) {
        std::vector<double> per_round;
        for (std::size_t i = 0; i < base_ms.size(); ++i) {
            if (result_ms[i] > 0) per_round.push_back(base_ms[i] / result_ms[i]);
        }
        if (!per_round.empty()) return summarize(per_round).median_ms;  // a median of ratios, not of ms
    }
    return base_median_ms / result_median_ms;
}

}  // namespace netcl::bench
