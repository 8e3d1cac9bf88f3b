#include "ops/internal/Widen.hpp"

#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl::internal {

namespace {
constexpr const char* kWiden = "widen_to_float";
constexpr std::size_t kLocal = 64;
}  // namespace

ProgramSpec widen_program() {
    return {"widen", storage_source() + embedded_source("widen"), storage_options(DataType::FLOAT16),
            {{kWiden, {kLocal, 1, 1}}}};
}

void enqueue_widen(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, const cl::Buffer& out,
                   std::size_t out_offset_floats, EventChain& chain) {
    enqueue_widen(queue, kernel, from, 0, static_cast<std::size_t>(from.numel()), out, out_offset_floats, chain);
}

void enqueue_widen(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::size_t first,
                   std::size_t count, const cl::Buffer& out, std::size_t out_offset_floats, EventChain& chain) {
    enqueue_widen_rows(queue, kernel, from, first, 1, count, count, out, out_offset_floats, chain);
}

void enqueue_widen_rows(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::size_t first,
                        std::size_t rows, std::size_t count, std::size_t stride, const cl::Buffer& out,
                        std::size_t out_offset_floats, EventChain& chain) {
    set_args(kernel, kWiden, from.buffer(), offset_of(from) + static_cast<cl_ulong>(first),
             static_cast<cl_ulong>(stride), out, static_cast<cl_ulong>(out_offset_floats),
             static_cast<cl_ulong>(count), static_cast<cl_ulong>(count), static_cast<cl_ulong>(rows));
    const std::size_t items = rows * ((count + 7) / 8);  // eight elements a work-item
    launch(queue, kernel, kWiden, cl::NDRange((items + kLocal - 1) / kLocal * kLocal), cl::NDRange(kLocal), chain);
}

Tensor widened_copy(const std::shared_ptr<Context>& context, cl::Kernel& kernel, const Tensor& from, EventChain& chain) {
    Tensor widened = Tensor::empty(context, from.shape());
    enqueue_widen(context->queue(), kernel, from, widened.buffer(), 0, chain);
    return widened;
}

}  // namespace netcl::internal
