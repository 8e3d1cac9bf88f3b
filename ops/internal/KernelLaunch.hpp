#pragma once
// Internal: small helpers the strategies share for binding arguments,
// launching kernels and checking their tensors.
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Error.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

// A kernel of `program`, with the failure naming the kernel.
cl::Kernel make_kernel(const cl::Program& program, const char* name);

// Binds args[0..] in order; a failure names the kernel and the argument index.
template <typename... Args>
void set_args(cl::Kernel& kernel, const char* name, const Args&... args) {
    cl_uint index = 0;
    auto bind = [&](const auto& value) {
        NETCL_CL_CHECK(kernel.setArg(index, value),
                       std::string("setting argument ") + std::to_string(index) + " of kernel " + name);
        ++index;
    };
    (bind(args), ...);
}

// Enqueues `kernel` over `global` rounded up to a multiple of `local` (the
// kernels guard their ranges), after what `chain` waits on, and records its
// event in the chain. A fixed local size, not the driver's pick, because
// PoCL compiles one specialisation per local size: leaving it to the driver
// costs a compile for nearly every new shape.
void launch(const cl::CommandQueue& queue, const cl::Kernel& kernel, const char* name, const cl::NDRange& global,
            const cl::NDRange& local, EventChain& chain);

// Element offsets as the kernels take them (a view's place in its buffer).
inline cl_ulong offset_of(const Tensor& t) { return static_cast<cl_ulong>(t.offset()); }

// Throws netcl::Error unless x is N x C x H x W and y is N x K x P x Q of `shapes`.
void check_io(const char* strategy, const ConvShapes& shapes, const Tensor& x, const Tensor& y);
// Throws netcl::Error unless weights (and bias, when the shapes have one) match `shapes`.
void check_weights(const char* strategy, const ConvShapes& shapes, const Tensor& weights, const Tensor* bias);

}  // namespace netcl::internal
