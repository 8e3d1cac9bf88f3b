// IM2COL's descriptor: im2col + a batched SGEMM, CLBlast's (im2col-clblast)
// or netcl's GEMM engine (im2col-gemm). Its workspace (the column buffer of
// one pass of images) is capped by the profile's limit.
#include "ops/ConvImplementation.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "ops/im2col/Im2colConv.hpp"
#include "ops/im2col/Im2colGemmConv.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/internal/Panels.hpp"
#include "ops/internal/Widen.hpp"

namespace netcl {

namespace {

class Im2colImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "im2col"; }
    Kernel kernel() const override { return Kernel::IM2COL; }
    // Backward data through its forward kernels, a stride phase at a time (ops/as_forward/).
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds = ProblemKinds::forward_and_backward_data_as_forward_2d_float32();
        kinds.types = {DataType::FLOAT32, DataType::FLOAT16};
        return kinds;
    }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("im2col-clblast"), Variant("im2col-gemm")};
        return list;
    }
    std::optional<std::string> do_why_not(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        // netcl's GEMM engine is CPU-shaped; a profile turns it off where it is not (nvidia-gpu).
        if (v.id == "im2col-gemm" && profile.tuned_or("im2col_gemm_enabled", 1) == 0) {
            return std::string("im2col-gemm is off on this device (its profile sets im2col_gemm_enabled = 0)");
        }
        const std::size_t need = do_workspace_bytes(v, s, profile), limit = im2col_workspace_limit(profile);
        if (need > limit) {
            return "im2col needs a workspace of " + std::to_string(need) + " bytes; the limit is " +
                   std::to_string(limit) + " bytes";
        }
        return std::nullopt;
    }
    std::string do_config(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (v.id == "im2col-gemm") return im2col_gemm_config(s, profile).str();
        const Im2colLayout layout = im2col_clblast_layout(s, profile);
        if (layout.direct) return "1x1: the input is the column matrix, no workspace";
        return std::to_string(layout.images_per_pass) + " image(s) per pass, workspace " +
               std::to_string(layout.workspace_bytes) + " bytes" + (layout.by_rows ? ", columns a row a work-item" : "") +
               (layout.float_output_bytes ? ", half x widened by the expansion and the weights once, the output "
                                            "stored into half from float32"
                                          : "");
    }
    std::size_t do_workspace_bytes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (v.id == "im2col-gemm") return im2col_gemm_config(s, profile).workspace_bytes(s);
        return im2col_clblast_layout(s, profile).workspace_bytes;
    }
    std::vector<ProgramSpec> do_programs(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (v.id == "im2col-gemm") {
            const Im2colGemmConfig c = im2col_gemm_config(s, profile);
            if (c.panels) return {internal::panels_program(s.dtype), c.gemm_program()};
            std::vector<ProgramSpec> list = im2col_programs(c.layout, /*bias=*/false);
            list.push_back(c.gemm_program());
            if (s.dtype == DataType::FLOAT16) list.push_back(internal::widen_program());
            return list;
        }
        std::vector<ProgramSpec> list = im2col_programs(im2col_clblast_layout(s, profile), s.bias, s.post_ops);
        if (s.dtype == DataType::FLOAT16) list.push_back(internal::widen_program());
        return list;
    }
    // im2col-gemm's weights in panels, or a float16 layer's widened to float32 (im2col-clblast's too).
    std::size_t do_persistent_bytes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (v.id == "im2col-gemm") return im2col_gemm_config(s, profile).weight_floats(s) * sizeof(float);
        return s.dtype == DataType::FLOAT16 ? static_cast<std::size_t>(s.weight_numel()) * sizeof(float) : 0;
    }
    std::vector<std::string> do_tile_prefixes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (v.id != "im2col-gemm") return {};  // CLBlast's GEMM is tuned by CLBlast's own tuner
        return {im2col_gemm_config(s, profile).tile.prefix};
    }
    std::vector<std::string> profile_keys() const override {
        std::vector<std::string> keys = {"im2col_workspace_limit_bytes", "im2col_pass_bytes", "im2col_rows", "im2col_gemm_enabled",
                                         "stream_output_min_bytes", "im2col_gemm_training_weights_in_place"};
        for (auto& key : gemm_tile_keys("im2col_gemm")) keys.push_back(key);
        return keys;
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant& v, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        if (v.id == "im2col-gemm") {
            return std::make_unique<Im2colGemmConv>(std::move(context), shapes, im2col_gemm_config(shapes, profile));
        }
        return std::make_unique<Im2colConv>(std::move(context), shapes, im2col_clblast_layout(shapes, profile));
    }
};

}  // namespace

const ConvImplementation& im2col_implementation() {
    static const Im2colImplementation instance;
    return instance;
}

}  // namespace netcl
