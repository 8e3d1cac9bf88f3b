#include "Report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace netcl::bench {

namespace {

std::string fixed(double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

std::string scientific(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2e", value);
    return text;
}

std::string speedup_text(const std::optional<double>& value) { return value ? fixed(*value, 2) + "x" : "-"; }

std::string human_bytes(std::size_t bytes) {
    if (bytes < 1024) return std::to_string(bytes);
    if (bytes < (1 << 20)) return fixed(bytes / 1024.0, 1) + "K";
    return fixed(bytes / 1048576.0, 1) + "M";
}

// Columns with their widths; text is left-aligned in the first three, right in the rest.
struct Column {
    const char* title;
    int width;
};
constexpr Column kColumns[] = {{"layer", 7}, {"N", 3},         {"shape", 14},     {"candidate", 9},
                               {"ms", 10},    {"min", 10},      {"max", 10},       {"GFLOPS", 8},
                               {"vs naive", 9}, {"vs clblast", 10}, {"max err", 9}, {"ok", 3},
                               {"workspace", 9},  {"build ms", 9}};
constexpr std::size_t kLeftAligned = 4;

// `widths`: kColumns' widths, the text columns widened to their longest cell.
void print_row(std::ostream& out, const std::vector<int>& widths, const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
        if (i) out << ' ';
        if (i < kLeftAligned) {
            out << std::left << std::setw(widths[i]) << cells[i];
        } else {
            out << std::right << std::setw(widths[i]) << cells[i];
        }
    }
    out << std::left << '\n';
}

std::string candidate_cell(const Measurement& m) {
    if (m.candidate == "selector" && m.ran) return "selector=" + m.choice;
    return m.candidate;
}

}  // namespace

const Measurement* LayerResult::find(const std::string& candidate) const {
    for (const auto& m : results) {
        if (m.candidate == candidate) return &m;
    }
    return nullptr;
}

std::optional<double> LayerResult::speedup(const Measurement& result, const std::string& baseline) const {
    const Measurement* base = find(baseline);
    if (!base || !base->ran || !result.ran || result.timing.median_ms <= 0) return std::nullopt;
    return base->timing.median_ms / result.timing.median_ms;
}

std::string compact_shape(const ConvShapes& s) {
    std::string text = std::to_string(s.C) + "x" + std::to_string(s.H) + "x" + std::to_string(s.W) + " K" +
                       std::to_string(s.K) + " " + std::to_string(s.R) + "x" + std::to_string(s.S) + " s" +
                       std::to_string(s.stride_h) + " p" + std::to_string(s.pad_top);
    if (s.dilation_h != 1) text += " d" + std::to_string(s.dilation_h);
    if (s.groups != 1) text += " g" + std::to_string(s.groups);
    return text;
}

std::vector<Total> BenchReport::totals() const {
    std::vector<std::int64_t> batches;  // in order of appearance
    for (const auto& layer : layers) {
        if (std::find(batches.begin(), batches.end(), layer.shapes.N) == batches.end()) batches.push_back(layer.shapes.N);
    }
    std::vector<Total> all;
    for (const std::int64_t n : batches) {
        const auto part = totals_for(n);
        all.insert(all.end(), part.begin(), part.end());
    }
    return all;
}

std::vector<Total> BenchReport::totals_for(std::int64_t batch) const {
    std::vector<Total> result;
    for (const auto& id : candidates) {
        Total total;
        total.candidate = id;
        total.N = batch;
        for (const auto& layer : layers) {
            if (layer.shapes.N != batch) continue;
            ++total.layers;
            const Measurement* m = layer.find(id);
            if (!m || !m->ran) continue;
            ++total.layers_run;
            total.weighted_ms += layer.depth * m->timing.median_ms;
            total.weighted_gflop += layer.depth * layer.shapes.direct_flops() * 1e-9;
        }
        if (total.weighted_ms > 0) total.gflops = total.weighted_gflop / (total.weighted_ms * 1e-3);
        result.push_back(total);
    }
    for (auto& total : result) {
        for (const auto& other : result) {
            if (!total.complete() || !other.complete() || total.weighted_ms <= 0) continue;
            if (other.candidate == "naive") total.speedup_vs_naive = other.weighted_ms / total.weighted_ms;
            if (other.candidate == "clblast") total.speedup_vs_clblast = other.weighted_ms / total.weighted_ms;
        }
    }
    return result;
}

void print_table(std::ostream& out, const BenchReport& r) {
    const auto& d = r.info.device;
    out << "netcl-bench " << r.info.netcl_version << " (git " << r.info.git_revision << ")  " << r.info.started_utc
        << "\n";
    out << "device " << r.info.device_id << ": " << d.name << " | " << d.platform_name << " | driver "
        << d.driver_version << " | " << d.compute_units << " compute units | profile: " << d.tuned_source << "\n";
    const bool bias = !r.layers.empty() && r.layers.front().shapes.bias;
    out << "layers: " << r.layer_set << " | inputs, weights" << (bias ? " and bias" : "") << " uniform in [-1,1]"
        << (bias ? "" : ", no bias") << "\n";
    out << "ms = median device time (OpenCL events, first to last command) of " << r.settings.repeat
        << " runs after 1 checked run + " << r.settings.warmup
        << " warm-up; min/max of the same runs; program builds excluded (\"build ms\": netcl's program builds and\n"
           "   cache loads in the first run; for clblast its first call's wall time minus the median)\n";
    out << "GFLOPS = 2*N*K*(C/groups)*R*S*P*Q / ms (direct count); vs = speedup (>1: faster than that one)\n";
    out << "max err = max |y - fp64 reference| over the checked outputs (per layer below); ok = within tolerance\n\n";

    std::vector<std::string> titles;
    std::vector<int> widths;
    for (const auto& c : kColumns) {
        titles.emplace_back(c.title);
        widths.push_back(c.width);
    }
    for (const auto& layer : r.layers) {
        widths[0] = std::max<int>(widths[0], static_cast<int>(layer.name.size()));
        widths[2] = std::max<int>(widths[2], static_cast<int>(compact_shape(layer.shapes).size()));
        for (const auto& m : layer.results) {
            widths[3] = std::max<int>(widths[3], static_cast<int>(candidate_cell(m).size()));
        }
    }
    print_row(out, widths, titles);
    std::vector<std::string> notes;
    for (const auto& layer : r.layers) {
        for (const auto& m : layer.results) {
            std::vector<std::string> cells{layer.name, std::to_string(layer.shapes.N), compact_shape(layer.shapes),
                                           candidate_cell(m)};
            if (!m.ran) {
                cells.insert(cells.end(), {"-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
                notes.push_back(layer.name + " N=" + std::to_string(layer.shapes.N) + " " + m.candidate +
                                " did not run: " + m.skipped);
            } else {
                cells.insert(cells.end(),
                             {fixed(m.timing.median_ms, 3), fixed(m.timing.min_ms, 3), fixed(m.timing.max_ms, 3),
                              fixed(m.gflops, 2), speedup_text(layer.speedup(m, "naive")),
                              speedup_text(layer.speedup(m, "clblast")), scientific(m.max_error),
                              m.within_tolerance ? "yes" : "NO", human_bytes(m.workspace_bytes), fixed(m.build_ms, 0)});
            }
            print_row(out, widths, cells);
        }
    }
    out << "\n";
    std::vector<std::string> total_titles{"Total", "N", "depth-weighted", "candidate", "ms", "", "", "GFLOPS",
                                          "vs naive", "vs clblast"};
    print_row(out, widths, total_titles);
    for (const auto& t : r.totals()) {
        if (t.layers_run == 0) continue;
        const std::string coverage = t.complete() ? "all " + std::to_string(t.layers) + " layers"
                                                  : std::to_string(t.layers_run) + " of " + std::to_string(t.layers) +
                                                        " layers";
        print_row(out, widths, {"Total", std::to_string(t.N), coverage, t.candidate, fixed(t.weighted_ms, 3), "", "", fixed(t.gflops, 2),
                        speedup_text(t.speedup_vs_naive), speedup_text(t.speedup_vs_clblast)});
    }

    out << "\nreference per layer (fp64 on the host):\n";
    for (const auto& layer : r.layers) {
        out << "  " << layer.name << " N=" << layer.shapes.N << " depth " << layer.depth << ": " << layer.reference
            << ", " << fixed(layer.reference_seconds, 1) << " s\n";
    }
    out << "selector plans:\n";
    for (const auto& layer : r.layers) {
        if (const Measurement* m = layer.find("selector"); m && m->ran) {
            out << "  " << layer.name << " N=" << layer.shapes.N << ": " << m->plan << "\n";
        }
    }
    if (!notes.empty()) {
        out << "not run:\n";
        for (const auto& note : notes) out << "  " << note << "\n";
    }
    out << "wall time " << fixed(r.wall_seconds, 1) << " s\n";
}

}  // namespace netcl::bench
