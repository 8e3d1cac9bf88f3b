#include "ops/Conv2d.hpp"

#include "ops/FirstVariant.hpp"
#include "ops/StrategyFactory.hpp"
#include "ops/StrategyLimits.hpp"
#include "runtime/Error.hpp"
#include "selector/KernelSelector.hpp"

namespace netcl {

struct Conv2d::Prepared {
    ConvShapes shapes;
    Plan plan;
    std::unique_ptr<ConvStrategy> strategy;
    std::uint64_t weights_version = 0;  // the weights the strategy holds
};

namespace {

void require_at_least(std::int64_t value, std::int64_t minimum, const std::string& what) {
    if (value < minimum) {
        throw Error("Conv2d: " + what + " = " + std::to_string(value) + "; expected >= " + std::to_string(minimum));
    }
}

std::string strategy_name(Kernel kernel, const Variant& variant) {
    return kernel == Kernel::CONV2D_WINOGRAD ? to_string(kernel) + " " + variant.str() : to_string(kernel);
}

}  // namespace

Conv2dOptions Conv2dOptions::for_shapes(const ConvShapes& s) {
    Conv2dOptions o;
    o.in_channels = s.C;
    o.out_channels = s.K;
    o.kernel = {s.R, s.S};
    o.stride = {s.stride_h, s.stride_w};
    o.padding = {s.pad_h, s.pad_w};
    o.dilation = {s.dilation_h, s.dilation_w};
    o.groups = s.groups;
    o.bias = s.bias;
    return o;
}

Conv2d::Conv2d(std::shared_ptr<Context> context, Conv2dOptions options)
    : context_(std::move(context)), options_(std::move(options)) {
    NETCL_REQUIRE(context_ != nullptr, "Conv2d needs a Context; got a null one");
    const auto& o = options_;
    require_at_least(o.in_channels, 1, "in_channels");
    require_at_least(o.out_channels, 1, "out_channels");
    require_at_least(o.kernel[0], 1, "kernel height");
    require_at_least(o.kernel[1], 1, "kernel width");
    require_at_least(o.stride[0], 1, "stride (height)");
    require_at_least(o.stride[1], 1, "stride (width)");
    require_at_least(o.padding[0], 0, "padding (height)");
    require_at_least(o.padding[1], 0, "padding (width)");
    require_at_least(o.dilation[0], 1, "dilation (height)");
    require_at_least(o.dilation[1], 1, "dilation (width)");
    require_at_least(o.groups, 1, "groups");
    if (o.in_channels % o.groups != 0 || o.out_channels % o.groups != 0) {
        throw Error("Conv2d: groups = " + std::to_string(o.groups) + " must divide in_channels = " +
                    std::to_string(o.in_channels) + " and out_channels = " + std::to_string(o.out_channels));
    }
    if (o.variant && !o.strategy) {
        throw Error("Conv2d: a variant (" + o.variant->str() + ") was given without a strategy; expected both or neither");
    }
}

Conv2d::~Conv2d() = default;

ConvShapes Conv2d::shapes_for(const Tensor::Shape& in) const {
    if (in.size() != 4) {
        throw Error("Conv2d: input has rank " + std::to_string(in.size()) + " (" + shape_string(in) +
                    "); expected rank 4, N x C x H x W");
    }
    if (in[1] != options_.in_channels) {
        throw Error("Conv2d: input " + shape_string(in) + " has " + std::to_string(in[1]) +
                    " channels; this layer expects in_channels = " + std::to_string(options_.in_channels));
    }
    ConvShapes s;
    s.N = in[0];
    s.C = in[1];
    s.H = in[2];
    s.W = in[3];
    s.K = options_.out_channels;
    s.R = options_.kernel[0];
    s.S = options_.kernel[1];
    s.stride_h = options_.stride[0];
    s.stride_w = options_.stride[1];
    s.pad_h = options_.padding[0];
    s.pad_w = options_.padding[1];
    s.dilation_h = options_.dilation[0];
    s.dilation_w = options_.dilation[1];
    s.groups = options_.groups;
    s.bias = options_.bias;
    s.validate();  // the kernel must fit the padded input, etc.
    return s;
}

void Conv2d::set_weights(const std::vector<float>& weights, const std::vector<float>& bias) {
    const auto& o = options_;
    const std::size_t expected = checked_numel({o.out_channels, o.in_channels / o.groups, o.kernel[0], o.kernel[1]});
    if (weights.size() != expected) {
        throw Error("Conv2d::set_weights: weights hold " + std::to_string(weights.size()) +
                    " floats; expected out_channels x in_channels/groups x R x S = " + std::to_string(o.out_channels) +
                    " x " + std::to_string(o.in_channels / o.groups) + " x " + std::to_string(o.kernel[0]) + " x " +
                    std::to_string(o.kernel[1]) + " = " + std::to_string(expected));
    }
    if (o.bias && bias.size() != static_cast<std::size_t>(o.out_channels)) {
        throw Error("Conv2d::set_weights: bias holds " + std::to_string(bias.size()) +
                    " floats; expected out_channels = " + std::to_string(o.out_channels));
    }
    if (!o.bias && !bias.empty()) {
        throw Error("Conv2d::set_weights: got " + std::to_string(bias.size()) +
                    " bias values for a layer made with bias = false; expected none");
    }
    weights_ = Tensor::from_host(context_, weights,
                                 {o.out_channels, o.in_channels / o.groups, o.kernel[0], o.kernel[1]});
    bias_ = o.bias ? Tensor::from_host(context_, bias, {o.out_channels}) : Tensor{};
    ++weights_version_;
}

DeviceProfile Conv2d::planning_profile() const {
    DeviceProfile profile = context_->profile();
    if (options_.workspace_limit_bytes) {
        profile.tuned["im2col_workspace_limit_bytes"] = static_cast<double>(*options_.workspace_limit_bytes);
    }
    return profile;
}

Plan Conv2d::make_plan(const ConvShapes& shapes, const DeviceProfile& profile) const {
    if (!options_.strategy) {
        KernelSelector& selector = options_.selector ? *options_.selector : KernelSelector::global();
        return selector.select("conv2d", shapes, profile);
    }
    // Strict override: exactly this strategy, or an error saying why not.
    const Kernel kernel = *options_.strategy;
    Variant variant;
    if (options_.variant) {
        variant = *options_.variant;
    } else {
        std::string reason;
        const auto first = first_runnable_variant(kernel, shapes, profile, &reason);
        if (!first) {
            throw Error("Conv2d strict override: " + to_string(kernel) + " cannot run " + shapes.str() + ": " + reason);
        }
        variant = *first;
    }
    if (const auto reason = why_not(kernel, variant, shapes, profile)) {
        throw Error("Conv2d strict override: " + strategy_name(kernel, variant) + " cannot run " + shapes.str() + ": " +
                    *reason);
    }
    return Plan{kernel, variant, "strict override"};
}

Conv2d::Prepared& Conv2d::prepare(const ConvShapes& shapes) {
    const std::string key = shapes.str() + (shapes.bias ? " bias" : "");
    auto it = prepared_.find(key);
    if (it == prepared_.end()) {
        const DeviceProfile profile = planning_profile();
        auto prepared = std::make_unique<Prepared>();
        prepared->shapes = shapes;
        prepared->plan = make_plan(shapes, profile);
        prepared->strategy = make_strategy(context_, prepared->plan, shapes, profile);
        it = prepared_.emplace(key, std::move(prepared)).first;
    }
    Prepared& prepared = *it->second;
    if (prepared.weights_version != weights_version_) {
        prepared.strategy->set_weights(weights_, options_.bias ? &bias_ : nullptr);
        prepared.weights_version = weights_version_;
    }
    return prepared;
}

Tensor Conv2d::forward(const Tensor& x) {
    NETCL_REQUIRE(x.defined(), "Conv2d::forward: the input tensor is undefined; expected an N x C x H x W tensor");
    const ConvShapes shapes = shapes_for(x.shape());
    Tensor y = Tensor::empty(context_, {shapes.N, shapes.K, shapes.P(), shapes.Q()});
    forward(x, y);
    return y;
}

void Conv2d::forward(const Tensor& x, Tensor& y) {
    NETCL_REQUIRE(x.defined(), "Conv2d::forward: the input tensor is undefined; expected an N x C x H x W tensor");
    if (weights_version_ == 0) {
        throw Error("Conv2d::forward called before set_weights; expected set_weights(weights[, bias]) first");
    }
    if (x.context() != context_) {
        throw Error("Conv2d::forward: the input tensor lives on another Context; expected this layer's Context");
    }
    const ConvShapes shapes = shapes_for(x.shape());
    const Tensor::Shape out{shapes.N, shapes.K, shapes.P(), shapes.Q()};
    if (!y.defined() || y.shape() != out) {
        throw Error("Conv2d::forward: output tensor is " + (y.defined() ? shape_string(y.shape()) : "undefined") +
                    "; expected " + shape_string(out) + " for input " + shape_string(x.shape()));
    }
    if (y.buffer()() == x.buffer()()) {
        throw Error("Conv2d::forward: the output tensor shares the input's buffer; expected a separate output tensor");
    }
    if (y.context() != context_) {
        throw Error("Conv2d::forward: the output tensor lives on another Context; expected this layer's Context");
    }
    Prepared& prepared = prepare(shapes);
    last_ = &prepared;
    last_events_.clear();
    prepared.strategy->enqueue(x, y, last_events_);
}

const Plan& Conv2d::last_plan() const {
    if (last_ == nullptr) throw Error("Conv2d::last_plan() before any forward; expected a forward first");
    return last_->plan;
}

std::size_t Conv2d::last_workspace_bytes() const { return last_ ? last_->strategy->workspace_bytes() : 0; }

}  // namespace netcl
