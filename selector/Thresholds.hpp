#pragma once
#include <string>
#include <vector>

#include "netcl/DeviceProfile.hpp"

namespace netcl {

// The named thresholds the built-in rules read from DeviceProfile::tuned. A
// key the profile does not hold takes its value from the shipped default
// profile (selector/profiles/default.json, embedded), so each number lives in
// one place.
namespace threshold_key {
inline constexpr const char* naive_max_flops = "naive_max_flops";                  // below: direct convolution
inline constexpr const char* naive_max_output_pixels = "naive_max_output_pixels";  // P*Q at most: direct
inline constexpr const char* grouped_min_channels_per_group = "grouped_min_channels_per_group";
inline constexpr const char* winograd_min_channels = "winograd_min_channels";  // C to amortise the input transform
inline constexpr const char* winograd_min_filters = "winograd_min_filters";    // K to amortise it
inline constexpr const char* winograd_min_output = "winograd_min_output";  // min(P,Q) for any Winograd tile
inline constexpr const char* winograd_tile = "winograd_tile";                  // preferred m: 2 or 4
inline constexpr const char* winograd_f4_min_output = "winograd_f4_min_output";  // min(P,Q) for F(4x4)
// N * ceil(P/4) * ceil(Q/4) for F(4x4) first: fewer tiles share its weights than stream them well; 0: any.
inline constexpr const char* winograd_f4_min_tiles = "winograd_f4_min_tiles";
// The same where the weights are new every run (ConvShapes::new_weights_every_run: a training forward,
// backward data): U (alpha^2 / 9 times the weights) is transformed again every step, so F(4x4)'s larger U
// needs more tiles to carry it; 0: none.
inline constexpr const char* winograd_training_f4_min_tiles = "winograd_training_f4_min_tiles";
// The same for F(6x6) (N * ceil(P/6) * ceil(Q/6), over winograd_f6_min_output): its U is 64 / 9 times the
// weights; below it the smaller tiles' rules; 0: none.
inline constexpr const char* winograd_training_f6_min_tiles = "winograd_training_f6_min_tiles";
// N * ceil(P/2) * ceil(Q/2) F(2x2) tiles for Winograd at all where the weights are new every run: a U
// transformed every step for fewer tiles costs more than the multiplies it saves; 0: any.
inline constexpr const char* winograd_training_min_tiles = "winograd_training_min_tiles";
inline constexpr const char* winograd_f6_min_output = "winograd_f6_min_output";  // min(P,Q) for F(6x6) first
// Weight gradient: N * ceil(P/4) * ceil(Q/4) dy tiles for F(3x3,4x4) before
// F(3x3,2x2): its sums (K x C x 36, every tile adding to them) cost where few
// tiles share them.
inline constexpr const char* winograd_wgrad_f4_min_tiles = "winograd_wgrad_f4_min_tiles";
// 3-D: min(C, K) for Winograd at all (its transforms cost (C + K) per tile
// against the multiply's C x K), and the F(4x4x4) tiles in the batch for it
// before F(2x2x2) (N * ceil(O/4) * ceil(P/4) * ceil(Q/4)).
inline constexpr const char* winograd3d_min_channels = "winograd3d_min_channels";
inline constexpr const char* winograd3d_f4_min_tiles = "winograd3d_f4_min_tiles";
inline constexpr const char* winograd_5x5_tile = "winograd_5x5_tile";  // preferred m for 5x5 filters: 4, 5 or 9
// 0/1: for 5x5 filters F(4x4,5x5), F(9x9,5x5) or F(5x5,5x5), whichever pads the output least, first (over winograd_5x5_tile).
inline constexpr const char* winograd_5x5_tile_by_padding = "winograd_5x5_tile_by_padding";
// The largest error factor (ConvImplementation::error_factor: the error a
// variant may have, in multiples of a direct sum's) a plan may have; 0: any.
inline constexpr const char* max_error_factor = "max_error_factor";
inline constexpr const char* winograd_prefer_low_local_memory = "winograd_prefer_low_local_memory";  // 0/1
inline constexpr const char* winograd_constant_weights = "winograd_constant_weights";  // 0/1: try __constant
inline constexpr const char* winograd_prefer_gemm = "winograd_prefer_gemm";  // 0/1: separate transforms first
inline constexpr const char* im2col_gemm_max_reduction = "im2col_gemm_max_reduction";  // C/groups*R*S at most: im2col-gemm first
inline constexpr const char* im2col_min_flops = "im2col_min_flops";  // GEMM large enough for im2col
// C/groups at most: backward data on col2im-gemm first (0: never).
inline constexpr const char* col2im_gemm_max_channels = "col2im_gemm_max_channels";
// C/groups at most: the row-vectorised direct convolution first (0: never).
inline constexpr const char* direct_rows_max_channels = "direct_rows_max_channels";
// 0/1: the row-vectorised direct convolution takes few-channel reductions of
// at most im2col_gemm_max_reduction too (a filter larger than 1x1: 1x1
// layers keep the 1x1 GEMM), in place of im2col-gemm, whose column matrix
// it never writes (VGG's conv1.1: 5.4 MB an image).
inline constexpr const char* direct_rows_short_reductions = "direct_rows_short_reductions";
// 1x1 layers go to the implicit GEMM before the 1x1 GEMM when C/groups is at
// least gemm1x1_max_channels and P*Q at least gemm1x1_min_pixels_to_yield (a
// long reduction over enough pixels), or P*Q is at most
// gemm1x1_max_pixels_to_yield (the implicit GEMM folds the batch into its
// pixels; pocl-cpu-avx512.json's res5).
inline constexpr const char* gemm1x1_max_channels = "gemm1x1_max_channels";
inline constexpr const char* gemm1x1_min_pixels_to_yield = "gemm1x1_min_pixels_to_yield";
inline constexpr const char* gemm1x1_max_pixels_to_yield = "gemm1x1_max_pixels_to_yield";
// P*Q at most (one group, a filter larger than 1x1): im2col-gemm first, its
// columns and weights in panels (ops/im2col/Im2colGemmConfig.hpp; 0: never).
inline constexpr const char* im2col_gemm_panels_max_pixels = "im2col_gemm_panels_max_pixels";
// N*O*P*Q at least for that rule where the weights are new every run (a training forward, backward
// data): its weights' panels are packed again every step (0: any number of columns). Not a float32
// training forward whose weights im2col-gemm reads in place (im2col_gemm_training_weights_in_place).
inline constexpr const char* im2col_gemm_panels_training_min_columns = "im2col_gemm_panels_training_min_columns";
// C/groups at most (forward, one group, a filter larger than 1x1, a
// reduction longer than im2col_gemm_max_reduction): the same, over any
// number of pixels (ResNet's stem; 0: never).
inline constexpr const char* im2col_gemm_panels_max_channels = "im2col_gemm_panels_max_channels";
// N*P*Q at most (one group, a filter larger than 1x1), where the weights are new every run: im2col-gemm
// first (its weights in panels of MR rows, the implicit GEMM's in runs of a vector of filters, a pack that
// costs more a step where few columns share it; 0: never).
inline constexpr const char* im2col_gemm_training_max_columns = "im2col_gemm_training_max_columns";
// N*P*Q at most, over at most col2im_gemm_training_max_images images (float32, 3x3, one group): backward
// data on col2im-gemm first, ahead of Winograd too, where its GEMM reads the filters in place (its W^T not
// in panels), where rotating them (as forward) or transforming them (Winograd) is a pass over them every
// step that few columns cannot carry (0: never).
inline constexpr const char* col2im_gemm_training_max_columns = "col2im_gemm_training_max_columns";
inline constexpr const char* col2im_gemm_training_max_images = "col2im_gemm_training_max_images";
// 0/1: where the weights are new every run, 1x1 layers keep the 1x1 GEMM first (the yields above were
// measured with the weights set once; the implicit GEMM repacks them every step).
inline constexpr const char* gemm1x1_training_never_yields = "gemm1x1_training_never_yields";
}  // namespace threshold_key

// The profile's value for `key`, else the shipped default's. Throws
// netcl::Error for a key the default profile lacks (a programming error).
double threshold(const DeviceProfile& profile, const std::string& key);
// Every key the rules read (the tests check default.json holds them all).
const std::vector<std::string>& threshold_keys();
// Every "tuned" key netcl reads: the rules' thresholds and the keys the
// implementations read (ConvImplementation::profile_keys). A profile key
// outside this list is warned about by name.
bool is_known_tuned_key(const std::string& key);
std::string known_tuned_keys_text();

}  // namespace netcl
