// netcl.Tensor: float32 or float16 NCHW device memory, made from a NumPy
// array, empty, or a view (no copy) of a PyOpenCL buffer; read back as a
// NumPy array of the tensor's own type.
#include "bindings.hpp"

#include <optional>

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>

#include "host_array.hpp"
#include "netcl/Context.hpp"
#include "netcl/Error.hpp"

namespace netcl::python {

Tensor::Shape shape_from_python(nb::handle sequence, const char* what) {
    if (!PySequence_Check(sequence.ptr()) || PyUnicode_Check(sequence.ptr())) {
        throw nb::type_error((std::string(what) + ": expected a sequence of ints (e.g. (1, 3, 224, 224)); got " +
                              nb::inst_name(sequence).c_str()).c_str());
    }
    Tensor::Shape shape;
    for (nb::handle d : nb::borrow<nb::sequence>(sequence)) {
        // operator.index semantics: ints and NumPy integers, never floats or bools.
        if (PyBool_Check(d.ptr()) || !PyIndex_Check(d.ptr())) {
            throw nb::type_error((std::string(what) + ": every dimension must be an int; got " +
                                  nb::inst_name(d).c_str()).c_str());
        }
        nb::object index = nb::steal(PyNumber_Index(d.ptr()));
        if (!index.is_valid()) throw nb::python_error();
        shape.push_back(nb::cast<std::int64_t>(index));
    }
    return shape;
}

nb::object make_shape(const std::vector<std::int64_t>& dims) {
    nb::list items;
    for (auto d : dims) items.append(d);
    nb::object tuple = nb::tuple(items);
    // netcl.Shape (a tuple with numel(), like torch.Size) where the package is
    // there; a plain tuple for the bare extension (stub generation imports it alone).
    try {
        return nb::module_::import_("netcl._shape").attr("Shape")(tuple);
    } catch (nb::python_error&) {
        return tuple;
    }
}

namespace {

struct BufferView {
    std::uintptr_t mem = 0;
    std::size_t offset_bytes = 0;
    nb::object shape = nb::none();
    std::optional<DataType> dtype;  // a pyopencl.array.Array's own; a bare buffer has none
};

// A pyopencl.Buffer (or raw cl_mem int), or a pyopencl.array.Array: its
// buffer, its own offset, type and, unless given, its shape; only float32
// or float16, C order.
BufferView buffer_view_of(nb::handle buffer) {
    BufferView v;
    if (nb::hasattr(buffer, "base_data") && nb::hasattr(buffer, "dtype")) {
        v.dtype = dtype_from_python(buffer.attr("dtype"), "Tensor.from_pyopencl: the pyopencl.array.Array's dtype");
        // Truth and index by Python's protocols: PyOpenCL may hand back NumPy scalars here.
        if (PyObject_IsTrue(buffer.attr("flags").attr("c_contiguous").ptr()) != 1) {
            throw nb::type_error("Tensor.from_pyopencl: expected a C-contiguous pyopencl.array.Array; got a strided one");
        }
        v.mem = int_ptr_of(buffer.attr("base_data"), "Tensor.from_pyopencl array.base_data");
        nb::object offset = nb::steal(PyNumber_Index(buffer.attr("offset").ptr()));
        if (!offset.is_valid()) throw nb::python_error();
        v.offset_bytes = nb::cast<std::size_t>(offset);
        v.shape = buffer.attr("shape");
        return v;
    }
    v.mem = int_ptr_of(buffer, "Tensor.from_pyopencl buffer");
    return v;
}

std::string shape_repr(const Tensor::Shape& s) {
    std::string text = "(";
    for (std::size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
    return text + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

void bind_tensor(nb::module_& m) {
    nb::class_<Tensor>(m, "Tensor",
                       "A float32 or float16 tensor in device memory (NCHW, contiguous, rank 1..5): netcl's own,\n"
                       "or a view of a PyOpenCL buffer. Made by Tensor.from_host, Tensor.empty or\n"
                       "Tensor.from_pyopencl; its host side is NumPy arrays of its dtype.")
        .def_static(
            "from_host",
            [](nb::handle array, std::shared_ptr<Context> context, nb::handle dtype) {
                const HostArray h = host_array(array, "Tensor.from_host");
                const DataType type = dtype.is_none() ? h.dtype : dtype_from_python(dtype, "Tensor.from_host dtype");
                context = context_or_default(context);
                nb::gil_scoped_release release;  // the copy blocks; `h.owner` keeps the array alive meanwhile
                std::vector<float> widened;
                return Tensor::from_host(context, host_floats(h, widened), h.count, h.shape, type);
            },
            "array"_a, "context"_a = nb::none(), "dtype"_a = nb::none(),
            nb::sig("def from_host(array: numpy.typing.ArrayLike, context: Context | None = None, "
                    "dtype: numpy.typing.DTypeLike | None = None) -> Tensor"),
            "Copies a float32 or float16, C-contiguous host array (NumPy, or anything with __dlpack__ or\n"
            "the buffer protocol) to new device memory; blocks until copied. The tensor has the array's\n"
            "dtype unless `dtype` ('float32', numpy.float16, ...) asks for the other: float32 values then\n"
            "round to the nearest half (ties to even), float16 ones widen exactly. Other dtypes and\n"
            "strided views raise TypeError: convert with x.astype(numpy.float32) / numpy.ascontiguousarray(x).")
        .def_static(
            "empty",
            [](nb::handle shape, std::shared_ptr<Context> context, nb::handle dtype) {
                const Tensor::Shape s = shape_from_python(shape, "Tensor.empty shape");
                const DataType type =
                    dtype.is_none() ? DataType::FLOAT32 : dtype_from_python(dtype, "Tensor.empty dtype");
                context = context_or_default(context);
                nb::gil_scoped_release release;
                return Tensor::empty(context, s, type);
            },
            "shape"_a, "context"_a = nb::none(), "dtype"_a = nb::none(),
            nb::sig("def empty(shape: collections.abc.Sequence[int], context: Context | None = None, "
                    "dtype: numpy.typing.DTypeLike | None = None) -> Tensor"),
            "Uninitialised device memory of `shape`, float32 unless `dtype` says float16.")
        .def_static(
            "from_pyopencl",
            [](nb::handle buffer, nb::handle shape, std::size_t offset, std::shared_ptr<Context> context,
               nb::handle dtype) {
                BufferView v = buffer_view_of(buffer);
                if (!shape.is_none()) v.shape = nb::borrow(shape);
                // An array says its own type; `dtype` may repeat it but not reinterpret
                // its bytes as the other type (that is numpy's .view(), not a conversion).
                std::optional<DataType> type = v.dtype;
                if (!dtype.is_none()) {
                    const DataType given = dtype_from_python(dtype, "Tensor.from_pyopencl dtype");
                    if (type && *type != given) {
                        throw nb::type_error(("Tensor.from_pyopencl: dtype " + to_string(given) + " for a " +
                                              to_string(*type) + " pyopencl.array.Array; expected its own dtype "
                                              "(or none)").c_str());
                    }
                    type = given;
                }
                if (v.shape.is_none()) {
                    throw nb::type_error("Tensor.from_pyopencl: a pyopencl.Buffer needs shape=; only a "
                                         "pyopencl.array.Array carries its own");
                }
                const Tensor::Shape s = shape_from_python(v.shape, "Tensor.from_pyopencl shape");
                context = context_or_default(context);
                nb::gil_scoped_release release;
                return Tensor::view(context, reinterpret_cast<cl_mem>(v.mem), v.offset_bytes + offset, s,
                                    type.value_or(DataType::FLOAT32));
            },
            // netcl retains the cl_mem; the Python object is kept as well, so a
            // PyOpenCL memory pool cannot hand the memory to someone else while
            // this view still points at it.
            "buffer"_a, "shape"_a = nb::none(), "offset"_a = 0, "context"_a = nb::none(), "dtype"_a = nb::none(),
            nb::keep_alive<0, 1>(),
            nb::sig("def from_pyopencl(buffer: object, shape: collections.abc.Sequence[int] | None = None, "
                    "offset: int = 0, context: Context | None = None, "
                    "dtype: numpy.typing.DTypeLike | None = None) -> Tensor"),
            "A view, without a copy, of `shape` values in a PyOpenCL buffer starting `offset` bytes in\n"
            "(PyOpenCL counts offsets in bytes too). `buffer` is a pyopencl.Buffer, a\n"
            "pyopencl.array.Array (its shape, offset and dtype are used) or a raw cl_mem int. `dtype`:\n"
            "float32 (the default for a bare buffer) or float16, a half per 2 bytes; the offset must be a\n"
            "multiple of the element size (netcl.Error otherwise). `context` must be the buffer's:\n"
            "netcl.Context.from_pyopencl(ctx, queue); netcl writes results in place.")
        .def(
            "to_host",
            [](const Tensor& t, nb::handle wait_for) {
                std::vector<cl::Event> wait = events_from_python(wait_for);
                std::vector<float> values;
                {
                    nb::gil_scoped_release release;
                    values = t.to_host(wait);
                }
                return numpy_from(std::move(values), t.shape(), t.dtype());
            },
            "wait_for"_a = nb::none(),
            nb::sig("def to_host(self, wait_for: collections.abc.Sequence[object] | None = None) -> "
                    "numpy.typing.NDArray[numpy.floating]"),
            "Copies the tensor to a new NumPy array of its shape and dtype (float32 or float16); blocks\n"
            "until copied (after the queue's earlier commands, and `wait_for` on an out-of-order queue).")
        .def(
            "__array__",
            [](const Tensor& t, nb::handle dtype, nb::handle copy) {
                if (!copy.is_none() && !nb::cast<bool>(copy)) {
                    throw nb::value_error("netcl.Tensor lives in device memory: numpy cannot view it without a copy");
                }
                std::vector<float> values;
                {
                    nb::gil_scoped_release release;
                    values = t.to_host();
                }
                nb::object a = numpy_from(std::move(values), t.shape(), t.dtype());
                return dtype.is_none() ? a : a.attr("astype")(dtype);
            },
            "dtype"_a = nb::none(), "copy"_a = nb::none(),
            "numpy.asarray(t): a host copy (the same as t.to_host()).")
        .def(
            "fill",
            [](Tensor& t, float value, nb::handle wait_for) {
                std::vector<cl::Event> wait = events_from_python(wait_for);
                nb::gil_scoped_release release;
                return t.fill(value, wait);
            },
            "value"_a, "wait_for"_a = nb::none(),
            "Sets every element to `value` (rounded to the nearest half in a float16 tensor); returns\n"
            "without blocking.")
        .def_prop_ro("shape", [](const Tensor& t) { return make_shape(t.shape()); },
                     nb::for_getter(nb::sig("def shape(self, /) -> tuple[int, ...]")),
                     "The dimensions, as a netcl.Shape (a tuple with numel()).")
        .def_prop_ro("ndim", &Tensor::rank)
        .def("numel", &Tensor::numel, "The number of elements.")
        .def("__len__", [](const Tensor& t) { return t.dim(0); })
        .def_prop_ro("dtype", [](const Tensor& t) { return numpy_dtype(t.dtype()); },
                     nb::for_getter(nb::sig("def dtype(self, /) -> numpy.dtype")),
                     "numpy.float32 or numpy.float16: how the elements are stored.")
        .def_prop_ro("nbytes", &Tensor::bytes)
        .def_prop_ro("offset_bytes", &Tensor::offset_bytes, "Where the elements start in the buffer.")
        .def_prop_ro("is_view", &Tensor::is_view, "True for a view of a caller's buffer.")
        .def_prop_ro("context", &Tensor::context)
        .def_prop_ro("int_ptr", [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.buffer()()); },
                     "The cl_mem the elements live in, as an int (pyopencl.Buffer.from_int_ptr takes it).")
        .def("__repr__", [](const Tensor& t) {
            return "netcl.Tensor(shape=" + shape_repr(t.shape()) + ", dtype=" + to_string(t.dtype()) +
                   (t.is_view() ? ", view at byte " + std::to_string(t.offset_bytes()) : std::string()) + ")";
        });
}

}  // namespace netcl::python
