#pragma once
#include <optional>
#include <vector>

namespace netcl::bench {

// How much faster a candidate ran than a baseline, from their timed rounds.
// Paired (the rounds interleaved, sample i of both from round i, as many of
// each): the median over rounds of base / result in the same round -- a burst
// of load from another process that slows a round slows both runs in it, and
// their ratio stays, where medians taken apart can fall on different sides of
// the burst (seen at N = 8 on a 1x1 layer: 4 of 7 rounds 2x slow for every
// candidate; medians apart gave 0.53x, every round 0.89-0.94x). Otherwise, or
// where the rounds do not pair up, base_median / result_median. Nothing when
// result_median is not positive.
std::optional<double> round_ratio(const std::vector<double>& base_ms, const std::vector<double>& result_ms,
                                  double base_median_ms, double result_median_ms, bool paired);

}  // namespace netcl::bench
