#include "ops/as_forward/BackwardDataAsForward.hpp"

#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "backward data as forward";
constexpr const char* kRotate = "rotate_filters";
constexpr const char* kTranspose = "transpose_filters";  // a one-tap filter's rotation, a 16 x 16 tile a work-group
constexpr std::size_t kTransposeBlock = 16;
constexpr const char* kScatterFile = "stride_phases";
constexpr const char* kScatter = "scatter_phase";
constexpr const char* kGatherPair = "gather_phase_pair";
// The rotation: a work-item a channel's run of 16 filters (kernels_cl/rotate_filters.cl), 16 channels a work-group.
constexpr std::size_t kRotateRun = 16;
constexpr std::size_t kRotateGroup = 16;
// Along a phase's row (dim 0) for runs of reads; 64 work-items as elsewhere.
const cl::NDRange kScatterLocal{16, 4, 1};
// Runs of 32 columns a work-item, already vectors: 4 rows a work-group.
const cl::NDRange kGatherLocal{1, 4, 1};

std::size_t round_up(std::int64_t n, std::size_t m) { return (static_cast<std::size_t>(n) + m - 1) / m * m; }
}  // namespace

// Both move the layer's elements unchanged, so they run in its dtype: the
// rotated filters and the phases' outputs are stored as the layer stores.
ProgramSpec filter_rotation_program(DataType type) {
    return {kRotate, internal::storage_source() + embedded_source(kRotate),
            internal::storage_options(type) + " -DRUN=" + std::to_string(kRotateRun),
            {{kRotate, {kRotateGroup, 1, 1}}, {kTranspose, {kTransposeBlock, kTransposeBlock, 1}}}};
}

ProgramSpec stride_phases_program(DataType type) {
    return {kScatterFile, internal::storage_source() + embedded_source(kScatterFile), internal::storage_options(type),
            {{kScatter, {16, 4, 1}}, {kGatherPair, {1, 4, 1}}}};
}

BackwardDataAsForward::BackwardDataAsForward(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                             std::vector<std::unique_ptr<ConvStrategy>> forwards,
                                             bool filters_in_place)
    : context_(std::move(context)), shapes_(shapes), phases_(backward_data_phases(shapes)),
      filters_in_place_(filters_in_place) {
    if (filters_in_place_ && !phases_.whole_filter) {
        throw Error("internal: backward data reads the filters in place only where one phase takes the whole filter");
    }
    std::size_t next = 0;
    for (const BackwardDataPhase& p : phases_.phases) {
        forwards_.push_back(p.has_taps() ? std::move(forwards.at(next++)) : nullptr);
    }
    if (next != forwards.size()) throw Error("internal: backward data as forward got a strategy per phase too many");
    if (!filters_in_place_) {
        const ProgramSpec rotate = filter_rotation_program(shapes_.dtype);
        const cl::Program program = context_->programs().get_source(rotate.label, rotate.source, rotate.options);
        rotate_ = internal::make_kernel(program, kRotate);
        transpose_ = internal::make_kernel(program, kTranspose);
    }
    if (!phases_.direct) {
        const ProgramSpec scatter = stride_phases_program(shapes_.dtype);
        const cl::Program program = context_->programs().get_source(scatter.label, scatter.source, scatter.options);
        scatter_ = internal::make_kernel(program, kScatter);
        gather_pair_ = internal::make_kernel(program, kGatherPair);
        // Under stride_w 2, a row phase's two column phases (first columns 0 and 1, in either order in the
        // list) are interleaved in one pass; every other phase is scattered on its own.
        for (std::size_t n = 0; shapes_.stride_w == 2 && n + 1 < phases_.phases.size(); ++n) {
            const BackwardDataPhase& p = phases_.phases[n];
            const BackwardDataPhase& q = phases_.phases[n + 1];
            const bool firsts_0_and_1 =
                (p.cols.first == 0 && q.cols.first == 1) || (p.cols.first == 1 && q.cols.first == 0);
            if (p.a != q.a || !firsts_0_and_1) continue;
            column_pairs_.push_back(p.cols.first == 0 ? std::pair{n, n + 1} : std::pair{n + 1, n});
            ++n;
        }
    }
    rotated_.resize(phases_.phases.size());
}

void BackwardDataAsForward::set_weights(const Tensor& weights, const Tensor*, internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    ConvShapes without_bias = s;
    without_bias.bias = false;  // dgrad reads no bias
    internal::check_weights(kName, without_bias, weights, nullptr);
    if (filters_in_place_) {
        // The one phase's strategy reads the rotation (at 1x1 a transpose within each group) in place.
        for (const auto& forward : forwards_) {
            if (forward) forward->set_weights(weights, nullptr, chain);
        }
        return;
    }
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    for (std::size_t n = 0; n < phases_.phases.size(); ++n) {
        const BackwardDataPhase& p = phases_.phases[n];
        if (!p.has_taps()) continue;
        const std::int64_t taps_r = p.rows.taps, taps_s = p.cols.taps;
        // Made once: a later set_weights rewrites it after the layer's previous
        // run of this shape (Conv2d orders it so).
        if (!rotated_[n].defined()) {
            rotated_[n] = Tensor::empty(context_, p.forward.weight_shape(), s.dtype);
        }
        // 3-D (stride 1, one phase): depth and rows as one axis of T·R rows, whose reversal
        // reverses both, the kernel's rotation unchanged.
        const std::int64_t depth = s.spatial_rank == 3 ? s.T : 1;
        if (depth * s.R * s.S == 1) {
            const std::int64_t cg = s.C / s.groups, kg = s.K / s.groups;
            internal::set_args(transpose_, kTranspose, weights.buffer(), internal::offset_of(weights),
                               rotated_[n].buffer(), i(s.K), i(cg), i(s.groups));
            internal::launch(context_->queue(), transpose_, kTranspose,
                             cl::NDRange(round_up(cg, kTransposeBlock), round_up(kg, kTransposeBlock),
                                         static_cast<std::size_t>(s.groups)),
                             cl::NDRange(kTransposeBlock, kTransposeBlock, 1), chain);
        } else {
            internal::set_args(rotate_, kRotate, weights.buffer(), internal::offset_of(weights),
                               rotated_[n].buffer(), i(s.K), i(s.C / s.groups), i(depth * s.R), i(s.S),
                               i(s.groups), i(p.a), i(p.b), i(s.stride_h), i(s.stride_w), i(depth * taps_r),
                               i(taps_s));
            internal::launch(context_->queue(), rotate_, kRotate,
                             cl::NDRange(round_up(s.C / s.groups, kRotateGroup),
                                         round_up(s.K / s.groups, kRotateRun) / kRotateRun,
                                         static_cast<std::size_t>(s.groups)),
                             cl::NDRange(kRotateGroup, 1, 1), chain);
        }
        forwards_[n]->set_weights(rotated_[n], nullptr, chain);
    }
}

void BackwardDataAsForward::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: a backward-data strategy was asked to run forward");
}

void BackwardDataAsForward::enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                                                  internal::EventChain& chain) {
    internal::check_io(kName, shapes_, dx, dy);
    if (phases_.direct) {
        forwards_.front()->enqueue(dy, dx, workspace, chain);  // the forward problem's input is dy, its output dx
        return;
    }
    const ConvShapes& s = shapes_;
    const std::size_t scratch_bytes = phases_.scratch_floats() * sizeof(float);
    if (workspace.bytes < scratch_bytes || !workspace.buffer()) {
        throw Error(std::string(kName) + ": needs a workspace of at least " + std::to_string(scratch_bytes) +
                    " bytes for the stride phases; got " + std::to_string(workspace.bytes));
    }
    // The phases' own forward workspaces follow the scratch.
    const Workspace rest{workspace.buffer, workspace.offset_bytes + scratch_bytes, workspace.bytes - scratch_bytes};
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    // Every phase's forward output into the scratch, then into dx.
    std::vector<cl_ulong> part_offsets(phases_.phases.size(), 0);
    for (std::size_t n = 0; n < phases_.phases.size(); ++n) {
        const BackwardDataPhase& p = phases_.phases[n];
        if (!p.has_taps()) continue;
        const std::size_t offset_bytes = workspace.offset_bytes + phases_.scratch_offset(n) * sizeof(float);
        const Tensor part = Tensor::view(context_, workspace.buffer(), offset_bytes,
                                         {s.N, s.C, p.rows.length, p.cols.length}, s.dtype);
        forwards_[n]->enqueue(dy, part, rest, chain);
        part_offsets[n] = internal::offset_of(part);
    }
    std::vector<bool> moved(phases_.phases.size(), false);
    for (const auto& [e, o] : column_pairs_) {
        const BackwardDataPhase& even = phases_.phases[e];
        const BackwardDataPhase& odd = phases_.phases[o];
        internal::set_args(gather_pair_, kGatherPair, workspace.buffer, part_offsets[e], i(even.has_taps()),
                           i(even.cols.length), i(even.cols.skip), part_offsets[o], i(odd.has_taps()),
                           i(odd.cols.length), i(odd.cols.skip), i(even.rows.length), i(even.rows.skip), dx.buffer(),
                           internal::offset_of(dx), i(s.N * s.C), i(s.H), i(s.W), i(even.rows.first), i(s.stride_h),
                           i(even.rows.count));
        internal::launch(context_->queue(), gather_pair_, kGatherPair,
                         cl::NDRange(static_cast<std::size_t>((s.W + 31) / 32), round_up(even.rows.count, 4),
                                     static_cast<std::size_t>(s.N * s.C)),
                         kGatherLocal, chain);
        moved[e] = moved[o] = true;
    }
    for (std::size_t n = 0; n < phases_.phases.size(); ++n) {
        const BackwardDataPhase& p = phases_.phases[n];
        if (moved[n]) continue;
        const cl_ulong part_offset = part_offsets[n];
        const cl::Buffer& source = workspace.buffer;  // unread without taps
        internal::set_args(scatter_, kScatter, source, part_offset, i(p.has_taps()), i(p.rows.length),
                           i(p.cols.length), i(p.rows.skip), i(p.cols.skip), dx.buffer(), internal::offset_of(dx),
                           i(s.N * s.C), i(s.H), i(s.W), i(p.rows.first), i(p.cols.first), i(s.stride_h),
                           i(s.stride_w), i(p.rows.count), i(p.cols.count));
        internal::launch(context_->queue(), scatter_, kScatter,
                         cl::NDRange(round_up(p.cols.count, 16), round_up(p.rows.count, 4),
                                     static_cast<std::size_t>(s.N * s.C)),
                         kScatterLocal, chain);
    }
}

}  // namespace netcl
