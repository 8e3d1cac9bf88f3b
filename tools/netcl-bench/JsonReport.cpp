// write_json (declared in Report.hpp): the whole report as one JSON document,
// the input of tools/plot_bench.py and of tests/test_bench.cpp.
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

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
            {"groups", s.groups}, {"bias", s.bias},     {"str", s.str()}};
}

json result_json(const LayerResult& layer, const Measurement& m) {
    json j = {{"candidate", m.candidate}, {"ran", m.ran}};
    if (!m.ran) {
        j["skipped"] = m.skipped;
        return j;
    }
    j.update({{"plan", m.plan},
              {"choice", m.choice},
              {"median_ms", m.timing.median_ms},
              {"min_ms", m.timing.min_ms},
              {"max_ms", m.timing.max_ms},
              {"samples_ms", m.samples_ms},
              {"gflops", m.gflops},
              {"speedup_vs_naive", optional_number(layer.speedup(m, "naive"))},
              {"speedup_vs_clblast", optional_number(layer.speedup(m, "clblast"))},
              {"max_abs_error", number(m.max_error)},
              {"tolerance", m.tolerance},
              {"within_tolerance", m.within_tolerance},
              {"workspace_bytes", m.workspace_bytes},
              {"build_ms", m.build_ms},
              {"first_run_ms", m.first_run_ms}});
    return j;
}

}  // namespace

void write_json(const std::string& path, const BenchReport& r) {
    json layers = json::array();
    for (const auto& layer : r.layers) {
        json results = json::array();
        for (const auto& m : layer.results) results.push_back(result_json(layer, m));
        layers.push_back({{"name", layer.name},
                          {"depth", layer.depth},
                          {"shapes", shapes_json(layer.shapes)},
                          {"direct_gflop", layer.shapes.direct_flops() * 1e-9},
                          {"reference", layer.reference},
                          {"reference_sampled", layer.reference_sampled},
                          {"reference_seconds", layer.reference_seconds},
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
                          {"weighted_gflop", t.weighted_gflop},
                          {"gflops", t.gflops},
                          {"speedup_vs_naive", optional_number(t.speedup_vs_naive)},
                          {"speedup_vs_clblast", optional_number(t.speedup_vs_clblast)}});
    }
    const json document = {
        {"tool", "netcl-bench"},
        {"netcl_version", r.info.netcl_version},
        {"git_revision", r.info.git_revision},
        {"started_utc", r.info.started_utc},
        {"command_line", r.info.command_line},
        {"device", device_json(r.info)},
        {"driver", r.info.device.driver_version},
        {"layer_set", r.layer_set},
        {"settings",
         {{"repeat", r.settings.repeat},
          {"warmup", r.settings.warmup},
          {"timing", "median of device time from OpenCL events; program builds excluded"},
          {"data", !r.layers.empty() && r.layers.front().shapes.bias ? "uniform [-1,1], with bias"
                                                                     : "uniform [-1,1], no bias"}}},
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
