#include "netcl/Tensor.hpp"

#include <limits>

#include "netcl/Context.hpp"
#include "netcl/Error.hpp"
#include "netcl/Half.hpp"
#include "runtime/MemoryBudget.hpp"

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

Tensor::Tensor(std::shared_ptr<Context> context, Shape shape, std::size_t numel, DataType type)
    : context_(std::move(context)), shape_(std::move(shape)), numel_(numel), dtype_(type) {
    NETCL_REQUIRE(context_ != nullptr, "a Tensor needs a Context; got a null one");
    const auto& profile = context_->profile();
    if (profile.max_alloc_bytes != 0 && bytes() > profile.max_alloc_bytes) {
        throw Error("tensor " + shape_string(shape_) + " needs " + std::to_string(bytes()) +
                    " bytes; the device allows at most " + std::to_string(profile.max_alloc_bytes) +
                    " bytes in one allocation");
    }
    const std::string what = "allocating a tensor of " + std::to_string(bytes()) + " bytes";
    reservation_ = context_->memory_budget().reserve(bytes(), what);
    cl_int status = CL_SUCCESS;
    buffer_ = cl::Buffer(context_->cl_context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
    NETCL_CL_CHECK(status, what);
}

Tensor Tensor::empty(std::shared_ptr<Context> context, Shape shape, DataType type) {
    const std::size_t numel = checked_numel(shape);
    return Tensor(std::move(context), std::move(shape), numel, type);
}

Tensor Tensor::from_host(std::shared_ptr<Context> context, const std::vector<float>& host, Shape shape,
                         DataType type) {
    return from_host(std::move(context), host.data(), host.size(), std::move(shape), type);
}

Tensor Tensor::from_host(std::shared_ptr<Context> context, const float* host, std::size_t count, Shape shape,
                         DataType type) {
    const std::size_t numel = checked_numel(shape);
    if (count != numel) {
        throw Error("host data has " + std::to_string(count) + " floats; shape " + shape_string(shape) +
                    " expects " + std::to_string(numel));
    }
    Tensor tensor(std::move(context), std::move(shape), numel, type);
    std::vector<std::uint16_t> halves;
    const void* source = host;
    if (type == DataType::FLOAT16) {
        halves.resize(numel);
        for (std::size_t i = 0; i < numel; ++i) halves[i] = half_from_float(host[i]);
        source = halves.data();
    }
    NETCL_CL_CHECK(tensor.context_->queue().enqueueWriteBuffer(tensor.buffer_, CL_TRUE, 0, tensor.bytes(), source),
                   "copying a tensor to the device");
    return tensor;
}

Tensor Tensor::view(std::shared_ptr<Context> context, cl_mem buffer, std::size_t offset_bytes, Shape shape,
                    DataType type) {
    NETCL_REQUIRE(context != nullptr, "Tensor::view needs a Context; got a null one");
    if (buffer == nullptr) throw Error("Tensor::view: got a null cl_mem; expected the caller's buffer");
    const std::size_t numel = checked_numel(shape);
    if (offset_bytes % size_of(type) != 0) {
        throw Error("Tensor::view: byte offset " + std::to_string(offset_bytes) + " is not a multiple of " +
                    std::to_string(size_of(type)) + "; expected the offset of a " + to_string(type) + " element");
    }
    cl_context owner = nullptr;
    std::size_t size = 0;
    NETCL_CL_CHECK(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, nullptr),
                   "Tensor::view: reading the buffer's context");
    NETCL_CL_CHECK(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, nullptr),
                   "Tensor::view: reading the buffer's size");
    if (owner != context->cl_context()()) {
        throw Error("Tensor::view: the cl_mem belongs to another cl_context; expected a buffer of the Context's own");
    }
    const std::size_t bytes = numel * size_of(type);
    if (offset_bytes > size || bytes > size - offset_bytes) {
        throw Error("Tensor::view: " + shape_string(shape) + " (" + std::to_string(bytes) + " bytes) at offset " +
                    std::to_string(offset_bytes) + " runs past the end of a " + std::to_string(size) +
                    "-byte buffer; expected offset + size <= the buffer's size");
    }
    Tensor tensor;
    tensor.context_ = std::move(context);
    tensor.shape_ = std::move(shape);
    tensor.numel_ = numel;
    tensor.dtype_ = type;
    tensor.buffer_ = cl::Buffer(buffer, /*retainObject=*/true);
    tensor.offset_bytes_ = offset_bytes;
    tensor.view_ = true;
    return tensor;
}

std::vector<float> Tensor::to_host(const std::vector<cl::Event>& wait) const {
    NETCL_REQUIRE(defined(), "to_host() on an empty Tensor; expected one made by empty(), from_host() or view()");
    std::vector<float> host(numel_);
    std::vector<std::uint16_t> halves(dtype_ == DataType::FLOAT16 ? numel_ : 0);
    void* target = halves.empty() ? static_cast<void*>(host.data()) : halves.data();
    NETCL_CL_CHECK(context_->queue().enqueueReadBuffer(buffer_, CL_TRUE, offset_bytes_, bytes(), target,
                                                       wait.empty() ? nullptr : &wait),
                   "copying a tensor to the host");
    for (std::size_t i = 0; i < halves.size(); ++i) host[i] = float_from_half(halves[i]);
    return host;
}

cl::Event Tensor::fill(float value, const std::vector<cl::Event>& wait) {
    NETCL_REQUIRE(defined(), "fill() on an empty Tensor; expected one made by empty(), from_host() or view()");
    cl::Event event;
    const auto* waits = wait.empty() ? nullptr : &wait;
    const cl_int status = dtype_ == DataType::FLOAT16
                              ? context_->queue().enqueueFillBuffer(buffer_, half_from_float(value), offset_bytes_,
                                                                    bytes(), waits, &event)
                              : context_->queue().enqueueFillBuffer(buffer_, value, offset_bytes_, bytes(), waits, &event);
    NETCL_CL_CHECK(status, "filling a tensor");
    return event;
}

bool Tensor::overlaps(const Tensor& other) const {
    if (!defined() || !other.defined() || buffer_() != other.buffer_()) return false;
    return offset_bytes_ < other.offset_bytes_ + other.bytes() && other.offset_bytes_ < offset_bytes_ + bytes();
}

std::int64_t Tensor::dim(std::size_t axis) const {
    if (axis >= shape_.size()) {
        throw Error("axis " + std::to_string(axis) + " of a rank-" + std::to_string(shape_.size()) +
                    " tensor; expected an axis below the rank");
    }
    return shape_[axis];
}

}  // namespace netcl
