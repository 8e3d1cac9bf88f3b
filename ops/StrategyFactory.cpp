#include "ops/StrategyFactory.hpp"

#include "ops/StrategyLimits.hpp"
#include "ops/im2col/Im2colConv.hpp"
#include "ops/naive/NaiveConv.hpp"
#include "ops/winograd/WinogradConv.hpp"
#include "runtime/Error.hpp"

namespace netcl {

std::unique_ptr<ConvStrategy> make_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                            const ConvShapes& shapes) {
    NETCL_REQUIRE(context != nullptr, "make_strategy needs a Context; got a null one");
    const DeviceProfile profile = context->profile();
    return make_strategy(std::move(context), plan, shapes, profile);
}

std::unique_ptr<ConvStrategy> make_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                            const ConvShapes& shapes, const DeviceProfile& profile) {
    NETCL_REQUIRE(context != nullptr, "make_strategy needs a Context; got a null one");
    shapes.validate();
    if (const auto reason = why_not(plan.kernel, plan.variant, shapes, profile)) {
        std::string name = to_string(plan.kernel);
        if (plan.kernel == Kernel::CONV2D_WINOGRAD) name += " " + plan.variant.str();
        throw Error(name + " cannot run " + shapes.str() + ": " + *reason);
    }
    switch (plan.kernel) {
        case Kernel::CONV2D_NAIVE: return std::make_unique<NaiveConv>(std::move(context), shapes);
        case Kernel::IM2COL:
            return std::make_unique<Im2colConv>(std::move(context), shapes, im2col_workspace_limit(profile));
        case Kernel::CONV2D_WINOGRAD: return make_winograd_strategy(std::move(context), plan.variant, shapes);
    }
    throw Error("make_strategy: unknown strategy value " + std::to_string(static_cast<int>(plan.kernel)));
}

}  // namespace netcl
