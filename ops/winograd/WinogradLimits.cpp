#include "ops/winograd/WinogradLimits.hpp"

namespace netcl {

namespace {
std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }
}  // namespace

WinogradBlocking winograd_blocking(const Variant& variant) {
    // Provisional: the kernel's real block sizes replace these.
    if (variant.low_local_memory) return {8, 8, 4};
    return {16, 16, 8};
}

std::size_t winograd_local_bytes(const Variant& variant) {
    const auto b = winograd_blocking(variant);
    const std::size_t alpha = static_cast<std::size_t>(variant.winograd_tile + 2);
    return alpha * alpha * static_cast<std::size_t>(b.block_c) * (b.block_tiles + b.block_k) * sizeof(float);
}

std::size_t winograd_weight_bytes(const Variant& variant, const ConvShapes& s) {
    const auto b = winograd_blocking(variant);
    const std::size_t alpha = static_cast<std::size_t>(variant.winograd_tile + 2);
    return alpha * alpha * static_cast<std::size_t>(round_up(s.K, b.block_k)) * static_cast<std::size_t>(s.C / s.groups) *
           sizeof(float);
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
    if (variant.constant_weights && winograd_weight_bytes(variant, s) > profile.max_constant_buffer_bytes) {
        return "the transformed weights (" + std::to_string(winograd_weight_bytes(variant, s)) +
               " bytes) exceed the device's constant buffer (" + std::to_string(profile.max_constant_buffer_bytes) + " bytes)";
    }
    return std::nullopt;
}

}  // namespace netcl
