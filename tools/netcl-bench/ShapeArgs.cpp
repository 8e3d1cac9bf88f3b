#include "ShapeArgs.hpp"

#include <charconv>

#include "UsageError.hpp"
#include "netcl/Error.hpp"
#include "tests/support/LayerSets.hpp"

namespace netcl::bench {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        fields.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) return fields;
        start = comma + 1;
    }
}

ConvShapes parse_shape(const std::string& text) {
    try {
        return parse_shape_spec(text);  // validates too
    } catch (const netcl::Error& error) {
        throw UsageError(std::string("--shape: ") + error.what());
    }
}

std::vector<std::int64_t> parse_batches(const std::string& text) {
    std::vector<std::int64_t> batches;
    for (const auto& field : split_commas(text)) {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
        if (field.empty() || error != std::errc() || end != field.data() + field.size() || value < 1 ||
            value > (1 << 20)) {
            throw UsageError("--batch '" + text + "': '" + field + "' is not a batch size; expected a comma list of "
                             "positive integers such as 1,8,32");
        }
        batches.push_back(value);
    }
    return batches;
}

}  // namespace netcl::bench
