#pragma once
#include <string>

namespace netcl::bench {

// How netcl-bench's tables print a number, in one place for every table.
std::string fixed(double value, int digits);  // "12.35"
// An error or tolerance: "1.53e-05"; "inf" for an infinite one, "-" for NaN (nothing measured).
std::string scientific(double value);

}  // namespace netcl::bench
