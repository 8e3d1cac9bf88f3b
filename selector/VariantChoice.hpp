#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../ops/ConvShapes.hpp"
#include "../ops/Kernel.hpp"
#include "../runtime/DeviceProfile.hpp"
#include "Plan.hpp"

namespace netcl {

// The variants of `kernel` in the order this profile prefers them. Winograd:
// the preferred tile first (F(2x2) first when the output is smaller than
// winograd_f4_min_output, where F(4x4) would mostly compute padding), fused
// before low-local-memory unless the profile measured otherwise, __constant
// weights before __global where the profile allows constant weights.
std::vector<Variant> candidate_variants(Kernel kernel, const ConvShapes& shapes, const DeviceProfile& profile);

struct VariantChoice {
    std::optional<Variant> variant;  // the first candidate the strategy can take
    std::string why_not;             // the reasons of the candidates passed over, "; "-joined
                                     // (all of them when none fits)
};
VariantChoice best_variant(Kernel kernel, const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
