// IM2COL's implicit variant on netcl's GEMM engine: the column matrix is
// never built; the kernel gathers the input as it multiplies. Any filter,
// stride and padding (dilation 1): the strided 1x1, 3x3 stride-2 and 7x7
// stem layers of ResNet-50 at 50-66 GFLOPS on PoCL's 80 GFLOPS peak, with no
// workspace.
#include "ops/ConvImplementation.hpp"
#include "ops/implicit_gemm/ImplicitGemmConfig.hpp"
#include "ops/implicit_gemm/ImplicitGemmConv.hpp"
#include "ops/internal/Widen.hpp"

namespace netcl {

namespace {

class ImplicitGemmImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "implicit-gemm"; }
    Kernel kernel() const override { return Kernel::IM2COL; }
    // Backward data through its forward kernels, a stride phase at a time (ops/as_forward/).
    ProblemKinds problem_kinds() const override {
        // 3-D forward on the same kernel (its DEPTH build); 3-D backward data as
        // a 3-D forward convolution at stride 1 (ops/as_forward/), else as the
        // 2-D one of its depth taps (ops/as_2d/).
        ProblemKinds kinds = ProblemKinds::forward_and_backward_data_as_forward_2d_float32();
        kinds.spatial_ranks = {2, 3};
        kinds.backward_data_3d_as_2d = true;
        kinds.types = {DataType::FLOAT32, DataType::FLOAT16};
        return kinds;
    }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("implicit-gemm")};
        return list;
    }
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes& s, const DeviceProfile&) const override {
        if ((s.dilation_h != 1 && s.R > 1) || (s.dilation_w != 1 && s.S > 1) || (s.dilation_d != 1 && s.T > 1)) {
            return "the implicit GEMM takes dilation 1; this layer has dilation " +
                   (s.spatial_rank == 3 ? std::to_string(s.dilation_d) + "x" : std::string()) +
                   std::to_string(s.dilation_h) + "x" + std::to_string(s.dilation_w);
        }
        if (s.R > 11 || s.S > 11) return std::string("the implicit GEMM unrolls its taps: filters up to 11x11");
        return std::nullopt;
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return implicit_gemm_config(s, profile).str();
    }
    // Float16: the input widened to float32 (kernels_cl/widen.cl); float32 needs none.
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile&) const override {
        return s.dtype == DataType::FLOAT16 ? static_cast<std::size_t>(s.input_numel()) * sizeof(float) : 0;
    }
    std::size_t do_persistent_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return implicit_gemm_config(s, profile).packed_floats_per_group(s) * static_cast<std::size_t>(s.groups) *
               sizeof(float);
    }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (s.dtype == DataType::FLOAT16) return {implicit_gemm_config(s, profile).program(), internal::widen_program()};
        return {implicit_gemm_config(s, profile).program()};
    }
    std::vector<std::string> do_tile_prefixes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return {implicit_gemm_config(s, profile).tile.prefix};
    }
    std::vector<std::string> profile_keys() const override {
        auto keys = gemm_tile_keys("implicit_gemm");
        for (const char* prefix : {"implicit_gemm_thin", "implicit_gemm_few_pixels", "implicit_gemm_pointwise"}) {
            for (auto& key : gemm_tile_keys(prefix)) keys.push_back(key);
        }
        keys.push_back(workspace_limit_key());  // the 3-D backward data's copies (ops/as_2d/)
        for (const char* key : {"implicit_gemm_fixed_min_flops", "implicit_gemm_blocked_tiles",
                                "implicit_gemm_blocked_min_panel_bytes", "implicit_gemm_blocked_channels",
                                "implicit_gemm_blocked_wg1", "implicit_gemm_blocked_min_items_per_unit"}) {
            keys.push_back(key);
        }
        return keys;
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        return std::make_unique<ImplicitGemmConv>(std::move(context), shapes, implicit_gemm_config(shapes, profile));
    }
};

}  // namespace

const ConvImplementation& implicit_gemm_implementation() {
    static const ImplicitGemmImplementation instance;
    return instance;
}

}  // namespace netcl
