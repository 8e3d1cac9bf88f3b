// write_json (declared in Report.hpp): the whole report as one JSON document,
// the input of tools/plot_bench.py and of tests/test_bench.cpp.
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "OneDnnLibraries.hpp"
#include "Report.hpp"
#include "netcl/Error.hpp"

namespace netcl::bench {

namespace {

using nlohmann::json;

// JSON has no infinity: a non-finite error (NaN in the output) becomes null.
json number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }
json optional_number(const std::optional<double>& value) { return value ? number(*value) : json(nullptr); }

json device_json(const RunInfo& info) {
    const auto& d = info.device;
    json tuned = json::object();
    for (const auto& [key, value] : d.tuned) tuned[key] = value;
    return {{"id", info.device_id},
            {"name", d.name},
            {"platform", d.platform_name},
            {"vendor", d.vendor},
            {"type", to_string(d.type)},
            {"driver_version", d.driver_version},
            {"device_version", d.device_version},
            {"opencl_c_version", d.opencl_c_version},
            {"compute_units", d.compute_units},
            {"max_clock_mhz", d.max_clock_mhz},
            {"global_mem_bytes", d.global_mem_bytes},
            {"max_alloc_bytes", d.max_alloc_bytes},
            {"local_mem_bytes", d.local_mem_bytes},
            {"max_constant_buffer_bytes", d.max_constant_buffer_bytes},
            {"max_constant_args", d.max_constant_args},
            {"max_work_group_size", d.max_work_group_size},
            {"preferred_work_group_multiple", d.preferred_work_group_multiple},
            {"fp16", d.fp16},
            {"fp64", d.fp64},
            {"profile_source", d.tuned_source},
            {"tuned", tuned}};
}

json shapes_json(const ConvShapes& s) {
    return {{"N", s.N},           {"C", s.C},           {"H", s.H},
            {"W", s.W},           {"K", s.K},           {"R", s.R},
            {"S", s.S},           {"P", s.P()},         {"Q", s.Q()},
            {"stride", s.stride_h}, {"pad", s.pad_top},   {"dilation", s.dilation_h},
            {"groups", s.groups}, {"bias", s.bias},     {"str", s.str()},
            {"direction", to_string(s.direction)}};
}

json gflops_of(const LayerResult& layer, const TimingSummary& t) {
    return t.median_ms > 0 ? json(layer.shapes.direct_flops() / (t.median_ms * 1e6)) : json(nullptr);
}

json result_json(const BenchReport& r, const LayerResult& layer, const Measurement& m) {
    json j = {{"candidate", m.candidate}, {"ran", m.ran}};
    if (!m.ran) {
        j["skipped"] = m.skipped;
        return j;
    }
    const TimingSummary& t = m.timing(r.clock);
    const double gflops = r.gflops(layer, m);
    // median_ms .. gflops and the speedups are on the report's clock (settings.clock); wall_* and
    // event_* give each clock by name (event_* null where there are no OpenCL events: oneDNN).
    j.update({{"plan", m.plan},
              {"choice", m.choice},
              {"clock", to_string(m.has_events() ? r.clock : Clock::Wall)},
              {"median_ms", t.median_ms},
              {"min_ms", t.min_ms},
              {"max_ms", t.max_ms},
              {"samples_ms", m.samples_ms(r.clock)},
              {"gflops", gflops},
              {"wall_median_ms", m.wall.median_ms},
              {"wall_min_ms", m.wall.min_ms},
              {"wall_max_ms", m.wall.max_ms},
              {"wall_samples_ms", m.wall_samples_ms},
              {"wall_gflops", gflops_of(layer, m.wall)},
              {"event_median_ms", m.has_events() ? json(m.events.median_ms) : json(nullptr)},
              {"event_min_ms", m.has_events() ? json(m.events.min_ms) : json(nullptr)},
              {"event_max_ms", m.has_events() ? json(m.events.max_ms) : json(nullptr)},
              {"event_samples_ms", m.event_samples_ms},
              {"event_gflops", m.has_events() ? gflops_of(layer, m.events) : json(nullptr)},
              {"speedup_vs_naive", optional_number(layer.speedup(m, "naive", r.clock))},
              {"speedup_vs_clblast", optional_number(layer.speedup(m, "clblast", r.clock))},
              {"speedup_vs_onednn", optional_number(layer.speedup_vs_onednn(m))},
              {"percent_of_peak", optional_number(r.percent_of_peak(gflops))},
              {"percent_of_fma_peak", optional_number(r.percent_of_fma_peak(gflops))},
              {"max_abs_error", number(m.max_error)},
              {"tolerance", m.tolerance},
              {"within_tolerance", m.within_tolerance},
              {"workspace_bytes", m.workspace_bytes},
              {"build_ms", m.build_ms},
              {"first_run_ms", m.first_run_ms},
              {"other_load", m.other_load >= 0 ? json(m.other_load) : json(nullptr)},
              {"other_load_window_ms", m.other_load_window_ms}});
    if (!m.impl.empty()) j["impl"] = m.impl;  // oneDNN's primitive_desc::impl_info_str()
    return j;
}

json onednn_json(const BenchReport& r) {
    const auto& o = r.onednn;
    json libraries = json::array();
    for (const LoadedOneDnn& l : onednn_libraries()) {
        libraries.push_back({{"version", l.library->version()},
                             {"cpu_isa", l.library->cpu_isa()},
                             {"candidates", {"onednn" + l.tag + "-nchw", "onednn" + l.tag + "-blocked"}},
                             {"plugin", l.file}});
    }
    return {{"built_in", o.built_in},
            {"libraries", libraries},
            {"load_failures", o.load_failures},
            {"ran", r.any_onednn()},
            {"version", o.version},
            {"cpu_isa", o.cpu_isa},
            {"omp_wait_policy", o.omp_wait_policy.value},
            {"omp_wait_policy_source", o.omp_wait_policy.source},
            {"what", "oneDNN convolution in the run's direction: fp32, algorithm::convolution_direct, the "
                     "implementation oneDNN picks; onednn-nchw: src/dst nchw, weights any; onednn-blocked: "
                     "src/dst/weights any (oneDNN's own layout; reorders into and out of it not timed); the newest "
                     "oneDNN loaded is onednn-*, each older one onednn-<major.minor>-*; the peer on a layer is the "
                     "fastest of them. Wall time of execute + stream wait."}};
}

json peak_json(const BenchReport& r) {
    if (!r.peak) return r.peak_skipped.empty() ? json(nullptr) : json({{"skipped", r.peak_skipped}});
    const auto& p = *r.peak;
    return {{"what", p.what},           {"size", p.size},     {"batches_ms", p.batches_ms},
            {"median_ms", p.median_ms}, {"gflops", p.gflops}, {"best_gflops", p.best_gflops},
            {"rule", "median of the faster batch (one before the layers, one after)"}};
}

std::string timing_text(const BenchReport& r) {
    if (r.clock == Clock::Wall) {
        return "median of wall time from submit to completion (netcl, CLBlast: enqueue + clFinish; oneDNN: "
               "execute + stream wait), so the ratio against oneDNN is like for like; OpenCL event time of the "
               "same runs in event_*; program builds excluded";
    }
    return "median of device time from OpenCL events; program builds excluded";
}

}  // namespace

void write_json(const std::string& path, const BenchReport& r) {
    json layers = json::array();
    for (const auto& layer : r.layers) {
        json results = json::array();
        for (const auto& m : layer.results) results.push_back(result_json(r, layer, m));
        const Measurement* peer = layer.best_onednn();
        layers.push_back({{"name", layer.name},
                          {"depth", layer.depth},
                          {"shapes", shapes_json(layer.shapes)},
                          {"direct_gflop", layer.shapes.direct_flops() * 1e-9},
                          {"reference", layer.reference},
                          {"reference_sampled", layer.reference_sampled},
                          {"reference_seconds", layer.reference_seconds},
                          {"onednn_peer", peer ? json(peer->candidate) : json(nullptr)},
                          {"paired_rounds", layer.paired},
                          {"results", results}});
    }
    json totals = json::array();
    for (const auto& t : r.totals()) {
        totals.push_back({{"candidate", t.candidate},
                          {"N", t.N},
                          {"layers_run", t.layers_run},
                          {"layers", t.layers},
                          {"complete", t.complete()},
                          {"weighted_ms", t.weighted_ms},
                          {"weighted_wall_ms", t.weighted_wall_ms},
                          {"weighted_gflop", t.weighted_gflop},
                          {"gflops", t.gflops},
                          {"percent_of_peak", optional_number(t.percent_of_peak)},
                          {"percent_of_fma_peak", optional_number(t.percent_of_fma_peak)},
                          {"speedup_vs_naive", optional_number(t.speedup_vs_naive)},
                          {"speedup_vs_clblast", optional_number(t.speedup_vs_clblast)},
                          {"speedup_vs_onednn", optional_number(t.speedup_vs_onednn)},
                          {"onednn_peer", t.onednn_peer.empty() ? json(nullptr) : json(t.onednn_peer)}});
    }
    const json document = {
        {"tool", "netcl-bench"},
        {"netcl_version", r.info.netcl_version},
        {"git_revision", r.info.git_revision},
        {"started_utc", r.info.started_utc},
        {"command_line", r.info.command_line},
        {"device", device_json(r.info)},
        {"driver", r.info.device.driver_version},
        {"pocl_affinity", {{"value", r.pocl_affinity.value}, {"source", r.pocl_affinity.source}}},
        {"isa_emulation", r.isa_emulation.active() ? json(r.isa_emulation.text()) : json(nullptr)},
        {"layer_set", r.layer_set},
        {"settings",
         {{"repeat", r.settings.repeat},
          {"warmup", r.settings.warmup},
          {"order", r.settings.interleave ? "interleaved" : "sequential"},
          {"order_text", order_text(r.settings)},
          {"weights_every_run", r.settings.weights_every_run},
          {"clock", to_string(r.clock)},
          {"timing", timing_text(r)},
          {"data", !r.layers.empty() && r.layers.front().shapes.bias ? "uniform [-1,1], with bias"
                                                                     : "uniform [-1,1], no bias"}}},
        {"onednn", onednn_json(r)},
        {"peak", peak_json(r)},
        {"fma_peak", r.fma_peak ? json({{"what", r.fma_peak->what},
                                        {"threads", r.fma_peak->threads},
                                        {"batches", r.fma_peak->batches},
                                        {"rule", "the fastest run of every batch (one before the layers, one after)"},
                                        {"gflops", r.fma_peak->gflops}})
                                : r.fma_peak_skipped.empty() ? json(nullptr)
                                                             : json({{"skipped", r.fma_peak_skipped}})},
        {"candidates", r.candidates},
        {"layers", layers},
        {"totals", totals},
        {"wall_seconds", r.wall_seconds}};
    std::ofstream file(path);
    if (!file) throw Error("cannot write the JSON report to '" + path + "'");
    file << document.dump(2) << "\n";
    if (!file) throw Error("writing the JSON report to '" + path + "' failed");
}

}  // namespace netcl::bench
