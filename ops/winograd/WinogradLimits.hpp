#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "../../runtime/DeviceProfile.hpp"
#include "../../selector/Plan.hpp"
#include "../ConvShapes.hpp"

namespace netcl {

// Block sizes of kernels_cl/winograd_fused.cl for a variant: one work-group
// owns block_k output channels x block_tiles tiles and walks C in steps of
// block_c, with (block_k / 8) x alpha^2 work-items. The low-local-memory
// variant is the same kernel with smaller blocks.
struct WinogradBlocking {
    int block_k = 0;
    int block_tiles = 0;
    int block_c = 0;
};
WinogradBlocking winograd_blocking(const Variant& variant);

// alpha = m + 2 for F(m x m, 3 x 3).
int winograd_alpha(const Variant& variant);
// Work-items per work-group: (block_k / 8) x alpha^2.
std::size_t winograd_work_group_size(const Variant& variant);
// Local memory one work-group of the variant needs (the larger of the
// transformed-input block and the output-transform staging).
std::size_t winograd_local_bytes(const Variant& variant);
// Output channels of one group's U rounded up to the K block (Kp), and input
// channels rounded up to the C step (Cp).
std::int64_t winograd_padded_k(const Variant& variant, const ConvShapes& shapes);
std::int64_t winograd_padded_c(const Variant& variant, const ConvShapes& shapes);
// Bytes of the transformed weights U: groups x alpha^2 x Cp x Kp floats.
std::size_t winograd_weight_bytes(const Variant& variant, const ConvShapes& shapes);
std::size_t winograd_workspace_bytes(const Variant& variant, const ConvShapes& shapes);
std::optional<std::string> winograd_why_not(const Variant& variant, const ConvShapes& shapes,
                                            const DeviceProfile& profile);

}  // namespace netcl
