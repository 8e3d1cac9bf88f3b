#pragma once
// Internal: kernels_cl/widen.cl, a float16 tensor widened to float32 in a
// buffer of netcl's own (transformed once, as Winograd's weights are).
#include <cstddef>
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

ProgramSpec widen_program();
// Enqueues out[out_offset_floats + i] = from[i] for every element of `from` (a float16 tensor).
void enqueue_widen(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, const cl::Buffer& out,
                   std::size_t out_offset_floats, EventChain& chain);
// A float32 copy of a float16 tensor (a layer's weights) in a fresh buffer of
// its own: a run still in flight keeps reading the old copy.
Tensor widened_copy(const std::shared_ptr<Context>& context, cl::Kernel& kernel, const Tensor& from, EventChain& chain);
// The same for `count` elements of `from` from its element `first` on (a chunk of its images).
void enqueue_widen(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::size_t first,
                   std::size_t count, const cl::Buffer& out, std::size_t out_offset_floats, EventChain& chain);
// `rows` runs of `count` elements of `from`, the first from element `first` on and each `stride` after the
// last's start, packed into `out` (count floats a row): a block of a matrix that lies in rows.
void enqueue_widen_rows(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::size_t first,
                        std::size_t rows, std::size_t count, std::size_t stride, const cl::Buffer& out,
                        std::size_t out_offset_floats, EventChain& chain);

}  // namespace netcl::internal
