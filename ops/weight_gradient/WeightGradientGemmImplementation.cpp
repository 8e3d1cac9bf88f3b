// wgrad-gemm's descriptor: the weight gradient of every layer on the GEMM
// engine, through a patch matrix a chunk of pixels at a time.
#include "ops/ConvImplementation.hpp"
#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"
#include "ops/weight_gradient/WeightGradientGemmConv.hpp"

namespace netcl {

namespace {

class WeightGradientGemmImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "wgrad-gemm"; }
    Kernel kernel() const override { return Kernel::IM2COL; }  // GEMM-shaped, as IM2COL's variants are
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("wgrad-gemm")};
        return list;
    }
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds{{ConvDirection::BACKWARD_WEIGHTS}, {2, 3}, {DataType::FLOAT32, DataType::FLOAT16}};
        kinds.weight_gradient_3d_as_2d = true;  // 3-D as its 2-D equal (ops/as_2d/)
        return kinds;
    }
    std::vector<std::string> profile_keys() const override {
        std::vector<std::string> keys = gemm_tile_keys("wgrad_gemm");
        keys.push_back("wgrad_gemm_dy_copy_max_ratio");
        keys.push_back("wgrad_gemm_dy_copy_min_saving");
        keys.push_back("wgrad_gemm_columns_min_width");
        keys.push_back("wgrad_gemm_chunk_bytes");
        keys.push_back("wgrad_gemm_columns_from_phases");
        keys.push_back("wgrad_gemm_dy_chunk_bytes");
        keys.push_back("wgrad_gemm_phases_min_width");
        keys.push_back("wgrad_gemm_transpose_prefetch_floats");
        keys.push_back("wgrad_gemm_min_work_groups_per_unit");
        keys.push_back("wgrad_gemm_fold_images_max_pixels");
        keys.push_back("wgrad_gemm_fold_images_bytes");
        for (const char* key : {"wgrad_gemm_dot_min_pixels", "wgrad_gemm_dot_max_weights", "wgrad_gemm_dot_mr",
                                "wgrad_gemm_dot_nr", "wgrad_gemm_dot_vw", "wgrad_gemm_dot_tiles_m",
                                "wgrad_gemm_dot_tiles_n", "wgrad_gemm_dot_kb", "wgrad_gemm_dot_chunk_bytes",
                                "wgrad_gemm_dot_columns_from_phases", "wgrad_gemm_dot_phases_max_weights"}) {
            keys.push_back(key);
        }
        keys.push_back(workspace_limit_key());  // wgrad_gemm_workspace_limit_bytes
        return keys;
    }

protected:
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes& s,
                                          const DeviceProfile& profile) const override {
        const WeightGradientGemmConfig c = weight_gradient_gemm_config(s, profile);
        const std::size_t limit = weight_gradient_workspace_limit(profile);
        if (c.workspace_bytes > limit) {
            return "a chunk's patches and the float32 sum of dw need " + std::to_string(c.workspace_bytes) +
                   " bytes; the workspace limit is " + std::to_string(limit) + " (" + workspace_limit_key() + ")";
        }
        return std::nullopt;
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return weight_gradient_gemm_config(s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return weight_gradient_gemm_config(s, profile).workspace_bytes;
    }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s,
                                         const DeviceProfile& profile) const override {
        return weight_gradient_gemm_config(s, profile).programs();
    }
    std::vector<std::string> do_tile_prefixes(const Variant&, const ConvShapes&, const DeviceProfile&) const override {
        return {"wgrad_gemm"};
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& s,
                                            const DeviceProfile& profile) const override {
        return std::make_unique<WeightGradientGemmConv>(std::move(context), s, weight_gradient_gemm_config(s, profile));
    }
};

}  // namespace

const ConvImplementation& weight_gradient_gemm_implementation() {
    static const WeightGradientGemmImplementation instance;
    return instance;
}

}  // namespace netcl
