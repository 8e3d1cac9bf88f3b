#include "ops/internal/KernelLaunch.hpp"

namespace netcl::internal {

cl::Kernel make_kernel(const cl::Program& program, const char* name) {
    cl_int status = CL_SUCCESS;
    cl::Kernel kernel(program, name, &status);
    NETCL_CL_CHECK(status, std::string("creating kernel ") + name);
    return kernel;
}

void launch(const cl::CommandQueue& queue, const cl::Kernel& kernel, const char* name, const cl::NDRange& global,
            const cl::NDRange& local, EventChain& chain) {
    NETCL_REQUIRE(global.dimensions() == local.dimensions(), "launch: global and local ranges differ in rank");
    std::size_t rounded[3] = {1, 1, 1};
    for (cl_uint d = 0; d < global.dimensions(); ++d) rounded[d] = (global[d] + local[d] - 1) / local[d] * local[d];
    const cl::NDRange padded = global.dimensions() == 1   ? cl::NDRange(rounded[0])
                               : global.dimensions() == 2 ? cl::NDRange(rounded[0], rounded[1])
                                                          : cl::NDRange(rounded[0], rounded[1], rounded[2]);
    cl::Event event;
    NETCL_CL_CHECK(queue.enqueueNDRangeKernel(kernel, cl::NullRange, padded, local, chain.wait_list(), &event),
                   std::string("enqueueing kernel ") + name);
    chain.then(event);
}

void check_io(const char* strategy, const ConvShapes& s, const Tensor& x, const Tensor& y) {
    const Tensor::Shape in = s.input_shape(), out = s.output_shape();
    if (!x.defined() || x.shape() != in) {
        throw Error(std::string(strategy) + ": input is " + (x.defined() ? shape_string(x.shape()) : "undefined") +
                    "; " + s.str() + " expects " + shape_string(in));
    }
    if (!y.defined() || y.shape() != out) {
        throw Error(std::string(strategy) + ": output is " + (y.defined() ? shape_string(y.shape()) : "undefined") +
                    "; " + s.str() + " expects " + shape_string(out));
    }
}

void check_weights(const char* strategy, const ConvShapes& s, const Tensor& weights, const Tensor* bias) {
    if (!weights.defined() || weights.numel() != static_cast<std::size_t>(s.weight_numel())) {
        throw Error(std::string(strategy) + ": weights hold " + std::to_string(weights.numel()) + " floats; " +
                    s.str() + " expects K x C/groups x " + (s.spatial_rank == 3 ? "T x " : "") + "R x S = " +
                    std::to_string(s.weight_numel()));
    }
    if (s.bias && (bias == nullptr || bias->numel() != static_cast<std::size_t>(s.K))) {
        throw Error(std::string(strategy) + ": bias holds " + std::to_string(bias ? bias->numel() : 0) +
                    " floats; expected K = " + std::to_string(s.K));
    }
}

}  // namespace netcl::internal
