#include "netcl/ConvLayer.hpp"

#include <tuple>

#include <algorithm>
#include <cmath>
#include <limits>

#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/Implementations.hpp"
#include "ops/internal/EventChain.hpp"
#include "runtime/Log.hpp"

namespace netcl {

struct ConvLayer::Prepared {
    ConvShapes shapes;
    Plan plan;
    std::unique_ptr<ConvStrategy> strategy;
    std::size_t workspace_bytes = 0;    // declared by the implementation for this shape
    Tensor own_workspace;               // allocated at the first forward given no workspace
    std::uint64_t weights_version = 0;  // the weights the strategy holds
    std::uint64_t generation = 0;       // selection_generation() when planned
    cl::Event last;                     // this shape's last command: the next forward's U and workspace wait for it
    cl::Event weights_done;             // the strategy's last weight-preparation command (none: it keeps no copy)
};

namespace {

void require_at_least(const std::string& layer, std::int64_t value, std::int64_t minimum, const std::string& what) {
    if (value < minimum) {
        throw Error(layer + ": " + what + " = " + std::to_string(value) + "; expected >= " + std::to_string(minimum));
    }
}

// ONNX's SAME_UPPER / SAME_LOWER along one axis: P = ceil(H / stride).
std::pair<std::int64_t, std::int64_t> same_padding(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                                   std::int64_t dilation, bool upper) {
    const std::int64_t out = (in + stride - 1) / stride;
    const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - in);
    const std::int64_t small = total / 2, large = total - small;
    return upper ? std::pair{small, large} : std::pair{large, small};
}

}  // namespace

ConvLayer::ConvLayer(std::shared_ptr<Context> context, ConvLayerOptions options)
    : context_(std::move(context)), options_(std::move(options)) {
    const auto& o = options_;
    const std::string& name = o.name;
    NETCL_REQUIRE(context_ != nullptr, name + " needs a Context; got a null one");
    NETCL_REQUIRE(o.spatial_rank == 2 || o.spatial_rank == 3,
                  name + ": spatial rank " + std::to_string(o.spatial_rank) + "; expected 2 or 3");
    const bool deep = o.spatial_rank == 3;
    auto at_least = [&](std::int64_t value, std::int64_t minimum, const std::string& what) {
        require_at_least(name, value, minimum, what);
    };
    at_least(o.in_channels, 1, "in_channels");
    at_least(o.out_channels, 1, "out_channels");
    NETCL_REQUIRE(!o.max_error_factor || (std::isfinite(*o.max_error_factor) && *o.max_error_factor >= 1),
                  name + ": max_error_factor must be a finite number >= 1 (1: direct sums only); got " +
                      (o.max_error_factor ? std::to_string(*o.max_error_factor) : std::string()));
    if (deep) at_least(o.kernel[0], 1, "kernel depth");
    at_least(o.kernel[1], 1, "kernel height");
    at_least(o.kernel[2], 1, "kernel width");
    if (deep) at_least(o.stride[0], 1, "stride (depth)");
    at_least(o.stride[1], 1, "stride (height)");
    at_least(o.stride[2], 1, "stride (width)");
    if (deep) {
        at_least(o.pad_front, 0, "padding (front)");
        at_least(o.pad_back, 0, "padding (back)");
    }
    at_least(o.padding.top, 0, "padding (top)");
    at_least(o.padding.left, 0, "padding (left)");
    at_least(o.padding.bottom, 0, "padding (bottom)");
    at_least(o.padding.right, 0, "padding (right)");
    if (deep) at_least(o.dilation[0], 1, "dilation (depth)");
    at_least(o.dilation[1], 1, "dilation (height)");
    at_least(o.dilation[2], 1, "dilation (width)");
    at_least(o.groups, 1, "groups");
    if (!deep && (o.kernel[0] != 1 || o.stride[0] != 1 || o.dilation[0] != 1 || o.pad_front != 0 || o.pad_back != 0)) {
        throw Error(name + ": a 2-D layer with depth parameters; expected kernel, stride and dilation depth 1 and no depth padding");
    }
    if (o.in_channels % o.groups != 0 || o.out_channels % o.groups != 0) {
        throw Error(name + ": groups = " + std::to_string(o.groups) + " must divide in_channels = " +
                    std::to_string(o.in_channels) + " and out_channels = " + std::to_string(o.out_channels));
    }
    try {
        o.post_ops.validate();
    } catch (const Error& e) {
        throw Error(name + ": " + e.what());
    }
    if (o.auto_pad != AutoPad::NOTSET && (o.padding != Padding{} || o.pad_front != 0 || o.pad_back != 0)) {
        throw Error(name + ": both explicit padding and auto_pad were given; expected one of them (ONNX allows only one)");
    }
    if (o.variant && !o.strategy) {
        throw Error(name + ": a variant (" + o.variant->id + ") was given without a strategy; expected both or neither");
    }
    if (o.variant) {
        const ConvImplementation& impl = implementation_of(*o.variant);  // throws for an unknown id, listing the known
        if (impl.kernel() != *o.strategy) {
            throw Error(name + ": variant " + o.variant->id + " runs under " + to_string(impl.kernel()) +
                        ", not the strategy " + to_string(*o.strategy) + " given with it");
        }
    }
}

ConvLayer::~ConvLayer() = default;

ConvShapes ConvLayer::shapes_for(const Tensor::Shape& in, ConvDirection direction) const {
    const auto& o = options_;
    const bool deep = o.spatial_rank == 3;
    const std::size_t rank = deep ? 5 : 4;
    if (in.size() != rank) {
        throw Error(o.name + ": input has rank " + std::to_string(in.size()) + " (" + shape_string(in) +
                    "); expected rank " + std::to_string(rank) + (deep ? ", N x C x D x H x W" : ", N x C x H x W"));
    }
    if (in[1] != o.in_channels) {
        throw Error(o.name + ": input " + shape_string(in) + " has " + std::to_string(in[1]) +
                    " channels; this layer expects in_channels = " + std::to_string(o.in_channels));
    }
    ConvShapes s;
    s.spatial_rank = o.spatial_rank;
    s.N = in[0];
    s.C = in[1];
    if (deep) {
        s.D = in[2];
        s.T = o.kernel[0];
        s.stride_d = o.stride[0];
        s.dilation_d = o.dilation[0];
    }
    s.H = in[rank - 2];
    s.W = in[rank - 1];
    s.K = o.out_channels;
    s.R = o.kernel[1];
    s.S = o.kernel[2];
    s.stride_h = o.stride[1];
    s.stride_w = o.stride[2];
    s.dilation_h = o.dilation[1];
    s.dilation_w = o.dilation[2];
    s.groups = o.groups;
    s.bias = o.bias;
    s.dtype = o.dtype;
    s.direction = direction;
    if (direction == ConvDirection::FORWARD) s.post_ops = o.post_ops, s.training = training_;
    switch (o.auto_pad) {
        case AutoPad::NOTSET:
            s.set_padding(o.padding.top, o.padding.left, o.padding.bottom, o.padding.right);
            s.pad_front = o.pad_front;
            s.pad_back = o.pad_back;
            break;
        case AutoPad::VALID: s.set_padding(0); break;
        case AutoPad::SAME_UPPER:
        case AutoPad::SAME_LOWER: {
            const bool upper = o.auto_pad == AutoPad::SAME_UPPER;
            const auto [top, bottom] = same_padding(s.H, s.R, s.stride_h, s.dilation_h, upper);
            const auto [left, right] = same_padding(s.W, s.S, s.stride_w, s.dilation_w, upper);
            s.set_padding(top, left, bottom, right);
            if (deep) std::tie(s.pad_front, s.pad_back) = same_padding(s.D, s.T, s.stride_d, s.dilation_d, upper);
            break;
        }
    }
    s.validate();  // the kernel must fit the padded input, etc.
    return s;
}

Tensor::Shape ConvLayer::weight_shape() const {
    const auto& o = options_;
    if (o.spatial_rank == 3) return {o.out_channels, o.in_channels / o.groups, o.kernel[0], o.kernel[1], o.kernel[2]};
    return {o.out_channels, o.in_channels / o.groups, o.kernel[1], o.kernel[2]};
}

std::string ConvLayer::weight_shape_text() const {
    return options_.spatial_rank == 3 ? "out_channels x in_channels/groups x T x R x S"
                                      : "out_channels x in_channels/groups x R x S";
}

void ConvLayer::set_weights(const std::vector<float>& weights, const std::vector<float>& bias) {
    const auto& o = options_;
    const Tensor::Shape shape = weight_shape();
    const std::size_t expected = checked_numel(shape);
    if (weights.size() != expected) {
        throw Error(o.name + "::set_weights: weights hold " + std::to_string(weights.size()) + " floats; expected " +
                    weight_shape_text() + " = " + shape_string(shape) + " = " + std::to_string(expected));
    }
    if (o.bias && bias.size() != static_cast<std::size_t>(o.out_channels)) {
        throw Error(o.name + "::set_weights: bias holds " + std::to_string(bias.size()) +
                    " floats; expected out_channels = " + std::to_string(o.out_channels));
    }
    if (!o.bias && !bias.empty()) {
        throw Error(o.name + "::set_weights: got " + std::to_string(bias.size()) +
                    " bias values for a layer made with bias = false; expected none");
    }
    // Fresh buffers, never overwritten: a forward still running on the old
    // weights (out-of-order queue) keeps reading them.
    // Both copied before either replaces the layer's: a failure leaves the
    // layer with its previous weights and bias, a matched pair.
    Tensor new_weights;
    Tensor new_bias;
    try {
        new_weights = Tensor::from_host(context_, weights, shape, o.dtype);
        new_bias = o.bias ? Tensor::from_host(context_, bias, {o.out_channels}, o.dtype) : Tensor{};
    } catch (const Error& e) {
        throw Error(o.name + "::set_weights (" + describe() + "; the layer keeps its previous weights)", e);
    }
    weights_ = std::move(new_weights);
    bias_ = std::move(new_bias);
    weights_borrowed_ = false;
    weights_ready_.clear();
    ++weights_version_;
}

void ConvLayer::check_device_weights(const std::string& op, const Tensor& weights, const Tensor* bias) const {
    const auto& o = options_;
    const Tensor::Shape shape = weight_shape();
    const std::size_t expected = checked_numel(shape);
    NETCL_REQUIRE(weights.defined(), op + ": the weight tensor is undefined");
    if (weights.numel() != expected) {
        throw Error(op + ": the weight tensor holds " + std::to_string(weights.numel()) +
                    " floats; expected " + weight_shape_text() + " = " + std::to_string(expected));
    }
    if (o.bias && (bias == nullptr || !bias->defined() || bias->numel() != static_cast<std::size_t>(o.out_channels))) {
        throw Error(op + ": the layer has a bias; expected a bias tensor of out_channels = " +
                    std::to_string(o.out_channels) + " floats");
    }
    if (!o.bias && bias != nullptr && bias->defined()) {
        throw Error(op + ": got a bias tensor for a layer made with bias = false; expected none");
    }
    for (const Tensor* t : {&weights, bias}) {
        if (t != nullptr && t->defined() && t->context() != context_) {
            throw Error(op + ": a tensor lives on another Context; expected this layer's Context");
        }
        if (t != nullptr && t->defined() && t->dtype() != o.dtype) {
            throw Error(op + ": a " + to_string(t->dtype()) + " tensor for a " + to_string(o.dtype) +
                        " layer; expected weights and bias in the layer's dtype");
        }
    }
}

cl::Event ConvLayer::set_weights(const Tensor& weights, const Tensor* bias, const std::vector<cl::Event>& wait) {
    const auto& o = options_;
    const Tensor::Shape shape = weight_shape();
    check_device_weights(o.name + "::set_weights", weights, bias);
    std::vector<cl::Event> ready;
    // Each copy after `wait` and the copies before it, so that the last one's event (returned) says both
    // are done, on an out-of-order queue too.
    std::vector<cl::Event> after = wait;
    const auto copy = [&](const Tensor& from, Tensor::Shape to_shape, const Tensor& into) {
        Tensor to = into.defined() ? into : Tensor::empty(context_, std::move(to_shape), o.dtype);
        cl::Event event;
        NETCL_CL_CHECK(context_->queue().enqueueCopyBuffer(from.buffer(), to.buffer(), from.offset_bytes(), 0,
                                                           from.bytes(), after.empty() ? nullptr : &after, &event),
                       "copying device weights");
        ready.push_back(event);
        after.push_back(event);
        return to;
    };
    // On an in-order queue the copy runs after every command enqueued before it, a forward still
    // reading the old weights included, so it overwrites the layer's own copy in place: a training
    // step sets the weights every step, and a fresh buffer's first touch cost more than the copy
    // (ResNet-50's res5.projection, 8 MiB: 5.3 ms against ~0.5 for 4 MiB into a warm one, 2 Xeon
    // cores, PoCL 3.1). Out of order, a fresh buffer, never overwritten. The bias goes first (a fresh
    // buffer), the weights last: a failed enqueue of either leaves the previous pair. Never into
    // borrowed weights: those are the caller's.
    const bool in_place = !context_->out_of_order() && weights_.defined() && !weights_borrowed_;
    Tensor new_weights;
    Tensor new_bias;
    try {
        new_bias = o.bias ? copy(*bias, {o.out_channels}, Tensor{}) : Tensor{};
        new_weights = copy(weights, shape, in_place ? weights_ : Tensor{});
    } catch (const Error& e) {
        throw Error(o.name + "::set_weights (" + describe() + "; the layer keeps its previous weights)", e);
    }
    weights_ = std::move(new_weights);
    bias_ = std::move(new_bias);
    weights_borrowed_ = false;
    weights_ready_ = std::move(ready);
    ++weights_version_;
    return weights_ready_.back();
}

void ConvLayer::borrow_weights(const Tensor& weights, const Tensor* bias, const std::vector<cl::Event>& wait) {
    const auto& o = options_;
    check_device_weights(o.name + "::borrow_weights", weights, bias);
    // The caller's views themselves: each prepared plan rebuilds what it derives from them at its next
    // run (the version below), reading them after `wait`.
    weights_ = weights;
    bias_ = o.bias ? *bias : Tensor{};
    weights_borrowed_ = true;
    weights_ready_ = wait;
    ++weights_version_;
}

DeviceProfile ConvLayer::planning_profile(const std::string& shape_key) const {
    KernelSelector& selector = options_.selector ? *options_.selector : KernelSelector::global();
    // One resolved profile (device facts, stored tuned values, this op's
    // limit) for both the plan and the strategy built from it.
    DeviceProfile profile = selector.resolve_profile(context_->profile());
    if (options_.workspace_limit_bytes) {
        for (const ConvImplementation* impl : conv_implementations()) {
            profile.tuned[impl->workspace_limit_key()] = static_cast<double>(*options_.workspace_limit_bytes);
        }
    }
    // The accuracy bound, read by the selector (selector/Thresholds.hpp, max_error_factor).
    if (options_.max_error_factor) profile.tuned["max_error_factor"] = *options_.max_error_factor;
    // Implementations that could not allocate what this shape needs are off for it.
    if (const auto it = out_of_memory_.find(shape_key); it != out_of_memory_.end()) {
        for (const auto& key : it->second) profile.tuned[key] = 0;
    }
    return profile;
}

Plan ConvLayer::make_plan(const ConvShapes& shapes, const DeviceProfile& profile) const {
    KernelSelector& selector = options_.selector ? *options_.selector : KernelSelector::global();
    const std::string op = selector_op(shapes);  // one op per direction: its own rules, records and reasons
    if (!options_.strategy) return selector.select(op, shapes, profile);
    return selector.select_strategy(op, *options_.strategy, options_.variant, shapes, profile);
}

ConvLayer::Prepared& ConvLayer::prepare(const ConvShapes& shapes, Variant* planned) {
    const std::string key = shape_key(shapes);
    const std::uint64_t generation = selection_generation();
    auto it = prepared_.find(key);
    if (it != prepared_.end() && it->second->generation == generation) return *it->second;

    // A shape not seen yet, or one planned before a rule or the default
    // strategy changed: ask the selector (again).
    const DeviceProfile profile = planning_profile(key);
    Plan plan = make_plan(shapes, profile);
    if (planned != nullptr) *planned = plan.variant;
    if (const auto fell = out_of_memory_reasons_.find(key); fell != out_of_memory_reasons_.end()) {
        plan.reason += " (fallback: " + fell->second + ")";
    }
    if (it != prepared_.end()) {
        Prepared& kept = *it->second;
        if (plan.variant == kept.plan.variant && plan.config == kept.plan.config) {
            kept.generation = generation;
            kept.plan = std::move(plan);  // same program and weights: only the reason may differ
            return kept;
        }
    }
    // Built before anything kept changes: a strategy that fails to build or
    // allocate leaves the layer as it was.
    std::unique_ptr<ConvStrategy> strategy = create_strategy(context_, plan, shapes, profile);
    const std::size_t workspace = implementation_of(plan.variant).workspace_bytes(plan.variant, shapes, profile);
    if (it != prepared_.end()) {
        Prepared& kept = *it->second;
        // Another strategy now: built afresh below, in the same slot (last_
        // may point at it). The old one's commands still hold their buffers
        // (OpenCL keeps them until those commands finish); the next forward
        // orders itself after them through `last`.
        cl::Event last = kept.last;
        kept = Prepared{};
        kept.last = last;
    } else {
        it = prepared_.emplace(key, std::make_unique<Prepared>()).first;
    }
    Prepared& prepared = *it->second;
    prepared.shapes = shapes;
    prepared.plan = std::move(plan);
    prepared.strategy = std::move(strategy);
    prepared.workspace_bytes = workspace;
    prepared.generation = generation;
    return prepared;
}

ConvLayer::Prepared& ConvLayer::ready(const ConvShapes& shapes, bool own_workspace) {
    // An implementation that cannot allocate what it needs (the driver's
    // CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_RESOURCES, or netcl's
    // memory limit) is turned off for this shape and the selector asked again,
    // which takes the next candidate that fits; naive needs nothing beyond the
    // weights. A strict strategy never falls back: its caller gets the error.
    const std::string key = shape_key(shapes);
    for (;;) {
        Variant attempted;  // what prepare() planned, once it has
        try {
            Prepared& prepared = prepare(shapes, &attempted);
            if (own_workspace && prepared.workspace_bytes > 0 && !prepared.own_workspace.defined()) {
                const auto floats = static_cast<std::int64_t>((prepared.workspace_bytes + sizeof(float) - 1) / sizeof(float));
                prepared.own_workspace = Tensor::empty(context_, {floats});
            }
            return prepared;
        } catch (const Error& e) {
            const bool out_of_memory = e.cl_status() == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                       e.cl_status() == CL_OUT_OF_RESOURCES || e.cl_status() == CL_OUT_OF_HOST_MEMORY;
            if (attempted.id.empty()) throw;  // no plan at all: the selector's own error
            const std::string context = options_.name + " (" + describe(shapes, attempted.id) + ")";
            if (!out_of_memory || options_.strategy) throw Error(context, e);
            const ConvImplementation& impl = implementation_of(attempted);
            auto& off = out_of_memory_[key];
            if (std::find(off.begin(), off.end(), impl.enabled_key()) != off.end()) throw Error(context, e);
            off.push_back(impl.enabled_key());
            out_of_memory_reasons_[key] = attempted.id + " could not allocate: " + e.what();
            log().warn("{} {}: {} could not allocate ({}); planning again without {}", options_.name, shapes.str(), attempted.id,
                       e.what(), impl.name());
            // A kept plan of this implementation (its workspace failed) is planned again.
            if (const auto it = prepared_.find(key); it != prepared_.end() && it->second->plan.variant == attempted) {
                it->second->generation = std::numeric_limits<std::uint64_t>::max();  // never current: planned again
            }
        }
    }
}

const Plan& ConvLayer::plan_for(const Tensor::Shape& input_shape, ConvDirection direction) {
    return ready(shapes_for(input_shape, direction), false).plan;
}

std::size_t ConvLayer::workspace_bytes(const Tensor::Shape& input_shape, ConvDirection direction) {
    return ready(shapes_for(input_shape, direction), false).workspace_bytes;
}

std::string ConvLayer::shape_key(const ConvShapes& shapes) { return shapes.str() + (shapes.bias ? " bias" : ""); }

std::string ConvLayer::describe(const ConvShapes& shapes, const std::string& variant) const {
    return "layer " + shapes.str() + (shapes.bias ? " with bias" : "") + (variant.empty() ? "" : " by " + variant);
}

std::string ConvLayer::describe() const {
    const auto& o = options_;
    const std::string kernel = (o.spatial_rank == 3 ? std::to_string(o.kernel[0]) + "x" : std::string()) +
                               std::to_string(o.kernel[1]) + "x" + std::to_string(o.kernel[2]);
    return "layer C=" + std::to_string(o.in_channels) + " K=" + std::to_string(o.out_channels) + " " + kernel +
           " groups=" + std::to_string(o.groups) + (o.bias ? " with bias" : "");
}

Tensor ConvLayer::forward(const Tensor& x) {
    NETCL_REQUIRE(x.defined(), op_name("forward") + ": the input tensor is undefined; expected an " +
                                   (options_.spatial_rank == 3 ? "N x C x D x H x W" : "N x C x H x W") + " tensor");
    const ConvShapes shapes = shapes_for(x.shape());
    Tensor y = Tensor::empty(context_, shapes.output_shape(), options_.dtype);
    forward(x, y);
    return y;
}

void ConvLayer::require_same_context(const std::string& op, const Tensor& tensor, const char* what) const {
    if (tensor.context() != context_) {
        throw Error(op + ": the " + what + " tensor lives on another Context; expected this layer's Context");
    }
}

namespace {
// Throws unless `tensor` is defined with exactly `expected` as its shape.
void require_shape(const std::string& op, const Tensor& tensor, const Tensor::Shape& expected, const char* what,
                   const std::string& because) {
    if (!tensor.defined() || tensor.shape() != expected) {
        throw Error(op + ": the " + what + " tensor is " +
                    (tensor.defined() ? shape_string(tensor.shape()) : "undefined") + "; expected " +
                    shape_string(expected) + because);
    }
}
}  // namespace

template <typename Enqueue>
cl::Event ConvLayer::run(const ConvShapes& shapes, const RunTensors& tensors, const std::vector<cl::Event>& wait,
                      const Tensor* workspace, Enqueue&& enqueue) {
    const std::string& op = tensors.op;
    // One storage type per layer (accumulation is float32 whatever it is):
    // a float16 layer takes float16 x, y, dy, dx, dw and db, and refuses a
    // float32 one rather than converting behind the caller's back.
    for (const auto* list : {&tensors.reads, &tensors.writes}) {
        for (const Tensor* t : *list) {
            if (t->dtype() != options_.dtype) {
                throw Error(op + ": a " + to_string(t->dtype()) + " tensor " + shape_string(t->shape()) +
                            " given to a " + to_string(options_.dtype) + " layer; expected every tensor in " +
                            to_string(options_.dtype) + " (the layer's dtype)");
            }
        }
    }
    // Written tensors must not share memory with anything else the run touches.
    for (std::size_t i = 0; i < tensors.writes.size(); ++i) {
        const Tensor& out = *tensors.writes[i];
        for (const Tensor* in : tensors.reads) {
            if (out.overlaps(*in)) {
                throw Error(op + ": an output tensor overlaps the input (or another input of this call) in its buffer; expected separate memory");
            }
        }
        for (std::size_t j = i + 1; j < tensors.writes.size(); ++j) {
            if (out.overlaps(*tensors.writes[j])) {
                throw Error(op + ": two output tensors overlap in their buffer; expected separate memory");
            }
        }
    }
    const bool uses_weights = shapes.direction != ConvDirection::BACKWARD_WEIGHTS;
    const bool caller_workspace = workspace != nullptr && workspace->defined();
    Prepared& prepared = ready(shapes, !caller_workspace);
    Workspace scratch;
    if (caller_workspace) {
        require_same_context(op, *workspace, "workspace");
        if (workspace->dtype() != DataType::FLOAT32) {
            throw Error(op + ": the workspace is a " + to_string(workspace->dtype()) +
                        " tensor; expected a float32 one (netcl's intermediates are float32 in every layer type)");
        }
        if (workspace->bytes() < prepared.workspace_bytes) {
            throw Error(op + ": the workspace holds " + std::to_string(workspace->bytes()) + " bytes; " +
                        prepared.plan.variant.id + " needs " + std::to_string(prepared.workspace_bytes) +
                        " (" + options_.name + "::workspace_bytes)");
        }
        for (const auto* list : {&tensors.reads, &tensors.writes}) {
            for (const Tensor* t : *list) {
                if (workspace->overlaps(*t)) {
                    throw Error(std::string(op) +
                                ": the workspace overlaps the input or the output; expected separate memory");
                }
            }
        }
        scratch = {workspace->buffer(), workspace->offset_bytes(), workspace->bytes()};
    } else if (prepared.workspace_bytes > 0) {
        scratch = {prepared.own_workspace.buffer(), 0, prepared.own_workspace.bytes()};
    }

    internal::EventChain chain(!context_->out_of_order(), wait);
    if (uses_weights) {
        for (const cl::Event& copy : weights_ready_) {
            if (const cl_int status = internal::execution_status(copy); status < 0) {
                throw Error(op + " (" + describe(shapes, prepared.plan.variant.id) + "): " +
                            (weights_borrowed_ ? "an event borrow_weights was to wait for failed ("
                                               : "the device copy of the weights given to set_weights failed (") +
                            cl_error_name(status) + "); expected set_weights or borrow_weights again");
            }
        }
        chain.also_wait_for(weights_ready_);
    }
    // The previous run of this shape may still read U or the workspace.
    // One that failed on the device (a caller's event in its wait list failed,
    // or the device did) is over: waiting for it would fail this one too.
    if (prepared.last() && internal::execution_status(prepared.last) >= 0) chain.also_wait_for({prepared.last});
    // A weight transform that failed on the device (it waited for a caller's
    // event that failed) left U unwritten: it is done again.
    if (prepared.weights_done() && internal::execution_status(prepared.weights_done) < 0) prepared.weights_version = 0;
    try {
        if (uses_weights && prepared.weights_version != weights_version_) {
            const std::size_t before = chain.events().size();
            prepared.strategy->set_weights(weights_, options_.bias ? &bias_ : nullptr, chain);
            prepared.weights_version = weights_version_;
            prepared.weights_done = chain.events().size() > before ? chain.events().back() : cl::Event();
        }
        enqueue(*prepared.strategy, scratch, chain);
    } catch (const Error& e) {
        // What was enqueued before the failure may still run: the next
        // run of this shape waits for it before reusing U or the workspace.
        if (!chain.events().empty()) prepared.last = chain.events().back();
        throw Error(op + " (" + describe(shapes, prepared.plan.variant.id) +
                        "; the output is undefined, the inputs and weights are untouched)",
                    e);
    }
    NETCL_REQUIRE(!chain.events().empty(), op + ": the strategy enqueued nothing");
    last_ = &prepared;
    last_events_ = chain.events();
    last_events_cover_the_run_ = !chain.starts_inside_a_library();
    prepared.last = last_events_.back();
    return prepared.last;
}

ConvShapes ConvLayer::forward_shapes(const Tensor& x, const Tensor& y) const {
    const std::string op = op_name("forward");
    NETCL_REQUIRE(x.defined(), op + ": the input tensor is undefined; expected an " +
                                   (options_.spatial_rank == 3 ? "N x C x D x H x W" : "N x C x H x W") + " tensor");
    if (weights_version_ == 0) {
        throw Error(op + " called before set_weights; expected set_weights(weights[, bias]) first");
    }
    require_same_context(op, x, "input");
    const ConvShapes shapes = shapes_for(x.shape());
    require_shape(op, y, shapes.output_shape(), "output",
                  " for input " + shape_string(x.shape()));
    require_same_context(op, y, "output");
    return shapes;
}

cl::Event ConvLayer::forward(const Tensor& x, Tensor& y, const std::vector<cl::Event>& wait, const Tensor* workspace) {
    const std::string op = op_name("forward");
    const ConvShapes shapes = forward_shapes(x, y);
    return run(shapes, {op, {&x}, {&y}}, wait, workspace,
               [&](ConvStrategy& strategy, const Workspace& scratch, internal::EventChain& chain) {
                   strategy.enqueue(x, y, scratch, chain);
               });
}

cl::Event ConvLayer::forward(const Tensor& x, const Tensor& residual, Tensor& y, const std::vector<cl::Event>& wait,
                          const Tensor* workspace) {
    const std::string op = op_name("forward");
    if (!options_.post_ops.sum) {
        throw Error(op + ": a residual was given to a layer without the sum post-op (post_ops: '" +
                    options_.post_ops.str() + "'); expected the options' post_ops.sum = true");
    }
    const ConvShapes shapes = forward_shapes(x, y);
    require_shape(op, residual, y.shape(), "residual", ", the output's shape");
    require_same_context(op, residual, "residual");
    const bool is_y = residual.buffer()() == y.buffer()() && residual.offset_bytes() == y.offset_bytes();
    RunTensors tensors{op, {&x}, {&y}};
    if (!is_y) tensors.reads.push_back(&residual);  // so that it may not overlap y, as run() checks
    return run(shapes, tensors, wait, workspace,
               [&](ConvStrategy& strategy, const Workspace& scratch, internal::EventChain& chain) {
                   if (!is_y) {
                       cl::Event copied;
                       NETCL_CL_CHECK(context_->queue().enqueueCopyBuffer(residual.buffer(), y.buffer(),
                                                                          residual.offset_bytes(), y.offset_bytes(),
                                                                          y.bytes(), chain.wait_list(), &copied),
                                      "copying the residual into the output");
                       chain.then(copied);
                   }
                   strategy.enqueue(x, y, scratch, chain);
               });
}

cl::Event ConvLayer::backward_data(const Tensor& dy, Tensor& dx, const std::vector<cl::Event>& wait,
                                const Tensor* workspace) {
    const std::string op = op_name("backward_data");
    NETCL_REQUIRE(dx.defined(), op + ": the dx tensor is undefined; expected the forward input's shape");
    NETCL_REQUIRE(dy.defined(), op + ": the dy tensor is undefined; expected the forward output's shape");
    if (weights_version_ == 0) {
        throw Error(op + " called before set_weights; expected set_weights(weights[, bias]) first");
    }
    require_same_context(op, dx, "dx");
    require_same_context(op, dy, "dy");
    const ConvShapes shapes = shapes_for(dx.shape(), ConvDirection::BACKWARD_DATA);
    require_shape(op, dy, shapes.output_shape(), "dy",
                  ", the forward output's shape for dx " + shape_string(dx.shape()));
    return run(shapes, {op, {&dy}, {&dx}}, wait, workspace,
               [&](ConvStrategy& strategy, const Workspace& scratch, internal::EventChain& chain) {
                   strategy.enqueue_backward_data(dy, dx, scratch, chain);
               });
}

cl::Event ConvLayer::backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor* db,
                                   const std::vector<cl::Event>& wait, const Tensor* workspace, float beta) {
    const std::string op = op_name("backward_weights");
    const auto& o = options_;
    NETCL_REQUIRE(x.defined(), op + ": the x tensor is undefined; expected the forward input");
    NETCL_REQUIRE(dy.defined(), op + ": the dy tensor is undefined; expected the forward output's shape");
    NETCL_REQUIRE(std::isfinite(beta), op + ": beta = " + std::to_string(beta) +
                                           "; expected a finite number (0 overwrites, 1 accumulates)");
    require_same_context(op, x, "x");
    require_same_context(op, dy, "dy");
    const ConvShapes shapes = shapes_for(x.shape(), ConvDirection::BACKWARD_WEIGHTS);
    require_shape(op, dy, shapes.output_shape(), "dy",
                  ", the forward output's shape for x " + shape_string(x.shape()));
    const Tensor::Shape w_shape = weight_shape();
    NETCL_REQUIRE(dw.defined(), op + ": the dw tensor is undefined; expected " + shape_string(w_shape) + " (" +
                                    weight_shape_text() + ")");
    if (dw.numel() != checked_numel(w_shape)) {
        throw Error(op + ": the dw tensor is " + shape_string(dw.shape()) + "; expected " + shape_string(w_shape) +
                    " (" + weight_shape_text() + ")");
    }
    require_same_context(op, dw, "dw");
    const bool has_db = db != nullptr && db->defined();
    if (o.bias && !has_db) {
        throw Error(op + ": the layer has a bias; expected a db tensor of out_channels = " +
                    std::to_string(o.out_channels) + " floats");
    }
    if (!o.bias && has_db) {
        throw Error(op + ": got a db tensor for a layer made with bias = false; expected none");
    }
    std::vector<const Tensor*> writes{&dw};
    if (has_db) {
        if (db->numel() != static_cast<std::size_t>(o.out_channels)) {
            throw Error(op + ": the db tensor is " + shape_string(db->shape()) +
                        "; expected out_channels = " + std::to_string(o.out_channels) + " floats");
        }
        require_same_context(op, *db, "db");
        writes.push_back(db);
    }
    return run(shapes, {op, {&x, &dy}, writes}, wait, workspace,
               [&](ConvStrategy& strategy, const Workspace& scratch, internal::EventChain& chain) {
                   strategy.enqueue_backward_weights(x, dy, dw, has_db ? db : nullptr, beta, scratch, chain);
               });
}

const Plan& ConvLayer::last_plan() const {
    if (last_ == nullptr) {
        throw Error(op_name("last_plan") + "() before any forward or backward run; expected one first");
    }
    return last_->plan;
}

std::size_t ConvLayer::last_workspace_bytes() const { return last_ ? last_->workspace_bytes : 0; }

}  // namespace netcl
