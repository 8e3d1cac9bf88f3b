// CONV2D_WINOGRAD with separate transforms on netcl's GEMM engine (Lavin &
// Gray eq. 13 as batched GEMMs): each input tile transformed once for all K,
// the multiply at GEMM-engine speed, and small images (few tiles per K
// block, where the fused kernel starves) served as well as large ones.
#include "ops/ConvImplementation.hpp"
#include "ops/internal/Widen.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "ops/winograd_gemm/WinogradGemmConv.hpp"

namespace netcl {

namespace {

class WinogradGemmImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "winograd-gemm"; }
    Kernel kernel() const override { return Kernel::CONV2D_WINOGRAD; }
    // Backward data through its forward kernels, a stride phase at a time (ops/as_forward/).
    ProblemKinds problem_kinds() const override {
        // 3-D forward through the wino3d variants (the DEPTH build); 3-D backward
        // data as forward convolutions at stride 1 only (ops/as_forward/ says why).
        ProblemKinds kinds = ProblemKinds::forward_and_backward_data_as_forward_2d_float32();
        kinds.spatial_ranks = {2, 3};
        kinds.types = {DataType::FLOAT32, DataType::FLOAT16};
        kinds.transposed_filters = true;  // backward data's U transformed from the layer's filters rotated in place
        return kinds;
    }
    const std::vector<Variant>& variants() const override { return winograd_gemm_variants(); }
    std::optional<std::string> do_why_not(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        const WinogradTile t = *winograd_gemm_tile(v);
        if (s.spatial_rank != t.rank) {
            return v.id + " takes " + std::to_string(t.rank) + "-D layers; this one is " +
                   std::to_string(s.spatial_rank) + "-D";
        }
        if (t.rank == 3 && (s.T != t.r || s.R != t.r || s.S != t.r)) {
            const std::string rrr = std::to_string(t.r) + "x" + std::to_string(t.r) + "x" + std::to_string(t.r);
            return v.id + " takes " + rrr + " filters; this layer has " + std::to_string(s.T) + "x" +
                   std::to_string(s.R) + "x" + std::to_string(s.S);
        }
        if (s.stride_d != 1 || s.dilation_d != 1) return std::string("Winograd takes stride and dilation 1 in depth too");
        if (s.R != t.r || s.S != t.r) {
            const std::string rr = std::to_string(t.r) + "x" + std::to_string(t.r);
            return "F(" + std::to_string(t.m) + "x" + std::to_string(t.m) + "," + rr + ") takes " + rr +
                   " filters; this layer has " + std::to_string(s.R) + "x" + std::to_string(s.S);
        }
        if (s.stride_h != 1 || s.stride_w != 1) return std::string("Winograd takes stride 1");
        if (s.dilation_h != 1 || s.dilation_w != 1) return std::string("Winograd takes dilation 1");
        if (s.groups != 1) return std::string("separate-transform Winograd takes ungrouped layers");
        const WinogradGemmConfig c = winograd_gemm_config(t, s, profile);
        const std::size_t one_tile = static_cast<std::size_t>((s.C + s.K) * c.elements()) * sizeof(float);
        const std::size_t widened = c.widened_input_bytes(s);
        if (one_tile + widened > winograd_gemm_workspace_limit(profile)) {
            return "one tile's transforms need " + std::to_string(one_tile) + " bytes" +
                   (widened ? " beside the float32 copy of the half input's " + std::to_string(widened) : "") +
                   "; the workspace limit is " + std::to_string(winograd_gemm_workspace_limit(profile));
        }
        if (c.weight_bytes(s) / sizeof(float) >= 2147483647u) return std::string("U would have 2^31 elements or more");
        return std::nullopt;
    }
    std::string do_config(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_gemm_config(*winograd_gemm_tile(v), s, profile).str();
    }
    std::size_t do_workspace_bytes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_gemm_config(*winograd_gemm_tile(v), s, profile).workspace_bytes(s);
    }
    std::size_t do_persistent_bytes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_gemm_config(*winograd_gemm_tile(v), s, profile).weight_bytes(s);
    }
    // Tolerance multipliers; measured max error over a direct sum's
    // (netcl-bench --accuracy): VGG layers F(2x2) 0.2-0.4, F(4x4) 2.4-6,
    // F(6x6) 4-11; Vincent et al.'s 5x5 layers (N = 32) F(4x4,5x5) 4.0-4.4,
    // F(5x5,5x5) 94-99, F(9x9,5x5) 1.9-2.3 (1700-1900 with 13 real points).
    // The larger 5x5 tiles' error comes from their transforms more than from
    // the sum over C, so per term of the reduction (1e-6 x the factor each)
    // it is largest at C = 1 (netcl-bench --shape N,1,H,W,32,5,5,1,2):
    // F(5x5,5x5) 3.3-3.6e-5 (128 leaves 3.5x); F(9x9,5x5) 1.1-1.6e-5 at
    // 35x35 and 64x64 and 1.9e-5 at C = 3, 27x27 (8 leaves 8x), against
    // F(4x4,5x5)'s 3.2-3.8e-5: the quadratic factors make it the more
    // accurate of the two.
    double error_factor(const Variant& v) const override {
        const WinogradTile t = *winograd_gemm_tile(v);
        // 3-D: measured max error over the implicit GEMM's on v3d's conv2-5
        // (netcl-bench, N = 1): F(2x2x2) 0.2-0.3x, F(4x4x4) 3.0-4.8x, within
        // 2-D F(2x2)'s and F(4x4)'s ranges above, so the same factors.
        if (t.rank == 3) return t.m == 2 ? 4.0 : 16.0;
        if (t.r == 5) return t.m == 4 ? 16.0 : t.m == 5 ? 128.0 : 8.0;
        return t.m == 2 ? 4.0 : t.m == 4 ? 16.0 : 64.0;
    }
    std::vector<ProgramSpec> do_programs(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        const WinogradGemmConfig c = winograd_gemm_config(*winograd_gemm_tile(v), s, profile);
        if (c.widens_input) return {c.transforms_program(), c.gemm_program(), internal::widen_program()};
        return {c.transforms_program(), c.gemm_program()};
    }
    std::vector<std::string> do_tile_prefixes(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        return {winograd_gemm_config(*winograd_gemm_tile(v), s, profile).tile.prefix};
    }
    std::vector<std::string> profile_keys() const override { return winograd_gemm_profile_keys(); }
    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant& v, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        return std::make_unique<WinogradGemmConv>(std::move(context), shapes,
                                                  winograd_gemm_config(*winograd_gemm_tile(v), shapes, profile));
    }
};

}  // namespace

const ConvImplementation& winograd_gemm_implementation() {
    static const WinogradGemmImplementation instance;
    return instance;
}

}  // namespace netcl
