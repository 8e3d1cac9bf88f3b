#pragma once
// IEEE 754 binary16 on the host, as the device's vstore_half / vload_half see
// it: float -> half rounds to nearest even (vstore_half's default rounding,
// overflow to +-Inf, NaN stays NaN, subnormals kept), half -> float is exact.
// C++20 has no std::float16_t, so netcl converts the bits itself.
#include <cstdint>

namespace netcl {

std::uint16_t half_from_float(float value);
float float_from_half(std::uint16_t bits);
// The float nearest `value` that a half holds exactly (what a float16 tensor stores).
inline float round_to_half(float value) { return float_from_half(half_from_float(value)); }

}  // namespace netcl
