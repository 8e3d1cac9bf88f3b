#pragma once
// What Conv2d and Conv3d share: a convolution layer at spatial rank 2 or 3,
// planned per input shape and direction, run on the caller's queue. The
// public classes differ only in their options (PyTorch's nn.Conv2d and
// nn.Conv3d parameters) and the rank of their tensors.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netcl/Context.hpp"
#include "netcl/ConvDirection.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Plan.hpp"
#include "netcl/PostOps.hpp"
#include "netcl/Tensor.hpp"

namespace netcl {

class KernelSelector;

// Zero padding on each side. {p} pads every side by p, {h, w} pads top and
// bottom by h and left and right by w (PyTorch), {top, left, bottom, right}
// each side on its own (ONNX's pads, reordered: ONNX lists begins, then ends).
struct Padding {
    std::int64_t top = 0, left = 0, bottom = 0, right = 0;

    constexpr Padding() = default;
    constexpr Padding(std::int64_t all) : top(all), left(all), bottom(all), right(all) {}  // NOLINT
    constexpr Padding(std::int64_t height, std::int64_t width)
        : top(height), left(width), bottom(height), right(width) {}
    constexpr Padding(std::int64_t top_, std::int64_t left_, std::int64_t bottom_, std::int64_t right_)
        : top(top_), left(left_), bottom(bottom_), right(right_) {}
    bool operator==(const Padding&) const = default;
};

// ONNX's auto_pad (TensorFlow's "SAME"/"VALID"; PyTorch's padding="same" is
// SAME_UPPER with stride 1). SAME_* pad so that P = ceil(H / stride), with the
// odd pixel at the end (UPPER) or the beginning (LOWER); the padding then
// depends on the input size and is worked out per input shape.
enum class AutoPad { NOTSET, SAME_UPPER, SAME_LOWER, VALID };

// A layer's options at either rank, as Conv2dOptions and Conv3dOptions
// translate to them (see those for what each field means). Spatial arrays
// are {depth, height, width}; a 2-D layer keeps the depth at 1, 1, 1 and
// pads no depth.
struct ConvLayerOptions {
    std::string name = "Conv2d";  // for errors: "Conv2d::forward: ..."
    int spatial_rank = 2;
    std::int64_t in_channels = 0;
    std::int64_t out_channels = 0;
    std::array<std::int64_t, 3> kernel{1, 3, 3};
    std::array<std::int64_t, 3> stride{1, 1, 1};
    std::array<std::int64_t, 3> dilation{1, 1, 1};
    Padding padding;                     // height and width, used when auto_pad is NOTSET
    std::int64_t pad_front = 0, pad_back = 0;  // depth, the same
    AutoPad auto_pad = AutoPad::NOTSET;
    std::int64_t groups = 1;
    bool bias = true;
    DataType dtype = DataType::FLOAT32;
    PostOps post_ops;
    std::optional<Kernel> strategy;
    std::optional<Variant> variant;
    std::optional<std::size_t> workspace_limit_bytes;
    std::optional<double> max_error_factor;
    KernelSelector* selector = nullptr;
};

// Copies what Conv2dOptions and Conv3dOptions share beyond their geometry
// (the same names, the same meaning) into the rank-generic options.
template <typename Options>
void copy_run_options(const Options& from, ConvLayerOptions& to) {
    to.in_channels = from.in_channels;
    to.out_channels = from.out_channels;
    to.auto_pad = from.auto_pad;
    to.groups = from.groups;
    to.bias = from.bias;
    to.dtype = from.dtype;
    to.post_ops = from.post_ops;
    to.strategy = from.strategy;
    to.variant = from.variant;
    to.workspace_limit_bytes = from.workspace_limit_bytes;
    to.max_error_factor = from.max_error_factor;
    to.selector = from.selector;
}

// forward() asks the selector for a plan per input shape (kept, with its
// reason), prepares that implementation once and enqueues it on the
// Context's queue without blocking. One layer is used by one thread at a
// time; layers on one Context may run on different threads.
//
// Tensor shapes below are the 2-D ones; a Conv3d's have a depth before the
// height: x N x C x D x H x W, y N x K x O x P x Q, weights K x C/groups x T
// x R x S.
class ConvLayer {
public:
    virtual ~ConvLayer();
    ConvLayer(const ConvLayer&) = delete;
    ConvLayer& operator=(const ConvLayer&) = delete;

    // weights: out_channels x in_channels/groups x R x S; bias: out_channels
    // (empty when the layer has none). Copied to the device once here (this
    // blocks until copied); each prepared implementation transforms them
    // once, at its next forward.
    void set_weights(const std::vector<float>& weights, const std::vector<float>& bias = {});
    // The same from device memory (e.g. Tensor::view of a framework's own
    // parameters): copied on the device after `wait`, with no host round trip
    // and no blocking; later changes to those buffers do not reach the layer.
    // Returns the copy's event (the weights', which follows the bias's): a
    // change to those buffers waits for it, which on an out-of-order queue
    // nothing else orders.
    cl::Event set_weights(const Tensor& weights, const Tensor* bias = nullptr, const std::vector<cl::Event>& wait = {});
    // The same without the copy, as cuDNN and oneDNN take the weights of each
    // call: the layer reads these buffers (after `wait`) in its later runs,
    // so they must hold these values, unchanged, until the next set_weights
    // or borrow_weights and the end of every run enqueued before it. For a
    // framework's parameters in a training step, which change only between
    // steps: new weights are borrowed again each step, and each plan rebuilds
    // what it derives from them (Winograd's U, packed panels) at its next run.
    void borrow_weights(const Tensor& weights, const Tensor* bias = nullptr, const std::vector<cl::Event>& wait = {});

    // Training (PyTorch's module.train(), oneDNN's forward_training): the
    // weights will be new before every forward, so the selector plans the
    // forward for a step that pays what its plan builds from them (Winograd's
    // U, packed panels) every run, where inference (the default, eval()) sets
    // them once and pays it once. The values are the same either way; each
    // mode keeps its own plans, and explain / last_plan say " training".
    // Backward data is always planned so.
    void set_training(bool training) { training_ = training; }
    bool training() const { return training_; }

    // Enqueues y = conv(x) after the events in `wait` and returns the event
    // of netcl's last command; nothing in it blocks the host. y must be
    // N x K x P x Q and not overlap x. `workspace`, when given, is scratch
    // memory of at least workspace_bytes(x.shape()) (e.g. a view into the
    // framework's own buffer); without it the layer allocates its own once
    // and keeps it.
    cl::Event forward(const Tensor& x, Tensor& y, const std::vector<cl::Event>& wait = {},
                      const Tensor* workspace = nullptr);
    // With the sum post-op (options().post_ops.sum): y = activation(conv(x) +
    // bias + residual), `residual` N x K x P x Q. It is copied into y on the
    // device first, unless it is y itself (same buffer and offset: nothing
    // is copied, oneDNN's sum post-op); it must not overlap x, nor overlap y
    // otherwise. The returned event is the last of the copy and the run.
    cl::Event forward(const Tensor& x, const Tensor& residual, Tensor& y, const std::vector<cl::Event>& wait = {},
                      const Tensor* workspace = nullptr);
    // Allocates y and runs forward into it.
    Tensor forward(const Tensor& x);
    Tensor operator()(const Tensor& x) { return forward(x); }

    // The gradients, as PyTorch's convolution_backward and oneDNN's
    // convolution_backward_data / _weights compute them. Each direction is
    // planned by the selector under its own op ("conv2d_backward_data",
    // "conv2d_backward_weights", "conv3d_..."; selector_op()), with its own
    // rules, tuned records and reasons, and runs like forward: after `wait`,
    // returning netcl's last event, with no host synchronisation inside, in
    // the caller's workspace when one is given (workspace_bytes(shape, direction)).
    //
    // dx = dL/dx (N x C x H x W, the forward input's shape) from dy = dL/dy
    // (N x K x P x Q) and the weights of set_weights. dx must not overlap dy.
    cl::Event backward_data(const Tensor& dy, Tensor& dx, const std::vector<cl::Event>& wait = {},
                            const Tensor* workspace = nullptr);
    // dw = dL/dw (out_channels x in_channels/groups x R x S) from the forward
    // input x and dy, and db = dL/db (out_channels: the sum of dy over N, P
    // and Q) when the layer has a bias (`db` is then required, else it must be
    // null). Each is written as beta * old + gradient: beta = 0 (the default)
    // overwrites without reading the old values, beta = 1 accumulates across
    // micro-batches as PyTorch's .grad does. Needs no set_weights. dw and db
    // must not overlap x, dy or each other. On an error after the checks (a
    // driver failure) dw and db are undefined, beta != 0 included: the sum
    // they held is not kept.
    cl::Event backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor* db = nullptr,
                               const std::vector<cl::Event>& wait = {}, const Tensor* workspace = nullptr,
                               float beta = 0.0f);

    // The shape the layer computes for an input of `input_shape` (validated),
    // as a problem in `direction`.
    ConvShapes shapes_for(const Tensor::Shape& input_shape,
                          ConvDirection direction = ConvDirection::FORWARD) const;
    // What a run in `direction` would run for `input_shape` (the forward
    // input's shape in every direction): planned (and prepared) now, kept.
    const Plan& plan_for(const Tensor::Shape& input_shape, ConvDirection direction = ConvDirection::FORWARD);
    // Scratch bytes that run needs (0: none).
    std::size_t workspace_bytes(const Tensor::Shape& input_shape, ConvDirection direction = ConvDirection::FORWARD);

    // The plan of the last run, in whichever direction. Throws netcl::Error before the first.
    const Plan& last_plan() const;
    // The events of the last run's commands (time them with device_span_ms).
    const std::vector<cl::Event>& last_events() const { return last_events_; }
    // False when the last run began with a library's commands (CLBlast's
    // GEMM reading x itself): the library returns only its last command's
    // event, so the events' span leaves its first ones out. Time such a run
    // by the wall clock.
    bool last_events_cover_the_run() const { return last_events_cover_the_run_; }
    std::size_t last_workspace_bytes() const;
    // The weights' shape: out_channels x in_channels/groups x (T x) R x S.
    Tensor::Shape weight_shape() const;
    const ConvLayerOptions& layer_options() const { return options_; }

protected:
    // Validates the options (a netcl::Error names the first bad one).
    ConvLayer(std::shared_ptr<Context> context, ConvLayerOptions options);

private:
    struct Prepared;
    // The tensors a run reads and writes, for the checks every direction shares.
    struct RunTensors {
        std::string op;  // "Conv2d::forward", for errors
        std::vector<const Tensor*> reads;
        std::vector<const Tensor*> writes;
    };
    // Checks the workspace and the weights' copies, orders the run after the
    // shape's last one, re-takes changed weights (directions that use them)
    // and enqueues through `enqueue`; errors name the layer and the variant.
    template <typename Enqueue>
    cl::Event run(const ConvShapes& shapes, const RunTensors& tensors, const std::vector<cl::Event>& wait,
                  const Tensor* workspace, Enqueue&& enqueue);
    std::string op_name(const char* method) const { return options_.name + "::" + method; }
    void require_same_context(const std::string& op, const Tensor& tensor, const char* what) const;
    // forward's checks of x, y and the weights, shared by both overloads; the problem.
    ConvShapes forward_shapes(const Tensor& x, const Tensor& y) const;
    Prepared& prepare(const ConvShapes& shapes, Variant* planned = nullptr);  // `planned`: the plan's variant, once made
    // prepare(), and the layer's own workspace when it needs one, falling back
    // to another plan when an implementation cannot allocate.
    Prepared& ready(const ConvShapes& shapes, bool own_workspace);
    DeviceProfile planning_profile(const std::string& shape_key) const;
    static std::string shape_key(const ConvShapes& shapes);
    std::string describe(const ConvShapes& shapes, const std::string& variant) const;  // for errors
    std::string describe() const;
    std::string weight_shape_text() const;  // "out_channels x in_channels/groups x R x S"
    // A netcl::Error (`op`: "Conv2d::set_weights") unless weights and bias are this layer's, on its Context.
    void check_device_weights(const std::string& op, const Tensor& weights, const Tensor* bias) const;
    Plan make_plan(const ConvShapes& shapes, const DeviceProfile& profile) const;

    std::shared_ptr<Context> context_;
    ConvLayerOptions options_;
    bool training_ = false;
    Tensor weights_;
    Tensor bias_;
    bool weights_borrowed_ = false;  // weights_ and bias_ are the caller's views (borrow_weights)
    // Bumped by every set_weights and borrow_weights; a Prepared strategy re-takes the weights
    // when its copy of this differs (0: no weights yet).
    std::uint64_t weights_version_ = 0;
    std::vector<cl::Event> weights_ready_;  // copies of device-side weights still to wait for
    std::map<std::string, std::unique_ptr<Prepared>> prepared_;  // by ConvShapes::str()
    // By shape key: implementations (their "<name>_enabled" keys) that could
    // not allocate for it, and the last such failure for the plan's reason.
    std::map<std::string, std::vector<std::string>> out_of_memory_;
    std::map<std::string, std::string> out_of_memory_reasons_;
    Prepared* last_ = nullptr;
    std::vector<cl::Event> last_events_;
    bool last_events_cover_the_run_ = true;
};

}  // namespace netcl
