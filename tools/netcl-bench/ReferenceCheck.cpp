#include "ReferenceCheck.hpp"

#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

#include "tests/support/ReferenceConv.hpp"

namespace netcl::bench {

namespace {

// One element of the result in the shapes' direction.
double reference_at(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& w,
                    const std::vector<float>& bias, const std::vector<float>& dy, std::size_t index) {
    switch (s.direction) {
        case ConvDirection::BACKWARD_DATA: return reference_conv_backward_data_at(s, dy, w, index);
        case ConvDirection::BACKWARD_WEIGHTS: return reference_conv_backward_weights_at(s, x, dy, index);
        default: return reference_conv_at(s, x, w, bias, index);
    }
}

// The reference at `indices`, split in one slice per hardware thread.
std::vector<double> parallel_reference(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& w,
                                       const std::vector<float>& bias, const std::vector<float>& dy,
                                       const std::vector<std::size_t>& indices) {
    const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t slice = (indices.size() + threads - 1) / threads;
    std::vector<std::future<std::vector<double>>> parts;
    for (std::size_t begin = 0; begin < indices.size(); begin += slice) {
        const std::size_t end = std::min(indices.size(), begin + slice);
        parts.push_back(std::async(std::launch::async, [&, begin, end] {
            if (s.direction == ConvDirection::FORWARD) {
                const std::vector<std::size_t> part(indices.begin() + begin, indices.begin() + end);
                return reference_conv_sampled(s, x, w, bias, part);
            }
            std::vector<double> values;
            values.reserve(end - begin);
            for (std::size_t i = begin; i < end; ++i) values.push_back(reference_at(s, x, w, bias, dy, indices[i]));
            return values;
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

// `count` indices in [0, total), the first and the last among them.
std::vector<std::size_t> sample_indices(std::size_t total, std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, total - 1);
    std::vector<std::size_t> indices{0, total - 1};
    while (indices.size() < count) indices.push_back(pick(rng));
    return indices;
}

}  // namespace

ReferenceCheck::ReferenceCheck(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& weights,
                               const std::vector<float>& bias, const std::vector<float>& dy,
                               const ReferencePolicy& policy) {
    const auto start = std::chrono::steady_clock::now();
    double per_element = 0;  // multiply-adds of one element's reference
    switch (s.direction) {
        case ConvDirection::FORWARD:
            total_ = static_cast<std::size_t>(s.output_numel());
            per_element = static_cast<double>(s.C / s.groups * s.T * s.R * s.S);
            break;
        case ConvDirection::BACKWARD_DATA:
            total_ = static_cast<std::size_t>(s.input_numel());
            per_element = static_cast<double>(s.K / s.groups * s.T * s.R * s.S);
            what_ = "dx elements";
            break;
        case ConvDirection::BACKWARD_WEIGHTS:
            total_ = static_cast<std::size_t>(s.weight_numel() + (s.bias ? s.K : 0));
            per_element = static_cast<double>(s.output_pixels());
            what_ = s.bias ? "dw and db elements" : "dw elements";
            break;
    }
    const double macs = static_cast<double>(total_) * per_element;
    // A weight gradient's element costs N*P*Q: sample no more than the full limit buys.
    const std::size_t samples =
        s.direction == ConvDirection::BACKWARD_WEIGHTS
            ? std::min(policy.samples, std::max<std::size_t>(64, static_cast<std::size_t>(policy.full_limit_macs / per_element)))
            : policy.samples;
    sampled_ = macs > policy.full_limit_macs && samples < total_;
    if (sampled_) {
        indices_ = s.direction == ConvDirection::FORWARD ? sample_output_indices(s, samples, /*seed=*/0x5eed)
                                                         : sample_indices(total_, samples, /*seed=*/0x5eed);
        expected_ = parallel_reference(s, x, weights, bias, dy, indices_);
    } else {
        std::vector<std::size_t> all(total_);
        std::iota(all.begin(), all.end(), std::size_t{0});
        expected_ = parallel_reference(s, x, weights, bias, dy, all);
    }
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string ReferenceCheck::describe() const {
    if (!sampled_) return "full (" + std::to_string(total_) + " " + what_ + ")";
    return "sampled " + std::to_string(expected_.size()) + " of " + std::to_string(total_) + " " + what_;
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
