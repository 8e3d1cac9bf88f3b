#pragma once
#include <optional>
#include <string>
#include <vector>

#include "OneDnnLibrary.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"

namespace netcl::bench {

// oneDNN's convolution, the library a CPU user would otherwise pick, is
// netcl-bench's native peer on CPU devices, in every oneDNN build found at
// configure time (one plugin each: OneDnnLibrary.hpp). The newest is the
// default peer; on each layer and over each set the faster of all that ran is
// the one netcl is compared with.

std::string to_string(OneDnnLayout layout);  // "nchw", "blocked"

struct LoadedOneDnn {
    const OneDnnLibrary* library = nullptr;
    // Candidate ids are "onednn" + tag + "-" + layout: "" for the newest
    // (onednn-blocked), "-2.6" for the others (onednn-2.6-blocked).
    std::string tag;
    std::string file;  // the plugin's path
};

// Every plugin beside netcl-bench (the build folder) or in its install
// folder, loaded once, newest version first, one per version.
const std::vector<LoadedOneDnn>& onednn_libraries();
// The plugins that would not load, each "path: dlerror()" (a oneDNN moved
// since the build, ...): the report prints them, so a missing peer is never silent.
const std::vector<std::string>& onednn_load_failures();

bool onednn_built_in();  // some oneDNN loaded
// Every version loaded, newest first: "3.2.0 (git 04b180b), 2.6.3"; empty when none.
std::string onednn_version();
// The instruction set the newest oneDNN's JIT uses on this machine: "avx2", "avx512_core", ...; empty when none.
std::string onednn_cpu_isa();

// Why oneDNN's convolution cannot be benched on `shapes` against a device with
// `profile`: none loaded, or the device is not a CPU (oneDNN runs on the
// host's cores; set beside a GPU it is no like-for-like peer). Nothing when it can.
std::optional<std::string> onednn_why_not(const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl::bench
