#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"

namespace netcl::bench {

// How much of a layer's result is checked against the fp64 reference: all of
// it when the reference costs at most `full_limit_macs` multiply-adds, else
// `samples` elements (corners included; for weight gradients, whose every
// element sums over N x P x Q, no more than `full_limit_macs` buys).
struct ReferencePolicy {
    double full_limit_macs = 2e9;
    std::size_t samples = 20000;
};

// The fp64 reference of one layer's result in the shapes' direction (or a
// sample of it), computed once on the host across the CPU's cores, and the
// error of any fp32 result: y forward, dx backward data, dw then db (with a
// bias) backward weights.
class ReferenceCheck {
public:
    ReferenceCheck(const ConvShapes& shapes, const std::vector<float>& x, const std::vector<float>& weights,
                   const std::vector<float>& bias, const std::vector<float>& dy, const ReferencePolicy& policy);

    bool sampled() const { return sampled_; }
    std::size_t checked() const { return expected_.size(); }
    std::size_t total() const { return total_; }
    double seconds() const { return seconds_; }
    // "full (802816 outputs)" or "sampled 20000 of 3211264 outputs" (or "dx elements", "dw/db elements")
    std::string describe() const;

    // Largest |output - reference| over the checked elements; infinity when
    // any of them is NaN or Inf (an unwritten, NaN-poisoned element).
    double max_error(const std::vector<float>& output) const;
    // Largest |reference| over the checked elements (Vincent et al.'s
    // relative error is max_error / max_abs_reference).
    double max_abs_reference() const;

private:
    bool sampled_ = false;
    std::size_t total_ = 0;
    std::vector<std::size_t> indices_;  // empty: every output, in order
    std::vector<double> expected_;
    double seconds_ = 0;
    std::string what_ = "outputs";
};

}  // namespace netcl::bench
