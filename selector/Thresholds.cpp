#include "selector/Thresholds.hpp"

#include <algorithm>

#include "netcl/Error.hpp"
#include "ops/Implementations.hpp"
#include "selector/ProfileStore.hpp"

namespace netcl {

namespace {

const DeviceProfile& shipped_default() {
    // Parsed once; the embedded file is part of the library, so failing here is a build defect.
    static const DeviceProfile profile = load_profile("default");
    return profile;
}

}  // namespace

const std::vector<std::string>& threshold_keys() {
    namespace k = threshold_key;
    static const std::vector<std::string> keys = {
        k::naive_max_flops,       k::naive_max_output_pixels, k::grouped_min_channels_per_group,
        k::winograd_min_channels, k::winograd_min_filters,    k::winograd_min_output, k::winograd_tile,
        k::winograd_f4_min_output, k::winograd_f4_min_tiles, k::winograd_training_f4_min_tiles, k::winograd_training_f6_min_tiles, k::winograd_training_min_tiles, k::winograd_f6_min_output, k::winograd_wgrad_f4_min_tiles, k::winograd3d_min_channels, k::winograd3d_f4_min_tiles, k::winograd_5x5_tile, k::winograd_5x5_tile_by_padding, k::max_error_factor, k::winograd_prefer_low_local_memory, k::winograd_constant_weights, k::winograd_prefer_gemm,
        k::gemm1x1_max_channels, k::gemm1x1_min_pixels_to_yield, k::gemm1x1_max_pixels_to_yield,
        k::im2col_gemm_max_reduction, k::im2col_min_flops, k::direct_rows_max_channels, k::direct_rows_short_reductions, k::col2im_gemm_max_channels,
        k::im2col_gemm_panels_max_pixels, k::im2col_gemm_panels_training_min_columns, k::im2col_gemm_panels_max_channels, k::im2col_gemm_training_max_columns, k::gemm1x1_training_never_yields,
        k::col2im_gemm_training_max_columns, k::col2im_gemm_training_max_images};
    return keys;
}

namespace {

std::vector<std::string> known_keys() {
    std::vector<std::string> keys = threshold_keys();
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const auto& key : impl->profile_keys()) keys.push_back(key);
        keys.push_back(impl->enabled_key());
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

}  // namespace

bool is_known_tuned_key(const std::string& key) {
    static const std::vector<std::string> keys = known_keys();
    return std::binary_search(keys.begin(), keys.end(), key);
}

std::string known_tuned_keys_text() {
    std::string text;
    for (const auto& key : known_keys()) text += (text.empty() ? "" : ", ") + key;
    return text;
}

double threshold(const DeviceProfile& profile, const std::string& key) {
    if (const auto it = profile.tuned.find(key); it != profile.tuned.end()) return it->second;
    const auto& fallback = shipped_default().tuned;
    if (const auto it = fallback.find(key); it != fallback.end()) return it->second;
    throw Error("selector threshold '" + key + "' is in neither the profile nor the shipped default profile");
}

}  // namespace netcl
