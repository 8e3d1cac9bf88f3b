#include "ops/winograd_gemm/WinogradGemmConv.hpp"

#include <algorithm>

#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Widen.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "winograd-gemm";

cl::Program build(Context& context, const ProgramSpec& spec) {
    return context.programs().get_source(spec.label, spec.source, spec.options);
}
}  // namespace

WinogradGemmConv::WinogradGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                   const WinogradGemmConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const cl::Program transforms = build(*context_, config_.transforms_program());
    weights_kernel_ = internal::make_kernel(transforms, "winograd_gemm_weights");
    const char* kind = config_.transposed ? "_channels" : config_.row_lanes != 0 ? "_rows" : "";
    input_name_ = "winograd_gemm_input" + std::string(kind);
    output_name_ = "winograd_gemm_output" + std::string(kind);
    input_kernel_ = internal::make_kernel(transforms, input_name_.c_str());
    output_kernel_ = internal::make_kernel(transforms, output_name_.c_str());
    gemm_kernel_ = internal::make_kernel(build(*context_, config_.gemm_program()), "gemm");
    if (config_.widens_input) {
        widen_kernel_ = internal::make_kernel(build(*context_, internal::widen_program()), "widen_to_float");
    }
    // Allocated with the strategy (a layer that cannot hold it falls back before enqueueing anything).
    u_ = Tensor::empty(context_, {config_.elements(), config_.u_plane(shapes_)},
                       config_.half_u ? DataType::FLOAT16 : DataType::FLOAT32);
}

void WinogradGemmConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    internal::set_args(weights_kernel_, "winograd_gemm_weights", weights.buffer(), internal::offset_of(weights),
                       u_.buffer(), static_cast<int>(s.C), static_cast<int>(s.K));
    const auto channels = static_cast<std::size_t>(s.C), columns = static_cast<std::size_t>(config_.u_columns(s));
    internal::launch(context_->queue(), weights_kernel_, "winograd_gemm_weights",
                     config_.transposed ? cl::NDRange(columns, channels) : cl::NDRange(channels, columns),
                     cl::NDRange(config_.weights_work_group()[0], 1), chain);
    bias_ = s.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void WinogradGemmConv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "winograd-gemm: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= config_.workspace_bytes(shapes_) &&
                      workspace.offset_bytes % sizeof(float) == 0,
                  "winograd-gemm: the workspace is missing or smaller than the " +
                      std::to_string(config_.workspace_bytes(shapes_)) + " bytes it declared");
    const ConvShapes& s = shapes_;
    const auto m_offset = static_cast<cl_ulong>(workspace.offset_bytes / sizeof(float) +
                                                config_.tiles_per_pass * s.C * config_.elements());
    const Tensor& bias = s.bias ? bias_ : u_;  // never read without a bias
    const std::int64_t images = config_.images_per_chunk;
    const auto image_in = static_cast<std::size_t>(s.input_numel() / s.N);
    const auto image_out = static_cast<cl_ulong>(s.output_numel() / s.N);
    for (std::int64_t chunk = 0; chunk < config_.chunks; ++chunk) {
        const std::int64_t n0 = chunk * images;
        // A widened float16 input is transformed from its float32 copy after V and M (kernels_cl/widen.cl).
        cl::Buffer input = x.buffer();
        cl_ulong input_offset = internal::offset_of(x) + static_cast<cl_ulong>(n0 * image_in);
        if (config_.widens_input) {
            input = workspace.buffer;
            input_offset = m_offset + static_cast<cl_ulong>(config_.tiles_per_pass * s.K * config_.elements());
            internal::enqueue_widen(context_->queue(), widen_kernel_, x, static_cast<std::size_t>(n0) * image_in,
                                    static_cast<std::size_t>(images) * image_in, input, input_offset, chain);
        }
        enqueue_chunk(input, input_offset, y, internal::offset_of(y) + static_cast<cl_ulong>(n0) * image_out, bias,
                      workspace, chain);
    }
}

void WinogradGemmConv::enqueue_chunk(const cl::Buffer& input, cl_ulong input_offset, const Tensor& y,
                                     cl_ulong y_offset, const Tensor& bias, const Workspace& workspace,
                                     internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    const int m = config_.m, a2 = config_.elements();
    const bool deep = config_.rank == 3;
    const std::int64_t tiles_w = (s.Q() + m - 1) / m, tiles_hw = tiles_w * ((s.P() + m - 1) / m);
    const std::int64_t tiles_per_image = tiles_hw * ((s.O() + m - 1) / m);
    const auto v_offset = static_cast<cl_ulong>(workspace.offset_bytes / sizeof(float));
    const cl_ulong m_offset = v_offset + static_cast<cl_ulong>(config_.tiles_per_pass * s.C * a2);
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    std::int64_t tile0 = 0;
    for (std::int64_t p = 0; p < config_.passes; ++p) {
        const std::int64_t T = config_.tiles / config_.passes + (p < config_.tiles % config_.passes ? 1 : 0);
        // The row kernels: the pass's tile rows (its first and last may be partial), in groups of row_lanes tiles.
        const std::int64_t lanes = config_.row_lanes, row0 = tile0 / tiles_w, rows = (tile0 + T - 1) / tiles_w - row0 + 1,
                           groups_per_row = (tiles_w + lanes - 1) / std::max<std::int64_t>(lanes, 1),
                           groups = rows * groups_per_row, tiles_h = tiles_hw / tiles_w;
        // The one-tile kernels and the channel ones (transposed) take the same
        // arguments: a work-item is a tile of one channel, or of tile.vw; the
        // tiles along dim0 but in the channel input transform (whose
        // consecutive work-items share a tile's input rows:
        // kernels_cl/winograd_gemm_channels.cl).
        const bool tr = config_.transposed;
        const auto one_tile_range = [&](std::int64_t channels, bool tiles_first) {
            const auto groups = static_cast<std::size_t>(tr ? (channels + config_.tile.vw - 1) / config_.tile.vw : channels);
            const auto tiles = static_cast<std::size_t>(T);
            return tiles_first ? cl::NDRange(tiles, groups) : cl::NDRange(groups, tiles);
        };
        const cl::NDRange one_tile_group = tr ? cl::NDRange(1, 1) : cl::NDRange(16, 4);
        if (lanes) {
            internal::set_args(input_kernel_, "winograd_gemm_input_rows", input, input_offset,
                               workspace.buffer, v_offset, i(config_.images_per_chunk), i(s.C), i(s.H), i(s.W), i(s.pad_top), i(s.pad_left),
                               i(tiles_w), i(tiles_h), i(tile0), i(T), i(groups_per_row), i(row0), i(groups));
            internal::launch(context_->queue(), input_kernel_, "winograd_gemm_input_rows",
                             cl::NDRange(static_cast<std::size_t>(groups), static_cast<std::size_t>(s.C)),
                             cl::NDRange(1, 4), chain);
        } else if (deep) {  // the DEPTH build's transforms, 8 tiles a work-item: the plane arguments too
            internal::set_args(input_kernel_, input_name_.c_str(), input, input_offset,
                               workspace.buffer, v_offset, i(s.C), i(s.H), i(s.W), i(s.pad_top), i(s.pad_left),
                               i(tiles_w), i(tiles_per_image), i(tile0), i(T), i(s.D), i(s.pad_front), i(tiles_h));
            // kernels_cl/winograd_gemm.cl's 3-D transforms: 8 tiles a work-item.
            internal::launch(context_->queue(), input_kernel_, input_name_.c_str(),
                             cl::NDRange(static_cast<std::size_t>((T + 7) / 8), static_cast<std::size_t>(s.C)),
                             cl::NDRange(1, 1), chain);
        } else {
            internal::set_args(input_kernel_, input_name_.c_str(), input, input_offset,
                               workspace.buffer, v_offset, i(s.C), i(s.H), i(s.W), i(s.pad_top), i(s.pad_left),
                               i(tiles_w), i(tiles_per_image), i(tile0), i(T));
            internal::launch(context_->queue(), input_kernel_, input_name_.c_str(), one_tile_range(s.C, !tr), one_tile_group,
                             chain);
        }
        // M_e[K x T] = U_e[K x C] V_e[C x T] for every e: one launch, batched
        // over e. Transposed, M_e^T[T x K] = V_e^T[T x C] U_e^T[C x K]: V
        // [e][T][C] row-major, U in panels of NR columns, M in channel groups
        // (kernels_cl/gemm.cl C_GROUP: [T][K / vw][e][vw], ldc = alpha^2 K).
        const std::int64_t gemm_rows = tr ? T : s.K, gemm_columns = tr ? s.K : T;
        const cl::Buffer& a_buffer = tr ? workspace.buffer : u_.buffer();
        const cl::Buffer& b_buffer = tr ? u_.buffer() : workspace.buffer;
        internal::set_args(gemm_kernel_, "gemm", a_buffer, tr ? v_offset : cl_ulong{0}, i(tr ? s.C * T : s.K * s.C),
                           b_buffer, tr ? cl_ulong{0} : v_offset, i(tr ? config_.u_plane(s) : s.C * T),
                           workspace.buffer, m_offset, i(tr ? 0 : s.K * T), u_.buffer(), cl_ulong{0}, i(gemm_rows),
                           i(gemm_columns), i(s.C), i(s.C), i(tr ? config_.tile.nr() : T), i(tr ? a2 * s.K : T));
        const std::int64_t nr = config_.tile.nr(), mr = config_.tile.mr;
        internal::launch(context_->queue(), gemm_kernel_, "gemm",
                         cl::NDRange(static_cast<std::size_t>((gemm_columns + nr - 1) / nr),
                                     static_cast<std::size_t>((gemm_rows + mr - 1) / mr), static_cast<std::size_t>(a2)),
                         cl::NDRange(config_.tile.work_group[0], config_.tile.work_group[1], 1), chain);
        if (lanes) {
            internal::set_args(output_kernel_, "winograd_gemm_output_rows", workspace.buffer, m_offset, y.buffer(),
                               y_offset, bias.buffer(), internal::offset_of(bias), i(s.bias ? 1 : 0),
                               i(s.K), i(s.P()), i(s.Q()), i(tiles_w), i(tiles_h), i(tile0), i(T), i(groups_per_row),
                               i(row0), i(groups));
            internal::launch(context_->queue(), output_kernel_, "winograd_gemm_output_rows",
                             cl::NDRange(static_cast<std::size_t>(groups), static_cast<std::size_t>(s.K)),
                             cl::NDRange(1, 4), chain);
        } else if (deep) {
            internal::set_args(output_kernel_, output_name_.c_str(), workspace.buffer, m_offset, y.buffer(),
                               y_offset, bias.buffer(), internal::offset_of(bias), i(s.bias ? 1 : 0),
                               i(s.K), i(s.P()), i(s.Q()), i(tiles_w), i(tiles_per_image), i(tile0), i(T), i(s.O()),
                               i(tiles_h));
            internal::launch(context_->queue(), output_kernel_, output_name_.c_str(),
                             cl::NDRange(static_cast<std::size_t>((T + 7) / 8), static_cast<std::size_t>(s.K)),
                             cl::NDRange(1, 1), chain);
        } else {
            internal::set_args(output_kernel_, output_name_.c_str(), workspace.buffer, m_offset, y.buffer(),
                               y_offset, bias.buffer(), internal::offset_of(bias), i(s.bias ? 1 : 0),
                               i(s.K), i(s.P()), i(s.Q()), i(tiles_w), i(tiles_per_image), i(tile0), i(T));
            internal::launch(context_->queue(), output_kernel_, output_name_.c_str(), one_tile_range(s.K, true),
                             one_tile_group, chain);
        }
        tile0 += T;
    }
}

}  // namespace netcl
