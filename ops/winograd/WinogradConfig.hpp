#pragma once
// Internal: how one Winograd variant runs one layer on one device -- its
// configuration. The build options of kernels_cl/winograd_*.cl (block sizes
// and the local-memory layout they imply) and the launch sizes both come from
// here; the kernel computes none of them itself.
#include <cstddef>
#include <cstdint>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/winograd/WinogradVariants.hpp"

namespace netcl {

struct WinogradConfig {
    WinogradVariant variant;
    int alpha = 0;  // m + r - 1: the transformed tile's side
    // One work-group owns block_k output channels x block_tiles tiles and
    // walks C in steps of block_c, with (block_k / 8) x alpha^2 work-items.
    int block_k = 0;
    int block_tiles = 0;
    int block_c = 0;
    // Local memory: V (alpha^2 rows of block_c x block_tiles, each padded by
    // one float against bank conflicts) in phases 1-2, then M staged
    // stage_k channels at a time in phase 3; one array, the larger of the two.
    int stage_k = 0;
    std::size_t v_row_floats = 0;
    std::size_t local_floats = 0;

    std::size_t local_bytes() const { return local_floats * sizeof(float); }
    std::size_t work_group_size() const { return static_cast<std::size_t>(block_k / 8) * alpha * alpha; }
    cl::NDRange local() const;
    // Per layer: output channels of one group's U rounded up to the K block
    // (Kp) and input channels rounded up to the C step (Cp).
    std::int64_t padded_k(const ConvShapes& shapes) const;
    std::int64_t padded_c(const ConvShapes& shapes) const;
    // Bytes of U: groups x alpha^2 x Cp x Kp floats.
    std::size_t weight_bytes(const ConvShapes& shapes) const;
    cl::NDRange global(const ConvShapes& shapes) const;

    std::string build_options() const;
    std::string str() const;
};

WinogradConfig winograd_config(const WinogradVariant& variant);

}  // namespace netcl
