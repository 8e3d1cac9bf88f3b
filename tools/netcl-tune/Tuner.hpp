#pragma once
// netcl-tune's measuring step for one layer: every strategy and variant the
// device can take, each checked against the fp64 reference before it is timed.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/Context.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "tests/support/ThresholdFit.hpp"

namespace netcl::tune {

struct TuneOptions {
    int warmup = 1;
    int repeats = 5;
    std::size_t samples = 4096;          // reference elements checked on large layers
    double full_reference_flops = 2e8;  // below this the whole output is checked
    std::uint64_t seed = 1;
    std::vector<Kernel> strategies = all_kernels();
};

// Every variant of every implementation under the requested strategies, in
// the implementations' order (ops/Implementations.cpp).
std::vector<std::pair<Kernel, Variant>> all_candidates(const std::vector<Kernel>& strategies);

// Runs the candidates on `shapes`; only those that match the reference are in
// the result. `progress` gets one line per candidate as it finishes.
ShapeTiming tune_shape(const std::shared_ptr<Context>& context, const ConvShapes& shapes, const TuneOptions& options,
                       const std::function<void(const std::string&)>& progress);

// netcl-tune --gemm-tiles: the GEMM engine's register tile under each
// profile prefix (ops/gemm/GemmTile.hpp) that the layers' GEMM-engine
// variants build with, chosen by the least total median time over those
// (layer, variant) pairs, every one checked against the fp64 reference.
// A prefix's pairs are found under the profile as it stands; the context's
// profile is restored afterwards.
struct TileChoice {
    GemmTile tile;
    double total_ms = -1;  // < 0: no candidate ran every pair correctly
};
std::vector<GemmTile> gemm_tile_candidates();
std::map<std::string, TileChoice> tune_gemm_tiles(const std::shared_ptr<Context>& context,
                                                  const std::vector<ConvShapes>& layers,
                                                  const std::vector<GemmTile>& candidates, const TuneOptions& options,
                                                  const std::function<void(const std::string&)>& progress);

}  // namespace netcl::tune
