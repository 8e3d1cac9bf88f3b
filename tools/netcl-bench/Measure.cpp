#include "Measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "ClblastConvgemm.hpp"
#include "netcl/Conv2d.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl::bench {

namespace {

Tensor::Shape output_shape(const ConvShapes& s) { return {s.N, s.K, s.P(), s.Q()}; }

double program_ms(Context& context) {
    const auto stats = context.programs().stats();
    return stats.build_ms + stats.disk_load_ms;
}

// One way to run the candidate once: enqueue into y, return the run's events.
using RunOnce = std::function<std::vector<cl::Event>(Tensor& y)>;

void time_runs(Context& context, const RunOnce& run, const LayerData& layer, const ReferenceCheck& reference,
               const RunSettings& settings, Measurement& m) {
    Tensor y = Tensor::empty(layer.x_device.context(), output_shape(layer.shapes));
    y.fill(std::numeric_limits<float>::quiet_NaN());
    context.finish();

    const double programs_before = program_ms(context);
    const auto start = std::chrono::steady_clock::now();
    run(y);
    context.finish();
    m.first_run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m.build_ms = program_ms(context) - programs_before;
    m.max_error = reference.max_error(y.to_host());

    for (int i = 0; i < settings.warmup; ++i) run(y);
    context.finish();
    for (int i = 0; i < settings.repeat; ++i) m.samples_ms.push_back(device_span_ms(run(y)));
    m.timing = summarize(m.samples_ms);
    m.gflops = layer.shapes.direct_flops() / (m.timing.median_ms * 1e6);
    m.ran = true;
}

}  // namespace

LayerData::LayerData(const std::shared_ptr<Context>& context, const ConvShapes& s, std::uint64_t seed)
    : shapes(s),
      x(random_uniform(static_cast<std::size_t>(s.input_numel()), seed)),
      weights(random_uniform(static_cast<std::size_t>(s.weight_numel()), seed + 1)),
      bias(s.bias ? random_uniform(static_cast<std::size_t>(s.K), seed + 2) : std::vector<float>{}),
      x_device(Tensor::from_host(context, x, {s.N, s.C, s.H, s.W})),
      weights_device(Tensor::from_host(context, weights, {s.K, s.C / s.groups, s.R, s.S})) {}

Measurement measure(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                    const ReferenceCheck& reference, const RunSettings& settings) {
    Measurement m;
    m.candidate = candidate.id;
    const ConvShapes& s = layer.shapes;
    if (const auto why = candidate_why_not(candidate, s, context->profile())) {
        m.skipped = *why;
        return m;
    }
    try {
        if (candidate.kind == Candidate::Kind::Clblast) {
            m.plan = "clblast::Convgemm<float> (im2col + GEMM, kCrossCorrelation)";
            m.choice = "clblast";
            m.tolerance = conv_tolerance(s, 1.0);
            time_runs(*context,
                      [&](Tensor& y) {
                          return std::vector<cl::Event>{
                              enqueue_clblast_convgemm(*context, s, layer.x_device, layer.weights_device, y)};
                      },
                      layer, reference, settings, m);
            // CLBlast builds (or loads from its own cache) inside its first call; netcl's program cache
            // does not see it.
            m.build_ms = std::max(0.0, m.first_run_ms - m.timing.median_ms);
        } else {
            Conv2dOptions options = Conv2dOptions::for_shapes(s);
            if (candidate.kind == Candidate::Kind::Strategy) {
                options.strategy = candidate.kernel;
                options.variant = candidate.variant;
            }
            Conv2d conv(context, options);
            conv.set_weights(layer.weights, layer.bias);
            time_runs(*context,
                      [&](Tensor& y) {
                          conv.forward(layer.x_device, y);
                          return conv.last_events();
                      },
                      layer, reference, settings, m);
            const Plan& plan = conv.last_plan();
            m.plan = plan.str();
            m.choice = plan.variant.id;
            m.workspace_bytes = conv.last_workspace_bytes();
            m.tolerance = conv_tolerance(s, tolerance_factor(plan.variant));
        }
        m.within_tolerance = m.max_error <= m.tolerance;
    } catch (const std::exception& error) {  // netcl::Error, or cl::Error from the bindings
        m = Measurement{};
        m.candidate = candidate.id;
        m.skipped = std::string("failed: ") + error.what();
    }
    return m;
}

}  // namespace netcl::bench
