// wgrad-clblast's descriptor: the weight gradient on CLBlast's SGEMM over
// IM2COL's columns (ClblastWeightGradientConv.hpp says how), for devices that
// turn netcl's GEMM engine off. Listed after wgrad-gemm, so a profile that
// keeps the engine on (the CPU ones) plans as before.
#include "ops/ConvImplementation.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/weight_gradient/ClblastWeightGradientConfig.hpp"
#include "ops/weight_gradient/ClblastWeightGradientConv.hpp"

namespace netcl {

namespace {

class ClblastWeightGradientImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "wgrad-clblast"; }
    Kernel kernel() const override { return Kernel::IM2COL; }  // im2col + a GEMM, as IM2COL's variants are
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("wgrad-clblast")};
        return list;
    }
    // float16 through float32 copies for CLBlast's SGEMM (its HGEMM needs cl_khr_fp16 and sums in half):
    // ClblastWeightGradientConfig.hpp.
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds{{ConvDirection::BACKWARD_WEIGHTS}, {2, 3}, {DataType::FLOAT32, DataType::FLOAT16}};
        kinds.weight_gradient_3d_as_2d = true;  // 3-D as its 2-D equal (ops/as_2d/)
        return kinds;
    }
    // im2col's cap (its columns are im2col's), which the 3-D copies count against too.
    std::string workspace_limit_key() const override { return "im2col_workspace_limit_bytes"; }
    std::size_t workspace_limit(const DeviceProfile& profile) const override { return im2col_workspace_limit(profile); }
    std::vector<std::string> profile_keys() const override {
        return {"im2col_workspace_limit_bytes", "im2col_pass_bytes", "im2col_rows", "wgrad_clblast_split_outputs",
                "wgrad_clblast_min_chunk"};
    }

protected:
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes& s,
                                          const DeviceProfile& profile) const override {
        const ClblastWeightGradientConfig c = clblast_weight_gradient_config(s, profile);
        const std::size_t limit = im2col_workspace_limit(profile);
        if (c.workspace_bytes() > limit) {
            return "its columns and partial sums need a workspace of " + std::to_string(c.workspace_bytes()) +
                   " bytes; the limit is " + std::to_string(limit) + " bytes (im2col_workspace_limit_bytes)";
        }
        return std::nullopt;
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return clblast_weight_gradient_config(s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return clblast_weight_gradient_config(s, profile).workspace_bytes();
    }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s,
                                         const DeviceProfile& profile) const override {
        return clblast_weight_gradient_programs(s, clblast_weight_gradient_config(s, profile));
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& s,
                                            const DeviceProfile& profile) const override {
        return std::make_unique<ClblastWeightGradientConv>(std::move(context), s,
                                                           clblast_weight_gradient_config(s, profile));
    }
};

}  // namespace

const ConvImplementation& clblast_weight_gradient_implementation() {
    static const ClblastWeightGradientImplementation instance;
    return instance;
}

}  // namespace netcl
