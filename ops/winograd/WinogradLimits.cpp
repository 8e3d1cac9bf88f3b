#include "ops/winograd/WinogradLimits.hpp"

#include <algorithm>

namespace netcl {

namespace {
std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }
}  // namespace

WinogradBlocking winograd_blocking(const Variant& variant) {
    // BT x BC is a multiple of the work-group size (block_k / 8) x alpha^2, so
    // the input transform gives every work-item the same number of tiles.
    // Exactly: PoCL runs a phase where some work-items skip their tile
    // several times slower (measured: F(4x4) BK=128 BC=36, half the
    // work-items idle, 2.4x slower than BK=64 BC=36).
    // Fused: V (alpha^2 x (BT x BC + 1) floats) or the output staging
    // (alpha^2 x BT x min(BK, 32)) is the largest local array: 16.1 KiB
    // (F(2x2)) and 40.6 KiB (F(4x4)) fit NVIDIA's 48 KiB. Low-local: 8 KiB
    // (F(2x2)) and 10.3 KiB (F(4x4)), under 16 KiB. A larger BK means fewer
    // work-groups transforming the same input tiles (measured on PoCL:
    // F(2x2) BK 64 -> 128 and F(4x4) BK 32 -> 64 each cut 15-20%).
    const bool f4 = variant.winograd_tile == 4;
    if (variant.low_local_memory) return f4 ? WinogradBlocking{8, 8, 9} : WinogradBlocking{16, 8, 8};
    return f4 ? WinogradBlocking{64, 8, 36} : WinogradBlocking{128, 8, 32};
}

int winograd_alpha(const Variant& variant) { return variant.winograd_tile + 2; }

std::size_t winograd_work_group_size(const Variant& variant) {
    const auto alpha = static_cast<std::size_t>(winograd_alpha(variant));
    return static_cast<std::size_t>(winograd_blocking(variant).block_k / 8) * alpha * alpha;
}

std::size_t winograd_local_bytes(const Variant& variant) {
    const auto b = winograd_blocking(variant);
    const auto a2 = static_cast<std::size_t>(winograd_alpha(variant) * winograd_alpha(variant));
    const std::size_t v = a2 * static_cast<std::size_t>(b.block_c * b.block_tiles + 1);  // V_ESTRIDE padding
    const std::size_t m = a2 * static_cast<std::size_t>(b.block_tiles * std::min(b.block_k, 32));  // SK staging
    return std::max(v, m) * sizeof(float);
}

std::int64_t winograd_padded_k(const Variant& variant, const ConvShapes& s) {
    return round_up(s.K / s.groups, winograd_blocking(variant).block_k);
}

std::int64_t winograd_padded_c(const Variant& variant, const ConvShapes& s) {
    return round_up(s.C / s.groups, winograd_blocking(variant).block_c);
}

std::size_t winograd_weight_bytes(const Variant& variant, const ConvShapes& s) {
    const auto a2 = static_cast<std::size_t>(winograd_alpha(variant) * winograd_alpha(variant));
    return a2 * static_cast<std::size_t>(s.groups) * static_cast<std::size_t>(winograd_padded_c(variant, s)) *
           static_cast<std::size_t>(winograd_padded_k(variant, s)) * sizeof(float);
}

std::size_t winograd_workspace_bytes(const Variant& variant, const ConvShapes& s) {
    return winograd_weight_bytes(variant, s);
}

std::optional<std::string> winograd_why_not(const Variant& variant, const ConvShapes& s, const DeviceProfile& profile) {
    if (s.R != 3 || s.S != 3) return "Winograd takes 3x3 filters; this layer has " + std::to_string(s.R) + "x" + std::to_string(s.S);
    if (s.stride_h != 1 || s.stride_w != 1) return "Winograd takes stride 1; this layer has stride " + std::to_string(s.stride_h) + "x" + std::to_string(s.stride_w);
    if (s.dilation_h != 1 || s.dilation_w != 1) return "Winograd takes dilation 1; this layer has dilation " + std::to_string(s.dilation_h) + "x" + std::to_string(s.dilation_w);
    if (variant.winograd_tile != 2 && variant.winograd_tile != 4) return "Winograd tile must be 2 or 4 (F(2x2,3x3) or F(4x4,3x3)); got " + std::to_string(variant.winograd_tile);
    const std::size_t local = winograd_local_bytes(variant);
    if (profile.local_mem_bytes != 0 && local > profile.local_mem_bytes) {
        return std::string(variant.low_local_memory ? "the low-local-memory" : "the fused") + " Winograd variant needs " +
               std::to_string(local) + " bytes of local memory; the device offers " + std::to_string(profile.local_mem_bytes);
    }
    const std::size_t group = winograd_work_group_size(variant);
    if (profile.max_work_group_size != 0 && group > profile.max_work_group_size) {
        return "the Winograd variant needs work-groups of " + std::to_string(group) + " work-items; the device allows " +
               std::to_string(profile.max_work_group_size);
    }
    if (variant.constant_weights && winograd_weight_bytes(variant, s) > profile.max_constant_buffer_bytes) {
        return "the transformed weights (" + std::to_string(winograd_weight_bytes(variant, s)) +
               " bytes) exceed the device's constant buffer (" + std::to_string(profile.max_constant_buffer_bytes) + " bytes)";
    }
    // 32-bit index arithmetic in the kernel: U is padded beyond the weights.
    if (winograd_weight_bytes(variant, s) / sizeof(float) >= 2147483647u) {
        return "the Winograd kernel indexes with 32-bit ints; the transformed weights would have 2^31 elements or more";
    }
    return std::nullopt;
}

}  // namespace netcl
