#pragma once
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "netcl/Context.hpp"

namespace netcl::bench {

// The second table of netcl-bench --accuracy, Vincent et al.'s section 4
// protocol: the 5x5 layers of AlexNet (27x27, pad 2, C 48, K 128) and
// Inception v3 (35x35, pad 2, C 48, K 64), N = 32, data and filters uniform
// in [-1, 1], fp32, every output checked against fp64; the error is
// max |y - y_ref| / max |y_ref| (our reading of their "maximum relative
// error": per-element relative error is unbounded where y_ref is near zero,
// and their direct figure, 2.8e-6, is what this gives for direct
// convolution). Direct, F(4x4,5x5), F(9x9,5x5) unscaled and scaled, the
// paper's figures beside. Returns the rows for the JSON document; sets
// `failed` when a strategy could not run.
nlohmann::json run_vincent_table(const std::shared_ptr<Context>& context, std::ostream& out, bool& failed);

}  // namespace netcl::bench
