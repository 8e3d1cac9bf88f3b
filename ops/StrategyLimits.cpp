#include "ops/StrategyLimits.hpp"

#include "ops/im2col/Im2colLayout.hpp"
#include "ops/winograd/WinogradLimits.hpp"

namespace netcl {

std::size_t im2col_workspace_limit(const DeviceProfile& profile) {
    const double fallback = profile.max_alloc_bytes ? static_cast<double>(profile.max_alloc_bytes) / 4 : 256.0 * (1 << 20);
    return static_cast<std::size_t>(profile.tuned_or("im2col_workspace_limit_bytes", fallback));
}

std::size_t workspace_bytes(Kernel kernel, const Variant& variant, const ConvShapes& s) {
    switch (kernel) {
        case Kernel::CONV2D_NAIVE: return 0;
        case Kernel::IM2COL:
            // Exactly what Im2colConv allocates: the columns of one pass of images.
            return im2col_layout(s).workspace_bytes;
        case Kernel::CONV2D_WINOGRAD: return winograd_workspace_bytes(variant, s);
    }
    return 0;
}

std::size_t workspace_bytes(Kernel kernel, const Variant& variant, const ConvShapes& s, const DeviceProfile& profile) {
    if (kernel == Kernel::IM2COL) return im2col_layout(s, im2col_workspace_limit(profile)).workspace_bytes;
    return workspace_bytes(kernel, variant, s);
}

std::optional<std::string> int_indexing_why_not(const ConvShapes& s) {
    constexpr std::int64_t kLimit = 2147483647;  // INT_MAX: the kernels index with int
    if (s.input_numel() >= kLimit || s.output_numel() >= kLimit || s.weight_numel() >= kLimit) {
        return "the kernels index with 32-bit ints; this layer has a tensor of 2^31 elements or more (input " +
               std::to_string(s.input_numel()) + ", output " + std::to_string(s.output_numel()) + ", weights " +
               std::to_string(s.weight_numel()) + ")";
    }
    return std::nullopt;
}

std::optional<std::string> why_not(Kernel kernel, const Variant& variant, const ConvShapes& s,
                                   const DeviceProfile& profile) {
    if (auto reason = int_indexing_why_not(s)) return reason;
    switch (kernel) {
        case Kernel::CONV2D_NAIVE: return std::nullopt;  // takes every valid convolution
        case Kernel::IM2COL: {
            const std::size_t need = workspace_bytes(kernel, variant, s, profile), limit = im2col_workspace_limit(profile);
            if (need > limit) {
                return "im2col needs a workspace of " + std::to_string(need) + " bytes; the limit is " +
                       std::to_string(limit) + " bytes";
            }
            return std::nullopt;
        }
        case Kernel::CONV2D_WINOGRAD: return winograd_why_not(variant, s, profile);
    }
    return "unknown strategy";
}

}  // namespace netcl
