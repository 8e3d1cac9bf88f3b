#pragma once
// Internal: one convolution implementation, in the manner of oneDNN's
// primitive descriptors. It owns everything about itself:
//   - its variants (the only list of them: the selector, netcl-bench and
//     netcl-tune enumerate candidates from it);
//   - why_not: the one place that says it cannot take a layer;
//   - the configuration it derives for a layer on a device, from which both
//     its build options and its launch sizes come;
//   - the workspace it needs, declared before it runs;
//   - the error growth of each variant relative to a direct sum;
//   - its kernels, in kernels_cl/.
// It decides nothing: the selector ranks what the implementations offer.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netcl/Context.hpp"
#include "netcl/ConvDirection.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DataType.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/Plan.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {
struct BackwardDataPhase;
struct BackwardDataPhases;
}  // namespace netcl

namespace netcl {

// The problems an implementation takes, checked before its why_not (as
// oneDNN's implementation list checks prop_kind, ndims and data types first).
struct ProblemKinds {
    std::vector<ConvDirection> directions;
    std::vector<int> spatial_ranks;
    std::vector<DataType> types;
    // Backward data, where it is listed, runs as the forward convolutions it
    // equals, one per stride phase (Lavin & Gray §4.2: dy convolved with the
    // filters rotated 180° and C and K swapped; under a stride, each phase
    // with its sub-filter; ops/as_forward/): every method below is then asked
    // about those forward problems, and the strategy it creates is wrapped to
    // rotate the sub-filters at set_weights (unless it reads them in place:
    // transposed_filters below) and place each phase in dx.
    // False: the implementation's own kernels take each listed direction.
    bool backward_data_as_forward = false;
    // A 3-D weight gradient, where rank 3 and backward weights are listed,
    // runs as the 2-D one it equals (ops/as_2d/DepthTaps.hpp: depth slices as
    // images, x's depth taps as channels); so does a 3-D backward data
    // that the implementation cannot run as one 3-D forward convolution (any
    // stride; a padding past the filter's reach; a dilated depth for the
    // implicit GEMM): every method below is then asked about that 2-D
    // problem, and the strategy it creates is wrapped to make the copies.
    bool weight_gradient_3d_as_2d = false;
    bool backward_data_3d_as_2d = false;
    // Its forward kernels take the layer's own filters as backward data reads
    // them (ConvShapes::weights_transposed: iohw, and beyond 1x1 rotated
    // 180°), where its why_not allows: backward data whose one phase with
    // taps takes the whole filter (a 1x1 layer at any stride, any filter at
    // stride 1) then reads them in place, where the others rotate them into a
    // copy at each new set of weights. The 1x1 GEMM (1x1 layers) and
    // separate-transform Winograd (stride 1) do.
    bool transposed_filters = false;

    // 2-D float32 forward only.
    static ProblemKinds forward_2d_float32() { return {{ConvDirection::FORWARD}, {2}, {DataType::FLOAT32}}; }
    // 2-D float32 forward, and backward data through the forward kernels.
    static ProblemKinds forward_and_backward_data_as_forward_2d_float32() {
        return {{ConvDirection::FORWARD, ConvDirection::BACKWARD_DATA}, {2}, {DataType::FLOAT32}, true};
    }
};

// What callers ask is public and not virtual; what an implementation says
// for the problem it computes is the protected do_* (the standard library's
// facets' pattern): the public side maps a backward-data problem that runs
// as forward onto that forward problem, and a 3-D gradient that runs as 2-D
// onto that 2-D problem (ProblemKinds), so no implementation repeats it.
class ConvImplementation {
public:
    virtual ~ConvImplementation() = default;

    virtual std::string name() const = 0;  // "naive", "im2col", "winograd-fused"
    virtual Kernel kernel() const = 0;     // the strategy it runs under
    // Its variants, in the order it lists them (netcl-bench's columns).
    virtual const std::vector<Variant>& variants() const = 0;

    // The directions, ranks and data types it takes. A problem outside them
    // never reaches why_not() or create() (ops/Implementations.cpp says why).
    virtual ProblemKinds problem_kinds() const = 0;

    // Why `variant` cannot run `shapes` on a device with `profile`; nothing
    // when it can. Called only with one of variants(), valid shapes and a
    // problem its problem_kinds() take.
    std::optional<std::string> why_not(const Variant& variant, const ConvShapes& shapes,
                                       const DeviceProfile& profile) const;
    // The configuration for this layer, as a line for plans and logs.
    std::string config(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile) const;
    // Device scratch memory one run in the problem's direction needs (0: none).
    std::size_t workspace_bytes(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile) const;
    // Device memory kept besides the weights for as long as the layer lives
    // (Winograd's transformed weights U; the rotated filters of backward data).
    std::size_t persistent_bytes(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile) const;
    // How much more rounding error than a direct fp32 sum the variant makes,
    // at most (1 for a direct sum; Winograd's transforms amplify it).
    virtual double error_factor(const Variant&) const { return 1.0; }

    // The OpenCL programs the strategy for this layer builds (netcl's own
    // kernels; a library it calls, CLBlast, builds its own and is not listed).
    std::vector<ProgramSpec> programs(const Variant& variant, const ConvShapes& shapes,
                                      const DeviceProfile& profile) const;

    // The profile prefixes (ops/gemm/GemmTile.hpp) of the GEMM-engine tiles
    // this layer's kernels are built with; empty where it has none. What
    // netcl-tune --gemm-tiles searches for each layer.
    std::vector<std::string> tile_prefixes(const Variant& variant, const ConvShapes& shapes,
                                           const DeviceProfile& profile) const;

    // Profile "tuned" keys the implementation reads (e.g. its workspace cap),
    // so a profile naming a key nobody reads is warned about.
    virtual std::vector<std::string> profile_keys() const { return {}; }

    // The strategy for `shapes`; why_not() must have said nothing for
    // (variant, shapes, profile).
    std::unique_ptr<ConvStrategy> create(std::shared_ptr<Context> context, const Variant& variant,
                                         const ConvShapes& shapes, const DeviceProfile& profile) const;

    bool offers(const Variant& variant) const;
    // "<name>_enabled" (dashes as underscores): a profile that sets it to 0
    // keeps the implementation off that device (e.g. a CPU-shaped kernel on a GPU).
    std::string enabled_key() const;
    // "<name>_workspace_limit_bytes": the cap an implementation with a
    // workspace sizes it to (fewer images or tiles a pass); Conv2d sets it
    // for every implementation from Conv2dOptions::workspace_limit_bytes.
    // One that shares another's cap names that key instead (wgrad-clblast: im2col's).
    virtual std::string workspace_limit_key() const;
    // That cap on a device: the profile's value, else a quarter of its
    // largest allocation (an implementation with a default of its own says
    // so). The 3-D gradients' copies (ops/as_2d/) count against it with the
    // 2-D problem's workspace.
    virtual std::size_t workspace_limit(const DeviceProfile& profile) const;

protected:
    // The same questions about the problem the implementation's kernels
    // compute (a backward-data problem already mapped to its forward one, a
    // 3-D gradient to its depth taps' 2-D problem).
    virtual std::optional<std::string> do_why_not(const Variant& variant, const ConvShapes& shapes,
                                                  const DeviceProfile& profile) const = 0;
    virtual std::string do_config(const Variant& variant, const ConvShapes& shapes,
                                  const DeviceProfile& profile) const = 0;
    virtual std::size_t do_workspace_bytes(const Variant& variant, const ConvShapes& shapes,
                                           const DeviceProfile& profile) const = 0;
    virtual std::size_t do_persistent_bytes(const Variant&, const ConvShapes&, const DeviceProfile&) const {
        return 0;
    }
    virtual std::vector<ProgramSpec> do_programs(const Variant& variant, const ConvShapes& shapes,
                                                 const DeviceProfile& profile) const = 0;
    virtual std::vector<std::string> do_tile_prefixes(const Variant&, const ConvShapes&,
                                                      const DeviceProfile&) const {
        return {};
    }
    virtual std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant& variant,
                                                    const ConvShapes& shapes, const DeviceProfile& profile) const = 0;

private:
    // Whether this problem is asked as the forward problem it equals.
    bool runs_as_forward(const ConvShapes& shapes) const;
    // Why a backward-data problem cannot run as the forward convolutions it equals.
    std::optional<std::string> as_forward_why_not(const Variant& variant, const ConvShapes& shapes,
                                                  const DeviceProfile& profile) const;
    // The forward problem phase `p` runs as: p.forward, or, where the one
    // phase with taps takes the whole filter (BackwardDataPhases::whole_filter)
    // and the implementation takes it, the same with the layer's filters read
    // rotated in place (no copy).
    ConvShapes phase_problem(const Variant& variant, const BackwardDataPhases& phases, const BackwardDataPhase& p,
                             const DeviceProfile& profile) const;
    // Whether this problem is asked as the 2-D gradient of its depth taps.
    bool runs_as_2d(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile) const;
};

}  // namespace netcl
