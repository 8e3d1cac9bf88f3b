// The global KernelSelector as Python sees it: rules with Python predicates
// (kept track of, so none outlives the interpreter), explain(), and the
// global default strategy by name.
#include "bindings.hpp"

#include <mutex>
#include <set>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "predicate.hpp"

namespace netcl::python {

namespace {

// Handles of the rules Python registered and has not removed.
struct PythonRules {
    std::mutex mutex;
    std::set<KernelSelector::RuleHandle> handles;
};

PythonRules& python_rules() {
    static auto* rules = new PythonRules;  // never destroyed: used by the atexit hook, after which statics may be gone
    return *rules;
}

// Every Python rule goes before the interpreter does: a rule left behind
// would hold a Python callable the C++ selector (a static) could call, or
// drop, after finalization.
void shutdown() {
    std::set<KernelSelector::RuleHandle> handles;
    {
        std::lock_guard lock(python_rules().mutex);
        handles.swap(python_rules().handles);
    }
    {
        nb::gil_scoped_release release;
        for (const auto handle : handles) KernelSelector::global().remove_rule(handle);
    }
    mark_python_finalizing();
}

}  // namespace

void bind_selector(nb::module_& m) {
    nb::object warning = nb::steal(PyErr_NewExceptionWithDoc(
        "netcl.PredicateWarning",
        "Issued when a Python selector predicate raises or returns something other than a bool;\n"
        "the rule is passed over (and the failure logged and shown by explain()).",
        PyExc_RuntimeWarning, nullptr));
    m.attr("PredicateWarning") = warning;
    set_predicate_warning(warning);

    nb::class_<Candidate>(m, "Candidate", "One candidate the selector looked at, and why it was or was not taken.")
        .def_ro("source", &Candidate::source)
        .def_ro("plan", &Candidate::plan)
        .def_ro("accepted", &Candidate::accepted)
        .def_ro("reason", &Candidate::reason)
        .def("__repr__", [](const Candidate& c) {
            return std::string("netcl.Candidate(") + (c.accepted ? "take " : "reject ") + c.source + ": " + c.reason + ")";
        });

    nb::class_<Decision>(m, "Decision", "The selector's whole decision for one shape: the plan and every candidate.")
        .def_ro("plan", &Decision::plan)
        .def_ro("candidates", &Decision::candidates)
        .def_ro("profile_sources", &Decision::profile_sources)
        .def("__str__", &Decision::str);

    m.def(
        "_register_rule",
        [](const std::string& op, nb::handle predicate, const std::string& kernel, int priority,
           std::optional<std::string> variant) {
            ConvPredicate p = make_predicate(predicate);
            const Kernel k = kernel_from_string(kernel);
            std::optional<Variant> v;
            if (variant) v = Variant(*variant);
            KernelSelector::RuleHandle handle = 0;
            {
                nb::gil_scoped_release release;
                handle = KernelSelector::global().register_rule(op, std::move(p), k, priority, v);
            }
            std::lock_guard lock(python_rules().mutex);
            python_rules().handles.insert(handle);
            return handle;
        },
        "op"_a, "predicate"_a, "kernel"_a, "priority"_a, "variant"_a.none());
    m.def(
        "_remove_rule",
        [](KernelSelector::RuleHandle handle) {
            {
                std::lock_guard lock(python_rules().mutex);
                python_rules().handles.erase(handle);
            }
            nb::gil_scoped_release release;  // dropping the callable takes the GIL itself
            return KernelSelector::global().remove_rule(handle);
        },
        "handle"_a);
    m.def("_rule_count", [] { return KernelSelector::global().rule_count(); });
    m.def("_python_rules", [] {
        std::lock_guard lock(python_rules().mutex);
        return std::vector<KernelSelector::RuleHandle>(python_rules().handles.begin(), python_rules().handles.end());
    });
    m.def("_shutdown", &shutdown);
    m.def(
        "_explain",
        [](const std::string& op, const ConvShapes& shapes, const DeviceProfile& profile) {
            nb::gil_scoped_release release;  // predicates take the GIL themselves
            return KernelSelector::global().explain(op, shapes, profile);
        },
        "op"_a, "shapes"_a, "profile"_a);

    m.def(
        "set_default_conv_strategy",
        [](const std::string& name) { set_default_conv_strategy(kernel_from_string(name)); }, "name"_a,
        "Makes `name` ('CONV2D_NAIVE', 'IM2COL' or 'CONV2D_WINOGRAD') the strategy every Conv2d runs\n"
        "where no registered rule decides and the strategy can take the shape (else the next choice).\n"
        "Global, for every thread; NETCL_CONV_STRATEGY does the same from the environment.");
    m.def("clear_default_conv_strategy", &clear_default_conv_strategy,
          "Back to no default: the selector's rules decide.");
    m.def(
        "default_conv_strategy",
        []() -> std::optional<std::string> {
            const auto k = default_conv_strategy();
            if (!k) return std::nullopt;
            return to_string(*k);
        },
        "The default strategy's name, or None.");
    m.def(
        "strategies",
        [] {
            std::vector<std::string> names;
            for (const Kernel k : all_kernels()) names.push_back(to_string(k));
            return names;
        },
        "The strategy names: ['CONV2D_NAIVE', 'IM2COL', 'CONV2D_WINOGRAD'].");
}

}  // namespace netcl::python
