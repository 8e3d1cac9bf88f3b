#pragma once
#include <optional>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Plan.hpp"

namespace netcl {

// The variants every implementation under `kernel` offers, in the order this
// profile prefers them: the implementations' order (ops/Implementations.cpp),
// and for Winograd the profile's tile, local-memory and constant-weight
// preferences (VariantChoice.cpp).
std::vector<Variant> candidate_variants(Kernel kernel, const ConvShapes& shapes, const DeviceProfile& profile);

// The channels a layer's GEMM-shaped kernels sum over a group: C/groups,
// or K/groups for backward data, which runs as the forward convolution of
// dy (K channels) with the rotated filters (ops/as_forward/).
std::int64_t reduced_channels(const ConvShapes& shapes);

// Why backward data of the layer goes to col2im-gemm first, ahead of Winograd
// (a float32 3x3 layer of one group over at most
// col2im_gemm_training_max_columns columns in at most _max_images images,
// which col2im-gemm takes reading its filters in place), or nothing where it
// does not.
std::optional<std::string> few_columns_backward_data_first_on_col2im(const ConvShapes& shapes,
                                                                      const DeviceProfile& profile);

// Which Winograd tile this profile puts first for the layer, and the
// threshold or rule behind it ("F(6x6) first: output 112x112 >=
// winograd_f6_min_output 112"), for the plan's reason.
std::string winograd_tile_preference(const ConvShapes& shapes, const DeviceProfile& profile);

struct VariantChoice {
    std::optional<Variant> variant;  // the first candidate the strategy can take
    std::string why_not;             // the reasons of the candidates passed over, "; "-joined
                                     // (all of them when none fits)
};
VariantChoice best_variant(Kernel kernel, const ConvShapes& shapes, const DeviceProfile& profile);

// Why `variant` is beyond the profile's accuracy bound (max_error_factor;
// 0: none), or nothing. Direct sums (error factor 1) are never beyond it.
std::optional<std::string> beyond_error_bound(const Variant& variant, const DeviceProfile& profile);

}  // namespace netcl
