#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"

namespace netcl::bench {

// oneDNN's convolution, the library a CPU user would otherwise pick, as
// netcl-bench's native peer on CPU devices: fp32, algorithm::
// convolution_direct, whichever implementation oneDNN picks for the shape, in
// the shapes' direction: forward_inference, convolution_backward_data or
// convolution_backward_weights (with the bias gradient where the layer has a
// bias), each backward primitive hinted by its forward_training one as oneDNN
// asks. oneDNN is optional at build time (NETCL_BENCH_ONEDNN); without it
// everything here compiles, onednn_why_not says "oneDNN not built in" and
// nothing else is called. No oneDNN header is included here: the rest of the
// tool is built with CL_TARGET_OPENCL_VERSION=120 and never sees oneDNN's types.

// Where the activations live:
//   Nchw:    src and dst in plain NCHW, as netcl reads and writes them;
//   Blocked: src, dst and weights in the layout oneDNN prefers (format_tag::any,
//            nChw8c on AVX2), as a network that keeps its activations in that
//            layout runs it. Reorders into and out of it are not timed.
// Weights are format_tag::any in both: reordered once, like netcl's set_weights.
enum class OneDnnLayout { Nchw, Blocked };
std::string to_string(OneDnnLayout layout);  // "nchw", "blocked"

bool onednn_built_in();
// "2.6.3" (with " (git <hash>)" where the build recorded one); empty when not built in.
std::string onednn_version();
// The instruction set oneDNN's JIT uses on this machine: "avx2", "avx512_core", ...; empty when not built in.
std::string onednn_cpu_isa();

// Why oneDNN's convolution cannot be benched on `shapes` against a device with
// `profile`: not built in, or the device is not a CPU (oneDNN runs on the
// host's cores; set beside a GPU it is no like-for-like peer). Nothing when it can.
std::optional<std::string> onednn_why_not(const ConvShapes& shapes, const DeviceProfile& profile);

// One oneDNN convolution primitive for one layer and layout, with its memories:
// made (oneDNN JIT-compiles here) and fed once, then run as often as timing
// needs. Groups, dilation, bias and uneven padding (padding_l = top/left,
// padding_r = bottom/right) as ConvShapes gives them. Throws netcl::Error
// naming oneDNN's status when oneDNN refuses the shape.
class OneDnnConv {
public:
    // x: N x C x H x W, weights: K x C/groups x R x S, bias: K values or none,
    // dy: N x K x P x Q (backward only; empty forward), NCHW as the bench holds them.
    OneDnnConv(const ConvShapes& shapes, OneDnnLayout layout, const std::vector<float>& x,
               const std::vector<float>& weights, const std::vector<float>& bias, const std::vector<float>& dy);
    ~OneDnnConv();
    OneDnnConv(const OneDnnConv&) = delete;
    OneDnnConv& operator=(const OneDnnConv&) = delete;

    // The timed part: execute on oneDNN's stream and wait for it.
    void run();
    // Fills the output (in its own layout, padding included) with NaN so an unwritten element shows.
    void poison_output();
    // The result in netcl's layout (reordered back from the blocked one:
    // untimed), for the reference check: y or dx in NCHW; dw (K x C/groups x
    // R x S) followed by db.
    std::vector<float> output_nchw();
    // "convolution_forward (forward_inference)", "convolution_backward_data", ...
    std::string primitive_name() const;

    // primitive_desc::impl_info_str(): "jit:avx2", "gemm:jit", "jit_1x1:avx2", ...
    const std::string& impl() const;
    // The memory formats the primitive runs on, oneDNN's way: "src aBcd8b, weights ABcd8a8b, dst aBcd8b".
    const std::string& formats() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace netcl::bench
