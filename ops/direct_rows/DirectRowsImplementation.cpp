// CONV2D_NAIVE's direct-rows descriptor: a direct convolution vectorised
// along output rows, for few input channels and wide outputs (the selector's
// direct-rows rule sends ResNet's stem here on profiles that enable it). Its
// workspace is the input of one pass, padded and split into column phases.
#include "ops/ConvImplementation.hpp"
#include "ops/direct_rows/DirectRowsConfig.hpp"
#include "ops/direct_rows/DirectRowsConv.hpp"

namespace netcl {

namespace {

class DirectRowsImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "direct-rows"; }
    Kernel kernel() const override { return Kernel::CONV2D_NAIVE; }
    // Backward data through its forward kernels, a stride phase at a time (ops/as_forward/).
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds = ProblemKinds::forward_and_backward_data_as_forward_2d_float32();
        kinds.types = {DataType::FLOAT32, DataType::FLOAT16};
        return kinds;
    }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("direct-rows")};
        return list;
    }
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        if (s.groups != 1) return "direct-rows takes groups = 1; this layer has " + std::to_string(s.groups);
        if (s.dilation_h != 1 || s.dilation_w != 1) {
            return "direct-rows takes dilation 1; this layer has dilation " + std::to_string(s.dilation_h) + "x" +
                   std::to_string(s.dilation_w);
        }
        if (s.R > 11 || s.S > 11) return std::string("direct-rows unrolls its taps: filters up to 11x11");
        const DirectRowsConfig c = direct_rows_config(s, profile);
        if (c.split_bytes_per_image > direct_rows_workspace_limit(profile)) {
            return "direct-rows needs a workspace of " + std::to_string(c.split_bytes_per_image) +
                   " bytes for one image; the limit is " + std::to_string(direct_rows_workspace_limit(profile)) +
                   " bytes";
        }
        return std::nullopt;
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return direct_rows_config(s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return direct_rows_config(s, profile).workspace_bytes();
    }
    std::size_t do_persistent_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return direct_rows_config(s, profile).packed_floats(s) * sizeof(float);
    }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return {direct_rows_config(s, profile).program()};
    }
    std::vector<std::string> do_tile_prefixes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return {direct_rows_config(s, profile).tile.prefix};
    }
    std::vector<std::string> profile_keys() const override {
        std::vector<std::string> keys;
        for (const char* prefix : {"direct_rows", "direct_rows_unstrided", "direct_rows_float16",
                                   "direct_rows_unstrided_float16"}) {
            for (auto& key : gemm_tile_keys(prefix)) keys.push_back(key);
        }
        keys.push_back("direct_rows_workspace_limit_bytes");
        keys.push_back("stream_output_min_bytes");
        return keys;
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        return std::make_unique<DirectRowsConv>(std::move(context), shapes, direct_rows_config(shapes, profile));
    }
};

}  // namespace

const ConvImplementation& direct_rows_implementation() {
    static const DirectRowsImplementation instance;
    return instance;
}

}  // namespace netcl
