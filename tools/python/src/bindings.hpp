#pragma once
// What the binding's translation units share: one bind_* per Python-facing
// idea (module.cpp calls them in order), and the few helpers more than one needs.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // every file returns messages and names

#include "netcl/Context.hpp"
#include "netcl/DataType.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"

namespace netcl::python {

namespace nb = nanobind;
using namespace nanobind::literals;

// The extension module itself, kept for module-level state (the default Context).
void set_module(nb::module_ m);

void bind_errors(nb::module_& m);
void bind_profile(nb::module_& m);
void bind_context(nb::module_& m);
void bind_event(nb::module_& m);
void bind_tensor(nb::module_& m);
void bind_conv_shapes(nb::module_& m);
void bind_conv_layers(nb::module_& m);  // Conv2d and Conv3d
void bind_selector(nb::module_& m);

// The Context a call was given, else the module's default one (made on first use).
std::shared_ptr<Context> context_or_default(const std::shared_ptr<Context>& given);

// A shape from any sequence of ints ("netcl.Tensor shape" names the caller
// in the TypeError a non-sequence or a non-int element raises).
Tensor::Shape shape_from_python(nb::handle sequence, const char* what);
// A netcl.Shape (the tuple subclass in netcl/_shape.py) of `dims`.
nb::object make_shape(const std::vector<std::int64_t>& dims);

// OpenCL events from a wait list: netcl.Event objects, objects with an
// int_ptr (pyopencl.Event), or raw cl_event values; None is an empty list.
std::vector<cl::Event> events_from_python(nb::handle wait_for);

// A raw handle from an object with .int_ptr (PyOpenCL's objects) or an int.
std::uintptr_t int_ptr_of(nb::handle object, const char* what);

// A dtype= argument: anything numpy.dtype() takes that names float32 or
// float16; TypeError (starting with `what`) for None and every other type.
DataType dtype_from_python(nb::handle dtype, const std::string& what);
// numpy.dtype('float32') or numpy.dtype('float16'): how Python reads a netcl type.
nb::object numpy_dtype(DataType type);

}  // namespace netcl::python
