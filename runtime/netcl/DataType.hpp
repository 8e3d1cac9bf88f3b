#pragma once
// The element type a tensor is stored in. Arithmetic is float32 whatever the
// storage (float16 is read and written with vload_half/vstore_half, core
// OpenCL 1.2, so it needs no cl_khr_fp16).
#include <cstddef>
#include <string>
#include <string_view>

namespace netcl {

enum class DataType { FLOAT32, FLOAT16 };

std::string to_string(DataType type);  // "float32", "float16"
// Throws netcl::Error for an unknown name, listing the valid ones.
DataType data_type_from_string(std::string_view name);
std::size_t size_of(DataType type);

}  // namespace netcl
