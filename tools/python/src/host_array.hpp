#pragma once
// NumPy (or any DLPack / buffer-protocol) host arrays in and out. netcl
// computes in float32 on C-contiguous NCHW memory, and takes nothing else:
// a float64 array or a transposed view is refused with a TypeError that says
// how to convert, never copied or reinterpreted behind the caller's back.
#include <cstddef>
#include <vector>

#include "bindings.hpp"

namespace netcl::python {

struct HostFloats {
    const float* data = nullptr;
    std::size_t count = 0;
    Tensor::Shape shape;
    nb::object owner;  // keeps the array (and so `data`) alive
};

// `what` names the caller in the error ("Tensor.from_host", "Conv2d.set_weights weights").
HostFloats host_floats(nb::handle array, const char* what);

// A new NumPy float32 array of `shape` that takes over `values` (no copy).
nb::object numpy_from(std::vector<float>&& values, const Tensor::Shape& shape);

}  // namespace netcl::python
