#include "Candidates.hpp"

#include <algorithm>
#include <cctype>

#include "ClblastConvgemm.hpp"
#include "ShapeArgs.hpp"
#include "UsageError.hpp"
#include "ops/StrategyLimits.hpp"

namespace netcl::bench {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

std::string winograd_id(const Variant& v) {
    return "wino-f" + std::to_string(v.winograd_tile) + (v.low_local_memory ? "-lowlocal" : "-fused") +
           (v.constant_weights ? "-constant" : "-global");
}

// The Kernel enum names stand for the id prefix of their candidates.
std::string alias(const std::string& token) {
    if (token == "conv2d_naive") return "naive";
    if (token == "conv2d_winograd" || token == "winograd") return "wino";
    return token;
}

bool matches(const std::string& id, const std::string& token) {
    return token == "all" || id == token || id.rfind(token + "-", 0) == 0;
}

}  // namespace

const std::vector<Candidate>& all_candidates() {
    static const std::vector<Candidate> candidates = [] {
        std::vector<Candidate> list;
        list.push_back({Candidate::Kind::Selector, "selector", Kernel::CONV2D_NAIVE, {}});
        list.push_back({Candidate::Kind::Strategy, "naive", Kernel::CONV2D_NAIVE, {}});
        list.push_back({Candidate::Kind::Strategy, "im2col", Kernel::IM2COL, {}});
        for (const int tile : {2, 4}) {
            for (const bool low_local : {false, true}) {
                for (const bool constant : {false, true}) {
                    const Variant v{tile, low_local, constant};
                    list.push_back({Candidate::Kind::Strategy, winograd_id(v), Kernel::CONV2D_WINOGRAD, v});
                }
            }
        }
        list.push_back({Candidate::Kind::Clblast, "clblast", Kernel::CONV2D_NAIVE, {}});
        return list;
    }();
    return candidates;
}

std::string candidate_id(Kernel kernel, const Variant& variant) {
    switch (kernel) {
        case Kernel::CONV2D_NAIVE: return "naive";
        case Kernel::IM2COL: return "im2col";
        case Kernel::CONV2D_WINOGRAD: return winograd_id(variant);
    }
    return to_string(kernel);
}

std::vector<Candidate> parse_strategies(const std::string& text) {
    std::vector<bool> chosen(all_candidates().size(), false);
    for (const auto& field : split_commas(text)) {
        const std::string token = alias(lower(field));
        bool any = false;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            if (matches(all_candidates()[i].id, token)) chosen[i] = any = true;
        }
        if (!any) {
            std::string valid = "all, CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD, wino, wino-f2, wino-f4";
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

std::optional<std::string> candidate_why_not(const Candidate& candidate, const ConvShapes& shapes,
                                             const DeviceProfile& profile) {
    switch (candidate.kind) {
        case Candidate::Kind::Selector: return std::nullopt;
        case Candidate::Kind::Clblast: return clblast_convgemm_why_not(shapes);
        case Candidate::Kind::Strategy: return why_not(candidate.kernel, candidate.variant, shapes, profile);
    }
    return "unknown candidate";
}

}  // namespace netcl::bench
