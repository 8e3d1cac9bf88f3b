#pragma once
// Internal: how one Winograd variant runs on one device -- its configuration,
// and the geometry it gives a layer. The build options of
// kernels_cl/winograd_*.cl (block sizes, the local-memory layout they imply,
// the optional code paths) and the launch sizes both come from here; the
// kernel computes none of them itself.
//
// Profile keys (tuned values; ConvImplementation::profile_keys):
//   winograd_f{2,4,6}_block_k / _block_tiles / _block_c   the fused blocks
//   winograd_c_tail           1: no padding of C to a whole C step (C_TAIL)
//   winograd_min_work_groups  split C over this many work-groups at least
//   winograd_f6_max_c_slice   F(6x6) sums at most this many channels in one
//                             fp32 sum (accuracy; 0: no cap)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/winograd/WinogradVariants.hpp"

namespace netcl {

struct WinogradConfig {
    WinogradVariant variant;
    int alpha = 0;  // the transformed tile's side (m + r - 1 for the fused kernel's tiles)
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
    bool c_tail = false;
    std::int64_t min_work_groups = 0;  // 0: never split C
    std::int64_t max_c_slice = 0;      // 0: no cap on the channels of one sum

    // With c_tail, U's C is padded to this (whole chunks of the unrolled
    // inner loop): 8 where the C step is a multiple of 8, else 1.
    int c_chunk() const { return block_c % 8 == 0 ? 8 : 1; }
    std::size_t local_bytes() const { return local_floats * sizeof(float); }
    std::size_t work_group_size() const { return static_cast<std::size_t>(block_k / 8) * alpha * alpha; }
    // The filter transform's work-group: a K block's contiguous run of U, up to 64 (eight filters a
    // work-group scheduled more work-groups than PoCL runs cheaply; set_weights runs every training step).
    std::size_t weights_work_group() const { return static_cast<std::size_t>(block_k < 64 ? block_k : 64); }
    cl::NDRange local() const;

    // Per layer (per group of it): output channels of U rounded up to the K
    // block (Kp), input channels as U holds them (Cp: rounded up to the C
    // step, or with C_TAIL only to c_chunk()).
    std::int64_t padded_k(const ConvShapes& shapes) const;
    std::int64_t padded_c(const ConvShapes& shapes) const;
    std::int64_t tiles(const ConvShapes& shapes) const;  // N x ceil(P/m) x ceil(Q/m)
    std::int64_t tile_blocks(const ConvShapes& shapes) const;
    // C split into slices of c_slice channels (a multiple of the C step):
    // enough that a launch has min_work_groups work-groups and no slice is
    // over max_c_slice channels, at most one slice per C step.
    std::int64_t c_slice(const ConvShapes& shapes) const;
    std::int64_t splits(const ConvShapes& shapes) const;
    // Bytes of U: groups x alpha^2 x Cp x Kp floats.
    std::size_t weight_bytes(const ConvShapes& shapes) const;
    // The slices' partial outputs when C is split (0 when it is not).
    std::size_t workspace_bytes(const ConvShapes& shapes) const;
    cl::NDRange global(const ConvShapes& shapes) const;

    std::string build_options() const;
    std::string str(const ConvShapes& shapes) const;
    // One program per configuration and layer type: the generated prelude of
    // the variant's matrices, the weight transform, the fused kernel and the
    // slice reduction, whichever writes y applying the layer's post-ops; x,
    // w, bias and y in the layer's storage type (U and partial sums float32).
    ProgramSpec program(const ConvShapes& shapes) const;
};

WinogradConfig winograd_config(const WinogradVariant& variant, const DeviceProfile& profile);

// The keys above, for ConvImplementation::profile_keys.
std::vector<std::string> winograd_profile_keys();

}  // namespace netcl
