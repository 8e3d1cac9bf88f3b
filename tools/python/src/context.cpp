// netcl.Context: netcl's own context on the NETCL_DEVICE device, or a
// PyOpenCL program's context and queue wrapped; and the module's default one.
#include "bindings.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "netcl/Error.hpp"

namespace netcl::python {

namespace {

// Borrowed: the module outlives every call into it, and holding no reference
// means nothing to release after the interpreter has finalized.
PyObject* g_module = nullptr;

constexpr const char* kDefaultAttr = "_default_context";

std::uintptr_t handle_of(const cl::Context& c) { return reinterpret_cast<std::uintptr_t>(c()); }

}  // namespace

void set_module(nb::module_ m) { g_module = m.ptr(); }

std::uintptr_t int_ptr_of(nb::handle given, const char* what) {
    // Held, not borrowed: .int_ptr may make a new int object on every access.
    nb::object object = nb::hasattr(given, "int_ptr") ? given.attr("int_ptr") : nb::borrow(given);
    if (!PyLong_Check(object.ptr()) || PyBool_Check(object.ptr())) {
        throw nb::type_error((std::string(what) + ": expected a PyOpenCL object (anything with .int_ptr) or an int "
                              "handle; got " + nb::inst_name(given).c_str()).c_str());
    }
    const auto value = nb::cast<std::uintptr_t>(object);
    if (value == 0) throw Error(std::string(what) + ": got a null handle");
    return value;
}

std::shared_ptr<Context> context_or_default(const std::shared_ptr<Context>& given) {
    if (given) return given;
    nb::handle module(g_module);
    nb::object current = module.attr(kDefaultAttr);
    if (!current.is_none()) return nb::cast<std::shared_ptr<Context>>(current);
    std::shared_ptr<Context> made;
    {
        // Device discovery and context creation call the driver: other Python threads may run.
        nb::gil_scoped_release release;
        made = Context::create();
    }
    // Another thread may have made one meanwhile; the first to get here wins.
    current = module.attr(kDefaultAttr);
    if (!current.is_none()) return nb::cast<std::shared_ptr<Context>>(current);
    module.attr(kDefaultAttr) = nb::cast(made);
    return made;
}

void bind_context(nb::module_& m) {
    m.attr(kDefaultAttr) = nb::none();

    nb::class_<Context>(m, "Context",
                        "An OpenCL device, its context and the command queue netcl enqueues on.\n\n"
                        "Context() is netcl's own on the device NETCL_DEVICE names (else the first GPU, else the\n"
                        "first CPU); Context.from_pyopencl(ctx, queue) shares a PyOpenCL program's context and queue.")
        .def(nb::new_([](std::optional<std::string> device) {
                 nb::gil_scoped_release release;
                 return device ? Context::create(*device) : Context::create();
             }),
             "device"_a = nb::none(),
             "A context of netcl's own. `device` is what NETCL_DEVICE takes (\"1:0\", or a case-insensitive\n"
             "substring of the platform, vendor or device name); None means NETCL_DEVICE, else the default device.")
        .def_static(
            "from_pyopencl",
            [](nb::handle context, nb::handle queue) {
                const auto ctx = int_ptr_of(context, "Context.from_pyopencl context");
                const auto q = int_ptr_of(queue, "Context.from_pyopencl queue");
                if (!nb::hasattr(queue, "device")) {
                    throw nb::type_error("Context.from_pyopencl: queue has no .device; expected a pyopencl.CommandQueue");
                }
                const auto dev = int_ptr_of(queue.attr("device"), "Context.from_pyopencl queue.device");
                nb::gil_scoped_release release;
                return Context::wrap(reinterpret_cast<::cl_context>(ctx), reinterpret_cast<cl_device_id>(dev),
                                     reinterpret_cast<cl_command_queue>(q));
            },
            // netcl retains the OpenCL handles itself; keeping the PyOpenCL
            // objects too means PyOpenCL tears nothing down under us (its
            // queue's own finish-on-release among it) while this Context lives.
            "context"_a, "queue"_a, nb::keep_alive<0, 1>(), nb::keep_alive<0, 2>(),
            "Shares a PyOpenCL context and command queue: netcl enqueues every command on `queue` and\n"
            "creates no queue of its own. Tensors viewed on PyOpenCL buffers need this Context.")
        .def_static(
            "from_int_ptr",
            [](std::uintptr_t context, std::uintptr_t device, std::uintptr_t queue) {
                nb::gil_scoped_release release;
                return Context::wrap(reinterpret_cast<::cl_context>(context), reinterpret_cast<cl_device_id>(device),
                                     reinterpret_cast<cl_command_queue>(queue));
            },
            "context_ptr"_a, "device_ptr"_a, "queue_ptr"_a,
            "Wraps raw cl_context, cl_device_id and cl_command_queue handles (as ints); netcl retains\n"
            "each and releases only its own references.")
        .def_prop_ro("profile", &Context::profile, nb::rv_policy::reference_internal,
                     "The device's profile, as the selector sees it.")
        .def_prop_ro("device_id", &Context::device_id, "\"platform:device\" as NETCL_DEVICE takes it.")
        .def_prop_ro("device_name", [](const Context& c) { return c.profile().name; })
        .def_prop_ro("wrapped", &Context::wrapped, "True for a context and queue netcl was handed.")
        .def_prop_ro("profiling", &Context::profiling)
        .def_prop_ro("out_of_order", &Context::out_of_order)
        .def_prop_ro("context_int_ptr", [](const Context& c) { return handle_of(c.cl_context()); },
                     "The cl_context as an int (pyopencl.Context.from_int_ptr takes it).")
        .def_prop_ro("device_int_ptr", [](const Context& c) { return reinterpret_cast<std::uintptr_t>(c.device()()); })
        .def_prop_ro("queue_int_ptr", [](const Context& c) { return reinterpret_cast<std::uintptr_t>(c.queue()()); })
        .def("finish", &Context::finish, nb::call_guard<nb::gil_scoped_release>(),
             "Blocks until every command on the queue has run.")
        .def("__repr__", [](const Context& c) {
            return "netcl.Context(" + c.device_id() + " '" + c.profile().name + "'" +
                   (c.wrapped() ? ", wrapped" : "") + ")";
        });

    m.def("default_context", [] { return context_or_default(nullptr); },
          "The Context used where none is given: made on first use, as Context() makes one.");
    m.def(
        "set_default_context",
        [](std::shared_ptr<Context> context) {
            nb::handle(g_module).attr(kDefaultAttr) = context ? nb::cast(context) : nb::none();
        },
        "context"_a.none(),
        "Makes `context` the one used where none is given (None: make a fresh one on next use).");
}

}  // namespace netcl::python
