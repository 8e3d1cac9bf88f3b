#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/Plan.hpp"

namespace netcl {

// What netcl-tune measured for one candidate that passed the reference check.
struct CandidateTiming {
    Kernel kernel = Kernel::CONV2D_NAIVE;
    Variant variant;
    double median_ms = 0;
};

// One tuned layer: its correct candidates (wrong ones are never listed).
struct ShapeTiming {
    ConvShapes shapes;
    std::vector<CandidateTiming> correct;
};

// The fastest correct candidate; nothing when none was correct.
std::optional<CandidateTiming> fastest(const ShapeTiming& timing);

// A one-variable split: the cut c for which "above-class iff value >= c"
// misclassifies fewest points, placed at the geometric mean of the two values
// it falls between (ties: the lowest such cut). Nothing unless both classes
// occur (no evidence for a cut).
std::optional<double> fit_cut(std::vector<std::pair<double, bool>> points);

// Thresholds (threshold_key names) the measurements support: naive_max_flops,
// im2col_min_flops, winograd_min_channels from cuts between winners and
// losers; winograd_tile, winograd_prefer_low_local_memory and
// winograd_constant_weights from which variant was faster on more layers.
// A key without evidence is left out; `notes` says why for each.
std::map<std::string, double> fit_thresholds(const std::vector<ShapeTiming>& timings,
                                             std::vector<std::string>* notes = nullptr);

}  // namespace netcl
