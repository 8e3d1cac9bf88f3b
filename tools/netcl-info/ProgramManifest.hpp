#pragma once
// netcl-info --programs: every OpenCL program netcl would build for a set of
// layers on one (stored or present) device profile, written out as source
// files plus a JSON manifest for a static compiler check (tests/nvptx).
#include <string>
#include <vector>

#include "netcl/DeviceProfile.hpp"
#include "tests/support/LayerSets.hpp"

namespace netcl::info {

struct ManifestSummary {
    std::size_t programs = 0;  // distinct (source, options) pairs written
    std::size_t layers = 0;
    std::size_t variants = 0;  // (layer, direction, variant) triples the profile lets run
};

// For every layer and every variant of every implementation that can take it
// on `profile`, the implementation's programs (ConvImplementation::programs),
// each distinct one written once to `directory` as NNN.cl, and
// `directory`/manifest.json listing them with their options, kernels and
// work-group sizes, the variants and layers that build each, and `budget`.
ManifestSummary write_program_manifest(const std::string& directory, const DeviceProfile& profile,
                                       const std::vector<NamedLayer>& layers,
                                       const std::map<std::string, double>& budget);

}  // namespace netcl::info
