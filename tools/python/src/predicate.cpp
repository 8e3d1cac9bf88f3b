#include "predicate.hpp"

#include <atomic>
#include <cstring>

#include <nanobind/stl/string.h>

#include "netcl/Error.hpp"

namespace netcl::python {

namespace {

std::atomic<bool> g_python_alive{true};

bool python_alive() { return g_python_alive.load() && Py_IsInitialized(); }

// Borrowed: the module holds the type for as long as anything can call us.
PyObject* g_warning_type = nullptr;

std::string python_type_name(nb::handle object) { return nb::inst_name(object).c_str(); }

// "ZeroDivisionError: division by zero"; called with the GIL held. The name
// comes from type(): before Python 3.12 the value may still be unnormalised
// (the bare message string rather than the exception object).
// Never throws: it runs inside a catch block, where a Python error escaping
// would leave the trampoline without the GIL.
std::string describe(nb::python_error& e) {
    std::string name = "exception";
    try {
        // nb::str(handle) is Python's str(); nb::str(object) would only re-label the object.
        name = nb::str(nb::handle(e.type().attr("__name__"))).c_str();
        return name + ": " + nb::str(e.value()).c_str();
    } catch (nb::python_error&) {
        return name + " (its message could not be printed)";
    }
}

// Python's own channel too, so a script sees the failure without reading
// netcl's log. A warnings filter set to "error" changes nothing here: the
// rule is passed over all the same. Called with the GIL held.
void warn(const std::string& error) {
    if (g_warning_type == nullptr) return;
    const std::string text = "netcl selector: " + error + "; the rule is passed over";
    if (PyErr_WarnEx(g_warning_type, text.c_str(), 1) < 0) PyErr_Clear();
}

// True and False, and NumPy's bool (what a predicate computed with NumPy
// returns: numpy.bool in NumPy 2, numpy.bool_ before). Nothing else: a
// predicate that returns None has forgotten its return statement, and one
// that returns an int or a string means something we would only be guessing at.
std::optional<bool> strict_bool(nb::handle result) {
    if (result.ptr() == Py_True) return true;
    if (result.ptr() == Py_False) return false;
    const char* name = Py_TYPE(result.ptr())->tp_name;
    if (std::strcmp(name, "numpy.bool") == 0 || std::strcmp(name, "numpy.bool_") == 0) {
        return PyObject_IsTrue(result.ptr()) == 1;
    }
    return std::nullopt;
}

class PythonPredicate {
public:
    explicit PythonPredicate(nb::handle callable) : callable_(nb::borrow(callable).release().ptr()) {
        nb::object name = nb::getattr(callable, "__qualname__", nb::none());
        name_ = name.is_none() ? nb::repr(callable).c_str() : nb::str(nb::handle(name)).c_str();
    }
    PythonPredicate(const PythonPredicate&) = delete;
    PythonPredicate& operator=(const PythonPredicate&) = delete;

    ~PythonPredicate() {
        if (!python_alive()) return;  // after shutdown began: leaked on purpose, nothing may touch Python
        nb::gil_scoped_acquire gil;
        Py_DECREF(callable_);
    }

    bool operator()(const ConvShapes& shapes, const DeviceProfile& profile) const {
        if (!python_alive()) {
            throw Error("Python predicate " + name_ + " not called: the interpreter is shutting down");
        }
        std::string error;
        {
            nb::gil_scoped_acquire gil;
            try {
                // Copies: a predicate may keep its arguments after the call,
                // past the C++ objects they would otherwise refer to.
                nb::object result = nb::handle(callable_)(nb::cast(shapes, nb::rv_policy::copy),
                                                           nb::cast(profile, nb::rv_policy::copy));
                if (const auto holds = strict_bool(result)) return *holds;
                error = "TypeError: predicate " + name_ + " returned " + python_type_name(result) +
                        "; expected a bool (True: the rule's strategy runs this shape)";
            } catch (nb::python_error& e) {
                error = describe(e) + " (in predicate " + name_ + ")";
            } catch (const std::exception& e) {
                error = std::string(e.what()) + " (calling predicate " + name_ + ")";
            }
            warn(error);
        }  // every Python object above is gone before the GIL is let go
        throw Error(error);
    }

private:
    PyObject* callable_;
    std::string name_;
};

}  // namespace

ConvPredicate make_predicate(nb::handle callable) {
    if (!PyCallable_Check(callable.ptr())) {
        throw nb::type_error(("KernelSelector.register: predicate must be callable as predicate(shapes, profile) "
                              "-> bool; got " + python_type_name(callable)).c_str());
    }
    auto shared = std::make_shared<const PythonPredicate>(callable);
    return [shared](const ConvShapes& s, const DeviceProfile& p) { return (*shared)(s, p); };
}

void set_predicate_warning(nb::handle type) { g_warning_type = type.ptr(); }

void mark_python_finalizing() { g_python_alive.store(false); }

}  // namespace netcl::python
