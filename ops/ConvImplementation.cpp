#include "ops/ConvImplementation.hpp"

#include <algorithm>
#include <set>

#include "ops/Implementations.hpp"
#include "ops/as_2d/BackwardDataAs2d.hpp"
#include "ops/as_2d/WeightGradientAs2d.hpp"
#include "ops/as_forward/BackwardDataAsForward.hpp"
#include "ops/internal/Widen.hpp"

namespace netcl {

bool ConvImplementation::runs_as_forward(const ConvShapes& s) const {
    return s.direction == ConvDirection::BACKWARD_DATA && problem_kinds().backward_data_as_forward;
}

ConvShapes ConvImplementation::phase_problem(const Variant& v, const BackwardDataPhases& phases,
                                             const BackwardDataPhase& p, const DeviceProfile& profile) const {
    // The layer's own filters, read rotated in place, serve where its one phase with taps takes the whole
    // filter: a 1x1 layer at any stride, any filter at stride 1.
    if (!problem_kinds().transposed_filters || !phases.whole_filter) return p.forward;
    ConvShapes in_place = p.forward;
    in_place.weights_transposed = true;
    return do_why_not(v, in_place, profile) ? p.forward : in_place;
}

namespace {
std::string phase_name(const BackwardDataPhase& p) {
    return "stride phase (" + std::to_string(p.a) + "," + std::to_string(p.b) + ")";
}
}  // namespace

std::optional<std::string> ConvImplementation::as_forward_why_not(const Variant& v, const ConvShapes& s,
                                                                  const DeviceProfile& profile) const {
    if (auto reason = backward_data_phases_why_not(s)) return reason;
    const BackwardDataPhases phases = backward_data_phases(s);
    for (const BackwardDataPhase& p : phases.phases) {
        if (!p.has_taps()) continue;
        const ConvShapes forward = phase_problem(v, phases, p, profile);
        if (auto reason = do_why_not(v, forward, profile)) {
            return phases.phases.size() == 1 ? *reason : phase_name(p) + ", " + forward.str() + ": " + *reason;
        }
    }
    return std::nullopt;
}

bool ConvImplementation::runs_as_2d(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const {
    if (s.spatial_rank != 3) return false;
    const ProblemKinds kinds = problem_kinds();
    if (s.direction == ConvDirection::BACKWARD_WEIGHTS) return kinds.weight_gradient_3d_as_2d;
    // Backward data: as one forward convolution in 3-D where the implementation takes that (no copies).
    return s.direction == ConvDirection::BACKWARD_DATA && kinds.backward_data_3d_as_2d &&
           as_forward_why_not(v, s, profile).has_value();
}

std::optional<std::string> ConvImplementation::why_not(const Variant& v, const ConvShapes& s,
                                                       const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) {
        const ConvShapes flat = depth_taps_problem(s);
        const std::string as = std::string("as the 2-D ") +
                               (s.direction == ConvDirection::BACKWARD_DATA ? "backward data " : "weight gradient ") +
                               flat.str() + ": ";
        if (auto reason = int_indexing_why_not(flat)) return as + *reason;
        if (auto reason = problem_kind_why_not(*this, flat)) return as + *reason;
        if (auto reason = why_not(v, flat, profile)) return as + *reason;
        const std::size_t bytes = workspace_bytes(v, s, profile);
        const std::size_t limit = workspace_limit(profile);
        if (bytes > limit) {
            return "the copies of dy's depth slices and the depth taps and the 2-D problem's workspace need " +
                   std::to_string(bytes) + " bytes; the workspace limit is " + std::to_string(limit) + " (" +
                   workspace_limit_key() + ")";
        }
        return std::nullopt;
    }
    if (!runs_as_forward(s)) return do_why_not(v, s, profile);
    return as_forward_why_not(v, s, profile);
}

std::string ConvImplementation::config(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) {
        const ConvShapes flat = depth_taps_problem(s);
        return config(v, flat, profile) + "; as 2-D: " + std::to_string(flat.N) + " depth slices as images, " +
               std::to_string(s.T) + " depth taps a channel (C " + std::to_string(flat.C) + ")" +
               (s.direction == ConvDirection::BACKWARD_DATA ? ", summed into dx" : "");
    }
    if (!runs_as_forward(s)) return do_config(v, s, profile);
    const BackwardDataPhases phases = backward_data_phases(s);
    const BackwardDataPhase* largest = nullptr;  // the phase with the most taps names the config
    for (const BackwardDataPhase& p : phases.phases) {
        if (p.has_taps() && (!largest || p.rows.taps * p.cols.taps > largest->rows.taps * largest->cols.taps)) largest = &p;
    }
    if (!largest) return "as forward: every stride phase without taps (dx is zeros)";
    const ConvShapes forward = phase_problem(v, phases, *largest, profile);
    const char* filters = !forward.weights_transposed                      ? ""
                          : forward.T * forward.R * forward.S == 1 ? " the layer's filters as they lie, transposed"
                                                                   : " the filters read rotated in place";
    if (phases.phases.size() == 1) {
        return do_config(v, forward, profile) + "; as forward: dy with" +
               (forward.weights_transposed ? filters : " the rotated filters");
    }
    return do_config(v, forward, profile) + "; as forward: " + std::to_string(phases.forward_count()) +
           " stride phases of dy with" + (forward.weights_transposed ? filters : " rotated sub-filters") + " (" +
           std::to_string(phases.phases.size()) + " with dx elements), copied into dx";
}

std::size_t ConvImplementation::workspace_bytes(const Variant& v, const ConvShapes& s,
                                                const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) {
        return depth_taps_scratch_bytes(s) + workspace_bytes(v, depth_taps_problem(s), profile);
    }
    if (!runs_as_forward(s)) return do_workspace_bytes(v, s, profile);
    const BackwardDataPhases phases = backward_data_phases(s);
    std::size_t largest = 0;  // the phases run one after another: the largest forward workspace serves all
    for (const BackwardDataPhase& p : phases.phases) {
        if (p.has_taps()) largest = std::max(largest, do_workspace_bytes(v, phase_problem(v, phases, p, profile), profile));
    }
    return phases.scratch_floats() * sizeof(float) + largest;
}

std::size_t ConvImplementation::persistent_bytes(const Variant& v, const ConvShapes& s,
                                                 const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) {
        // Backward data of a half layer keeps its filters widened to float32 (ops/as_2d/BackwardDataAs2d).
        const bool widened = s.direction == ConvDirection::BACKWARD_DATA && s.dtype != DataType::FLOAT32;
        return persistent_bytes(v, depth_taps_problem(s), profile) +
               (widened ? static_cast<std::size_t>(s.weight_numel()) * sizeof(float) : 0);
    }
    if (!runs_as_forward(s)) return do_persistent_bytes(v, s, profile);
    std::size_t bytes = 0;
    const BackwardDataPhases phases = backward_data_phases(s);
    for (const BackwardDataPhase& p : phases.phases) {
        if (!p.has_taps()) continue;
        const ConvShapes forward = phase_problem(v, phases, p, profile);
        if (!forward.weights_transposed) {
            bytes += static_cast<std::size_t>(p.forward.weight_numel()) * sizeof(float);  // the rotated sub-filter
        }
        bytes += do_persistent_bytes(v, forward, profile);
    }
    return bytes;
}

std::vector<ProgramSpec> ConvImplementation::programs(const Variant& v, const ConvShapes& s,
                                                      const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) {
        std::vector<ProgramSpec> list = programs(v, depth_taps_problem(s), profile);
        list.push_back(depth_taps_program(s.dtype));
        if (s.direction == ConvDirection::BACKWARD_DATA && s.dtype != DataType::FLOAT32) {
            list.push_back(internal::widen_program());
        }
        return list;
    }
    if (!runs_as_forward(s)) return do_programs(v, s, profile);
    const BackwardDataPhases phases = backward_data_phases(s);
    std::vector<ProgramSpec> list;
    std::set<std::pair<std::string, std::string>> seen;  // phases of one shape often share a program
    bool rotates = false;
    for (const BackwardDataPhase& p : phases.phases) {
        if (!p.has_taps()) continue;
        const ConvShapes forward = phase_problem(v, phases, p, profile);
        rotates |= !forward.weights_transposed;
        for (ProgramSpec& spec : do_programs(v, forward, profile)) {
            if (seen.insert({spec.source, spec.options}).second) list.push_back(std::move(spec));
        }
    }
    if (rotates) list.push_back(filter_rotation_program(s.dtype));
    if (!phases.direct) list.push_back(stride_phases_program(s.dtype));
    return list;
}

std::vector<std::string> ConvImplementation::tile_prefixes(const Variant& v, const ConvShapes& s,
                                                           const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) return tile_prefixes(v, depth_taps_problem(s), profile);
    if (!runs_as_forward(s)) return do_tile_prefixes(v, s, profile);
    std::vector<std::string> prefixes;
    const BackwardDataPhases phases = backward_data_phases(s);
    for (const BackwardDataPhase& p : phases.phases) {
        if (!p.has_taps()) continue;
        for (std::string& prefix : do_tile_prefixes(v, phase_problem(v, phases, p, profile), profile)) {
            if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end()) prefixes.push_back(prefix);
        }
    }
    return prefixes;
}

std::unique_ptr<ConvStrategy> ConvImplementation::create(std::shared_ptr<Context> context, const Variant& v,
                                                         const ConvShapes& s, const DeviceProfile& profile) const {
    if (runs_as_2d(v, s, profile)) {
        std::unique_ptr<ConvStrategy> flat = create(context, v, depth_taps_problem(s), profile);
        if (s.direction == ConvDirection::BACKWARD_DATA) {
            return std::make_unique<BackwardDataAs2d>(std::move(context), s, std::move(flat));
        }
        return std::make_unique<WeightGradientAs2d>(std::move(context), s, std::move(flat));
    }
    if (!runs_as_forward(s)) return do_create(std::move(context), v, s, profile);
    std::vector<std::unique_ptr<ConvStrategy>> forwards;
    const BackwardDataPhases phases = backward_data_phases(s);
    bool in_place = false;
    for (const BackwardDataPhase& p : phases.phases) {
        if (!p.has_taps()) continue;
        const ConvShapes forward = phase_problem(v, phases, p, profile);
        in_place |= forward.weights_transposed;
        forwards.push_back(do_create(context, v, forward, profile));
    }
    return std::make_unique<BackwardDataAsForward>(std::move(context), s, std::move(forwards), in_place);
}

}  // namespace netcl
