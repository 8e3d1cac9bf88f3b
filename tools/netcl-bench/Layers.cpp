#include "Layers.hpp"

#include "UsageError.hpp"
#include "netcl/Error.hpp"
#include "tests/support/LayerSets.hpp"

namespace netcl::bench {

std::vector<std::string> net_names() { return layer_set_names(); }

std::vector<BenchLayer> net_layers(const std::string& net) {
    try {
        std::vector<BenchLayer> layers;
        for (const auto& layer : layer_set(net)) layers.push_back({layer.name, layer.depth, layer.shapes});
        return layers;
    } catch (const netcl::Error& error) {
        throw UsageError(std::string("--net: ") + error.what());
    }
}

std::vector<BenchLayer> with_batches(const std::vector<BenchLayer>& layers, const std::vector<std::int64_t>& batches) {
    if (batches.empty()) return layers;
    std::vector<BenchLayer> result;
    for (const std::int64_t n : batches) {
        for (BenchLayer layer : layers) {
            layer.shapes.N = n;
            result.push_back(std::move(layer));
        }
    }
    return result;
}

}  // namespace netcl::bench
