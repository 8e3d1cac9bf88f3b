// netcl.Error: every netcl::Error reaches Python as this one type, with the
// C++ message unchanged and the details a caller may branch on as attributes.
#include "bindings.hpp"

#include "netcl/Error.hpp"

namespace netcl::python {

void bind_errors(nb::module_& m) {
    // RuntimeError as its base: what the failures are (a device that cannot
    // take a layer, a failed build, a bad shape met at run time), and what
    // code written against PyTorch already catches.
    nb::exception<Error> error(m, "Error", PyExc_RuntimeError);
    error.attr("__doc__") =
        "Raised for every netcl::Error of the C++ library, with the same message.\n\n"
        "Attributes: cl_status (the OpenCL status, 0 when the failure was not an OpenCL call), "
        "operation (what netcl was doing) and build_log (the compiler's log for a failed program build).";
    error.attr("cl_status") = 0;
    error.attr("operation") = "";
    error.attr("build_log") = "";

    // Registered after nb::exception's own translator, so tried before it:
    // the same type and message, plus the attributes.
    nb::register_exception_translator(
        [](const std::exception_ptr& p, void* type) {
            try {
                std::rethrow_exception(p);
            } catch (const Error& e) {
                nb::object instance = nb::borrow(static_cast<PyObject*>(type))(e.what());
                instance.attr("cl_status") = e.cl_status();
                instance.attr("operation") = e.operation();
                instance.attr("build_log") = e.build_log();
                PyErr_SetObject(static_cast<PyObject*>(type), instance.ptr());
            }
        },
        error.ptr());
}

}  // namespace netcl::python
