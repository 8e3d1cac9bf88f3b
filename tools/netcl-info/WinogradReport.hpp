#pragma once
// netcl-info --winograd m,r: a tile's points, scalings, transforms and their
// condition numbers, unscaled and scaled (Vincent et al. section 3).
#include <string>

namespace netcl::info {

// `tile` is "m,r" (e.g. "9,5"); throws netcl::Error on anything else.
void print_winograd_report(const std::string& tile);

}  // namespace netcl::info
