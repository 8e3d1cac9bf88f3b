#include "Tuner.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>

#include "netcl/ConvLayer.hpp"
#include "tests/support/LayerFactory.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "ops/ConvImplementation.hpp"
#include "ops/Implementations.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
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

namespace {

// One layer's data and its fp64 reference in the layer's direction (y; dx;
// dw then db), made once for every candidate timed on it.
struct LayerCase {
    ConvShapes shapes;
    std::vector<float> w_host, b_host;
    Tensor x, dy;                 // what the direction reads besides the weights
    std::vector<Tensor> outputs;  // y; dx; dw and db
    Reference ref;

    std::vector<float> output() const {
        std::vector<float> all;
        for (const Tensor& t : outputs) {
            const auto values = t.to_host();
            all.insert(all.end(), values.begin(), values.end());
        }
        return all;
    }
};

LayerCase make_case(const std::shared_ptr<Context>& context, const ConvShapes& s, const TuneOptions& options) {
    s.validate();
    LayerCase c;
    c.shapes = s;
    const auto x_host = random_uniform(static_cast<std::size_t>(s.input_numel()), options.seed);
    c.w_host = random_uniform(static_cast<std::size_t>(s.weight_numel()), options.seed + 1);
    c.b_host = s.bias ? random_uniform(static_cast<std::size_t>(s.K), options.seed + 2) : std::vector<float>{};
    const auto dy_host = s.direction == ConvDirection::FORWARD
                             ? std::vector<float>{}
                             : random_uniform(static_cast<std::size_t>(s.output_numel()), options.seed + 4);
    const Tensor::Shape x_shape = s.input_shape(), y_shape = s.output_shape();
    const bool full = s.direct_flops() <= options.full_reference_flops;
    switch (s.direction) {
        case ConvDirection::FORWARD:
            if (full) {
                c.ref.values = reference_conv(s, x_host, c.w_host, c.b_host);
            } else {
                c.ref.indices = sample_output_indices(s, options.samples, options.seed + 3);
                c.ref.values = reference_conv_sampled(s, x_host, c.w_host, c.b_host, c.ref.indices);
            }
            c.outputs.push_back(Tensor::empty(context, y_shape));
            break;
        case ConvDirection::BACKWARD_DATA:
            if (full) {
                c.ref.values = reference_conv_backward_data(s, dy_host, c.w_host);
            } else {
                for (std::size_t i = 0; i < options.samples; ++i) {
                    c.ref.indices.push_back(i * 7919 % static_cast<std::size_t>(s.input_numel()));
                    c.ref.values.push_back(reference_conv_backward_data_at(s, dy_host, c.w_host, c.ref.indices.back()));
                }
            }
            c.outputs.push_back(Tensor::empty(context, x_shape));
            break;
        case ConvDirection::BACKWARD_WEIGHTS: {
            if (full) {
                const WeightGradients g = reference_conv_backward_weights(s, x_host, dy_host);
                c.ref.values = g.dw;
                c.ref.values.insert(c.ref.values.end(), g.db.begin(), g.db.end());
            } else {
                const auto total = static_cast<std::size_t>(s.weight_numel() + (s.bias ? s.K : 0));
                for (std::size_t i = 0; i < std::min<std::size_t>(options.samples, 256); ++i) {
                    c.ref.indices.push_back(i * 7919 % total);
                    c.ref.values.push_back(reference_conv_backward_weights_at(s, x_host, dy_host, c.ref.indices.back()));
                }
            }
            c.outputs.push_back(Tensor::empty(context, s.weight_shape()));
            if (s.bias) c.outputs.push_back(Tensor::empty(context, {s.K}));
            break;
        }
    }
    c.x = Tensor::from_host(context, x_host, x_shape);
    if (!dy_host.empty()) c.dy = Tensor::from_host(context, dy_host, y_shape);
    return c;
}

// One run of the layer's direction through `conv`.
void run_once(ConvLayer& conv, LayerCase& c) {
    switch (c.shapes.direction) {
        case ConvDirection::FORWARD: conv.forward(c.x, c.outputs[0]); break;
        case ConvDirection::BACKWARD_DATA: conv.backward_data(c.dy, c.outputs[0]); break;
        case ConvDirection::BACKWARD_WEIGHTS:
            conv.backward_weights(c.x, c.dy, c.outputs[0], c.shapes.bias ? &c.outputs[1] : nullptr);
            break;
    }
}

// The candidate's median device time on the layer, or why it has none
// (refused, wrong, failed): correct first, on a poisoned output, before any timing.
std::optional<TimingSummary> time_candidate(const std::shared_ptr<Context>& context, LayerCase& c, Kernel kernel,
                                            const Variant& variant, const TuneOptions& options, std::string& why) {
    const ConvShapes& s = c.shapes;
    // Against the profile a Conv2d plans with (the shipped files layered under
    // the device's own values), as netcl-bench asks: a variant the device's
    // profile turns off (nvidia-gpu's *_enabled = 0) is a skip with that
    // reason, not a FAILED line from the strict override's refusal.
    if (const auto reason = why_not(variant, s, KernelSelector::resolve_profile(context->profile()))) {
        why = "skip   " + label(kernel, variant) + ": " + *reason;
        return std::nullopt;
    }
    try {
        LayerOverrides strict;
        strict.strategy = kernel;
        strict.variant = variant;
        const auto layer = make_conv_layer(context, s, strict);  // a Conv2d, or a Conv3d
        ConvLayer& conv = *layer;
        if (s.direction != ConvDirection::BACKWARD_WEIGHTS) conv.set_weights(c.w_host, c.b_host);
        for (Tensor& t : c.outputs) t.fill(std::nanf(""));
        run_once(conv, c);
        if (const auto wrong = check(c.output(), c.ref, conv_tolerance(s, tolerance_factor(variant)))) {
            why = "WRONG  " + label(kernel, variant) + ": " + *wrong + " (not recorded)";
            return std::nullopt;
        }
        for (int i = 0; i < options.warmup; ++i) run_once(conv, c);
        context->finish();
        std::vector<double> samples;
        for (int i = 0; i < options.repeats; ++i) {
            const auto start = std::chrono::steady_clock::now();
            run_once(conv, c);
            if (conv.last_events_cover_the_run()) {
                samples.push_back(device_span_ms(conv.last_events()));
            } else {  // the events leave out a library's first commands: the wall clock covers them
                context->finish();
                samples.push_back(wall_ms_since(start));
            }
        }
        return summarize(samples);
    } catch (const Error& e) {
        why = "FAILED " + label(kernel, variant) + ": " + e.what() + " (not recorded)";
        return std::nullopt;
    }
}

}  // namespace

ShapeTiming tune_shape(const std::shared_ptr<Context>& context, const ConvShapes& s, const TuneOptions& options,
                       const std::function<void(const std::string&)>& progress) {
    LayerCase c = make_case(context, s, options);
    ShapeTiming result{s, {}};
    for (const auto& [kernel, variant] : all_candidates(options.strategies)) {
        std::string why;
        const auto t = time_candidate(context, c, kernel, variant, options, why);
        if (!t) {
            progress("  " + why);
            continue;
        }
        result.correct.push_back({kernel, variant, t->median_ms});
        char line[256];
        std::snprintf(line, sizeof line, "  ok     %-60s %10.3f ms  (min %.3f, max %.3f)", label(kernel, variant).c_str(),
                      t->median_ms, t->min_ms, t->max_ms);
        progress(line);
    }
    return result;
}

std::vector<GemmTile> gemm_tile_candidates() {
    std::vector<GemmTile> tiles;
    for (const int vw : {8, 16}) {
        for (const auto& [mr, nv] : std::vector<std::pair<int, int>>{{4, 2}, {6, 2}, {8, 2}, {8, 3}, {12, 2}}) {
            for (const auto& wg : std::vector<std::array<std::size_t, 2>>{{8, 2}, {4, 4}, {2, 8}}) {
                GemmTile t;
                t.mr = mr, t.nv = nv, t.vw = vw, t.work_group = wg;
                tiles.push_back(t);
            }
        }
    }
    return tiles;
}

std::map<std::string, TileChoice> tune_gemm_tiles(const std::shared_ptr<Context>& context,
                                                  const std::vector<ConvShapes>& layers,
                                                  const std::vector<GemmTile>& candidates, const TuneOptions& options,
                                                  const std::function<void(const std::string&)>& progress) {
    // Which (layer, variant) pairs build with which prefix's tile, under the profile as it stands.
    struct Use {
        std::size_t layer;
        Kernel kernel;
        Variant variant;
    };
    const DeviceProfile base = context->profile();
    std::map<std::string, std::vector<Use>> uses;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        for (const auto& [kernel, variant] : all_candidates(options.strategies)) {
            if (why_not(variant, layers[i], base)) continue;
            for (const auto& prefix : implementation_of(variant).tile_prefixes(variant, layers[i], base)) {
                uses[prefix].push_back({i, kernel, variant});
            }
        }
    }
    std::vector<LayerCase> cases;
    for (const auto& s : layers) cases.push_back(make_case(context, s, options));
    std::map<std::string, TileChoice> chosen;
    try {
        for (const auto& [prefix, list] : uses) {
            progress(prefix + ": " + std::to_string(candidates.size()) + " tiles on " + std::to_string(list.size()) +
                     " (layer, variant) pair(s)");
            TileChoice best;
            for (const GemmTile& tile : candidates) {
                DeviceProfile trial = base;
                set_gemm_tile(trial, prefix, tile);
                context->set_profile(trial);
                double total = 0;
                std::string why;
                for (const Use& u : list) {
                    const auto t = time_candidate(context, cases[u.layer], u.kernel, u.variant, options, why);
                    if (!t) break;
                    total += t->median_ms;
                }
                if (!why.empty()) {
                    progress("  " + tile.str() + ": " + why);
                    continue;
                }
                char line[256];
                std::snprintf(line, sizeof line, "  %-50s %10.3f ms", tile.str().c_str(), total);
                progress(line);
                if (best.total_ms < 0 || total < best.total_ms) best = {tile, total};
            }
            if (best.total_ms >= 0) chosen[prefix] = best;
        }
    } catch (...) {
        context->set_profile(base);
        throw;
    }
    context->set_profile(base);
    return chosen;
}

}  // namespace netcl::tune
