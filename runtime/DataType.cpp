#include "netcl/DataType.hpp"

#include "netcl/Error.hpp"

namespace netcl {

std::string to_string(DataType type) {
    switch (type) {
        case DataType::FLOAT32: return "float32";
        case DataType::FLOAT16: return "float16";
    }
    throw Error("unknown DataType value " + std::to_string(static_cast<int>(type)) + "; expected FLOAT32 or FLOAT16");
}

DataType data_type_from_string(std::string_view name) {
    if (name == "float32") return DataType::FLOAT32;
    if (name == "float16") return DataType::FLOAT16;
    throw Error("unknown data type '" + std::string(name) + "'; expected float32 or float16");
}

std::size_t size_of(DataType type) { return type == DataType::FLOAT16 ? 2 : 4; }

}  // namespace netcl
