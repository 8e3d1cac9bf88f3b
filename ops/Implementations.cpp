#include "ops/Implementations.hpp"

#include <algorithm>

#include "netcl/Error.hpp"
#include "ops/internal/WorkspaceLimit.hpp"

namespace netcl {

// Each implementation defines its descriptor in its own folder.
const ConvImplementation& naive_implementation();          // ops/naive/
const ConvImplementation& direct_rows_implementation();    // ops/direct_rows/
const ConvImplementation& gemm1x1_implementation();        // ops/gemm/
const ConvImplementation& implicit_gemm_implementation();  // ops/implicit_gemm/
const ConvImplementation& im2col_implementation();         // ops/im2col/
const ConvImplementation& weight_gradient_gemm_implementation();  // ops/weight_gradient/
const ConvImplementation& clblast_weight_gradient_implementation();  // ops/weight_gradient/
const ConvImplementation& col2im_gemm_implementation();    // ops/col2im/
const ConvImplementation& winograd_implementation();       // ops/winograd/
const ConvImplementation& winograd_gemm_implementation();  // ops/winograd_gemm/
const ConvImplementation& winograd_wgrad_implementation();  // ops/winograd_wgrad/

const std::vector<const ConvImplementation*>& conv_implementations() {
    // Within one strategy, the order the selector tries them in when the
    // profile says nothing else: the specialised GEMMs before im2col + CLBlast.
    static const std::vector<const ConvImplementation*> list = {
        &naive_implementation(),
        &direct_rows_implementation(),
        &gemm1x1_implementation(),
        &implicit_gemm_implementation(),
        &im2col_implementation(),
        &weight_gradient_gemm_implementation(),
        &clblast_weight_gradient_implementation(),
        &col2im_gemm_implementation(),
        &winograd_implementation(),
        &winograd_gemm_implementation(),
        &winograd_wgrad_implementation(),
    };
    return list;
}

namespace {
// A profile key of an implementation: its name, dashes as underscores, + suffix.
std::string profile_key(const ConvImplementation& impl, const char* suffix) {
    std::string key = impl.name();
    std::replace(key.begin(), key.end(), '-', '_');
    return key + suffix;
}
}  // namespace

std::string ConvImplementation::enabled_key() const { return profile_key(*this, "_enabled"); }

std::string ConvImplementation::workspace_limit_key() const { return profile_key(*this, "_workspace_limit_bytes"); }

std::size_t ConvImplementation::workspace_limit(const DeviceProfile& profile) const {
    return internal::workspace_limit(profile, workspace_limit_key().c_str());
}

bool ConvImplementation::offers(const Variant& variant) const {
    const auto& all = variants();
    return std::find(all.begin(), all.end(), variant) != all.end();
}

const ConvImplementation& implementation_of(const Variant& variant) {
    for (const ConvImplementation* impl : conv_implementations()) {
        if (impl->offers(variant)) return *impl;
    }
    std::string known;
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const Variant& v : impl->variants()) known += (known.empty() ? "" : ", ") + v.id;
    }
    throw Error("unknown convolution variant '" + variant.id + "'; expected one of: " + known);
}

std::vector<Variant> variants_of(Kernel kernel) {
    std::vector<Variant> out;
    for (const ConvImplementation* impl : conv_implementations()) {
        if (impl->kernel() != kernel) continue;
        out.insert(out.end(), impl->variants().begin(), impl->variants().end());
    }
    return out;
}

namespace {
template <typename T, typename Name>
std::string listed(const std::vector<T>& values, Name name) {
    std::string text;
    for (const T& v : values) text += (text.empty() ? "" : ", ") + name(v);
    return text;
}
template <typename T>
bool contains(const std::vector<T>& values, const T& value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}
}  // namespace

std::optional<std::string> problem_kind_why_not(const ConvImplementation& impl, const ConvShapes& s) {
    const ProblemKinds kinds = impl.problem_kinds();
    const auto direction_name = [](ConvDirection d) { return to_string(d); };
    const auto rank_name = [](int rank) { return std::to_string(rank) + "-D"; };
    const auto type_name = [](DataType t) { return to_string(t); };
    if (!contains(kinds.directions, s.direction)) {
        return impl.name() + " takes " + listed(kinds.directions, direction_name) + "; this problem is " +
               to_string(s.direction);
    }
    if (!contains(kinds.spatial_ranks, s.spatial_rank)) {
        return impl.name() + " takes " + listed(kinds.spatial_ranks, rank_name) + " convolutions; this one is " +
               rank_name(s.spatial_rank);
    }
    if (!contains(kinds.types, s.dtype)) {
        return impl.name() + " takes " + listed(kinds.types, type_name) + " tensors; this problem's are " +
               to_string(s.dtype);
    }
    if (s.weights_transposed && !kinds.transposed_filters) {
        return impl.name() + " takes its weights K x C/groups (oihw); this problem's are transposed (iohw)";
    }
    return std::nullopt;
}

std::vector<Variant> variants_of(Kernel kernel, ConvDirection direction) {
    std::vector<Variant> out;
    for (const ConvImplementation* impl : conv_implementations()) {
        const auto directions = impl->problem_kinds().directions;
        if (impl->kernel() != kernel || std::find(directions.begin(), directions.end(), direction) == directions.end()) {
            continue;
        }
        out.insert(out.end(), impl->variants().begin(), impl->variants().end());
    }
    return out;
}

std::optional<std::string> int_indexing_why_not(const ConvShapes& s) {
    constexpr std::int64_t kLimit = 2147483647;  // INT_MAX: the kernels index with int
    if (s.input_numel() >= kLimit || s.output_numel() >= kLimit || s.weight_numel() >= kLimit) {
        return "the kernels index with 32-bit ints; this layer has a tensor of 2^31 elements or more (input " +
               std::to_string(s.input_numel()) + ", output " + std::to_string(s.output_numel()) + ", weights " +
               std::to_string(s.weight_numel()) + ")";
    }
    return std::nullopt;
}

std::optional<std::string> why_not(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile) {
    const ConvImplementation& impl = implementation_of(variant);
    shapes.validate();
    if (auto reason = int_indexing_why_not(shapes)) return reason;
    if (auto reason = problem_kind_why_not(impl, shapes)) return reason;
    if (profile.tuned_or(impl.enabled_key(), 1) == 0) {
        return impl.name() + " is off on this device (its profile sets " + impl.enabled_key() + " = 0)";
    }
    return impl.why_not(variant, shapes, profile);
}

std::unique_ptr<ConvStrategy> create_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                              const ConvShapes& shapes, const DeviceProfile& profile) {
    NETCL_REQUIRE(context != nullptr, "create_strategy needs a Context; got a null one");
    const ConvImplementation& impl = implementation_of(plan.variant);
    if (impl.kernel() != plan.kernel) {
        throw Error("plan names " + to_string(plan.kernel) + " with variant " + plan.variant.id + ", which runs under " +
                    to_string(impl.kernel()));
    }
    if (const auto reason = why_not(plan.variant, shapes, profile)) {
        throw Error(to_string(plan.kernel) + " " + plan.variant.id + " cannot run " + shapes.str() + ": " + *reason);
    }
    return impl.create(std::move(context), plan.variant, shapes, profile);
}

}  // namespace netcl
