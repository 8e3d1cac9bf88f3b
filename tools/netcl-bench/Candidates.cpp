#include "Candidates.hpp"

#include <algorithm>

#include "ClblastConvgemm.hpp"
#include "ShapeArgs.hpp"
#include "UsageError.hpp"
#include "netcl/Error.hpp"
#include "ops/Implementations.hpp"
#include "runtime/internal/Text.hpp"

namespace netcl::bench {

namespace {

bool matches(const Candidate& c, const std::string& token) {
    if (token == "all" || c.id == token || c.id.rfind(token + "-", 0) == 0) return true;
    // A strategy's name stands for every variant under it.
    return c.kind == Candidate::Kind::Strategy && internal::lowercase(to_string(c.kernel)) == token;
}

}  // namespace

const std::vector<Candidate>& all_candidates() {
    static const std::vector<Candidate> candidates = [] {
        std::vector<Candidate> list;
        list.push_back({Candidate::Kind::Selector, "selector", Kernel::CONV2D_NAIVE, {}});
        list.push_back({Candidate::Kind::SelectorFloat32, "float32-selector", Kernel::CONV2D_NAIVE, {}});
        for (const ConvImplementation* impl : conv_implementations()) {
            for (const Variant& v : impl->variants()) list.push_back({Candidate::Kind::Strategy, v.id, impl->kernel(), v});
        }
        list.push_back({Candidate::Kind::Clblast, "clblast", Kernel::CONV2D_NAIVE, {}});
        // Without a oneDNN the two ids still exist, so a run that asks for them says why they were skipped.
        const std::size_t libraries = std::max<std::size_t>(onednn_libraries().size(), 1);
        for (std::size_t library = 0; library < libraries; ++library) {
            const std::string tag = library < onednn_libraries().size() ? onednn_libraries()[library].tag : "";
            for (const OneDnnLayout layout : {OneDnnLayout::Nchw, OneDnnLayout::Blocked}) {
                list.push_back({Candidate::Kind::OneDnn, "onednn" + tag + "-" + to_string(layout),
                                Kernel::CONV2D_NAIVE, {}, layout, library});
            }
        }
        return list;
    }();
    return candidates;
}

std::vector<Candidate> parse_strategies(const std::string& text) {
    std::vector<bool> chosen(all_candidates().size(), false);
    for (const auto& field : split_commas(text)) {
        const std::string token = internal::lowercase(field);
        bool any = false;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            if (matches(all_candidates()[i], token)) chosen[i] = any = true;
        }
        if (!any) {
            std::string valid = "all, CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD, wino, wino-f2, wino-f4, onednn";
            for (const auto& c : all_candidates()) valid += ", " + c.id;
            throw UsageError("--strategies: unknown strategy '" + field + "'; expected a comma list of: " + valid);
        }
    }
    std::vector<Candidate> result;  // table order, each once
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        if (chosen[i]) result.push_back(all_candidates()[i]);
    }
    return result;
}

const Candidate& candidate_by_id(const std::string& id) {
    for (const auto& c : all_candidates()) {
        if (c.id == id) return c;
    }
    throw Error("netcl-bench has no candidate '" + id + "'");
}

std::optional<Candidate> runnable_candidate(const std::string& id, const ConvShapes& shapes,
                                            const DeviceProfile& profile) {
    const Candidate& c = candidate_by_id(id);
    if (candidate_why_not(c, shapes, profile)) return std::nullopt;
    return c;
}

std::optional<std::string> candidate_why_not(const Candidate& candidate, const ConvShapes& shapes,
                                             const DeviceProfile& profile) {
    switch (candidate.kind) {
        case Candidate::Kind::Selector: return std::nullopt;
        case Candidate::Kind::SelectorFloat32:
            if (shapes.dtype == DataType::FLOAT32) {
                return std::string("float32-selector sits beside a --dtype float16 run; this run is float32 (selector)");
            }
            return std::nullopt;
        case Candidate::Kind::Clblast:
            if (shapes.direction != ConvDirection::FORWARD) {
                return "CLBlast's Convgemm computes forward only; this problem is " + to_string(shapes.direction);
            }
            if (shapes.spatial_rank != 2) return std::string("CLBlast's Convgemm is 2-D; this layer is 3-D");
            return clblast_convgemm_why_not(shapes);
        case Candidate::Kind::OneDnn: return onednn_why_not(shapes, profile);
        case Candidate::Kind::Strategy: return why_not(candidate.variant, shapes, profile);
    }
    return "unknown candidate";
}

}  // namespace netcl::bench
