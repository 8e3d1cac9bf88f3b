#include "Tuner.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>

#include "netcl/Conv2d.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "ops/Implementations.hpp"
#include "netcl/Error.hpp"
#include "runtime/EventTiming.hpp"

namespace netcl::tune {

namespace {

std::string label(Kernel kernel, const Variant& v) { return to_string(kernel) + " " + v.id; }

struct Reference {
    std::vector<std::size_t> indices;  // empty: every element
    std::vector<double> values;
};

// Nothing when the output matches; otherwise what is wrong.
std::optional<std::string> check(const std::vector<float>& y, const Reference& ref, double tolerance) {
    std::size_t non_finite = 0;
    for (const float v : y) non_finite += !std::isfinite(v);
    if (non_finite) return std::to_string(non_finite) + " output elements are NaN/Inf (unwritten or overflowed)";
    double worst = 0;
    std::size_t worst_index = 0;
    for (std::size_t i = 0; i < ref.values.size(); ++i) {
        const std::size_t index = ref.indices.empty() ? i : ref.indices[i];
        const double error = std::abs(static_cast<double>(y[index]) - ref.values[i]);
        if (error > worst) worst = error, worst_index = index;
    }
    if (worst > tolerance) {
        return "max error " + std::to_string(worst) + " at element " + std::to_string(worst_index) + " exceeds " +
               std::to_string(tolerance);
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::pair<Kernel, Variant>> all_candidates(const std::vector<Kernel>& strategies) {
    std::vector<std::pair<Kernel, Variant>> out;
    for (const Kernel k : strategies) {
        for (const Variant& v : variants_of(k)) out.emplace_back(k, v);
    }
    return out;
}

ShapeTiming tune_shape(const std::shared_ptr<Context>& context, const ConvShapes& s, const TuneOptions& options,
                       const std::function<void(const std::string&)>& progress) {
    s.validate();
    ShapeTiming result{s, {}};
    const auto x_host = random_uniform(static_cast<std::size_t>(s.input_numel()), options.seed);
    const auto w_host = random_uniform(static_cast<std::size_t>(s.weight_numel()), options.seed + 1);
    const auto b_host = s.bias ? random_uniform(static_cast<std::size_t>(s.K), options.seed + 2) : std::vector<float>{};

    Reference ref;
    if (s.direct_flops() <= options.full_reference_flops) {
        ref.values = reference_conv(s, x_host, w_host, b_host);
    } else {
        ref.indices = sample_output_indices(s, options.samples, options.seed + 3);
        ref.values = reference_conv_sampled(s, x_host, w_host, b_host, ref.indices);
    }

    const Tensor x = Tensor::from_host(context, x_host, {s.N, s.C, s.H, s.W});
    Tensor y = Tensor::empty(context, {s.N, s.K, s.P(), s.Q()});
    for (const auto& [kernel, variant] : all_candidates(options.strategies)) {
        const std::string name = label(kernel, variant);
        if (const auto reason = why_not(variant, s, context->profile())) {
            progress("  skip   " + name + ": " + *reason);
            continue;
        }
        try {
            Conv2dOptions o = Conv2dOptions::for_shapes(s);
            o.strategy = kernel;
            o.variant = variant;
            Conv2d conv(context, o);
            conv.set_weights(w_host, b_host);
            // Correct first: a poisoned output, one run, compared before any timing.
            y.fill(std::nanf(""));
            conv.forward(x, y);
            if (const auto wrong = check(y.to_host(), ref, conv_tolerance(s, tolerance_factor(variant)))) {
                progress("  WRONG  " + name + ": " + *wrong + " (not recorded)");
                continue;
            }
            for (int i = 0; i < options.warmup; ++i) conv.forward(x, y);
            context->finish();
            std::vector<double> samples;
            for (int i = 0; i < options.repeats; ++i) {
                conv.forward(x, y);
                samples.push_back(device_span_ms(conv.last_events()));
            }
            const TimingSummary t = summarize(samples);
            result.correct.push_back({kernel, variant, t.median_ms});
            char line[256];
            std::snprintf(line, sizeof line, "  ok     %-60s %10.3f ms  (min %.3f, max %.3f)", name.c_str(), t.median_ms,
                          t.min_ms, t.max_ms);
            progress(line);
        } catch (const Error& e) {
            progress("  FAILED " + name + ": " + e.what() + " (not recorded)");
        }
    }
    return result;
}

}  // namespace netcl::tune
