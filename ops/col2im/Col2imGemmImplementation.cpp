// col2im-gemm's descriptor: the input gradient of every 2-D layer as
// W^T dy on the GEMM engine, gathered into dx from the column matrix.
#include "ops/ConvImplementation.hpp"
#include "ops/col2im/Col2imGemmConfig.hpp"
#include "ops/col2im/Col2imGemmConv.hpp"

namespace netcl {

namespace {

class Col2imGemmImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "col2im-gemm"; }
    Kernel kernel() const override { return Kernel::IM2COL; }  // GEMM-shaped, as IM2COL's variants are
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("col2im-gemm")};
        return list;
    }
    ProblemKinds problem_kinds() const override {
        return {{ConvDirection::BACKWARD_DATA}, {2}, {DataType::FLOAT32, DataType::FLOAT16}};
    }
    std::vector<std::string> profile_keys() const override {
        std::vector<std::string> keys = gemm_tile_keys("col2im_gemm");
        keys.push_back(workspace_limit_key());  // col2im_gemm_workspace_limit_bytes
        keys.push_back("col2im_gemm_panels");
        keys.push_back("col2im_gemm_in_place_max_columns");
        keys.push_back("col2im_gemm_prefetch_dy_rows");
        keys.push_back("col2im_gemm_prefetch_w_steps");
        return keys;
    }

protected:
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes& s,
                                          const DeviceProfile& profile) const override {
        const Col2imGemmConfig c = col2im_gemm_config(s, profile);
        const std::size_t limit = col2im_gemm_workspace_limit(profile);
        if (c.workspace_bytes() > limit) {
            return "an image's column matrix" + std::string(c.panels ? " and dy in panels need " : " needs ") +
                   std::to_string(c.workspace_bytes()) +
                   " bytes; the workspace limit is " + std::to_string(limit) + " (" + workspace_limit_key() + ")";
        }
        return std::nullopt;
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return col2im_gemm_config(s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return col2im_gemm_config(s, profile).workspace_bytes();
    }
    std::size_t do_persistent_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return col2im_gemm_config(s, profile).weights_bytes;
    }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s,
                                         const DeviceProfile& profile) const override {
        return col2im_gemm_config(s, profile).programs();
    }
    std::vector<std::string> do_tile_prefixes(const Variant&, const ConvShapes&, const DeviceProfile&) const override {
        return {"col2im_gemm"};
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& s,
                                            const DeviceProfile& profile) const override {
        return std::make_unique<Col2imGemmConv>(std::move(context), s, col2im_gemm_config(s, profile));
    }
};

}  // namespace

const ConvImplementation& col2im_gemm_implementation() {
    static const Col2imGemmImplementation instance;
    return instance;
}

}  // namespace netcl
