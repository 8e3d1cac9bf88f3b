#pragma once
// NumPy (or any DLPack / buffer-protocol) host arrays in and out. netcl
// stores float32 or float16 (computing in float32 either way) on
// C-contiguous NCHW memory, and takes nothing else: a float64 array or a
// transposed view is refused with a TypeError that says how to convert,
// never copied or reinterpreted behind the caller's back.
#include <cstddef>
#include <vector>

#include "bindings.hpp"

namespace netcl::python {

// A host array netcl can take: float32 or float16 elements, in C order, on the CPU.
struct HostArray {
    DataType dtype = DataType::FLOAT32;
    const void* data = nullptr;
    std::size_t count = 0;
    Tensor::Shape shape;
    nb::object owner;  // keeps the array (and so `data`) alive
};

// `what` names the caller in the error ("Tensor.from_host", "Conv2d.set_weights weights").
HostArray host_array(nb::handle array, const char* what);

// The elements as floats, which the C++ host API takes whatever the tensor's
// type: a float32 array's own memory (no copy), or a float16 array widened
// (exactly) into `widened`. Needs no GIL: `h.owner` keeps the memory alive.
const float* host_floats(const HostArray& h, std::vector<float>& widened);

// A new NumPy array of `shape` and `type` holding `values` (what
// Tensor::to_host returns): float32 takes `values` over without a copy;
// float16 narrows them, exactly, since they were widened from halves.
nb::object numpy_from(std::vector<float>&& values, const Tensor::Shape& shape, DataType type);

}  // namespace netcl::python
