#pragma once
// How ill-conditioned a tile's transforms are, and the rule netcl scales the
// larger tiles by (Vincent et al. section 3).
#include <vector>

#include "ops/winograd/WinogradMatrices.hpp"

namespace netcl {

// 2-norm condition numbers (largest over smallest singular value) of the
// output transform AT (Vincent's Y^T), the input transform BT (X^T) and the
// filter transform G (W), in the paper's order Y, X, W.
struct WinogradConditioning {
    double Y = 0, X = 0, W = 0;
};
WinogradConditioning condition_numbers(const WinogradMatrices& matrices);

// netcl's scaling rule: S_W = I (the filter transform grows only to the
// power r - 1, as the paper argues) and S_Y = diag(2^e_i), the exponents
// found by greedy integer descent on cond(Y) x cond(X), starting from the
// exponents of the largest entry of each row of the unscaled X^T
// (equilibrating the input transform). For Vincent's F(9x9,5x5) points this
// gives cond 114 / 874 / 64 against their hand-picked 125 / 2094 / 64.
// Powers of two are exact in floating point: the scaled transforms round
// every product and sum exactly as the unscaled ones, so the rule changes
// the matrices' conditioning and the range of the transformed values, never
// the fp32 result (netcl-bench --accuracy shows both).
std::vector<WinogradScale> power_of_two_output_scaling(const WinogradMatrices& unscaled);

}  // namespace netcl
