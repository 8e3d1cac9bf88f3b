#pragma once
// What the selector decided for one shape: which implementation and variant
// run it, the configuration that implementation derives, and why.
#include <string>

#include "netcl/Kernel.hpp"

namespace netcl {

// One variant of one implementation, by its id: "naive", "im2col-clblast",
// "wino-f4-fused-global", ... Ids are unique over all implementations;
// netcl-bench and netcl-tune list them, and a rule or Conv2dOptions may name one.
struct Variant {
    std::string id;

    Variant() = default;
    Variant(std::string variant_id) : id(std::move(variant_id)) {}  // NOLINT: "wino-f4-fused-global" reads as a Variant
    Variant(const char* variant_id) : id(variant_id) {}              // NOLINT

    const std::string& str() const { return id; }
    bool empty() const { return id.empty(); }
    bool operator==(const Variant&) const = default;
};

struct Plan {
    Kernel kernel = Kernel::CONV2D_NAIVE;  // the strategy, as the design card names it
    Variant variant;
    std::string implementation;  // "naive", "im2col", "winograd-fused", ...
    std::string config;          // what the implementation derives for this layer: "BK=64 BT=8 BC=36, 40.6 KiB local"
    std::string reason;
    // How much error this variant is allowed: a multiplier on the tolerance
    // of 1e-6 per term of the reduction that a direct sum gets (1: direct and
    // GEMM; 4 F(2x2,3x3); 16 F(4x4,3x3), F(4x4,5x5); 64 F(6x6,3x3); 512
    // F(9x9,5x5)), as Conv2dOptions::max_error_factor bounds it. It ranks the
    // tiles; their measured error over a direct sum's is in the README.
    double error_factor = 1;

    // "CONV2D_WINOGRAD wino-f4-fused-global [BK=64 BT=8 BC=36 ...]: <reason>"
    std::string str() const;
};

}  // namespace netcl
