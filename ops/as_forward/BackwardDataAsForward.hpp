#pragma once
// Internal: backward data as forward convolutions (BackwardDataPhases.hpp):
// the filters' phases rotated and C<->K swapped once per set_weights
// (kernels_cl/rotate_filters.cl), or read so in place where the one phase
// takes the whole filter and its strategy can (ProblemKinds::
// transposed_filters), each phase a forward strategy of the
// implementation that planned it, and, unless the one phase's output is dx
// itself, its output copied into dx (kernels_cl/stride_phases.cl). An
// implementation opts in through ProblemKinds::backward_data_as_forward.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/as_forward/BackwardDataPhases.hpp"

namespace netcl {

// kernels_cl/rotate_filters.cl and kernels_cl/stride_phases.cl.
ProgramSpec filter_rotation_program(DataType type);
ProgramSpec stride_phases_program(DataType type);

class BackwardDataAsForward final : public ConvStrategy {
public:
    // `forwards`: one strategy per phase with taps, in the order of
    // backward_data_phases(shapes).phases, each created for that phase's forward problem.
    // `filters_in_place`: the one phase's strategy reads the layer's filters
    // rotated in place (ConvShapes::weights_transposed): given them as they are.
    BackwardDataAsForward(std::shared_ptr<Context> context, const ConvShapes& shapes,
                          std::vector<std::unique_ptr<ConvStrategy>> forwards, bool filters_in_place = false);

    // Rotates each phase's sub-filter into a copy of its own and hands it to that phase's strategy (in place:
    // hands it the layer's filters).
    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                               internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    BackwardDataPhases phases_;
    std::vector<std::unique_ptr<ConvStrategy>> forwards_;  // per phase; null where the phase has no taps
    cl::Kernel rotate_, transpose_, scatter_, gather_pair_;
    std::vector<std::pair<std::size_t, std::size_t>> column_pairs_;  // (even, odd) phases gathered in one pass
    std::vector<Tensor> rotated_;
    bool filters_in_place_;
};

}  // namespace netcl
