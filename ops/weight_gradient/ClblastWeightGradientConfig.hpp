#pragma once
// Internal: how wgrad-clblast (ClblastWeightGradientConv.hpp) computes one
// layer's weight gradient -- the configuration its strategy and its
// descriptor both read.
//
// A GEMM whose output (K/groups x C/groups·R·S) is small beside its
// reduction (an image's P·Q pixels) leaves most of a GPU idle: CLBlast's
// SGEMM splits only the output across work-groups. VGG-16's conv1.1 (64 x 27
// outputs over 50176 pixels) took 2.0 ms at N = 1 against cuDNN's 0.05, and
// conv1.2 (64 x 576) 2.9 against 0.21 (H100, NVIDIA's OpenCL, one GEMM an
// image). So where dW is small beside the device (wgrad_clblast_split_outputs),
// the GEMMs write float32 partial gradients into slots: one per piece of an
// image's pixels (`chunks`) and image of a batch of `slot_images` images,
// each strided-batched call taking every image of the batch (or every piece
// of an image, whichever makes fewer calls); a later batch adds into the same
// slots (so they take about wgrad_clblast_split_outputs floats), and
// gradient_sums.cl's sum_weight_gradient_partials adds them, in order, into dw
// once, after the last pass: the same dw bit for bit on every run. (One
// image at a time, ResNet-50's weight gradients at N = 8 took 0.5-0.7 ms a
// layer on an H200, launch-bound, against 0.06-0.15 for cuDNN.)
//
// float16 (CLBlast's HGEMM needs cl_khr_fp16, and would sum in half): the
// SGEMM reads float32 copies. x's columns are expanded even for a 1x1 layer
// (the expansion widens them), each batch's dy is widened into the workspace
// before its GEMMs, and the GEMMs always write float32 partials (one slot or
// more), stored into the half dw once, after the last pass: the sum over
// images stays float32 and is rounded to half once, as a float32 layer's dw
// is rounded once to float.
#include <cstddef>
#include <cstdint>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "ops/im2col/Im2colLayout.hpp"

namespace netcl {

struct ClblastWeightGradientConfig {
    Im2colLayout layout;             // the columns, as IM2COL's (always expanded in float16)
    bool half = false;               // float16 x, dy and dw (above)
    std::int64_t slot_images = 1;    // images whose GEMMs write slots of their own (1: every image adds into one)
    std::int64_t pixels = 0;         // an image's P·Q, the reduction its GEMMs split
    std::int64_t chunks = 1;         // pieces of an image's pixels, each its own GEMM
    std::int64_t chunk_pixels = 0;   // pixels of each piece but the last (which takes the rest)
    std::size_t partials_bytes = 0;  // slots() x dW's size in float32, after the columns (0 without partials)
    std::size_t dy_bytes = 0;        // float16: a batch's dy widened to float32, after the partials

    // Partial gradients: one per piece and image of a batch.
    std::int64_t slots() const { return slot_images * chunks; }
    // The GEMMs write float32 partials, summed into dw by sum_weight_gradient_partials (float32 with one
    // slot: each image's GEMM adds into dw itself).
    bool writes_partials() const { return slots() > 1 || half; }
    // A batch of `images` takes a call a piece over its images, or a call an image over its whole pieces
    // (and one for its last piece where that is shorter): whichever makes fewer calls.
    bool call_per_piece(std::int64_t images) const {
        const std::int64_t calls_per_image = chunks * chunk_pixels > pixels ? 2 : 1;
        return chunks < images * calls_per_image;
    }
    std::size_t workspace_bytes() const { return layout.workspace_bytes + partials_bytes + dy_bytes; }
    std::string str() const;
};

// Profile keys:
//   wgrad_clblast_split_outputs   the outputs (dW's elements x slots) to aim for in
//                                 one call (default 2^22)
//   wgrad_clblast_min_chunk       the fewest pixels a piece may reduce over (default 256)
ClblastWeightGradientConfig clblast_weight_gradient_config(const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
