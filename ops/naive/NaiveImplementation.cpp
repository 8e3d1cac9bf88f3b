// CONV2D_NAIVE's descriptor: one variant, takes every valid float32
// convolution, 2-D and 3-D, in every direction.
#include "ops/ConvImplementation.hpp"
#include "ops/naive/NaiveConfig.hpp"
#include "ops/naive/NaiveConv.hpp"

namespace netcl {

namespace {

class NaiveImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "naive"; }
    Kernel kernel() const override { return Kernel::CONV2D_NAIVE; }
    ProblemKinds problem_kinds() const override {
        return {all_conv_directions(), {2, 3}, {DataType::FLOAT32, DataType::FLOAT16}};
    }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("naive")};
        return list;
    }
    std::optional<std::string> do_why_not(const Variant&, const ConvShapes&, const DeviceProfile&) const override {
        return std::nullopt;  // every stride, padding, dilation, group count and bias
    }
    std::string do_config(const Variant&, const ConvShapes& s, const DeviceProfile&) const override {
        return naive_config(s).str();
    }
    std::size_t do_workspace_bytes(const Variant&, const ConvShapes&, const DeviceProfile&) const override { return 0; }
    std::vector<ProgramSpec> do_programs(const Variant&, const ConvShapes& s, const DeviceProfile&) const override {
        return {naive_config(s).program()};
    }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& shapes,
                                         const DeviceProfile&) const override {
        return std::make_unique<NaiveConv>(std::move(context), shapes);
    }
};

}  // namespace

const ConvImplementation& naive_implementation() {
    static const NaiveImplementation instance;
    return instance;
}

}  // namespace netcl
