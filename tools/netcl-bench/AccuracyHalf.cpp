#include "AccuracyHalf.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <vector>

#include "Candidates.hpp"
#include "Layers.hpp"
#include "Measure.hpp"
#include "NumberText.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "Progress.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"

namespace netcl::bench {

namespace {

// Lavin & Gray, Table 4, fp16 data and filters, fp32 arithmetic: one figure a
// layer ("all tested algorithms are equally accurate with fp16 data").
struct PaperRow {
    const char* layer;
    std::int64_t C, HW, K;
    double fp16;
};
constexpr PaperRow kTable4Half[] = {{"conv1.2", 64, 224, 64, 1.14e-02},
                                    {"conv2.2", 128, 112, 128, 1.45e-02},
                                    {"conv3.2", 256, 56, 256, 1.99e-02},
                                    {"conv4.2", 512, 28, 512, 3.17e-02},
                                    {"conv5", 512, 14, 512, 2.61e-02}};

// The columns: the direct sum and the separate-transform tiles (the fused
// Winograd kernel stores float32 only). Held to the paper: the first three.
constexpr const char* kColumns3x3[] = {"naive", "wino-f2-gemm", "wino-f4-gemm", "wino-f6-gemm"};
constexpr int kBarColumns = 3;
constexpr const char* kColumns5x5[] = {"naive", "wino-f4r5-gemm", "wino-f5r5-gemm", "wino-f9r5-gemm"};

struct Cell {
    double error = NAN;
    std::string plan;
    double arithmetic_tolerance = 0;  // fp32's for the variant (tests/support conv_tolerance)
};

// The max element error of `column` on `shapes` in half, or NaN with the reason.
Cell run_column(const std::shared_ptr<Context>& context, const char* column, const ConvShapes& shapes,
                const DeviceProfile& profile, const LayerData& data, const ReferenceCheck& reference) {
    const auto c = runnable_candidate(column, shapes, profile);
    if (!c) return {NAN, "no variant can take this layer here"};
    const Measurement m = measure(context, *c, data, reference, RunSettings{0, 1});
    if (!m.ran) return {NAN, m.skipped};
    return {m.max_error, m.choice, conv_tolerance(shapes, tolerance_factor(c->variant))};
}

}  // namespace

int run_accuracy_half(const std::shared_ptr<Context>& context, const RunInfo& info, const ReferencePolicy& policy,
                      const std::string& json_path, std::ostream& out) {
    const DeviceProfile profile = KernelSelector::resolve_profile(context->profile());
    out << "netcl-bench --accuracy --dtype float16 " << info.netcl_version << " (git " << info.git_revision
        << ")  device " << info.device.name << " | " << info.device.platform_name << "\n";
    out << "Max element error |y - fp64 reference| on the VGG layers of Lavin & Gray Table 3, N = 1, data and\n"
           "filters uniform in [-1,1] rounded to half, x, w and y stored in half (vload_half/vstore_half), fp32\n"
           "arithmetic, no bias; the paper's fp16 figure (Table 4, one a layer) beside. Winograd: separate\n"
           "transforms on the GEMM engine (U, V, M in float32). floor: half an ulp of half at the largest |y|,\n"
           "the least error any half output can have against fp64 (the paper stored fp32 outputs, so its figure\n"
           "is the input rounding alone). Bar: direct, F(2x2), F(4x4) <= the paper (met), else at the floor\n"
           "(floor: the output's own rounding, plus fp32's arithmetic tolerance of the variant), else MISSED.\n\n";
    char header[256];
    std::snprintf(header, sizeof header, "%-8s %-16s %9s %9s %9s %9s   %9s %9s  %s\n", "layer", "CxHxW,K", "direct",
                  "F(2x2)", "F(4x4)", "F(6x6)", "paper", "floor", "bar");
    out << header;

    int exit_code = 0;
    nlohmann::json rows = nlohmann::json::array();
    const auto vgg = net_layers("vgg16");
    Progress progress(std::size(kTable4Half));
    std::size_t done = 0;
    for (const PaperRow& paper : kTable4Half) {
        const BenchLayer* found = nullptr;
        for (const auto& layer : vgg) {
            const auto& s = layer.shapes;
            if (s.C == paper.C && s.H == paper.HW && s.W == paper.HW && s.K == paper.K) found = &layer;
        }
        if (!found) throw Error(std::string("the vgg16 layer set has no layer like Lavin & Gray's ") + paper.layer);
        ConvShapes shapes = found->shapes;
        shapes.N = 1;
        shapes.dtype = DataType::FLOAT16;
        progress.update(done, std::string(paper.layer) + " reference");
        const LayerData data(context, shapes, /*seed=*/0x4a1f0 + done);
        const ReferenceCheck reference(shapes, data.x, data.weights, data.bias, data.dy, policy);
        nlohmann::json row = {{"layer", paper.layer}, {"shapes", shapes.str()}, {"reference", reference.describe()},
                              {"paper_fp16", paper.fp16}};
        // Half an ulp of the largest output's binade: |y| in [2^e, 2^(e+1)) is stored to 2^(e-10).
        const double largest = reference.max_abs_reference();
        const double floor_error = largest > 0 ? std::ldexp(1.0, std::ilogb(largest) - 11) : 0.0;
        row["half_rounding_floor"] = floor_error;
        std::vector<Cell> cells;
        bool met = true, at_floor = true;
        for (int i = 0; i < static_cast<int>(std::size(kColumns3x3)); ++i) {
            progress.update(done, std::string(paper.layer) + " " + kColumns3x3[i]);
            cells.push_back(run_column(context, kColumns3x3[i], shapes, profile, data, reference));
            if (!std::isfinite(cells.back().error)) exit_code = 1;
            if (i < kBarColumns && !(cells.back().error <= paper.fp16)) met = false;
            // At the floor: the output's rounding plus what fp32 arithmetic may move a value across a tie.
            if (i < kBarColumns && !(cells.back().error <= floor_error + cells.back().arithmetic_tolerance)) {
                at_floor = false;
            }
            row[kColumns3x3[i]] = {{"max_abs_error", std::isfinite(cells.back().error) ? nlohmann::json(cells.back().error)
                                                                                        : nlohmann::json(nullptr)},
                                   {"plan", cells.back().plan}};
        }
        const char* verdict = met ? "met" : at_floor ? "floor" : "MISSED";
        if (!met && !at_floor) exit_code = 1;
        row["bar"] = verdict;
        progress.finish();
        char line[256];
        const std::string chw = std::to_string(shapes.C) + "x" + std::to_string(shapes.H) + "x" +
                                std::to_string(shapes.W) + "," + std::to_string(shapes.K);
        std::snprintf(line, sizeof line, "%-8s %-16s %9s %9s %9s %9s   %9s %9s  %s\n", paper.layer, chw.c_str(),
                      scientific(cells[0].error).c_str(), scientific(cells[1].error).c_str(), scientific(cells[2].error).c_str(),
                      scientific(cells[3].error).c_str(), scientific(paper.fp16).c_str(), scientific(floor_error).c_str(), verdict);
        out << line << std::flush;
        rows.push_back(row);
        ++done;
    }

    // The 5x5 tiles (Vincent et al.'s layers), reported: the paper has no 5x5 figure.
    out << "\n5x5 layers (alexnet5x5 set, N = 1), same protocol; reported, no paper figure:\n";
    std::snprintf(header, sizeof header, "%-16s %-16s %9s %9s %9s %9s\n", "layer", "CxHxW,K", "direct", "F(4x4,5x5)",
                  "F(5x5,5x5)", "F(9x9,5x5)");
    out << header;
    nlohmann::json rows5 = nlohmann::json::array();
    std::size_t index = 0;
    for (const auto& layer : net_layers("alexnet5x5")) {
        ConvShapes shapes = layer.shapes;
        shapes.N = 1;
        shapes.dtype = DataType::FLOAT16;
        const LayerData data(context, shapes, /*seed=*/0x5a1f0 + index++);
        const ReferenceCheck reference(shapes, data.x, data.weights, data.bias, data.dy, policy);
        nlohmann::json row = {{"layer", layer.name}, {"shapes", shapes.str()}, {"reference", reference.describe()}};
        std::vector<Cell> cells;
        for (const char* column : kColumns5x5) {
            cells.push_back(run_column(context, column, shapes, profile, data, reference));
            if (!std::isfinite(cells.back().error)) exit_code = 1;
            row[column] = {{"max_abs_error", std::isfinite(cells.back().error) ? nlohmann::json(cells.back().error)
                                                                               : nlohmann::json(nullptr)},
                           {"plan", cells.back().plan}};
        }
        char line[256];
        const std::string chw = std::to_string(shapes.C) + "x" + std::to_string(shapes.H) + "x" +
                                std::to_string(shapes.W) + "," + std::to_string(shapes.K);
        std::snprintf(line, sizeof line, "%-16s %-16s %9s %9s %9s %9s\n", layer.name.c_str(), chw.c_str(),
                      scientific(cells[0].error).c_str(), scientific(cells[1].error).c_str(), scientific(cells[2].error).c_str(),
                      scientific(cells[3].error).c_str());
        out << line << std::flush;
        rows5.push_back(row);
    }
    if (!json_path.empty()) {
        const nlohmann::json document = {{"tool", "netcl-bench --accuracy --dtype float16"},
                                         {"netcl_version", info.netcl_version}, {"git_revision", info.git_revision},
                                         {"device", info.device.name}, {"platform", info.device.platform_name},
                                         {"started_utc", info.started_utc}, {"rows", rows}, {"rows_5x5", rows5}};
        std::ofstream file(json_path);
        if (!file) throw Error("cannot write the JSON report to '" + json_path + "'");
        file << document.dump(2) << "\n";
    }
    return exit_code;
}

}  // namespace netcl::bench
