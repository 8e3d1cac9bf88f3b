// netcl.Event: the cl_event a forward returns, so a PyOpenCL program can
// order its own commands after netcl's (pyopencl.Event.from_int_ptr) or wait.
#include "bindings.hpp"

#include "netcl/Error.hpp"

namespace netcl::python {

std::vector<cl::Event> events_from_python(nb::handle wait_for) {
    std::vector<cl::Event> events;
    if (wait_for.is_none()) return events;
    if (!PySequence_Check(wait_for.ptr())) {
        throw nb::type_error("wait_for: expected a list of events (netcl.Event, pyopencl.Event or int handles)");
    }
    for (nb::handle item : nb::borrow<nb::sequence>(wait_for)) {
        if (nb::isinstance<cl::Event>(item)) {
            events.push_back(nb::cast<cl::Event>(item));
            continue;
        }
        // retainObject = true: the caller keeps its reference, this list takes its own.
        events.emplace_back(reinterpret_cast<cl_event>(int_ptr_of(item, "wait_for")), true);
    }
    return events;
}

void bind_event(nb::module_& m) {
    nb::class_<cl::Event>(m, "Event", "An OpenCL event of a command netcl enqueued.")
        .def_prop_ro("int_ptr", [](const cl::Event& e) { return reinterpret_cast<std::uintptr_t>(e()); },
                     "The cl_event as an int: pyopencl.Event.from_int_ptr(e.int_ptr, retain=True) shares it.")
        .def(
            "wait",
            [](const cl::Event& e) {
                nb::gil_scoped_release release;
                NETCL_CL_CHECK(e.wait(), "Event.wait");
            },
            "Blocks until the command has run.")
        .def("__repr__", [](const cl::Event& e) {
            return "netcl.Event(" + std::to_string(reinterpret_cast<std::uintptr_t>(e())) + ")";
        });
}

}  // namespace netcl::python
