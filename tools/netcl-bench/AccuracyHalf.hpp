#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "ReferenceCheck.hpp"
#include "RunInfo.hpp"
#include "netcl/Context.hpp"

namespace netcl::bench {

// netcl-bench --accuracy --dtype float16: Lavin & Gray's Table 4 fp16 column
// on netcl. The same protocol as run_accuracy (VGG conv1.2, 2.2, 3.2, 4.2, 5;
// N = 1; data and filters uniform in [-1, 1], here rounded to half; the fp64
// reference of those exact values) with x, w and y stored in half and fp32
// arithmetic, for direct convolution and every separate-transform Winograd
// tile that takes half (F(2x2), F(4x4), F(6x6) of 3x3), and the 5x5 tiles on
// the alexnet5x5 layers. Bar: direct, F(2x2) and F(4x4) at or under the
// paper's fp16 figure, or at half's own rounding of the largest output (the
// least error a half output can have; the paper kept fp32 outputs). Writes
// JSON to `json_path` when it is not empty. Returns 1 when a column failed
// to run or is above both.
int run_accuracy_half(const std::shared_ptr<Context>& context, const RunInfo& info, const ReferencePolicy& policy,
                      const std::string& json_path, std::ostream& out);

}  // namespace netcl::bench
