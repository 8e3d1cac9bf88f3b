// Winograd for the layers its implementations can take (they say which:
// filter size, stride, dilation, local and constant memory) once C and K are
// large enough to amortise the input and output transforms over the
// reduction (Lavin & Gray §5: the transform cost is shared by K filters and
// C channels).
#include <algorithm>

#include "selector/Thresholds.hpp"
#include "selector/VariantChoice.hpp"
#include "selector/internal/RuleFactories.hpp"

namespace netcl::detail {

namespace {

class WinogradRule final : public BuiltinRule {
public:
    std::string name() const override { return "winograd"; }
    RuleVerdict evaluate(const ConvShapes& s, const DeviceProfile& profile) const override {
        const VariantChoice choice = best_variant(Kernel::CONV2D_WINOGRAD, s, profile);
        if (!choice.variant) return reject("no Winograd variant takes this layer: " + choice.why_not);
        if (s.groups != 1) return reject("Winograd rule takes ungrouped layers; groups = " + std::to_string(s.groups));
        const double min_c = threshold(profile, threshold_key::winograd_min_channels);
        const double min_k = threshold(profile, threshold_key::winograd_min_filters);
        if (s.C < min_c) {
            return reject("C = " + std::to_string(s.C) + " < winograd_min_channels " + number(min_c) +
                          ": too few channels to amortise the transforms");
        }
        if (s.K < min_k) {
            return reject("K = " + std::to_string(s.K) + " < winograd_min_filters " + number(min_k) +
                          ": too few filters to amortise the input transform");
        }
        // 3-D: the transforms cost (C + K) per tile against the multiply's
        // C x K. On v3d's conv2 (C = 32, K = 64; 2 Zen 3 cores, N = 1)
        // F(4x4x4) ran in 35 ms against the implicit GEMM's 72 once its
        // transforms took 8 tiles a work-item (77 ms before); below 32
        // channels nothing was measured, so the direct GEMM keeps them. Not
        // the weight gradient, whose 2-D tiles run on the depth taps as C·T
        // channels (ops/as_2d/).
        if (s.spatial_rank == 3 && s.direction != ConvDirection::BACKWARD_WEIGHTS) {
            const double min_3d = threshold(profile, threshold_key::winograd3d_min_channels);
            if (static_cast<double>(std::min(s.C, s.K)) < min_3d) {
                return reject("min(C, K) = " + std::to_string(std::min(s.C, s.K)) + " < winograd3d_min_channels " +
                              number(min_3d) + ": too few channels to amortise the 3-D transforms");
            }
        }
        // Tiles multiply the weights (F(4x4): 36 transformed values per 9), and
        // on a small image few tiles share them, so a profile may pass over
        // small outputs altogether (res5.3x3 on Zen 5 before the transposed
        // multiply: wino-f4-gemm 1.73 ms, wino-f2-gemm 1.11, implicit-gemm
        // 0.83; on Zen 4 after it F(2x2) 0.87 against the implicit GEMM's
        // 1.78, so the AVX-512 PoCL profile now picks the tile by
        // winograd_f4_min_tiles instead, VariantChoice.cpp).
        const double min_out = threshold(profile, threshold_key::winograd_min_output);
        if (static_cast<double>(std::min(s.P(), s.Q())) < min_out) {
            return reject("output " + std::to_string(s.P()) + "x" + std::to_string(s.Q()) +
                          " < winograd_min_output " + number(min_out) +
                          ": too few tiles to share the transformed weights");
        }
        // Where the weights are new every run (a training forward, backward data), U is transformed every
        // step, F(2x2)'s 16 values a 3x3 filter; over few tiles the GEMM engine's direct product, reading
        // the weights as they are, costs less. On 2 Xeon cores (pocl-cpu-avx512-intel, netcl-bench
        // --direction train, one interleaved run, ms F(2x2) / im2col-gemm), res5's 3x3 at 7x7 (C = K = 512)
        // forward N = 1 (16 F(2x2) tiles) 5.50 / 2.90, N = 2 (32) 5.40 / 4.40, N = 4 (64) 7.01 / 8.60;
        // backward data 6.96 / 4.82, 7.43 / 6.65, 8.56 / 9.81; res4's at 14x14 (256) N = 1 (49) 1.61 / 2.10.
        // 3x3 filters only, as measured; the 3-D tiles keep their own rules (winograd3d_*).
        if (auto why = few_columns_backward_data_first_on_col2im(s, profile)) return reject(*why);
        const double min_training_tiles = threshold(profile, threshold_key::winograd_training_min_tiles);
        const auto f2_tiles = static_cast<double>(s.N * ((s.P() + 1) / 2) * ((s.Q() + 1) / 2));
        if (s.spatial_rank == 2 && s.R == 3 && s.S == 3 && s.new_weights_every_run() &&
            f2_tiles < min_training_tiles) {
            return reject(number(f2_tiles) + " F(2x2) tiles in the batch < winograd_training_min_tiles " +
                          number(min_training_tiles) + ": too few to carry a U transformed every training step");
        }
        return accept(Kernel::CONV2D_WINOGRAD, *choice.variant,
                      "C = " + std::to_string(s.C) + " >= " + number(min_c) + " and K = " + std::to_string(s.K) +
                          " >= " + number(min_k) + "; " + winograd_tile_preference(s, profile) +
                          "; the profile's first variant the device can take" +
                          (choice.why_not.empty() ? "" : " (passed over: " + choice.why_not + ")"));
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_winograd_rule() { return std::make_unique<WinogradRule>(); }

}  // namespace netcl::detail
