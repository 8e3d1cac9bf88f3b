#include "Accuracy.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>

#include "AccuracyVincent.hpp"
#include "Candidates.hpp"
#include "Layers.hpp"
#include "Measure.hpp"
#include "NumberText.hpp"
#include "Progress.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"

namespace netcl::bench {

namespace {

// Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", Table 4:
// maximum element error, fp32 data, for the layer of Table 3 with this
// C x H x W and K (figures transcribed from the paper).
struct PaperRow {
    const char* layer;
    std::int64_t C, HW, K;
    double direct, f2, f4;
};
constexpr PaperRow kTable4[] = {
    {"conv1.2", 64, 224, 64, 4.01e-05, 1.53e-05, 2.84e-04},   {"conv2.2", 128, 112, 128, 8.01e-05, 2.86e-05, 5.41e-04},
    {"conv3.2", 256, 56, 256, 1.53e-04, 5.34e-05, 9.06e-04},  {"conv4.2", 512, 28, 512, 3.20e-04, 5.34e-05, 1.04e-03},
    {"conv5", 512, 14, 512, 3.43e-04, 4.20e-05, 1.08e-03}};

// The candidate a column runs, if it can take `shapes` here: for a fused
// Winograd column ("wino-f4") the first of the fused kernel's variants, never
// the separate-transform ones ("wino-f4-gemm", "wino-f4r5-gemm"); for any other
// column ("naive": the direct sum, "wino-f4-gemm") the variant of that id.
std::optional<Candidate> first_runnable(const std::string& column, const ConvShapes& shapes,
                                        const DeviceProfile& profile) {
    const bool gemm = column.size() >= 5 && column.compare(column.size() - 5, 5, "-gemm") == 0;
    // "wino-f2" names the fused kernels' variants; "wino-wgrad-f2" is a variant of its own.
    const bool fused_column = column.rfind("wino-", 0) == 0 && column.rfind("wino-wgrad-", 0) != 0 && !gemm;
    for (const auto& c : all_candidates()) {
        const bool fused = c.id.rfind(column + "-fused", 0) == 0 || c.id.rfind(column + "-lowlocal", 0) == 0;
        if ((fused_column ? fused : c.id == column) && !candidate_why_not(c, shapes, profile)) return c;
    }
    return std::nullopt;
}

}  // namespace

int run_accuracy(const std::shared_ptr<Context>& context, const RunInfo& info, const ReferencePolicy& policy,
                 const std::string& json_path, std::ostream& out) {
    const auto start = std::chrono::steady_clock::now();
    const auto vgg = net_layers("vgg16");
    // What a Conv2d plans with (shipped files layered under the device's own values):
    // a variant nvidia-gpu turns off (*_enabled = 0) has no column here, not a failed one.
    const DeviceProfile profile = KernelSelector::resolve_profile(context->profile());
    // Fused Winograd (one fp32 sum over C per output) and separate-transform
    // Winograd on the GEMM engine (C summed in slices of 128, each slice's sum
    // added to a running total: ops/winograd_gemm/WinogradGemmConfig.cpp).
    const char* const algorithms[] = {"naive",        "wino-f2",      "wino-f4",      "wino-f6",
                                      "wino-f2-gemm", "wino-f4-gemm", "wino-f6-gemm"};
    constexpr int kAlgorithms = 7;

    out << "netcl-bench --accuracy " << info.netcl_version << " (git " << info.git_revision << ")  device "
        << info.device.name << " | " << info.device.platform_name << " | driver " << info.device.driver_version
        << "\n";
    out << "Max element error |y - fp64 reference| on the VGG layers of Lavin & Gray Table 3, N = 1, data and\n"
           "filters uniform in [-1,1], fp32 storage and arithmetic, no bias; the paper's fp32 figures (Table 4,\n"
           "NVIDIA GPU, their kernels) beside netcl's. Winograd runs the first variant of each tile that this\n"
           "device can take (the arithmetic is the same in every fused variant); sliced: separate transforms and\n"
           "the GEMM engine, C summed in slices of 128. F(6x6): the paper has none.\n\n";
    char header[320];
    std::snprintf(header, sizeof header, "%-8s %-16s %-31s %9s %9s   %9s %9s %9s   %9s %9s %9s   %9s %9s %8s\n",
                  "layer", "CxHxW,K", "reference", "direct", "paper", "F(2x2)", "sliced", "paper", "F(4x4)", "sliced",
                  "paper", "F(6x6)", "sliced", "time s");
    out << header;

    nlohmann::json rows = nlohmann::json::array();
    int exit_code = 0;
    Progress progress(std::size(kTable4));
    std::size_t done = 0;
    for (const PaperRow& paper : kTable4) {
        const auto layer_start = std::chrono::steady_clock::now();
        const BenchLayer* found = nullptr;
        for (const auto& layer : vgg) {
            const auto& s = layer.shapes;
            if (s.C == paper.C && s.H == paper.HW && s.W == paper.HW && s.K == paper.K) found = &layer;
        }
        if (!found) throw Error(std::string("the vgg16 layer set has no layer like Lavin & Gray's ") + paper.layer);
        ConvShapes shapes = found->shapes;
        shapes.N = 1;
        progress.update(done, std::string(paper.layer) + " reference");
        const LayerData data(context, shapes, /*seed=*/0xacc0 + done);
        const ReferenceCheck reference(shapes, data.x, data.weights, data.bias, data.dy, policy);

        double errors[kAlgorithms];
        std::string plans[kAlgorithms];
        for (int a = 0; a < kAlgorithms; ++a) {
            progress.update(done, std::string(paper.layer) + " " + algorithms[a]);
            const auto candidate = first_runnable(algorithms[a], shapes, profile);
            errors[a] = NAN;
            if (!candidate) {
                plans[a] = "no variant can take this layer here";
                exit_code = 1;
                continue;
            }
            const Measurement m = measure(context, *candidate, data, reference, RunSettings{0, 1});
            if (!m.ran) {
                plans[a] = m.skipped;
                exit_code = 1;
                continue;
            }
            errors[a] = m.max_error;
            plans[a] = m.choice;
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - layer_start).count();
        char line[400];
        const std::string chw = std::to_string(shapes.C) + "x" + std::to_string(shapes.H) + "x" +
                                std::to_string(shapes.W) + "," + std::to_string(shapes.K);
        std::snprintf(line, sizeof line, "%-8s %-16s %-31s %9s %9s   %9s %9s %9s   %9s %9s %9s   %9s %9s %8.1f\n",
                      paper.layer, chw.c_str(), reference.describe().c_str(), scientific(errors[0]).c_str(),
                      scientific(paper.direct).c_str(), scientific(errors[1]).c_str(), scientific(errors[4]).c_str(), scientific(paper.f2).c_str(),
                      scientific(errors[2]).c_str(), scientific(errors[5]).c_str(), scientific(paper.f4).c_str(), scientific(errors[3]).c_str(),
                      scientific(errors[6]).c_str(), seconds);
        progress.finish();
        out << line << std::flush;
        nlohmann::json row = {{"layer", paper.layer},       {"shapes", shapes.str()},
                              {"reference", reference.describe()}, {"reference_sampled", reference.sampled()},
                              {"seconds", seconds},         {"paper", {{"direct", paper.direct}, {"f2", paper.f2}, {"f4", paper.f4}}}};
        for (int a = 0; a < kAlgorithms; ++a) {
            row[algorithms[a]] = {{"max_abs_error", std::isfinite(errors[a]) ? nlohmann::json(errors[a]) : nlohmann::json(nullptr)},
                                  {"plan", plans[a]}};
        }
        rows.push_back(row);
        ++done;
    }
    progress.finish();

    // The gradients, same protocol and layers. Backward data runs each tile on
    // dy with the rotated filters (ops/as_forward/): its error is held beside
    // the same tile's forward error on the layer (the bar: within 2x).
    // Backward weights: the direct sum, the GEMM engine's (wgrad-gemm) and
    // Winograd's F(3x3,2x2) and F(3x3,4x4), whose reductions all run over
    // N x P x Q (50176 terms on conv1.2 where forward's run over 576): each
    // Winograd tile's error is held beside the direct dw's on the layer, the
    // same-alpha forward tile's error being of another sum.
    out << "\nThe gradients, same layers and protocol (dy uniform in [-1,1]): backward data (dx) per tile, with its\n"
           "ratio to the same tile's forward error above (bar: at most 2x); backward weights (dw) direct, on the\n"
           "GEMM engine and per Winograd tile, with its ratio to the direct dw's error.\n";
    char gradient_header[400];
    std::snprintf(gradient_header, sizeof gradient_header,
                  "%-8s %9s   %9s %5s %9s %5s   %9s %5s %9s %5s   %9s %5s %9s %5s   %9s %9s   %9s %5s %9s %5s\n",
                  "layer", "dx direct", "F(2x2)", "x fwd", "sliced", "x fwd", "F(4x4)", "x fwd", "sliced", "x fwd",
                  "F(6x6)", "x fwd", "sliced", "x fwd", "dw direct", "dw gemm", "dw F(2x2)", "x dir", "dw F(4x4)",
                  "x dir");
    out << gradient_header;
    Progress gradient_progress(std::size(kTable4));
    done = 0;
    for (const PaperRow& paper : kTable4) {
        nlohmann::json& row = rows[done];
        ConvShapes shapes;
        for (const auto& layer : vgg) {
            const auto& s = layer.shapes;
            if (s.C == paper.C && s.H == paper.HW && s.W == paper.HW && s.K == paper.K) shapes = layer.shapes;
        }
        shapes.N = 1;
        const auto error_of = [&](const char* column, const ConvShapes& problem, const LayerData& data,
                                  const ReferenceCheck& reference) {
            gradient_progress.update(done, std::string(paper.layer) + " " + to_string(problem.direction) + " " + column);
            const auto candidate = first_runnable(column, problem, profile);
            if (!candidate) {
                exit_code = 1;
                return std::pair<double, std::string>{NAN, "no variant can take this layer here"};
            }
            const Measurement m = measure(context, *candidate, data, reference, RunSettings{0, 1});
            if (!m.ran) exit_code = 1;
            return m.ran ? std::pair<double, std::string>{m.max_error, m.choice}
                         : std::pair<double, std::string>{NAN, m.skipped};
        };
        const ConvShapes dgrad = shapes.in_direction(ConvDirection::BACKWARD_DATA);
        const LayerData dgrad_data(context, dgrad, /*seed=*/0xdacc0 + done);
        const ReferenceCheck dgrad_reference(dgrad, dgrad_data.x, dgrad_data.weights, dgrad_data.bias, dgrad_data.dy,
                                             policy);
        double dx[kAlgorithms];
        nlohmann::json dx_json = nlohmann::json::object();
        for (int a = 0; a < kAlgorithms; ++a) {
            const auto [error, plan] = error_of(algorithms[a], dgrad, dgrad_data, dgrad_reference);
            dx[a] = error;
            const auto forward = row[algorithms[a]]["max_abs_error"];
            const double ratio = forward.is_number() ? error / forward.get<double>() : NAN;
            dx_json[algorithms[a]] = {{"max_abs_error", std::isfinite(error) ? nlohmann::json(error) : nlohmann::json(nullptr)},
                                      {"over_forward", std::isfinite(ratio) ? nlohmann::json(ratio) : nlohmann::json(nullptr)},
                                      {"plan", plan}};
        }
        const ConvShapes wgrad = shapes.in_direction(ConvDirection::BACKWARD_WEIGHTS);
        const LayerData wgrad_data(context, wgrad, /*seed=*/0xdacc8 + done);
        const ReferenceCheck wgrad_reference(wgrad, wgrad_data.x, wgrad_data.weights, wgrad_data.bias, wgrad_data.dy,
                                             policy);
        nlohmann::json dw_json = nlohmann::json::object();
        double dw[4];
        const char* const weight_columns[] = {"naive", "wgrad-gemm", "wino-wgrad-f2", "wino-wgrad-f4"};
        for (int a = 0; a < 4; ++a) {
            const auto [error, plan] = error_of(weight_columns[a], wgrad, wgrad_data, wgrad_reference);
            dw[a] = error;
            dw_json[weight_columns[a]] = {{"max_abs_error", std::isfinite(error) ? nlohmann::json(error) : nlohmann::json(nullptr)},
                                          {"plan", plan}, {"reference", wgrad_reference.describe()}};
            if (a >= 2) {
                const double over_direct = error / dw[0];
                dw_json[weight_columns[a]]["over_direct"] =
                    std::isfinite(over_direct) ? nlohmann::json(over_direct) : nlohmann::json(nullptr);
            }
        }
        const auto over_direct = [&](int a) {
            char text[16];
            std::snprintf(text, sizeof text, "%.2f", dw[a] / dw[0]);
            return std::string(text);
        };
        const auto over = [&](int a) {
            const auto forward = row[algorithms[a]]["max_abs_error"];
            char text[16];
            std::snprintf(text, sizeof text, "%.2f", forward.is_number() ? dx[a] / forward.get<double>() : NAN);
            return std::string(text);
        };
        char line[480];
        std::snprintf(line, sizeof line,
                      "%-8s %9s   %9s %5s %9s %5s   %9s %5s %9s %5s   %9s %5s %9s %5s   %9s %9s   %9s %5s %9s %5s\n",
                      paper.layer, scientific(dx[0]).c_str(), scientific(dx[1]).c_str(), over(1).c_str(), scientific(dx[4]).c_str(),
                      over(4).c_str(), scientific(dx[2]).c_str(), over(2).c_str(), scientific(dx[5]).c_str(), over(5).c_str(),
                      scientific(dx[3]).c_str(), over(3).c_str(), scientific(dx[6]).c_str(), over(6).c_str(), scientific(dw[0]).c_str(),
                      scientific(dw[1]).c_str(), scientific(dw[2]).c_str(), over_direct(2).c_str(), scientific(dw[3]).c_str(),
                      over_direct(3).c_str());
        gradient_progress.finish();
        out << line << std::flush;
        row["backward_data"] = dx_json;
        row["backward_weights"] = dw_json;
        ++done;
    }
    gradient_progress.finish();
    out << "\nvariants run:\n";
    for (const auto& row : rows) {
        out << "  " << row["layer"].get<std::string>() << ": direct " << row["naive"]["plan"].get<std::string>()
            << "; F(2x2) " << row["wino-f2"]["plan"].get<std::string>()
            << "; F(4x4) " << row["wino-f4"]["plan"].get<std::string>() << "; F(6x6) "
            << row["wino-f6"]["plan"].get<std::string>() << "\n";
    }
    bool vincent_failed = false;
    const nlohmann::json vincent_rows = run_vincent_table(context, out, vincent_failed);
    if (vincent_failed) exit_code = 1;
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char tail[96];
    std::snprintf(tail, sizeof tail, "accuracy table took %.1f s\n", total);
    out << tail;

    if (!json_path.empty()) {
        const nlohmann::json document = {{"tool", "netcl-bench --accuracy"}, {"netcl_version", info.netcl_version},
                                         {"git_revision", info.git_revision}, {"device", info.device.name},
                                         {"platform", info.device.platform_name}, {"driver", info.device.driver_version},
                                         {"started_utc", info.started_utc},   {"rows", rows}, {"vincent_rows", vincent_rows},
                                         {"seconds", total}};
        std::ofstream file(json_path);
        if (!file) throw Error("cannot write the JSON report to '" + json_path + "'");
        file << document.dump(2) << "\n";
    }
    return exit_code;
}

}  // namespace netcl::bench
