#include "NumberText.hpp"

#include <cmath>
#include <cstdio>

namespace netcl::bench {

std::string fixed(double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

std::string scientific(double value) {
    if (std::isnan(value)) return "-";
    if (std::isinf(value)) return "inf";
    char text[64];
    std::snprintf(text, sizeof text, "%.2e", value);
    return text;
}

}  // namespace netcl::bench
