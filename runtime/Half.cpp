#include "netcl/Half.hpp"

#include <bit>
#include <cstring>

namespace netcl {

std::uint16_t half_from_float(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t exponent = (bits >> 23) & 0xffu;
    std::uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xffu) {  // Inf, or NaN (kept quiet and non-zero)
        return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
    }
    const int e = static_cast<int>(exponent) - 127 + 15;
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: Inf
    if (e <= 0) {
        // Subnormal half (or zero): shift the full significand into the 10
        // mantissa bits, rounding to nearest even on the bits shifted out.
        if (e < -10) return sign;
        mantissa |= 0x800000u;
        const int shift = 14 - e;  // 24-bit significand -> 10 - (1 - e) bits
        const std::uint32_t kept = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1);
        const std::uint32_t halfway = 1u << (shift - 1);
        const std::uint32_t rounded = kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
        return static_cast<std::uint16_t>(sign | rounded);  // a carry into bit 10 is the smallest normal: right
    }
    const std::uint32_t kept = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffu;
    const std::uint32_t rounded = kept + ((rest > 0x1000u || (rest == 0x1000u && (kept & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | rounded);  // a carry into the exponent rounds up to the next binade or Inf
}

float float_from_half(std::uint16_t bits) {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    std::uint32_t mantissa = bits & 0x3ffu;
    std::uint32_t out = 0;
    if (exponent == 0x1fu) {
        out = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        out = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        out = sign;
    } else {  // subnormal: normalise
        int e = -14;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --e;
        }
        out = sign | (static_cast<std::uint32_t>(e + 127) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(out);
}

}  // namespace netcl
