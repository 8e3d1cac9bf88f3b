#include "ops/winograd/WinogradVariants.hpp"

namespace netcl {

Variant WinogradVariant::variant() const {
    std::string id = "wino-f" + std::to_string(m);
    if (r != 3) id += "r" + std::to_string(r);
    id += low_local_memory ? "-lowlocal" : "-fused";
    id += constant_weights ? "-constant" : "-global";
    return Variant(id);
}

const std::vector<WinogradVariant>& winograd_variants() {
    static const std::vector<WinogradVariant> list = [] {
        std::vector<WinogradVariant> all;
        for (const int m : {2, 4, 6})
            for (const bool low : {false, true})
                for (const bool constant : {false, true}) all.push_back({m, 3, low, constant});
        return all;
    }();
    return list;
}

std::optional<WinogradVariant> winograd_variant(const Variant& variant) {
    for (const auto& v : winograd_variants()) {
        if (v.variant() == variant) return v;
    }
    return std::nullopt;
}

Variant winograd_variant_id(int m, bool low_local_memory, bool constant_weights) {
    return WinogradVariant{m, 3, low_local_memory, constant_weights}.variant();
}

}  // namespace netcl
