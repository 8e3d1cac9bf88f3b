#include "ops/internal/Storage.hpp"

#include "runtime/EmbeddedSources.hpp"

namespace netcl::internal {

std::string storage_options(DataType type) { return type == DataType::FLOAT16 ? " -DSTORAGE_HALF" : ""; }

std::string storage_source() { return embedded_source("storage"); }

}  // namespace netcl::internal
