#include "selector/BuiltinRules.hpp"

#include "selector/internal/RuleFactories.hpp"

namespace netcl {

const std::vector<std::unique_ptr<const BuiltinRule>>& builtin_rules() {
    static const auto rules = [] {
        std::vector<std::unique_ptr<const BuiltinRule>> list;
        // Cheapest exits first; direct convolution last, as the rule that takes everything.
        list.push_back(detail::make_tiny_layer_rule());
        list.push_back(detail::make_grouped_rule());
        list.push_back(detail::make_winograd_rule());
        list.push_back(detail::make_direct_rows_rule());
        list.push_back(detail::make_im2col_rule());
        list.push_back(detail::make_naive_rule());
        return list;
    }();
    return rules;
}

}  // namespace netcl
