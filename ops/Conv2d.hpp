#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../runtime/Context.hpp"
#include "../runtime/DeviceProfile.hpp"
#include "../runtime/Tensor.hpp"
#include "../selector/Plan.hpp"
#include "ConvShapes.hpp"
#include "ConvStrategy.hpp"
#include "Kernel.hpp"

namespace netcl {

class KernelSelector;

// Parameters as PyTorch's nn.Conv2d takes them.
struct Conv2dOptions {
    std::int64_t in_channels = 0;
    std::int64_t out_channels = 0;
    std::array<std::int64_t, 2> kernel{3, 3};
    std::array<std::int64_t, 2> stride{1, 1};
    std::array<std::int64_t, 2> padding{0, 0};
    std::array<std::int64_t, 2> dilation{1, 1};
    std::int64_t groups = 1;
    bool bias = true;
    // Strict per-op override: this strategy or a netcl::Error saying why it cannot.
    std::optional<Kernel> strategy;
    // With `strategy`: this exact variant (tests, netcl-tune, netcl-bench).
    std::optional<Variant> variant;
    // Caps IM2COL's workspace for this op (else the profile's limit).
    std::optional<std::size_t> workspace_limit_bytes;
    // The selector to ask; nullptr means KernelSelector::global().
    KernelSelector* selector = nullptr;

    // The options of a layer computing `shapes` (channels, kernel, stride,
    // padding, dilation, groups, bias); strategy and the rest left as defaults.
    static Conv2dOptions for_shapes(const ConvShapes& shapes);
};

// A 2-D convolution layer on one Context. forward() asks the selector for a
// plan per input shape (kept, with its reason), prepares that strategy once and
// enqueues it without blocking.
class Conv2d {
public:
    Conv2d(std::shared_ptr<Context> context, Conv2dOptions options);
    ~Conv2d();

    // weights: out_channels x in_channels/groups x R x S; bias: out_channels
    // (empty when the layer has none). Uploaded once here; each prepared
    // strategy transforms them once, at its next forward.
    void set_weights(const std::vector<float>& weights, const std::vector<float>& bias = {});

    Tensor forward(const Tensor& x);
    // Writes into a caller-made y (N x K x P x Q), e.g. one poisoned with NaN.
    void forward(const Tensor& x, Tensor& y);
    Tensor operator()(const Tensor& x) { return forward(x); }

    // The shape the layer computes for an input of `input_shape` (validated).
    ConvShapes shapes_for(const Tensor::Shape& input_shape) const;
    // Throws netcl::Error before the first forward.
    const Plan& last_plan() const;
    // The events of the last forward's commands (time them with device_span_ms).
    const std::vector<cl::Event>& last_events() const { return last_events_; }
    std::size_t last_workspace_bytes() const;
    const Conv2dOptions& options() const { return options_; }

private:
    struct Prepared;
    Prepared& prepare(const ConvShapes& shapes);

    // The profile plans are made against: the context's, with this op's
    // workspace limit applied.
    DeviceProfile planning_profile() const;
    Plan make_plan(const ConvShapes& shapes, const DeviceProfile& profile) const;

    std::shared_ptr<Context> context_;
    Conv2dOptions options_;
    Tensor weights_;
    Tensor bias_;
    // Bumped by every set_weights; a Prepared strategy re-takes the weights
    // when its copy of this differs (0: no weights yet).
    std::uint64_t weights_version_ = 0;
    std::map<std::string, std::unique_ptr<Prepared>> prepared_;  // by ConvShapes::str()
    Prepared* last_ = nullptr;
    std::vector<cl::Event> last_events_;
};

}  // namespace netcl
