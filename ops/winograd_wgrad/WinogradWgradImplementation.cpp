// CONV2D_WINOGRAD for the weight gradient (Lavin & Gray section 4.2): dw as
// a sum over dy's tiles of F(3x3, r x r) pieces, the sum a batched GEMM on
// netcl's engine or on CLBlast (kernels_cl/winograd_wgrad.cl says how).
#include "ops/ConvImplementation.hpp"
#include "ops/winograd_wgrad/WinogradWgradConfig.hpp"
#include "ops/winograd_wgrad/WinogradWgradConv.hpp"

namespace netcl {

namespace {

class WinogradWgradImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "winograd-wgrad"; }
    Kernel kernel() const override { return Kernel::CONV2D_WINOGRAD; }
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds{{ConvDirection::BACKWARD_WEIGHTS}, {2, 3}, {DataType::FLOAT32, DataType::FLOAT16}};
        kinds.weight_gradient_3d_as_2d = true;  // 3-D as its 2-D equal (ops/as_2d/)
        return kinds;
    }
    const std::vector<Variant>& variants() const override { return winograd_wgrad_variants(); }
    std::vector<std::string> profile_keys() const override { return winograd_wgrad_profile_keys(); }
    // 64 MiB unless the profile says (WinogradWgradConfig.cpp), the 3-D copies included.
    std::size_t workspace_limit(const DeviceProfile& profile) const override {
        return winograd_wgrad_workspace_limit(profile);
    }
    // Measured max error over the direct dw's (netcl-bench --accuracy, VGG's
    // five Table 4 layers, N = 1, Zen 3, the tiles summed in slices of 128):
    // F(3x3,2x2) 0.06-0.69, F(3x3,4x4) 0.26-2.05. The factors are forward's
    // for the same alpha and points (F(2x2,3x3) 4, F(4x4,3x3) 16), bounds
    // with room over those.
    double error_factor(const Variant& v) const override { return *winograd_wgrad_dy_tile(v) == 2 ? 4.0 : 16.0; }

protected:
    std::optional<std::string> do_why_not(const Variant& v, const ConvShapes& s,
                                          const DeviceProfile& profile) const override {
        if (s.R != 3 || s.S != 3) {
            return "Winograd's weight gradient takes 3x3 filters; this layer has " + std::to_string(s.R) + "x" +
                   std::to_string(s.S);
        }
        if (s.stride_h != 1 || s.stride_w != 1) return std::string("Winograd takes stride 1");
        if (s.dilation_h != 1 || s.dilation_w != 1) return std::string("Winograd takes dilation 1");
        if (s.groups != 1) return std::string("Winograd's weight gradient takes ungrouped layers");
        const WinogradWgradConfig c = winograd_wgrad_config(v, s, profile);
        const std::size_t one_tile = static_cast<std::size_t>((s.C + s.K) * c.elements()) * sizeof(float);
        const std::size_t limit = winograd_wgrad_workspace_limit(profile);
        if (c.sums_bytes(s) + one_tile > limit) {
            return "the transformed gradient's sums (" + std::to_string(c.sums_bytes(s)) + " bytes) and one tile's " +
                   "transforms (" + std::to_string(one_tile) + ")" +
                   " exceed the workspace limit " + std::to_string(limit) + " (winograd_wgrad_workspace_limit_bytes)";
        }
        return std::nullopt;
    }
    std::string do_config(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_wgrad_config(v, s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_wgrad_config(v, s, profile).workspace_bytes(s);
    }
    std::vector<ProgramSpec> do_programs(const Variant& v, const ConvShapes& s,
                                         const DeviceProfile& profile) const override {
        const WinogradWgradConfig c = winograd_wgrad_config(v, s, profile);
        std::vector<ProgramSpec> programs = {c.transforms_program()};
        if (c.clblast) return programs;
        programs.push_back(c.gemm_program(false));
        if (c.passes > 1) programs.push_back(c.gemm_program(true));
        return programs;
    }
    std::vector<std::string> do_tile_prefixes(const Variant& v, const ConvShapes&, const DeviceProfile&) const override {
        if (winograd_wgrad_on_clblast(v)) return {};
        return {"winograd_wgrad"};
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant& v, const ConvShapes& s,
                                            const DeviceProfile& profile) const override {
        return std::make_unique<WinogradWgradConv>(std::move(context), s,
                                                   winograd_wgrad_config(v, s, profile));
    }
};

}  // namespace

const ConvImplementation& winograd_wgrad_implementation() {
    static const WinogradWgradImplementation instance;
    return instance;
}

}  // namespace netcl
