#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "../../runtime/DeviceProfile.hpp"
#include "../../selector/Plan.hpp"
#include "../ConvShapes.hpp"

namespace netcl {

// Block sizes of the Winograd kernels: one work-group owns kBlockK output
// channels x kBlockTiles tiles and walks C in steps of kBlockC.
struct WinogradBlocking {
    int block_k = 0;
    int block_tiles = 0;
    int block_c = 0;
};
WinogradBlocking winograd_blocking(const Variant& variant);

// Local memory one work-group of the variant needs.
std::size_t winograd_local_bytes(const Variant& variant);
// Bytes of the transformed weights U: (m+2)^2 x K_padded x C/groups floats.
std::size_t winograd_weight_bytes(const Variant& variant, const ConvShapes& shapes);
std::size_t winograd_workspace_bytes(const Variant& variant, const ConvShapes& shapes);
std::optional<std::string> winograd_why_not(const Variant& variant, const ConvShapes& shapes,
                                            const DeviceProfile& profile);

}  // namespace netcl
