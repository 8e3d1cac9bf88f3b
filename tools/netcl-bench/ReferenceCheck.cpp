#include "ReferenceCheck.hpp"

#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <numeric>
#include <thread>

#include "tests/support/ReferenceConv.hpp"

namespace netcl::bench {

namespace {

// reference_conv_sampled over `indices`, split in one slice per hardware thread.
std::vector<double> parallel_reference(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& w,
                                       const std::vector<float>& bias, const std::vector<std::size_t>& indices) {
    const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t slice = (indices.size() + threads - 1) / threads;
    std::vector<std::future<std::vector<double>>> parts;
    for (std::size_t begin = 0; begin < indices.size(); begin += slice) {
        const std::size_t end = std::min(indices.size(), begin + slice);
        parts.push_back(std::async(std::launch::async, [&, begin, end] {
            const std::vector<std::size_t> part(indices.begin() + begin, indices.begin() + end);
            return reference_conv_sampled(s, x, w, bias, part);
        }));
    }
    std::vector<double> result;
    result.reserve(indices.size());
    for (auto& part : parts) {
        const auto values = part.get();
        result.insert(result.end(), values.begin(), values.end());
    }
    return result;
}

}  // namespace

ReferenceCheck::ReferenceCheck(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& weights,
                               const std::vector<float>& bias,
                               const ReferencePolicy& policy) {
    const auto start = std::chrono::steady_clock::now();
    total_ = static_cast<std::size_t>(s.output_numel());
    const double macs = static_cast<double>(total_) * static_cast<double>(s.C / s.groups * s.R * s.S);
    sampled_ = macs > policy.full_limit_macs && policy.samples < total_;
    if (sampled_) {
        indices_ = sample_output_indices(s, policy.samples, /*seed=*/0x5eed);
        expected_ = parallel_reference(s, x, weights, bias, indices_);
    } else {
        std::vector<std::size_t> all(total_);
        std::iota(all.begin(), all.end(), std::size_t{0});
        expected_ = parallel_reference(s, x, weights, bias, all);
    }
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string ReferenceCheck::describe() const {
    if (!sampled_) return "full (" + std::to_string(total_) + " outputs)";
    return "sampled " + std::to_string(expected_.size()) + " of " + std::to_string(total_) + " outputs";
}

double ReferenceCheck::max_error(const std::vector<float>& output) const {
    if (output.size() != total_) return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (std::size_t i = 0; i < expected_.size(); ++i) {
        const float value = output[indices_.empty() ? i : indices_[i]];
        if (!std::isfinite(value)) return std::numeric_limits<double>::infinity();
        worst = std::max(worst, std::abs(static_cast<double>(value) - expected_[i]));
    }
    return worst;
}

double ReferenceCheck::max_abs_reference() const {
    double largest = 0;
    for (const double value : expected_) largest = std::max(largest, std::abs(value));
    return largest;
}

}  // namespace netcl::bench
