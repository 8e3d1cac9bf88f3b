#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"

// The boundary between netcl-bench and one oneDNN build. Each oneDNN found at
// configure time (Debian's libdnnl 2.x, PyPI's onednn-cpu-gomp 3.x, ...) is
// compiled into its own plugin (tools/netcl-bench/onednn/OneDnnPlugin.cpp,
// against that build's headers) and loaded with RTLD_LOCAL: two oneDNN
// libraries export the same C symbols (dnnl_sgemm, ...), so no binary can link
// both, and a user comparing libraries wants both in one run. Nothing here
// names a oneDNN type; the plugin and the tool are built by the same compiler
// from the same tree, so C++ types cross the boundary safely.

namespace netcl::bench {

// Where the activations live:
//   Nchw:    src and dst in plain NCHW, as netcl reads and writes them;
//   Blocked: src, dst and weights in the layout oneDNN prefers (format_tag::any,
//            nChw8c on AVX2), as a network that keeps its activations in that
//            layout runs it. Reorders into and out of it are not timed.
// Weights are format_tag::any in both: reordered once, like netcl's set_weights
// (every run where the weights change every run: OneDnnLibrary::make).
enum class OneDnnLayout { Nchw, Blocked };

// One oneDNN convolution primitive for one layer and layout, with its memories:
// made (oneDNN JIT-compiles here) and fed once, then run as often as timing
// needs.
class OneDnnPrimitive {
public:
    virtual ~OneDnnPrimitive() = default;
    // The timed part: execute on oneDNN's stream and wait for it.
    virtual void run() = 0;
    // Fills the output (in its own layout, padding included) with NaN so an unwritten element shows.
    virtual void poison_output() = 0;
    // The result in netcl's layout (reordered back from the blocked one:
    // untimed), for the reference check: y or dx in NCHW; dw (K x C/groups x
    // R x S) followed by db.
    virtual std::vector<float> output_nchw() = 0;
    // "convolution_forward (forward_inference)", "convolution_backward_data", ...
    virtual std::string primitive_name() const = 0;
    // primitive_desc::impl_info_str(): "jit:avx2", "gemm:jit", "jit_1x1:avx2", ...
    virtual std::string impl() const = 0;
    // The memory formats the primitive runs on, oneDNN's way: "src aBcd8b, weights ABcd8a8b, dst aBcd8b".
    virtual std::string formats() const = 0;
};

// One loaded oneDNN library.
class OneDnnLibrary {
public:
    virtual ~OneDnnLibrary() = default;
    // {3, 2, 0}: what the loaded library reports (dnnl_version()), not its headers.
    virtual std::vector<int> version_numbers() const = 0;
    // "3.2.0 (git 04b180b)"
    virtual std::string version() const = 0;
    // The instruction set oneDNN's JIT uses on this machine: "avx2", "avx512_core", ...
    virtual std::string cpu_isa() const = 0;
    // fp32, algorithm::convolution_direct, whichever implementation oneDNN
    // picks for the shape, in the shapes' direction: forward_inference,
    // convolution_backward_data or convolution_backward_weights (with the bias
    // gradient where the layer has a bias), each backward primitive hinted by
    // its forward_training one as oneDNN asks. Groups, dilation, bias and
    // uneven padding as ConvShapes gives them. x: N x C x (D x) H x W,
    // weights: K x C/groups x (T x) R x S, bias: K values or none, dy: N x K x
    // (O x) P x Q (backward only). weights_every_run: each run() first reorders
    // the plain weights into the primitive's layout (backward weights: reorders
    // dW back to plain after), as a training step with new weights does.
    // Throws netcl::Error naming oneDNN's status when oneDNN refuses the shape.
    virtual std::unique_ptr<OneDnnPrimitive> make(const ConvShapes& shapes, OneDnnLayout layout,
                                                  const std::vector<float>& x, const std::vector<float>& weights,
                                                  const std::vector<float>& bias, const std::vector<float>& dy,
                                                  bool weights_every_run) const = 0;
    // C = A B, row-major n x n, through dnnl_sgemm. Throws netcl::Error on a failed status.
    virtual void sgemm(std::int64_t n, const float* a, const float* b, float* c) const = 0;
};

}  // namespace netcl::bench

// The one symbol a plugin exports: its library, alive for the process.
// Its name carries the version of the classes above, raised whenever they change (2: make()'s
// weights_every_run), so that a plugin built from another netcl (an older install beside this build)
// is refused, not called through another signature.
#define NETCL_BENCH_ONEDNN_ENTRY netcl_bench_onednn_library_v2
#define NETCL_BENCH_ONEDNN_ENTRY_NAME "netcl_bench_onednn_library_v2"
extern "C" netcl::bench::OneDnnLibrary* NETCL_BENCH_ONEDNN_ENTRY();
