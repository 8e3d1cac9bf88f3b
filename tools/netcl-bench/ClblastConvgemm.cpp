#include "ClblastConvgemm.hpp"

#include <clblast.h>

#include "ops/internal/ClblastStatus.hpp"

namespace netcl::bench {

std::optional<std::string> clblast_convgemm_why_not(const ConvShapes& s) {
    if (s.groups != 1) return "CLBlast Convgemm has no groups (groups = " + std::to_string(s.groups) + ")";
    if (s.bias) return "CLBlast Convgemm has no bias";
    if (!s.symmetric_padding()) return "CLBlast Convgemm takes the same padding on both sides";
    return std::nullopt;
}

cl::Event enqueue_clblast_convgemm(Context& context, const ConvShapes& s, const Tensor& x, const Tensor& weights,
                                   Tensor& y) {
    cl_command_queue queue = context.queue()();
    cl_event event = nullptr;
    const auto size = [](std::int64_t v) { return static_cast<std::size_t>(v); };
    const auto status = clblast::Convgemm<float>(
        clblast::KernelMode::kCrossCorrelation, size(s.C), size(s.H), size(s.W), size(s.R), size(s.S),
        size(s.pad_top), size(s.pad_left), size(s.stride_h), size(s.stride_w), size(s.dilation_h), size(s.dilation_w),
        size(s.K), size(s.N), x.buffer()(), 0, weights.buffer()(), 0, y.buffer()(), 0, &queue, &event);
    internal::check_clblast(status, "clblast::Convgemm<float> for " + s.str());
    return cl::Event(event);  // takes over CLBlast's reference
}

}  // namespace netcl::bench
