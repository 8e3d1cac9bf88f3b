// IM2COL's 1x1 variant on netcl's own GEMM engine: a 1x1 stride-1 unpadded
// layer is a GEMM on NCHW as it lies (the input already is the column
// matrix); a strided one, where the configuration packs x, a GEMM on x's
// pixels gathered into panels. 5-10x CLBlast's untuned GEMM on PoCL,
// 0.8-1.0x oneDNN's jit_1x1.
#include "ops/ConvImplementation.hpp"
#include "ops/gemm/Gemm1x1Config.hpp"
#include "ops/gemm/Gemm1x1Conv.hpp"
#include "ops/internal/Panels.hpp"
#include "ops/internal/Widen.hpp"

namespace netcl {

namespace {

class Gemm1x1Implementation final : public ConvImplementation {
public:
    std::string name() const override { return "gemm-1x1"; }
    Kernel kernel() const override { return Kernel::IM2COL; }
    // Backward data through its forward kernels, a stride phase at a time (ops/as_forward/).
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds = ProblemKinds::forward_and_backward_data_as_forward_2d_float32();
        kinds.types = {DataType::FLOAT32, DataType::FLOAT16};
        kinds.transposed_filters = true;  // a 1x1 layer's backward data reads its filters in place (A_TRANSPOSED)
        return kinds;
    }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("gemm-1x1")};
        return list;
    }
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (s.R != 1 || s.S != 1) {
            return "the 1x1 GEMM takes 1x1 filters; this layer has " + std::to_string(s.R) + "x" + std::to_string(s.S);
        }
        const Gemm1x1Config config = gemm1x1_config(s, profile);
        if ((s.stride_h != 1 || s.stride_w != 1) && !config.pack_x) {
            return "the 1x1 GEMM takes a strided layer only where it packs x (one group, and at most the "
                   "profile's gemm1x1_pack_strided_max_pixels output pixels an image; the implicit GEMM takes the "
                   "others); this layer has stride " +
                   std::to_string(s.stride_h) + "x" + std::to_string(s.stride_w) + ", " +
                   std::to_string(s.groups) + " group(s) and " + std::to_string(s.P() * s.Q()) + " pixels";
        }
        if (s.pad_top || s.pad_left || s.pad_bottom || s.pad_right) return std::string("the 1x1 GEMM takes no padding");
        if (s.weights_transposed && !config.pack_weights && profile.tuned_or("gemm1x1_pack_weights", 0.0) > 0.0 &&
            profile.tuned_or("gemm1x1_pack_transposed_filters", 0.0) == 0.0) {
            return std::string("the 1x1 GEMM packs its weights into panels here (gemm1x1_pack_weights); transposed "
                               "filters only where gemm1x1_pack_transposed_filters says");
        }
        // Read transposed, each reduction step's MR weights lie a row of C/groups floats (2-8 KiB) after the
        // last: a new page a step, which the prefetchers do not follow. Over few columns that costs less than
        // the rotation's pass; over more it costs more. On 2 Xeon cores (netcl-bench --net resnet50
        // --direction train, one run each, ms rotated / transposed, backward data of its 1x1 layers; a single
        // --shape run had res5.expand at 2.31 / 1.28, kernels_cl/gemm.cl): 49 columns (7x7, N = 1)
        // res5.reduce 2.10 / 1.37, res5.expand 1.87 / 1.48; 196 (14x14, N = 1) res5.reduce.first 1.44 / 2.18,
        // res4.reduce 0.73 / 0.74, res4.expand 0.77 / 0.79; 392 (7x7, N = 8) res5.reduce 5.30 / 6.11,
        // res5.expand 5.15 / 6.17. Hence 98 (two 7x7 images) by default. The rotation was then an element a
        // step, a cache miss each; through a 16 x 16 tile (kernels_cl/rotate_filters.cl, transpose_filters)
        // it is level or faster at 49 columns too; read in place with each step's rows prefetched ahead
        // (gemm1x1_prefetch_transposed_filters_steps, gemm.cl's PREFETCH_A) the filters are the faster again up
        // to 196: pocl-cpu-avx512-intel.json (item 25) has the figures. Other machines keep 98 until measured.
        const double max_columns = transposed_filters_max_columns(profile);
        if (config.reads_weights_transposed() &&
            static_cast<double>(s.output_pixels()) > max_columns) {
            return "the 1x1 GEMM reads transposed filters over at most gemm1x1_transposed_filters_max_columns " +
                   std::to_string(static_cast<std::int64_t>(max_columns)) + " columns (N x P x Q); this layer has " +
                   std::to_string(s.output_pixels());
        }
        return std::nullopt;  // dilation does not matter to a 1x1 filter
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return gemm1x1_config(s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return gemm1x1_config(s, profile).workspace_bytes(s);
    }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        const Gemm1x1Config config = gemm1x1_config(s, profile);
        std::vector<ProgramSpec> programs = {config.program()};
        if (config.pack_weights || config.pack_x) programs.push_back(internal::panels_program(s.dtype));
        if (s.dtype == DataType::FLOAT16 && !config.pack_weights) programs.push_back(internal::widen_program());
        return programs;
    }
    std::vector<std::string> do_tile_prefixes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return {gemm1x1_config(s, profile).tile.prefix};
    }
    std::vector<std::string> profile_keys() const override {
        std::vector<std::string> keys = gemm_tile_keys("gemm");
        keys.push_back("stream_output_min_bytes");
        keys.push_back("gemm1x1_tall_max_row_tiles");
        keys.push_back("gemm1x1_tall_reduction_max_row_tiles");
        keys.push_back("gemm1x1_tall_reduction_min_pixels");
        keys.push_back("gemm1x1_tall_reduction_min_ratio");
        keys.push_back("gemm1x1_pack_weights");
        keys.push_back("gemm1x1_training_weights_in_place");
        keys.push_back("gemm1x1_pack_x_max_pixels");
        keys.push_back("gemm1x1_pack_x_max_pixels_float16");
        keys.push_back("gemm1x1_pack_x_min_images");
        keys.push_back("gemm1x1_pack_strided_max_pixels");
        keys.push_back("gemm1x1_pack_strided_max_pixels_float16");
        keys.push_back("gemm1x1_pack_x_work_group_rows");
        keys.push_back("gemm1x1_fold_images_min_saving");
        keys.push_back("gemm1x1_prefetch_x_rows");
        keys.push_back("gemm1x1_transposed_filters_max_columns");
        keys.push_back("gemm1x1_pack_transposed_filters");
        keys.push_back("gemm1x1_prefetch_transposed_filters_steps");
        return keys;
    }
    // The weights' panels, or a float16 layer's weights widened to float32.
    std::size_t do_persistent_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return gemm1x1_config(s, profile).weight_floats(s) * sizeof(float);
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        return std::make_unique<Gemm1x1Conv>(std::move(context), shapes, gemm1x1_config(shapes, profile));
    }
};

}  // namespace

const ConvImplementation& gemm1x1_implementation() {
    static const Gemm1x1Implementation instance;
    return instance;
}

}  // namespace netcl
