#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "ReferenceCheck.hpp"
#include "RunInfo.hpp"
#include "netcl/Context.hpp"

namespace netcl::bench {

// netcl-bench --accuracy: Lavin & Gray's Table 4 protocol on netcl. The
// maximum element error against the fp64 reference on the VGG layers of their
// Table 3 that Table 4 lists (conv1.2, 2.2, 3.2, 4.2, 5; N = 1), data and
// filters uniform in [-1, 1], for direct convolution (CONV2D_NAIVE) and
// Winograd F(2x2,3x3), F(4x4,3x3) and F(6x6,3x3), fused and sliced, with the
// paper's fp32 figures beside; then Vincent et al.'s 5x5 table
// (AccuracyVincent.hpp).
// Writes the JSON document too when `json_path` is not empty. Returns the
// process exit code (1 when a strategy failed to run).
int run_accuracy(const std::shared_ptr<Context>& context, const RunInfo& info, const ReferencePolicy& policy,
                 const std::string& json_path, std::ostream& out);

}  // namespace netcl::bench
