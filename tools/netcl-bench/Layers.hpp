#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"

namespace netcl::bench {

// One layer to bench: a name, how often its shape occurs in the network (the
// totals' weight) and the shape.
struct BenchLayer {
    std::string name;
    int depth = 1;
    ConvShapes shapes;
};

// The layers of --net `net`, read from the project's one layer-set table (the
// one netcl-tune uses too). Throws UsageError for an unknown name, listing the known ones.
std::vector<BenchLayer> net_layers(const std::string& net);
std::vector<std::string> net_names();

// Each layer once per batch size (N replaced); `batches` empty keeps N.
std::vector<BenchLayer> with_batches(const std::vector<BenchLayer>& layers, const std::vector<std::int64_t>& batches);

}  // namespace netcl::bench
