// The extension module netcl._netcl. The public names are re-exported by
// netcl/__init__.py, next to the pure-Python parts (Conv2d's PyTorch-style
// arguments, Shape, KernelSelector).
#include "bindings.hpp"

#include <nanobind/stl/string.h>

#include "netcl/Version.hpp"

NB_MODULE(_netcl, m) {
    namespace py = netcl::python;
    py::set_module(m);
    py::bind_errors(m);
    py::bind_profile(m);
    py::bind_context(m);
    py::bind_event(m);
    py::bind_tensor(m);
    py::bind_conv_shapes(m);
    py::bind_conv2d(m);
    py::bind_selector(m);
    m.def("version", &netcl::version, "The version of the netcl library that is loaded.");
}
