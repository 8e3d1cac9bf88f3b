#pragma once
#include <optional>
#include <string>
#include <vector>

#include "OneDnnLibraries.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/Plan.hpp"

namespace netcl::bench {

// One thing netcl-bench times on a layer: the selector's own plan, one
// variant of one implementation forced through Conv2dOptions, CLBlast's
// Convgemm (the OpenCL peer), or oneDNN's convolution in one layout (the
// native CPU peer).
// In a float16 run, float32-selector is the selector's plan in float32 on
// the same values (every half is a float exactly, so the fp64 reference is
// the same): half storage against float32 netcl within one interleaved run.
struct Candidate {
    enum class Kind { Selector, SelectorFloat32, Strategy, Clblast, OneDnn };
    Kind kind = Kind::Strategy;
    std::string id;  // "selector", "float32-selector", a variant id ("naive", "wino-f4-fused-global"), "clblast", "onednn-nchw"
    Kernel kernel = Kernel::CONV2D_NAIVE;
    Variant variant;
    OneDnnLayout layout = OneDnnLayout::Nchw;  // Kind::OneDnn only
    std::size_t onednn = 0;                     // Kind::OneDnn only: its index in onednn_libraries()
};

// Every candidate in table order: selector, float32-selector, every variant of every
// implementation (ops/Implementations.cpp's order), clblast, onednn-nchw,
// onednn-blocked (the newest oneDNN), then onednn-<major.minor>-nchw and
// -blocked for each older one found.
const std::vector<Candidate>& all_candidates();

// --strategies: a comma list of ids or prefixes of ids ("wino" = every
// Winograd variant, "wino-f2" = the F(2x2,3x3) ones), the Kernel names
// (CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD: every variant under it) or "all";
// "onednn" is both oneDNN layouts of every oneDNN found.
// Case-insensitive. Throws UsageError for a name that matches nothing,
// listing the valid ones.
std::vector<Candidate> parse_strategies(const std::string& text);

// The candidate of that id; throws netcl::Error naming it when there is none.
const Candidate& candidate_by_id(const std::string& id);
// The candidate of that id when it can run `shapes` on a device with `profile`; nothing otherwise.
std::optional<Candidate> runnable_candidate(const std::string& id, const ConvShapes& shapes,
                                            const DeviceProfile& profile);

// Why `candidate` cannot run `shapes` on a device with `profile`; nothing when it can.
std::optional<std::string> candidate_why_not(const Candidate& candidate, const ConvShapes& shapes,
                                             const DeviceProfile& profile);

}  // namespace netcl::bench
