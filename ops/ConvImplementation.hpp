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

// The problems an implementation takes, checked before its why_not (as
// oneDNN's implementation list checks prop_kind, ndims and data types first).
struct ProblemKinds {
    std::vector<ConvDirection> directions;
    std::vector<int> spatial_ranks;
    std::vector<DataType> types;

    // What every implementation took before the gradients: 2-D float32 forward.
    static ProblemKinds forward_2d_float32() { return {{ConvDirection::FORWARD}, {2}, {DataType::FLOAT32}}; }
};

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
    virtual std::optional<std::string> why_not(const Variant& variant, const ConvShapes& shapes,
                                               const DeviceProfile& profile) const = 0;
    // The configuration for this layer, as a line for plans and logs.
    virtual std::string config(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile) const = 0;
    // Device scratch memory one run in the problem's direction needs (0: none).
    virtual std::size_t workspace_bytes(const Variant& variant, const ConvShapes& shapes,
                                        const DeviceProfile& profile) const = 0;
    // Device memory kept besides the weights for as long as the layer lives
    // (Winograd's transformed weights U).
    virtual std::size_t persistent_bytes(const Variant&, const ConvShapes&, const DeviceProfile&) const { return 0; }
    // How much more rounding error than a direct fp32 sum the variant makes,
    // at most (1 for a direct sum; Winograd's transforms amplify it).
    virtual double error_factor(const Variant&) const { return 1.0; }

    // The OpenCL programs the strategy for this layer builds (netcl's own
    // kernels; a library it calls, CLBlast, builds its own and is not listed).
    virtual std::vector<ProgramSpec> programs(const Variant& variant, const ConvShapes& shapes,
                                              const DeviceProfile& profile) const = 0;

    // The profile prefixes (ops/gemm/GemmTile.hpp) of the GEMM-engine tiles
    // this layer's kernels are built with; empty where it has none. What
    // netcl-tune --gemm-tiles searches for each layer.
    virtual std::vector<std::string> tile_prefixes(const Variant&, const ConvShapes&, const DeviceProfile&) const {
        return {};
    }

    // Profile "tuned" keys the implementation reads (e.g. its workspace cap),
    // so a profile naming a key nobody reads is warned about.
    virtual std::vector<std::string> profile_keys() const { return {}; }

    // The strategy for `shapes`; why_not() must have said nothing for
    // (variant, shapes, profile).
    virtual std::unique_ptr<ConvStrategy> create(std::shared_ptr<Context> context, const Variant& variant,
                                                 const ConvShapes& shapes, const DeviceProfile& profile) const = 0;

    bool offers(const Variant& variant) const;
    // "<name>_enabled" (dashes as underscores): a profile that sets it to 0
    // keeps the implementation off that device (e.g. a CPU-shaped kernel on a GPU).
    std::string enabled_key() const;
    // "<name>_workspace_limit_bytes": the cap an implementation with a
    // workspace sizes it to (fewer images or tiles a pass); Conv2d sets it
    // for every implementation from Conv2dOptions::workspace_limit_bytes.
    std::string workspace_limit_key() const;
};

}  // namespace netcl
