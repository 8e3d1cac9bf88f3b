// netcl's storage types (netcl::DataType) as Python spells them: NumPy's
// dtypes. One parser for every dtype= argument (Tensor, Conv2d, Conv3d,
// ConvShapes), so they all take the same spellings and fail the same way.
#include "bindings.hpp"

namespace netcl::python {

DataType dtype_from_python(nb::handle dtype, const std::string& what) {
    const std::string expected = what + ": expected float32 or float16 (numpy.float32, numpy.float16, 'float16', ...)";
    // numpy.dtype() takes every spelling a NumPy user writes ('float16', 'half',
    // 'f2', numpy.float16, a dtype object). None is not a dtype here: numpy
    // reads it as float64, and a caller's None means its own default.
    if (dtype.is_none()) throw nb::type_error((expected + "; got None").c_str());
    nb::object parsed;
    try {
        parsed = nb::module_::import_("numpy").attr("dtype")(dtype);
    } catch (nb::python_error&) {
        throw nb::type_error((expected + "; got " + nb::repr(dtype).c_str()).c_str());
    }
    const std::string name = nb::str(parsed.attr("name")).c_str();
    if (name == "float32") return DataType::FLOAT32;
    if (name == "float16") return DataType::FLOAT16;
    throw nb::type_error((expected + "; got " + name).c_str());
}

nb::object numpy_dtype(DataType type) { return nb::module_::import_("numpy").attr("dtype")(to_string(type)); }

}  // namespace netcl::python
