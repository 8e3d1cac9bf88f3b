// Tiny layers: too little work to pay for im2col's extra pass or Winograd's
// transforms; one direct kernel launch is cheapest.
#include "selector/Thresholds.hpp"
#include "selector/internal/RuleFactories.hpp"

namespace netcl::detail {

namespace {

class TinyLayerRule final : public BuiltinRule {
public:
    std::string name() const override { return "tiny-layer"; }
    RuleVerdict evaluate(const ConvShapes& s, const DeviceProfile& profile) const override {
        const double max_flops = threshold(profile, threshold_key::naive_max_flops);
        const double max_pixels = threshold(profile, threshold_key::naive_max_output_pixels);
        const double pixels = static_cast<double>(s.O() * s.P() * s.Q());  // O = 1 in 2-D
        const std::string output = (s.spatial_rank == 3 ? std::to_string(s.O()) + "x" : std::string()) +
                                   std::to_string(s.P()) + "x" + std::to_string(s.Q());
        if (s.direct_flops() < max_flops) {
            return accept_best(Kernel::CONV2D_NAIVE, s, profile,
                          "tiny layer: " + number(s.direct_flops()) + " flops < naive_max_flops " + number(max_flops));
        }
        if (pixels <= max_pixels) {
            return accept_best(Kernel::CONV2D_NAIVE, s, profile,
                          "tiny image: output " + output + " <= naive_max_output_pixels " + number(max_pixels) + " (no tiles or GEMM width to fill)");
        }
        return reject(number(s.direct_flops()) + " flops >= naive_max_flops " + number(max_flops) + " and output " +
                      output + " > naive_max_output_pixels " + number(max_pixels));
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_tiny_layer_rule() { return std::make_unique<TinyLayerRule>(); }

}  // namespace netcl::detail
