#include "Report.hpp"

#include "NumberText.hpp"
#include "RoundRatio.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace netcl::bench {

namespace {

std::string speedup_text(const std::optional<double>& value) { return value ? fixed(*value, 2) + "x" : "-"; }

std::string human_bytes(std::size_t bytes) {
    if (bytes < 1024) return std::to_string(bytes);
    if (bytes < (1 << 20)) return fixed(bytes / 1024.0, 1) + "K";
    return fixed(bytes / 1048576.0, 1) + "M";
}

// Columns with their widths; text is left-aligned in the first four, right in the rest.
struct Column {
    std::string title;
    int width;
};
constexpr std::size_t kLeftAligned = 4;

// `widths`: the columns' widths, the text columns widened to their longest cell.
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

// Which of the optional columns this report has.
struct Layout {
    bool event_ms = false;   // the clock is wall: the OpenCL event time gets its own column
    bool peak = false;       // a peak was measured: % of it
    bool fma = false;        // the FMA peak was measured: % of it
    bool vs_onednn = false;  // oneDNN ran
};

std::vector<Column> columns(const Layout& layout) {
    std::vector<Column> list{{"layer", 7}, {"N", 3},    {"shape", 14}, {"candidate", 9},
                             {"ms", 10},   {"min", 10}, {"max", 10},   {"GFLOPS", 8}};
    if (layout.event_ms) list.push_back({"event ms", 10});
    if (layout.peak) list.push_back({"% peak", 6});
    if (layout.fma) list.push_back({"% FMA", 5});
    list.insert(list.end(), {{"vs naive", 9}, {"vs clblast", 10}});
    if (layout.vs_onednn) list.push_back({"vs oneDNN", 9});
    list.insert(list.end(), {{"max err", 9}, {"ok", 3}, {"workspace", 9}, {"build ms", 9}});
    return list;
}

std::string candidate_cell(const Measurement& m) {
    if ((m.candidate == "selector" || m.candidate == "float32-selector") && m.ran) return m.candidate + "=" + m.choice;
    if (!m.impl.empty() && m.ran) return m.candidate + "=" + m.impl;
    return m.candidate;
}

std::string percent_text(const std::optional<double>& value) { return value ? fixed(*value, 1) : "-"; }

bool is_onednn(const std::string& candidate) { return candidate.rfind("onednn-", 0) == 0; }

// Other processes' CPU share from which a figure is flagged: a tenth of the machine is a fifth of a core
// on two cores, enough to stretch a statically split run by a fifth.
constexpr double kDisturbedShare = 0.10;

}  // namespace

const Measurement* LayerResult::find(const std::string& candidate) const {
    for (const auto& m : results) {
        if (m.candidate == candidate) return &m;
    }
    return nullptr;
}

namespace {

// On one clock for both: a candidate without events (wall-timed) is compared wall against wall.
std::optional<double> ratio(const Measurement& base, const Measurement& result, Clock clock, bool paired) {
    if (!base.ran || !result.ran) return std::nullopt;
    if (!base.has_events() || !result.has_events()) clock = Clock::Wall;
    return round_ratio(base.samples_ms(clock), result.samples_ms(clock), base.timing(clock).median_ms,
                       result.timing(clock).median_ms, paired);
}

}  // namespace

std::optional<double> LayerResult::speedup(const Measurement& result, const std::string& baseline,
                                           Clock clock) const {
    const Measurement* base = find(baseline);
    if (!base) return std::nullopt;
    return ratio(*base, result, clock, paired);
}

const Measurement* LayerResult::best_onednn() const {
    const Measurement* best = nullptr;
    for (const auto& m : results) {
        if (m.ran && is_onednn(m.candidate) && (!best || m.wall.median_ms < best->wall.median_ms)) best = &m;
    }
    return best;
}

std::optional<double> LayerResult::speedup_vs_onednn(const Measurement& result) const {
    const Measurement* peer = best_onednn();
    if (!peer) return std::nullopt;
    return ratio(*peer, result, Clock::Wall, paired);
}

double BenchReport::gflops(const LayerResult& layer, const Measurement& m) const {
    const double ms = m.timing(clock).median_ms;
    return m.ran && ms > 0 ? layer.shapes.direct_flops() / (ms * 1e6) : 0.0;
}

std::optional<double> BenchReport::percent_of_peak(double value) const {
    if (!peak || peak->gflops <= 0) return std::nullopt;
    return 100.0 * value / peak->gflops;
}

std::optional<double> BenchReport::percent_of_fma_peak(double value) const {
    if (!fma_peak || fma_peak->gflops <= 0) return std::nullopt;
    return 100.0 * value / fma_peak->gflops;
}

bool BenchReport::any_onednn() const {
    for (const auto& layer : layers) {
        if (layer.best_onednn()) return true;
    }
    return false;
}

std::string compact_shape(const ConvShapes& s) {
    // 3-D: the depth before the height ("64x8x28x28 K256 3x3x3").
    const bool deep = s.spatial_rank == 3;
    std::string text = std::to_string(s.C) + "x" + (deep ? std::to_string(s.D) + "x" : "") + std::to_string(s.H) +
                       "x" + std::to_string(s.W) + " K" + std::to_string(s.K) + " " +
                       (deep ? std::to_string(s.T) + "x" : "") + std::to_string(s.R) + "x" + std::to_string(s.S) +
                       " s" + std::to_string(s.stride_h) + " p" + std::to_string(s.pad_top);
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
            total.weighted_ms += layer.depth * m->timing(clock).median_ms;
            total.weighted_wall_ms += layer.depth * m->wall.median_ms;
            total.all_events = total.all_events && m->has_events();
            total.weighted_gflop += layer.depth * layer.shapes.direct_flops() * 1e-9;
        }
        if (total.weighted_ms > 0) {
            total.gflops = total.weighted_gflop / (total.weighted_ms * 1e-3);
            total.percent_of_peak = percent_of_peak(total.gflops);
            total.percent_of_fma_peak = percent_of_fma_peak(total.gflops);
        }
        result.push_back(total);
    }
    // The oneDNN peer of the set: the candidate fastest over all of it (any oneDNN build, either layout),
    // as a network would keep one library and one layout.
    std::string peer;
    double peer_wall_ms = 0;
    for (const auto& total : result) {
        if (is_onednn(total.candidate) && total.complete() && total.layers > 0 &&
            (peer.empty() || total.weighted_wall_ms < peer_wall_ms)) {
            peer = total.candidate;
            peer_wall_ms = total.weighted_wall_ms;
        }
    }
    for (auto& total : result) {
        if (!total.complete() || total.weighted_ms <= 0) continue;
        for (const auto& other : result) {
            if (!other.complete()) continue;
            // On one clock: wall against wall where either total holds a run without events (Convgemm's,
            // a run that begins inside CLBlast).
            const bool events = clock == Clock::Events && total.all_events && other.all_events;
            const double speedup = events ? other.weighted_ms / total.weighted_ms
                                          : other.weighted_wall_ms / total.weighted_wall_ms;
            if (other.candidate == "naive") total.speedup_vs_naive = speedup;
            if (other.candidate == "clblast") total.speedup_vs_clblast = speedup;
        }
        if (!peer.empty()) {
            total.speedup_vs_onednn = peer_wall_ms / total.weighted_wall_ms;
            total.onednn_peer = peer;
        }
    }
    return result;
}

void print_table(std::ostream& out, const BenchReport& r) {
    const auto& d = r.info.device;
    out << "netcl-bench " << r.info.netcl_version << " (git " << r.info.git_revision << ")  " << r.info.started_utc
        << "\n";
    out << "device " << r.info.device_id << ": " << d.name << " | " << d.platform_name << " | driver "
        << d.driver_version << " | " << d.compute_units << " compute units | profile: " << d.tuned_source
        << " | POCL_AFFINITY=" << r.pocl_affinity.value << " (" << r.pocl_affinity.source << ")\n";
    if (r.isa_emulation.active()) {
        out << "ISA emulated: " << r.isa_emulation.text()
            << "; the caches, clocks and memory are still this host's\n";
    }
    const Layout layout{r.clock == Clock::Wall, r.peak.has_value(), r.fma_peak.has_value(), r.any_onednn()};
    if (r.onednn.built_in && (layout.vs_onednn || r.peak)) {
        const auto& policy = r.onednn.omp_wait_policy;
        out << "oneDNN " << r.onednn.version << " | " << r.onednn.cpu_isa << " | OMP_WAIT_POLICY="
            << (policy.value.empty() ? "(unset)" : policy.value) << " (" << policy.source << ")\n";
    }
    for (const std::string& failure : r.onednn.load_failures) {
        out << "oneDNN plugin NOT loaded (its peer is missing from this run): " << failure << "\n";
    }
    if (r.peak) {
        const std::size_t runs = r.peak->batches_ms.empty() ? 0 : r.peak->batches_ms.front().size();
        out << "peak: " << fixed(r.peak->gflops, 1) << " GFLOPS = " << r.peak->what << ", median of " << runs
            << " (" << fixed(r.peak->median_ms, 2) << " ms), the faster of " << r.peak->batches_ms.size()
            << " batches (before and after the layers); fastest single run " << fixed(r.peak->best_gflops, 1)
            << " GFLOPS\n";
    } else if (!r.peak_skipped.empty()) {
        out << "peak: not measured: " << r.peak_skipped << "\n";
    }
    if (r.fma_peak) {
        out << "FMA peak: " << fixed(r.fma_peak->gflops, 1) << " GFLOPS = " << r.fma_peak->what << " of "
            << r.fma_peak->batches << " batches (before and after the layers)";
        if (r.peak) out << "; the SGEMM peak is " << fixed(100.0 * r.peak->gflops / r.fma_peak->gflops, 0) << "% of it";
        out << "\n";
    } else if (!r.fma_peak_skipped.empty() && r.peak) {
        out << "FMA peak: not measured: " << r.fma_peak_skipped << "\n";
    }
    const bool bias = !r.layers.empty() && r.layers.front().shapes.bias;
    out << "layers: " << r.layer_set << " | inputs, weights" << (bias ? " and bias" : "") << " uniform in [-1,1]"
        << (bias ? "" : ", no bias") << "\n";
    if (r.clock == Clock::Wall) {
        out << "ms = median WALL time from submit to completion (netcl and CLBlast: enqueue + clFinish; oneDNN: "
               "execute + stream wait) of "
            << r.settings.repeat << " runs after 1 checked run + " << r.settings.warmup
            << " warm-up; min/max of the same runs;\n"
            << "   " << order_text(r.settings) << ";\n"
               "   event ms = median OpenCL event time of the same runs (device time, first command's start to "
               "last one's end);\n"
               "   program builds excluded (\"build ms\": netcl's program builds and cache loads in the first run; "
               "for clblast its first\n"
               "   call's wall time minus the median; for oneDNN making the primitive (JIT) and reordering the "
               "weights)\n";
    } else {
        out << "ms = median device time (OpenCL events, first to last command) of " << r.settings.repeat
            << " runs after 1 checked run + " << r.settings.warmup << " warm-up, " << order_text(r.settings)
            << ";\n   min/max of the same runs; program builds excluded (\"build ms\": netcl's program builds "
               "and\n   cache loads in the first run; for clblast its first call's wall time minus the median);\n"
               "   ms marked w: wall time (submit to clFinish), for a run whose events leave its first commands out "
               "(a CLBlast GEMM\n   reading x itself returns only its last command's event)\n";
    }
    out << "GFLOPS = 2*N*K*(C/groups)*R*S*P*Q / ms (direct count); vs = speedup (>1: faster than that one)"
        << (r.settings.interleave ? ", the median over rounds of the two runs' ratio in each round" : "");
    if (layout.vs_onednn) {
        out << ";\n   vs oneDNN: wall against the fastest oneDNN candidate on the layer (every oneDNN loaded, each "
               "in two layouts:\n   nchw: src/dst NCHW; blocked: oneDNN's own layout, reorders excluded); the "
               "totals take the one\n   candidate fastest over the whole set";
    }
    if (layout.peak) {
        out << ";\n   % peak = GFLOPS / the SGEMM peak above (a roofline line per kernel; SGEMM is a practical "
               "reference, not the FMA ceiling:\n   the best kernels can pass 100)";
    }
    if (layout.fma) {
        out << ";\n   % FMA = GFLOPS / the FMA peak above (the cores' arithmetic ceiling for a direct or GEMM kernel; "
               "Winograd,\n   doing fewer multiplies than the direct count, passes it)";
    }
    out << "\nmax err = max |y - fp64 reference| over the checked outputs (per layer below); ok = within tolerance\n\n";

    const std::vector<Column> cols = columns(layout);
    std::vector<std::string> titles;
    std::vector<int> widths;
    for (const auto& c : cols) {
        titles.push_back(c.title);
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
                cells.resize(cols.size(), "-");
                notes.push_back(layer.name + " N=" + std::to_string(layer.shapes.N) + " " + m.candidate +
                                " did not run: " + m.skipped);
            } else {
                const TimingSummary& t = m.timing(r.clock);
                const double gflops = r.gflops(layer, m);
                // An OpenCL candidate timed by the wall clock on an events report says so.
                const std::string wall_mark =
                    r.clock == Clock::Events && !m.has_events() && !is_onednn(m.candidate) ? " w" : "";
                cells.insert(cells.end(), {fixed(t.median_ms, 3) + wall_mark, fixed(t.min_ms, 3), fixed(t.max_ms, 3),
                                           fixed(gflops, 2)});
                if (layout.event_ms) cells.push_back(m.has_events() ? fixed(m.events.median_ms, 3) : "-");
                if (layout.peak) cells.push_back(percent_text(r.percent_of_peak(gflops)));
                if (layout.fma) cells.push_back(percent_text(r.percent_of_fma_peak(gflops)));
                cells.push_back(speedup_text(layer.speedup(m, "naive", r.clock)));
                cells.push_back(speedup_text(layer.speedup(m, "clblast", r.clock)));
                if (layout.vs_onednn) cells.push_back(speedup_text(layer.speedup_vs_onednn(m)));
                cells.insert(cells.end(), {scientific(m.max_error), m.within_tolerance ? "yes" : "NO",
                                           human_bytes(m.workspace_bytes), fixed(m.build_ms, 0)});
            }
            print_row(out, widths, cells);
        }
    }
    out << "\n";
    // The totals line up under the same columns: ms, GFLOPS, % peak and the speedups.
    std::vector<std::string> total_titles{"Total", "N", "depth-weighted", "candidate", "ms", "", "", "GFLOPS"};
    if (layout.event_ms) total_titles.push_back("");
    if (layout.peak) total_titles.push_back("% peak");
    if (layout.fma) total_titles.push_back("% FMA");
    total_titles.insert(total_titles.end(), {"vs naive", "vs clblast"});
    if (layout.vs_onednn) total_titles.push_back("vs oneDNN");
    print_row(out, widths, total_titles);
    std::string onednn_peer;
    for (const auto& t : r.totals()) {
        if (t.layers_run == 0) continue;
        const std::string coverage = t.complete() ? "all " + std::to_string(t.layers) + " layers"
                                                  : std::to_string(t.layers_run) + " of " + std::to_string(t.layers) +
                                                        " layers";
        std::vector<std::string> cells{"Total", std::to_string(t.N), coverage, t.candidate, fixed(t.weighted_ms, 3),
                                       "", "", fixed(t.gflops, 2)};
        if (layout.event_ms) cells.push_back("");
        if (layout.peak) cells.push_back(percent_text(t.percent_of_peak));
        if (layout.fma) cells.push_back(percent_text(t.percent_of_fma_peak));
        cells.push_back(speedup_text(t.speedup_vs_naive));
        cells.push_back(speedup_text(t.speedup_vs_clblast));
        if (layout.vs_onednn) cells.push_back(speedup_text(t.speedup_vs_onednn));
        print_row(out, widths, cells);
        if (!t.onednn_peer.empty()) onednn_peer = t.onednn_peer;
    }
    if (!onednn_peer.empty()) out << "(vs oneDNN in the totals: against " << onednn_peer << ", the fastest over the set)\n";
    // A float16 run with float32-selector beside it: half storage against float32 netcl, in this one run.
    const auto totals = r.totals();
    for (const auto& half : totals) {
        if (half.candidate != "selector" || !half.complete()) continue;
        for (const auto& single : totals) {
            if (single.candidate != "float32-selector" || single.N != half.N || !single.complete()) continue;
            out << "(float16 storage, N = " << half.N << ": selector " << fixed(half.weighted_ms, 3)
                << " ms against float32-selector " << fixed(single.weighted_ms, 3) << " ms: "
                << fixed(single.weighted_ms / half.weighted_ms, 2) << "x the speed)\n";
        }
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
    if (layout.vs_onednn) {
        out << "oneDNN implementations:\n";
        for (const auto& layer : r.layers) {
            for (const auto& m : layer.results) {
                if (m.ran && !m.impl.empty()) {
                    out << "  " << layer.name << " N=" << layer.shapes.N << " " << m.candidate << ": " << m.plan
                        << "\n";
                }
            }
        }
    }
    // Figures taken while other processes used the cores are not the candidates' own (OtherLoad.hpp).
    std::vector<std::string> disturbed;
    for (const auto& layer : r.layers) {
        for (const auto& m : layer.results) {
            if (m.ran && m.other_load >= kDisturbedShare) {
                disturbed.push_back(layer.name + " N=" + std::to_string(layer.shapes.N) + " " + m.candidate + ": " +
                                    fixed(100 * m.other_load, 0) + " % over " + fixed(m.other_load_window_ms, 0) +
                                    " ms");
            }
        }
    }
    if (!disturbed.empty()) {
        out << "disturbed: other processes used >= " << fixed(100 * kDisturbedShare, 0)
            << " % of the CPU while these were timed (their figures, and ratios with them, are not their own):\n";
        for (const auto& line : disturbed) out << "  " << line << "\n";
    }
    if (!notes.empty()) {
        out << "not run:\n";
        for (const auto& note : notes) out << "  " << note << "\n";
    }
    out << "wall time " << fixed(r.wall_seconds, 1) << " s\n";
}

}  // namespace netcl::bench
