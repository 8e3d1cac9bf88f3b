#pragma once
// A tensor in device memory: one that netcl allocated, or a view of a
// caller's cl_mem at a byte offset (a framework's own buffer; netcl never
// frees it). NCHW, contiguous, rank 1..5, float32 or float16 elements
// (DataType). The host side speaks float either way: from_host rounds to
// the tensor's type (nearest even), to_host widens exactly.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netcl/DataType.hpp"
#include "netcl/OpenCL.hpp"

namespace netcl {

class Context;

class Tensor {
public:
    using Shape = std::vector<std::int64_t>;
    static constexpr std::size_t kMaxRank = 5;

    Tensor() = default;

    // Uninitialised device memory of `shape`, allocated by netcl.
    static Tensor empty(std::shared_ptr<Context> context, Shape shape, DataType type = DataType::FLOAT32);
    // Copies `host` (exactly numel(shape) floats, rounded to `type`) to new
    // device memory; blocks until copied.
    static Tensor from_host(std::shared_ptr<Context> context, const std::vector<float>& host, Shape shape,
                            DataType type = DataType::FLOAT32);
    static Tensor from_host(std::shared_ptr<Context> context, const float* host, std::size_t count, Shape shape,
                            DataType type = DataType::FLOAT32);
    // A view of `shape` elements of `type` inside `buffer`, starting
    // `offset_bytes` into it. netcl retains the cl_mem while the view (or a
    // copy) lives and releases only that reference. Any offset that is a
    // whole number of elements works: netcl's kernels and CLBlast take the
    // offset as an argument, so CL_DEVICE_MEM_BASE_ADDR_ALIGN does not apply.
    // Throws netcl::Error for a null buffer, a buffer of another context, an
    // offset that is not a multiple of the element size (4 or 2), or a view
    // that runs past the buffer's end.
    static Tensor view(std::shared_ptr<Context> context, cl_mem buffer, std::size_t offset_bytes, Shape shape,
                       DataType type = DataType::FLOAT32);

    // Copies to the host; blocks. Waits for `wait` first (needed on an
    // out-of-order queue, where a blocking read does not wait for earlier commands).
    // float16 elements widen exactly.
    std::vector<float> to_host(const std::vector<cl::Event>& wait = {}) const;
    // Sets every element (e.g. NaN to poison an output before a run; rounded
    // to the tensor's type); does not block. Returns the fill's event.
    cl::Event fill(float value, const std::vector<cl::Event>& wait = {});

    bool defined() const { return context_ != nullptr; }
    const Shape& shape() const { return shape_; }
    std::size_t rank() const { return shape_.size(); }
    std::int64_t dim(std::size_t axis) const;
    std::size_t numel() const { return numel_; }
    DataType dtype() const { return dtype_; }
    std::size_t element_bytes() const { return size_of(dtype_); }
    std::size_t bytes() const { return numel_ * element_bytes(); }
    // The cl_mem the elements live in, and where in it they start.
    const cl::Buffer& buffer() const { return buffer_; }
    std::size_t offset_bytes() const { return offset_bytes_; }
    std::size_t offset() const { return offset_bytes_ / element_bytes(); }  // in elements, as kernels take it
    bool is_view() const { return view_; }
    const std::shared_ptr<Context>& context() const { return context_; }

    // The two tensors share bytes of one buffer.
    bool overlaps(const Tensor& other) const;

private:
    Tensor(std::shared_ptr<Context> context, Shape shape, std::size_t numel, DataType type);

    std::shared_ptr<Context> context_;
    Shape shape_;
    std::size_t numel_ = 0;
    DataType dtype_ = DataType::FLOAT32;
    cl::Buffer buffer_;
    std::size_t offset_bytes_ = 0;
    bool view_ = false;
    std::shared_ptr<void> reservation_;  // netcl's own buffers: their bytes in the Context's memory budget
};

// numel of `shape`, refusing rank 0 or > kMaxRank, zero or negative
// dimensions, and products whose byte size overflows size_t.
std::size_t checked_numel(const Tensor::Shape& shape);
std::string shape_string(const Tensor::Shape& shape);

}  // namespace netcl
