#include "ops/ConvImplementation.hpp"

#include "ops/as_forward/BackwardDataAsForward.hpp"

namespace netcl {

bool ConvImplementation::runs_as_forward(const ConvShapes& s) const {
    return s.direction == ConvDirection::BACKWARD_DATA && problem_kinds().backward_data_as_forward;
}

std::optional<std::string> ConvImplementation::why_not(const Variant& v, const ConvShapes& s,
                                                       const DeviceProfile& profile) const {
    if (!runs_as_forward(s)) return do_why_not(v, s, profile);
    if (auto reason = backward_data_as_forward_why_not(s)) return reason;
    return do_why_not(v, backward_data_as_forward(s), profile);
}

std::string ConvImplementation::config(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const {
    if (!runs_as_forward(s)) return do_config(v, s, profile);
    return do_config(v, backward_data_as_forward(s), profile) + "; as forward: dy with the rotated filters";
}

std::size_t ConvImplementation::workspace_bytes(const Variant& v, const ConvShapes& s,
                                                const DeviceProfile& profile) const {
    return do_workspace_bytes(v, runs_as_forward(s) ? backward_data_as_forward(s) : s, profile);
}

std::size_t ConvImplementation::persistent_bytes(const Variant& v, const ConvShapes& s,
                                                 const DeviceProfile& profile) const {
    if (!runs_as_forward(s)) return do_persistent_bytes(v, s, profile);
    const auto rotated = static_cast<std::size_t>(s.weight_numel()) * sizeof(float);
    return rotated + do_persistent_bytes(v, backward_data_as_forward(s), profile);
}

std::vector<ProgramSpec> ConvImplementation::programs(const Variant& v, const ConvShapes& s,
                                                      const DeviceProfile& profile) const {
    if (!runs_as_forward(s)) return do_programs(v, s, profile);
    std::vector<ProgramSpec> list = do_programs(v, backward_data_as_forward(s), profile);
    list.push_back(filter_rotation_program());
    return list;
}

std::vector<std::string> ConvImplementation::tile_prefixes(const Variant& v, const ConvShapes& s,
                                                           const DeviceProfile& profile) const {
    return do_tile_prefixes(v, runs_as_forward(s) ? backward_data_as_forward(s) : s, profile);
}

std::unique_ptr<ConvStrategy> ConvImplementation::create(std::shared_ptr<Context> context, const Variant& v,
                                                         const ConvShapes& s, const DeviceProfile& profile) const {
    if (!runs_as_forward(s)) return do_create(std::move(context), v, s, profile);
    auto forward = do_create(context, v, backward_data_as_forward(s), profile);
    return std::make_unique<BackwardDataAsForward>(std::move(context), s, std::move(forward));
}

}  // namespace netcl
