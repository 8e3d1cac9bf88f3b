#pragma once
#include <memory>
#include <vector>

#include "Candidates.hpp"
#include "Layers.hpp"
#include "ReferenceCheck.hpp"
#include "Report.hpp"
#include "netcl/Context.hpp"

namespace netcl::bench {

// Runs every candidate on every layer (fresh random data per layer, one fp64
// reference per layer) and appends the results to `report`, with a progress
// bar on stderr. report.settings says how often to run, and whether a layer's
// candidates are timed in interleaved rounds (every candidate of the layer
// alive at once) or one after another.
void bench_layers(const std::shared_ptr<Context>& context, const std::vector<BenchLayer>& layers,
                  const std::vector<Candidate>& candidates, const ReferencePolicy& policy, BenchReport& report);

}  // namespace netcl::bench
