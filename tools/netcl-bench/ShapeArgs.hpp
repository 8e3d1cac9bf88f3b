#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"

namespace netcl::bench {

// --shape N,C,H,W,K,R,S[,stride,pad,dilation,groups], parsed by the project's
// one shape parser (selector/LayerSets: parse_shape_spec) and validated. Its
// netcl::Error becomes a UsageError (exit code 2) naming the option.
ConvShapes parse_shape(const std::string& text);

// --batch 1,8,32: a comma list of positive integers. Throws UsageError.
std::vector<std::int64_t> parse_batches(const std::string& text);

// Splits on commas, keeping empty fields (so "1,,3" is caught as an empty field).
std::vector<std::string> split_commas(const std::string& text);

}  // namespace netcl::bench
