#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "OpenCL.hpp"

namespace netcl {

class Context;

// A float32 device tensor of rank 1..5 (NCHW for convolutions). Owns its
// cl::Buffer; copies share the buffer, like a framework's tensor handle.
class Tensor {
public:
    using Shape = std::vector<std::int64_t>;
    static constexpr std::size_t kMaxRank = 5;

    Tensor() = default;

    // Uninitialised device memory of `shape`.
    static Tensor empty(std::shared_ptr<Context> context, Shape shape);
    // Copies `host` (exactly numel(shape) floats) to the device; blocks until copied.
    static Tensor from_host(std::shared_ptr<Context> context, const std::vector<float>& host, Shape shape);
    static Tensor from_host(std::shared_ptr<Context> context, const float* host, std::size_t count, Shape shape);

    // Waits for the queue, then copies to the host.
    std::vector<float> to_host() const;
    // Sets every element (e.g. NaN to poison an output before a run); does not block.
    void fill(float value);

    bool defined() const { return context_ != nullptr; }
    const Shape& shape() const { return shape_; }
    std::size_t rank() const { return shape_.size(); }
    std::int64_t dim(std::size_t axis) const;
    std::size_t numel() const { return numel_; }
    std::size_t bytes() const { return numel_ * sizeof(float); }
    const cl::Buffer& buffer() const { return buffer_; }
    const std::shared_ptr<Context>& context() const { return context_; }

private:
    Tensor(std::shared_ptr<Context> context, Shape shape, std::size_t numel);

    std::shared_ptr<Context> context_;
    Shape shape_;
    std::size_t numel_ = 0;
    cl::Buffer buffer_;
};

// numel of `shape`, refusing rank 0 or > kMaxRank, zero or negative
// dimensions, and products whose byte size overflows size_t.
std::size_t checked_numel(const Tensor::Shape& shape);
std::string shape_string(const Tensor::Shape& shape);

}  // namespace netcl
