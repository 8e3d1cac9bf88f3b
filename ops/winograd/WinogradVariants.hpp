#pragma once
// The Winograd variants by what they are: the tile F(m x m, r x r), the
// kernel's block sizes (fused, or the low-local-memory blocks) and where U
// lives. Their ids ("wino-f4-fused-global") are what plans, profiles and
// netcl-bench name; this is the one list of them. The selector reads these
// fields to rank the variants by a profile's preferences.
#include <optional>
#include <vector>

#include "netcl/Plan.hpp"

namespace netcl {

struct WinogradVariant {
    int m = 4;                      // output tile side
    int r = 3;                      // filter side
    bool low_local_memory = false;  // the small-block build for small local memory
    bool constant_weights = false;  // U bound as __constant (else __global const)

    Variant variant() const;  // its id
    bool operator==(const WinogradVariant&) const = default;
};

// Every Winograd variant, in netcl-bench's column order.
const std::vector<WinogradVariant>& winograd_variants();
// The variant an id names; nothing for an id that is not a Winograd variant.
std::optional<WinogradVariant> winograd_variant(const Variant& variant);
// Shorthand for tests and tools: the id of F(m x m, 3 x 3) with these choices.
Variant winograd_variant_id(int m, bool low_local_memory, bool constant_weights);

}  // namespace netcl
