// The extension module netcl._netcl. The public names are re-exported by
// netcl/__init__.py, next to the pure-Python parts (the layers' PyTorch-style
// arguments, Shape, KernelSelector).
#include "bindings.hpp"

#include <nanobind/stl/string.h>

#include "netcl/Version.hpp"

NB_MODULE(_netcl, m) {
    namespace py = netcl::python;
    py::set_module(m);
    // nanobind lists every instance still alive when the interpreter ends as
    // "leaked". With torch, the autograd graph and nn.Module globals (netcl.torch
    // layers among them) are alive then by Python's own rules, and the list ran
    // to hundreds of lines after a correct run. Leaks of netcl's own objects are
    // what LeakSanitizer and the OpenCL interposer's live-object counts test.
    nanobind::set_leak_warnings(false);
    py::bind_errors(m);
    py::bind_profile(m);
    py::bind_context(m);
    py::bind_event(m);
    py::bind_tensor(m);
    py::bind_conv_shapes(m);
    py::bind_conv_layers(m);
    py::bind_selector(m);
    m.def("version", &netcl::version, "The version of the netcl library that is loaded.");
}
