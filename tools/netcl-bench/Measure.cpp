#include "Measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "ClblastConvgemm.hpp"
#include "OneDnnConv.hpp"
#include "OtherLoad.hpp"
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

double wall_ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One candidate, as the timing protocol drives it.
struct Runner {
    std::function<void()> poison;                  // fill the output with NaN
    std::function<std::vector<cl::Event>()> run;   // one run to completion; its OpenCL events (none for oneDNN)
    std::function<std::vector<float>()> output;    // the output in NCHW, for the reference check
    std::function<double()> builds_ms;             // builds so far (netcl's program cache), if it can tell
};

void time_runs(const Runner& runner, const ReferenceCheck& reference, const RunSettings& settings,
               Measurement& m) {
    runner.poison();
    const double builds_before = runner.builds_ms ? runner.builds_ms() : 0;
    const auto start = std::chrono::steady_clock::now();
    runner.run();
    m.first_run_ms = wall_ms_since(start);
    if (runner.builds_ms) m.build_ms = runner.builds_ms() - builds_before;
    m.max_error = reference.max_error(runner.output());

    const OtherLoad others;
    for (int i = 0; i < settings.warmup; ++i) runner.run();
    for (int i = 0; i < settings.repeat; ++i) {
        const auto run_start = std::chrono::steady_clock::now();
        const std::vector<cl::Event> events = runner.run();
        m.wall_samples_ms.push_back(wall_ms_since(run_start));
        if (!events.empty()) m.event_samples_ms.push_back(device_span_ms(events));
    }
    m.other_load = others.share();
    m.other_load_window_ms = others.window_ms();
    m.wall = summarize(m.wall_samples_ms);
    if (m.has_events()) m.events = summarize(m.event_samples_ms);
    m.ran = true;
}

// An OpenCL candidate writing into a device tensor y.
Runner opencl_runner(Context& context, Tensor& y, std::function<std::vector<cl::Event>()> enqueue) {
    return {[&context, &y] {
                y.fill(std::numeric_limits<float>::quiet_NaN());
                context.finish();
            },
            [&context, enqueue] {
                std::vector<cl::Event> events = enqueue();
                context.finish();  // wall time runs to completion, like oneDNN's stream wait
                return events;
            },
            [&y] { return y.to_host(); }, [&context] { return program_ms(context); }};
}

}  // namespace

LayerData::LayerData(const std::shared_ptr<Context>& context, const ConvShapes& s, std::uint64_t seed)
    : shapes(s),
      x(random_uniform(static_cast<std::size_t>(s.input_numel()), seed)),
      weights(random_uniform(static_cast<std::size_t>(s.weight_numel()), seed + 1)),
      bias(s.bias ? random_uniform(static_cast<std::size_t>(s.K), seed + 2) : std::vector<float>{}),
      x_device(Tensor::from_host(context, x, {s.N, s.C, s.H, s.W})),
      weights_device(Tensor::from_host(context, weights, {s.K, s.C / s.groups, s.R, s.S})) {}

std::string to_string(Clock clock) { return clock == Clock::Events ? "opencl-events" : "wall"; }

const TimingSummary& Measurement::timing(Clock clock) const {
    return clock == Clock::Events && has_events() ? events : wall;
}

const std::vector<double>& Measurement::samples_ms(Clock clock) const {
    return clock == Clock::Events && has_events() ? event_samples_ms : wall_samples_ms;
}

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
        if (candidate.kind == Candidate::Kind::OneDnn) {
            const auto make_start = std::chrono::steady_clock::now();
            OneDnnConv conv(s, candidate.layout, layer.x, layer.weights, layer.bias);
            m.build_ms = wall_ms_since(make_start);
            m.impl = conv.impl();
            const char* layouts =
                candidate.layout == OneDnnLayout::Nchw ? "src/dst nchw, weights any" : "src/dst/weights any";
            m.plan = std::string("oneDNN convolution_direct, forward_inference, ") + layouts + ": " + conv.impl() +
                     " (" + conv.formats() + ")";
            m.choice = candidate.id;
            m.tolerance = conv_tolerance(s, 1.0);
            time_runs({[&] { conv.poison_output(); },
                       [&] {
                           conv.run();
                           return std::vector<cl::Event>{};
                       },
                       [&] { return conv.output_nchw(); }, nullptr},
                      reference, settings, m);
        } else if (candidate.kind == Candidate::Kind::Clblast) {
            m.plan = "clblast::Convgemm<float> (im2col + GEMM, kCrossCorrelation)";
            m.choice = "clblast";
            m.tolerance = conv_tolerance(s, 1.0);
            Tensor y = Tensor::empty(layer.x_device.context(), output_shape(s));
            Runner runner = opencl_runner(*context, y, [&] {
                return std::vector<cl::Event>{
                    enqueue_clblast_convgemm(*context, s, layer.x_device, layer.weights_device, y)};
            });
            runner.builds_ms = nullptr;
            time_runs(runner, reference, settings, m);
            // CLBlast builds (or loads from its own cache) inside its first call; netcl's program cache
            // does not see it.
            m.build_ms = std::max(0.0, m.first_run_ms - m.wall.median_ms);
        } else {
            Conv2dOptions options = Conv2dOptions::for_shapes(s);
            if (candidate.kind == Candidate::Kind::Strategy) {
                options.strategy = candidate.kernel;
                options.variant = candidate.variant;
            }
            Conv2d conv(context, options);
            conv.set_weights(layer.weights, layer.bias);
            Tensor y = Tensor::empty(layer.x_device.context(), output_shape(s));
            time_runs(opencl_runner(*context, y,
                                    [&] {
                                        conv.forward(layer.x_device, y);
                                        return conv.last_events();
                                    }),
                      reference, settings, m);
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
