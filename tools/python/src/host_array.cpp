#include "host_array.hpp"

#include <nanobind/ndarray.h>

#include "netcl/Error.hpp"
#include "netcl/Half.hpp"

namespace netcl::python {

namespace {

using AnyHostArray = nb::ndarray<nb::ro>;

// C++20 has no half type for nb::dtype<T>() to name: NumPy's float16 in DLPack's terms.
constexpr nb::dlpack::dtype kFloat16{static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};

std::string dtype_name(const nb::dlpack::dtype& t) {
    std::string kind;
    switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
        case nb::dlpack::dtype_code::Int: kind = "int"; break;
        case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
        case nb::dlpack::dtype_code::Float: kind = "float"; break;
        case nb::dlpack::dtype_code::Bfloat: kind = "bfloat"; break;
        case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
        case nb::dlpack::dtype_code::Bool: return "bool";
        default: kind = "code" + std::to_string(t.code) + "_"; break;
    }
    return kind + std::to_string(t.bits) + (t.lanes > 1 ? "x" + std::to_string(t.lanes) : "");
}

// C order, ignoring the strides of extent-1 axes (NumPy calls those arrays
// contiguous whatever the stride says, and so does every consumer).
bool c_contiguous(const AnyHostArray& a) {
    if (a.size() == 0) return true;  // no element to misplace (the shape check refuses it next)
    std::int64_t expected = 1;
    for (std::size_t i = a.ndim(); i-- > 0;) {
        if (a.shape(i) != 1 && a.stride(i) != expected) return false;
        expected *= static_cast<std::int64_t>(a.shape(i));
    }
    return true;
}

}  // namespace

HostArray host_array(nb::handle array, const char* what) {
    AnyHostArray a;
    if (!nb::try_cast(array, a, false)) {
        throw nb::type_error((std::string(what) + ": expected a NumPy float32 or float16 array (or another host "
                              "array with __dlpack__ or the buffer protocol); got " + nb::inst_name(array).c_str() +
                              ". Convert with numpy.asarray(x, dtype=numpy.float32)").c_str());
    }
    if (a.device_type() != nb::device::cpu::value) {
        throw nb::type_error((std::string(what) + ": expected a host (CPU) array; got one in device memory "
                              "(DLPack device type " + std::to_string(a.device_type()) + ")").c_str());
    }
    HostArray h;
    if (a.dtype() == nb::dtype<float>()) {
        h.dtype = DataType::FLOAT32;
    } else if (a.dtype() == kFloat16) {
        h.dtype = DataType::FLOAT16;
    } else {
        throw nb::type_error((std::string(what) + ": expected a float32 or float16 array; got " +
                              dtype_name(a.dtype()) + ". netcl stores float32 or float16 and does not convert "
                              "behind your back: pass x.astype(numpy.float32)").c_str());
    }
    if (!c_contiguous(a)) {
        throw nb::type_error((std::string(what) + ": expected a C-contiguous array; got a strided view "
                              "(a transpose or a slice with a step). Pass numpy.ascontiguousarray(x)").c_str());
    }
    h.data = a.data();
    h.count = a.size();
    for (std::size_t i = 0; i < a.ndim(); ++i) h.shape.push_back(static_cast<std::int64_t>(a.shape(i)));
    h.owner = nb::borrow(array);
    return h;
}

const float* host_floats(const HostArray& h, std::vector<float>& widened) {
    if (h.dtype == DataType::FLOAT32) return static_cast<const float*>(h.data);
    const auto* halves = static_cast<const std::uint16_t*>(h.data);
    widened.resize(h.count);
    for (std::size_t i = 0; i < h.count; ++i) widened[i] = float_from_half(halves[i]);
    return widened.data();
}

namespace {

// An array that owns `values` (freed with the array, not before).
template <typename T>
nb::object numpy_owning(std::vector<T>&& values, const Tensor::Shape& shape, nb::dlpack::dtype type) {
    auto* owned = new std::vector<T>(std::move(values));
    nb::capsule deleter(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    std::vector<std::size_t> dims(shape.begin(), shape.end());
    return nb::cast(nb::ndarray<nb::numpy>(owned->data(), dims.size(), dims.data(), deleter, nullptr, type));
}

}  // namespace

nb::object numpy_from(std::vector<float>&& values, const Tensor::Shape& shape, DataType type) {
    if (type == DataType::FLOAT32) return numpy_owning(std::move(values), shape, nb::dtype<float>());
    // Every value is a half widened by to_host, so narrowing it back gives the
    // half the device holds (a NaN stays a NaN).
    std::vector<std::uint16_t> halves(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) halves[i] = half_from_float(values[i]);
    return numpy_owning(std::move(halves), shape, kFloat16);
}

}  // namespace netcl::python
