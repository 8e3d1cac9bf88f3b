#include "ProgramManifest.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "netcl/Error.hpp"
#include "ops/Implementations.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl::info {

namespace {

struct Entry {
    ProgramSpec spec;
    std::set<std::string> variants;
    std::set<std::string> layers;
};

}  // namespace

ManifestSummary write_program_manifest(const std::string& directory, const DeviceProfile& profile,
                                       const std::vector<NamedLayer>& layers,
                                       const std::map<std::string, double>& budget) {
    std::map<std::string, Entry> programs;  // by hash of source + options, in a stable order
    ManifestSummary summary;
    for (const NamedLayer& layer : layers) {
        ++summary.layers;
        // Every direction: the gradients' builds face the same budgets as forward's.
        for (const ConvDirection direction : all_conv_directions()) {
            const ConvShapes shapes = layer.shapes.in_direction(direction);
            const std::string name =
                direction == ConvDirection::FORWARD ? layer.name : layer.name + " " + to_string(direction);
            for (const ConvImplementation* impl : conv_implementations()) {
                for (const Variant& variant : impl->variants()) {
                    if (why_not(variant, shapes, profile)) continue;
                    ++summary.variants;
                    for (ProgramSpec& spec : impl->programs(variant, shapes, profile)) {
                        const std::string key = std::to_string(ProgramCache::hash(spec.source)) + "|" + spec.options;
                        Entry& entry = programs[key];
                        if (entry.spec.source.empty()) entry.spec = std::move(spec);
                        entry.variants.insert(variant.id);
                        entry.layers.insert(name);
                    }
                }
            }
        }
    }
    std::filesystem::create_directories(directory);
    nlohmann::json manifest = nlohmann::json::array();
    std::size_t index = 0;
    for (const auto& [key, entry] : programs) {
        char file[32];
        std::snprintf(file, sizeof file, "%03zu.cl", index++);
        std::ofstream out(std::filesystem::path(directory) / file);
        out << entry.spec.source;
        if (!out) throw Error("netcl-info --programs: cannot write " + (std::filesystem::path(directory) / file).string());
        nlohmann::json kernels = nlohmann::json::array();
        for (const KernelSpec& k : entry.spec.kernels) {
            kernels.push_back({{"name", k.name}, {"work_group", k.work_group}});
        }
        manifest.push_back({{"name", entry.spec.label + " [" + entry.spec.options + "]"},
                            {"source_file", file},
                            {"options", entry.spec.options},
                            {"kernels", kernels},
                            {"budget", budget},
                            {"variants", entry.variants},
                            {"layers", entry.layers}});
    }
    std::ofstream out(std::filesystem::path(directory) / "manifest.json");
    out << manifest.dump(2) << "\n";
    if (!out) throw Error("netcl-info --programs: cannot write the manifest in " + directory);
    summary.programs = programs.size();
    return summary;
}

}  // namespace netcl::info
