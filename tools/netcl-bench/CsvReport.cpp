// write_csv (declared in Report.hpp): one row per layer and candidate, then the
// totals; the run's facts as leading "# key: value" lines.
#include <fstream>
#include <sstream>

#include "Report.hpp"
#include "netcl/Error.hpp"

namespace netcl::bench {

namespace {

// RFC 4180 quoting: plan strings hold commas ("F(4x4,3x3)").
std::string quoted(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string result = "\"";
    for (const char c : text) result += c == '"' ? std::string("\"\"") : std::string(1, c);
    return result + "\"";
}

std::string number(double value) {
    std::ostringstream text;
    text.precision(9);
    text << value;
    return text.str();
}

std::string optional_number(const std::optional<double>& value) { return value ? number(*value) : ""; }

}  // namespace

void write_csv(const std::string& path, const BenchReport& r) {
    std::ofstream file(path);
    if (!file) throw Error("cannot write the CSV report to '" + path + "'");
    const auto& d = r.info.device;
    file << "# netcl_version: " << r.info.netcl_version << "\n# git_revision: " << r.info.git_revision
         << "\n# started_utc: " << r.info.started_utc << "\n# device: " << d.name << "\n# platform: "
         << d.platform_name << "\n# driver: " << d.driver_version << "\n# compute_units: " << d.compute_units
         << "\n# local_mem_bytes: " << d.local_mem_bytes << "\n# profile_source: " << d.tuned_source
         << "\n# layer_set: " << r.layer_set << "\n# repeat: " << r.settings.repeat << "\n# warmup: "
         << r.settings.warmup << "\n# order: " << order_text(r.settings)
         << "\n# pocl_affinity: " << r.pocl_affinity.value << " (" << r.pocl_affinity.source << ")"
         << "\n# isa_emulation: " << r.isa_emulation.text()
         << "\n# clock: " << to_string(r.clock) << "\n";
    if (r.onednn.built_in) {
        file << "# onednn: " << r.onednn.version << ", " << r.onednn.cpu_isa << ", OMP_WAIT_POLICY="
             << r.onednn.omp_wait_policy.value << " (" << r.onednn.omp_wait_policy.source << ")\n";
    }
    if (r.peak) file << "# peak_gflops: " << number(r.peak->gflops) << " (" << r.peak->what << ")\n";
    if (r.fma_peak) file << "# fma_peak_gflops: " << number(r.fma_peak->gflops) << " (" << r.fma_peak->what << ")\n";
    file << "row,layer,depth,N,C,H,W,K,R,S,stride,pad,dilation,groups,direct_gflop,candidate,ran,choice,median_ms,"
            "min_ms,max_ms,gflops,speedup_vs_naive,speedup_vs_clblast,max_abs_error,tolerance,within_tolerance,"
            "workspace_bytes,build_ms,reference,note,wall_median_ms,event_median_ms,speedup_vs_onednn,percent_of_peak,"
            "impl\n";
    for (const auto& layer : r.layers) {
        const auto& s = layer.shapes;
        for (const auto& m : layer.results) {
            file << "layer," << quoted(layer.name) << ',' << layer.depth << ',' << s.N << ',' << s.C << ',' << s.H
                 << ',' << s.W << ',' << s.K << ',' << s.R << ',' << s.S << ',' << s.stride_h << ',' << s.pad_top << ','
                 << s.dilation_h << ',' << s.groups << ',' << number(s.direct_flops() * 1e-9) << ','
                 << m.candidate << ',' << (m.ran ? 1 : 0) << ',' << quoted(m.choice) << ',';
            if (m.ran) {
                const TimingSummary& t = m.timing(r.clock);
                const double gflops = r.gflops(layer, m);
                file << number(t.median_ms) << ',' << number(t.min_ms) << ',' << number(t.max_ms) << ','
                     << number(gflops) << ',' << optional_number(layer.speedup(m, "naive", r.clock)) << ','
                     << optional_number(layer.speedup(m, "clblast", r.clock)) << ',' << number(m.max_error) << ','
                     << number(m.tolerance) << ',' << (m.within_tolerance ? 1 : 0) << ',' << m.workspace_bytes
                     << ',' << number(m.build_ms) << ',' << quoted(layer.reference) << ",," << number(m.wall.median_ms)
                     << ',' << (m.has_events() ? number(m.events.median_ms) : "") << ','
                     << optional_number(layer.speedup_vs_onednn(m)) << ','
                     << optional_number(r.percent_of_peak(gflops)) << ',' << quoted(m.impl) << "\n";
            } else {
                file << ",,,,,,,,,,," << quoted(layer.reference) << ',' << quoted(m.skipped) << ",,,,,\n";
            }
        }
    }
    for (const auto& t : r.totals()) {
        file << "total,Total,," << t.N << ",,,,,,,,,,," << number(t.weighted_gflop) << ',' << t.candidate << ','
             << (t.complete() ? 1 : 0) << ",," << number(t.weighted_ms) << ",,," << number(t.gflops) << ','
             << optional_number(t.speedup_vs_naive) << ',' << optional_number(t.speedup_vs_clblast) << ",,,,,,,"
             << quoted(std::to_string(t.layers_run) + " of " + std::to_string(t.layers) + " layers") << ','
             << number(t.weighted_wall_ms) << ",," << optional_number(t.speedup_vs_onednn) << ','
             << optional_number(t.percent_of_peak) << ",\n";
    }
    if (!file) throw Error("writing the CSV report to '" + path + "' failed");
}

}  // namespace netcl::bench
