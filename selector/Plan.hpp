#pragma once
#include <string>

#include "../ops/Kernel.hpp"

namespace netcl {

// How a chosen strategy runs. Fields a strategy does not use keep their defaults.
struct Variant {
    int winograd_tile = 0;           // m of F(m x m, 3 x 3): 2 or 4 (Winograd only)
    bool low_local_memory = false;   // Winograd: the tiled variant for small local memory
    bool constant_weights = false;   // Winograd: U bound as __constant (else __global const)

    std::string str() const;
    bool operator==(const Variant&) const = default;
};

// The selector's answer for one shape: what runs, how, and why.
struct Plan {
    Kernel kernel = Kernel::CONV2D_NAIVE;
    Variant variant;
    std::string reason;

    std::string str() const;  // "CONV2D_WINOGRAD F(4x4,3x3) fused global-weights: <reason>"
};

}  // namespace netcl
