#include "runtime/Tensor.hpp"

#include <limits>

#include "runtime/Context.hpp"
#include "runtime/Error.hpp"

namespace netcl {

std::string shape_string(const Tensor::Shape& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

std::size_t checked_numel(const Tensor::Shape& shape) {
    if (shape.empty() || shape.size() > Tensor::kMaxRank) {
        throw Error("tensor shape " + shape_string(shape) + " has rank " + std::to_string(shape.size()) +
                    "; expected rank 1 to " + std::to_string(Tensor::kMaxRank));
    }
    std::size_t numel = 1;
    const std::size_t limit = std::numeric_limits<std::size_t>::max() / sizeof(float);
    for (const auto d : shape) {
        if (d <= 0) {
            throw Error("tensor shape " + shape_string(shape) + " has a dimension of " + std::to_string(d) +
                        "; expected every dimension >= 1");
        }
        if (numel > limit / static_cast<std::size_t>(d)) {
            throw Error("tensor shape " + shape_string(shape) +
                        " has more elements than a size_t byte count can hold; expected a smaller tensor");
        }
        numel *= static_cast<std::size_t>(d);
    }
    return numel;
}

Tensor::Tensor(std::shared_ptr<Context> context, Shape shape, std::size_t numel)
    : context_(std::move(context)), shape_(std::move(shape)), numel_(numel) {
    NETCL_REQUIRE(context_ != nullptr, "a Tensor needs a Context; got a null one");
    const auto& profile = context_->profile();
    if (profile.max_alloc_bytes != 0 && bytes() > profile.max_alloc_bytes) {
        throw Error("tensor " + shape_string(shape_) + " needs " + std::to_string(bytes()) +
                    " bytes; the device allows at most " + std::to_string(profile.max_alloc_bytes) +
                    " bytes in one allocation");
    }
    cl_int status = CL_SUCCESS;
    buffer_ = cl::Buffer(context_->cl_context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
    NETCL_CL_CHECK(status, "allocating a tensor of " + std::to_string(bytes()) + " bytes");
}

Tensor Tensor::empty(std::shared_ptr<Context> context, Shape shape) {
    const std::size_t numel = checked_numel(shape);
    return Tensor(std::move(context), std::move(shape), numel);
}

Tensor Tensor::from_host(std::shared_ptr<Context> context, const std::vector<float>& host, Shape shape) {
    return from_host(std::move(context), host.data(), host.size(), std::move(shape));
}

Tensor Tensor::from_host(std::shared_ptr<Context> context, const float* host, std::size_t count, Shape shape) {
    const std::size_t numel = checked_numel(shape);
    if (count != numel) {
        throw Error("host data has " + std::to_string(count) + " floats; shape " + shape_string(shape) +
                    " expects " + std::to_string(numel));
    }
    Tensor tensor(std::move(context), std::move(shape), numel);
    NETCL_CL_CHECK(tensor.context_->queue().enqueueWriteBuffer(tensor.buffer_, CL_TRUE, 0, tensor.bytes(), host),
                   "copying a tensor to the device");
    return tensor;
}

std::vector<float> Tensor::to_host() const {
    NETCL_REQUIRE(defined(), "to_host() on an empty Tensor; expected one made by empty() or from_host()");
    std::vector<float> host(numel_);
    NETCL_CL_CHECK(context_->queue().enqueueReadBuffer(buffer_, CL_TRUE, 0, bytes(), host.data()),
                   "copying a tensor to the host");
    return host;
}

void Tensor::fill(float value) {
    NETCL_REQUIRE(defined(), "fill() on an empty Tensor; expected one made by empty() or from_host()");
    NETCL_CL_CHECK(context_->queue().enqueueFillBuffer(buffer_, value, 0, bytes()), "filling a tensor");
}

std::int64_t Tensor::dim(std::size_t axis) const {
    if (axis >= shape_.size()) {
        throw Error("axis " + std::to_string(axis) + " of a rank-" + std::to_string(shape_.size()) +
                    " tensor; expected an axis below the rank");
    }
    return shape_[axis];
}

}  // namespace netcl
