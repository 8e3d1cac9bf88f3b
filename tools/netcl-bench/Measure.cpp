#include "Measure.hpp"

#include "netcl/Half.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "ClblastConvgemm.hpp"
#include "netcl/KernelSelector.hpp"
#include "OneDnnLibraries.hpp"
#include "OtherLoad.hpp"
#include "netcl/ConvLayer.hpp"
#include "tests/support/LayerFactory.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl::bench {

namespace {

Tensor::Shape output_shape(const ConvShapes& s) { return s.output_shape(); }

double program_ms(Context& context) {
    const auto stats = context.programs().stats();
    return stats.build_ms + stats.disk_load_ms;
}

// The NaN-poisoned first run, checked against the reference; the builds it made are reported apart.
void first_run(const Runner& runner, const ReferenceCheck& reference, Measurement& m) {
    runner.poison();
    const double builds_before = runner.builds_ms ? runner.builds_ms() : 0;
    const auto start = std::chrono::steady_clock::now();
    runner.run();
    m.first_run_ms = wall_ms_since(start);
    if (runner.builds_ms) m.build_ms = runner.builds_ms() - builds_before;
    m.max_error = reference.max_error(runner.output());
}

// A candidate that could not run, or failed, has no runner left.
bool still_running(const PreparedCandidate& c) { return static_cast<bool>(c.runner.run); }

// Runs c once; a failure drops it (its Measurement says why) rather than ending the layer's other candidates.
void run_once(PreparedCandidate& c, bool timed) {
    try {
        const auto run_start = std::chrono::steady_clock::now();
        const std::vector<cl::Event> events = c.runner.run();
        if (!timed) return;
        c.m.wall_samples_ms.push_back(wall_ms_since(run_start));
        if (!events.empty()) c.m.event_samples_ms.push_back(device_span_ms(events));
    } catch (const std::exception& error) {
        const std::string candidate = c.m.candidate;
        c.m = Measurement{};
        c.m.candidate = candidate;
        c.m.skipped = std::string("failed while timed: ") + error.what();
        c.runner = Runner{};
    }
}

// An OpenCL candidate writing into device tensors (y; dx; dw and db), its
// output read back as one sequence in that order.
using Outputs = std::vector<std::shared_ptr<Tensor>>;
Runner opencl_runner(Context& context, Outputs outputs, std::function<std::vector<cl::Event>()> enqueue) {
    return {[&context, outputs] {
                for (const auto& t : outputs) t->fill(std::numeric_limits<float>::quiet_NaN());
                context.finish();
            },
            [&context, enqueue] {
                std::vector<cl::Event> events = enqueue();
                context.finish();  // wall time runs to completion, like oneDNN's stream wait
                return events;
            },
            [outputs] {
                std::vector<float> all;
                for (const auto& t : outputs) {
                    const auto values = t->to_host();
                    all.insert(all.end(), values.begin(), values.end());
                }
                return all;
            },
            [&context] { return program_ms(context); }};
}

std::shared_ptr<Tensor> device_tensor(const LayerData& layer, Tensor::Shape shape) {
    return std::make_shared<Tensor>(Tensor::empty(layer.x_device.context(), std::move(shape), layer.shapes.dtype));
}

// A run whose events leave out its first commands (a CLBlast GEMM reading x
// itself returns only its last command's event) gives none: that run is
// timed by the wall clock, which covers it all.
std::vector<cl::Event> timed_events(const ConvLayer& conv) {
    return conv.last_events_cover_the_run() ? conv.last_events() : std::vector<cl::Event>{};
}

// A Conv2d or Conv3d candidate (the selector's plan or a forced variant) in
// the layer's direction; the runner keeps `layer` alive (the float32 copy of a
// float16 layer is the candidate's own).
Runner conv_runner(Context& context, std::shared_ptr<ConvLayer> conv, std::shared_ptr<const LayerData> layer,
                   bool weights_every_run) {
    const ConvShapes& s = layer->shapes;
    // New weights (RunSettings::weights_every_run) before the run, borrowed as netcl.torch hands a
    // training step's parameters over; what the plan derives from them is rebuilt in the run, which is
    // timed by the wall clock alone (RunSettings).
    const auto new_weights = [conv, layer, weights_every_run] {
        if (!weights_every_run) return false;
        conv->borrow_weights(layer->weights_device, layer->shapes.bias ? &layer->bias_device : nullptr);
        return true;
    };
    switch (s.direction) {
        case ConvDirection::BACKWARD_DATA: {
            auto dx = device_tensor(*layer, s.input_shape());
            return opencl_runner(context, {dx}, [conv, layer, dx, new_weights] {
                const bool wall_only = new_weights();
                conv->backward_data(layer->dy_device, *dx);
                return wall_only ? std::vector<cl::Event>{} : timed_events(*conv);
            });
        }
        case ConvDirection::BACKWARD_WEIGHTS: {
            auto dw = device_tensor(*layer, s.weight_shape());
            auto db = s.bias ? device_tensor(*layer, {s.K}) : nullptr;
            return opencl_runner(context, db ? Outputs{dw, db} : Outputs{dw}, [conv, layer, dw, db] {
                conv->backward_weights(layer->x_device, layer->dy_device, *dw, db.get());
                return timed_events(*conv);
            });
        }
        default: {
            auto y = device_tensor(*layer, output_shape(s));
            return opencl_runner(context, {y}, [conv, layer, y, new_weights] {
                const bool wall_only = new_weights();
                conv->forward(layer->x_device, *y);
                return wall_only ? std::vector<cl::Event>{} : timed_events(*conv);
            });
        }
    }
}

}  // namespace

namespace {
// Random data as the layer's dtype stores it (float16: rounded on the host),
// so the fp64 reference and the float32 peers read exactly netcl's inputs.
std::vector<float> stored_uniform(const ConvShapes& s, std::size_t count, std::uint64_t seed) {
    auto values = random_uniform(count, seed);
    if (s.dtype == DataType::FLOAT16) {
        for (float& v : values) v = round_to_half(v);
    }
    return values;
}
}  // namespace

LayerData::LayerData(const std::shared_ptr<Context>& context, const ConvShapes& s, std::uint64_t seed)
    : LayerData(context, s, stored_uniform(s, static_cast<std::size_t>(s.input_numel()), seed),
                stored_uniform(s, static_cast<std::size_t>(s.weight_numel()), seed + 1),
                s.bias ? stored_uniform(s, static_cast<std::size_t>(s.K), seed + 2) : std::vector<float>{},
                s.direction == ConvDirection::FORWARD
                    ? std::vector<float>{}
                    : stored_uniform(s, static_cast<std::size_t>(s.output_numel()), seed + 3)) {}

LayerData::LayerData(const std::shared_ptr<Context>& context, const ConvShapes& s, std::vector<float> x_values,
                     std::vector<float> weight_values, std::vector<float> bias_values, std::vector<float> dy_values)
    : shapes(s),
      x(std::move(x_values)),
      weights(std::move(weight_values)),
      bias(std::move(bias_values)),
      dy(std::move(dy_values)),
      x_device(Tensor::from_host(context, x, s.input_shape(), s.dtype)),
      weights_device(Tensor::from_host(context, weights, s.weight_shape(), s.dtype)),
      bias_device(bias.empty() ? Tensor{} : Tensor::from_host(context, bias, {s.K}, s.dtype)),
      dy_device(dy.empty() ? Tensor{} : Tensor::from_host(context, dy, s.output_shape(), s.dtype)) {}

LayerData LayerData::in_float32(const std::shared_ptr<Context>& context) const {
    ConvShapes s = shapes;
    s.dtype = DataType::FLOAT32;
    return LayerData(context, s, x, weights, bias, dy);
}

std::string order_text(const RunSettings& settings) {
    std::string text = settings.interleave ? "interleaved: each round one run of every candidate of the layer in turn"
                                           : "sequential: each candidate's runs back to back";
    if (settings.weights_every_run) {
        text += "; new weights before every forward and backward-data run, timed with it (netcl's borrow_weights "
                "and transforms, the forward planned for training; oneDNN's weight reorders; backward weights: "
                "oneDNN's reorder of dW to oihw)";
    }
    return text;
}

std::string to_string(Clock clock) { return clock == Clock::Events ? "opencl-events" : "wall"; }

const TimingSummary& Measurement::timing(Clock clock) const {
    return clock == Clock::Events && has_events() ? events : wall;
}

const std::vector<double>& Measurement::samples_ms(Clock clock) const {
    return clock == Clock::Events && has_events() ? event_samples_ms : wall_samples_ms;
}

PreparedCandidate prepare(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                          const ReferenceCheck& reference, const RunSettings& settings) {
    PreparedCandidate c;
    Measurement& m = c.m;
    m.candidate = candidate.id;
    const ConvShapes& s = layer.shapes;
    // Against what a Conv2d plans with (the shipped files layered under the device's own
    // values): a variant nvidia-gpu turns off (*_enabled = 0) is skipped with that reason,
    // not run into the strict override's error.
    if (const auto why = candidate_why_not(candidate, s, KernelSelector::resolve_profile(context->profile()))) {
        m.skipped = *why;
        return c;
    }
    try {
        if (candidate.kind == Candidate::Kind::OneDnn) {
            const auto make_start = std::chrono::steady_clock::now();
            const OneDnnLibrary& onednn = *onednn_libraries().at(candidate.onednn).library;
            std::shared_ptr<OneDnnPrimitive> conv =
                onednn.make(s, candidate.layout, layer.x, layer.weights, layer.bias, layer.dy,
                            settings.weights_every_run);
            const double make_ms = wall_ms_since(make_start);
            m.impl = conv->impl();
            const char* layouts = candidate.layout == OneDnnLayout::Nchw ? "activations nchw, weights any"
                                                                          : "activations and weights any";
            m.plan = "oneDNN " + onednn.version() + " " + conv->primitive_name() + ", " + layouts + ": " + conv->impl() + " (" +
                     conv->formats() + ")";
            m.choice = candidate.id;
            m.tolerance = conv_tolerance(s, 1.0);
            c.runner = {[conv] { conv->poison_output(); },
                        [conv] {
                            conv->run();
                            return std::vector<cl::Event>{};
                        },
                        [conv] { return conv->output_nchw(); }, nullptr};
            first_run(c.runner, reference, m);
            m.build_ms = make_ms;
        } else if (candidate.kind == Candidate::Kind::Clblast) {
            if (s.dtype != DataType::FLOAT32) {
                throw Error("clblast::Convgemm runs float32 here (its half needs cl_khr_fp16); this run is " +
                            to_string(s.dtype));
            }
            m.plan = "clblast::Convgemm<float> (im2col + GEMM, kCrossCorrelation)";
            m.choice = "clblast";
            m.tolerance = conv_tolerance(s, 1.0);
            auto y = device_tensor(layer, output_shape(s));
            Context& ctx = *context;
            // Convgemm returns only its last kernel's event (its im2col before
            // the GEMM is not among them): its runs are timed by the wall clock.
            c.runner = opencl_runner(ctx, {y}, [&ctx, &layer, s, y] {
                (void)enqueue_clblast_convgemm(ctx, s, layer.x_device, layer.weights_device, *y);
                return std::vector<cl::Event>{};
            });
            // CLBlast builds (or loads from its own cache) inside its first call; netcl's program cache
            // does not see it.
            c.runner.builds_ms = nullptr;
            c.builds_inside_first_run = true;
            first_run(c.runner, reference, m);
        } else {
            LayerOverrides overrides;
            if (candidate.kind == Candidate::Kind::Strategy) {
                overrides.strategy = candidate.kernel;
                overrides.variant = candidate.variant;
            }
            // The layer's own data (not owned here: it outlives the layer's runs), or float32-selector's copy.
            const auto data = candidate.kind == Candidate::Kind::SelectorFloat32
                                  ? std::make_shared<const LayerData>(layer.in_float32(context))
                                  : std::shared_ptr<const LayerData>(std::shared_ptr<const LayerData>{}, &layer);
            const ConvShapes& cs = data->shapes;
            std::shared_ptr<ConvLayer> conv = make_conv_layer(context, cs, overrides);
            // New weights every run are a training step: the forward is planned as one (backward data always is).
            conv->set_training(settings.weights_every_run);
            if (cs.direction != ConvDirection::BACKWARD_WEIGHTS) conv->set_weights(data->weights, data->bias);
            c.runner = conv_runner(*context, conv, data, settings.weights_every_run);
            first_run(c.runner, reference, m);
            const Plan& plan = conv->last_plan();
            m.plan = plan.str();
            m.choice = plan.variant.id;
            m.workspace_bytes = conv->last_workspace_bytes();
            // Half storage rounds each output once more: 2^-11 of the largest.
            m.tolerance = conv_tolerance(cs, tolerance_factor(plan.variant)) +
                          (cs.dtype == DataType::FLOAT16 ? reference.max_abs_reference() * 0x1p-11 + 0x1p-25 : 0.0);
        }
        m.within_tolerance = m.max_error <= m.tolerance;
    } catch (const std::exception& error) {  // netcl::Error, or cl::Error from the bindings
        c = PreparedCandidate{};
        c.m.candidate = candidate.id;
        c.m.skipped = std::string("failed: ") + error.what();
    }
    return c;
}

void time_prepared(std::vector<PreparedCandidate>& candidates, const RunSettings& settings) {
    const OtherLoad others;
    for (int i = 0; i < settings.warmup; ++i) {
        for (auto& c : candidates) {
            if (still_running(c)) run_once(c, /*timed=*/false);
        }
    }
    for (int i = 0; i < settings.repeat; ++i) {
        for (auto& c : candidates) {
            if (!still_running(c)) continue;
            // Interleaved, a candidate's timed run follows an untimed one of its own, as every run after
            // the first does when it runs alone (RunSettings says why).
            if (settings.interleave && candidates.size() > 1) run_once(c, /*timed=*/false);
            if (still_running(c)) run_once(c, /*timed=*/true);
        }
    }
    for (auto& c : candidates) {
        if (!still_running(c)) continue;
        Measurement& m = c.m;
        m.other_load = others.share();  // the window holds every candidate's runs: interleaved, they shared it
        m.other_load_window_ms = others.window_ms();
        m.wall = summarize(m.wall_samples_ms);
        if (m.has_events()) m.events = summarize(m.event_samples_ms);
        if (c.builds_inside_first_run) m.build_ms = std::max(0.0, m.first_run_ms - m.wall.median_ms);
        m.ran = true;
    }
}

Measurement measure(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                    const ReferenceCheck& reference, const RunSettings& settings) {
    std::vector<PreparedCandidate> one;
    one.push_back(prepare(context, candidate, layer, reference, settings));
    time_prepared(one, settings);
    return std::move(one.front().m);
}

}  // namespace netcl::bench
