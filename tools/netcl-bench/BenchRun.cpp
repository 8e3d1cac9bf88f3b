#include "BenchRun.hpp"

#include <chrono>

#include "Measure.hpp"
#include "Progress.hpp"

namespace netcl::bench {

void bench_layers(const std::shared_ptr<Context>& context, const std::vector<BenchLayer>& layers,
                  const std::vector<Candidate>& candidates, const ReferencePolicy& policy, BenchReport& report) {
    const auto start = std::chrono::steady_clock::now();
    Progress progress(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const BenchLayer& layer = layers[i];
        const std::string label = layer.name + " N=" + std::to_string(layer.shapes.N);
        progress.update(i, label + " data + fp64 reference");
        const LayerData data(context, layer.shapes, /*seed=*/1000 + i);
        const ReferenceCheck reference(layer.shapes, data.x, data.weights, data.bias, data.dy, policy);

        LayerResult result;
        result.name = layer.name;
        result.depth = layer.depth;
        result.shapes = layer.shapes;
        result.reference = reference.describe();
        result.reference_sampled = reference.sampled();
        result.reference_seconds = reference.seconds();
        result.paired = report.settings.interleave;
        if (report.settings.interleave) {
            std::vector<PreparedCandidate> prepared;
            for (const auto& candidate : candidates) {
                progress.update(i, label + " " + candidate.id + " (first run)");
                prepared.push_back(prepare(context, candidate, data, reference, report.settings));
            }
            progress.update(i, label + " timing " + std::to_string(prepared.size()) + " candidates, interleaved");
            time_prepared(prepared, report.settings);
            for (auto& c : prepared) result.results.push_back(std::move(c.m));
        } else {
            for (const auto& candidate : candidates) {
                progress.update(i, label + " " + candidate.id);
                result.results.push_back(measure(context, candidate, data, reference, report.settings));
            }
        }
        report.layers.push_back(std::move(result));
    }
    progress.update(layers.size(), "done");
    progress.finish();
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace netcl::bench
