#include "AccuracyVincent.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "Candidates.hpp"
#include "Layers.hpp"
#include "Measure.hpp"
#include "NumberText.hpp"
#include "Progress.hpp"
#include "ReferenceCheck.hpp"
#include "netcl/Error.hpp"

namespace netcl::bench {

namespace {

// Vincent et al., section 4, the numerical table (N = 32).
struct PaperRow {
    const char* net;
    double direct, unscaled, scaled;
};
constexpr PaperRow kVincent[] = {{"alexnet5x5", 2.81e-6, 7.53e-2, 5.49e-4}, {"inception5x5", 2.84e-6, 2.16e-2, 4.98e-4}};

struct Column {
    const char* title;
    const char* variant;
    bool scaled;
};
constexpr Column kColumns[] = {{"direct", "naive", true},
                               {"F(4x4,5x5)", "wino-f4r5-gemm", true},
                               {"F(5x5,5x5)", "wino-f5r5-gemm", true},
                               {"F(9x9) unscaled", "wino-f9r5-gemm", false},
                               {"F(9x9) scaled", "wino-f9r5-gemm", true}};

}  // namespace

nlohmann::json run_vincent_table(const std::shared_ptr<Context>& context, std::ostream& out, bool& failed) {
    out << "\nMax relative error max|y - fp64| / max|fp64| on Vincent et al.'s 5x5 layers, N = 32, data and filters\n"
           "uniform in [-1,1], fp32, every output checked; the paper's figures (their kernels, NVIDIA GPU, their\n"
           "F(9x9,5x5) points) beside. netcl's F(9x9,5x5): +-1, +-1/2, +-2, inf and the factors x^2 + 1,\n"
           "x^2 + x + 1, x^2 - x + 1 (16 products);\n"
           "F(5x5,5x5)'s: 0, +-1, +-1/2, +-2, -4, inf (not in the paper); scaled: netcl's power-of-two S_Y rule\n"
           "(netcl-info --winograd 9,5).\n\n";
    char header[300];
    std::snprintf(header, sizeof header, "%-14s %-22s %9s %9s   %11s %11s   %9s %9s   %9s %9s %8s\n", "layer",
                  "CxHxW,K", "direct", "paper", "F(4x4,5x5)", "F(5x5,5x5)", "unscaled", "paper", "scaled", "paper",
                  "time s");
    out << header;
    nlohmann::json rows = nlohmann::json::array();
    const DeviceProfile original = context->profile();
    ReferencePolicy full;
    full.full_limit_macs = 1e12;  // every output: a sample would understate the maximum
    for (const PaperRow& paper : kVincent) {
        const auto start = std::chrono::steady_clock::now();
        ConvShapes shapes = net_layers(paper.net).front().shapes;
        shapes.N = 32;
        shapes.bias = false;
        const LayerData data(context, shapes, /*seed=*/0x5c5);
        const ReferenceCheck reference(shapes, data.x, data.weights, data.bias, data.dy, full);
        const double scale = reference.max_abs_reference();
        nlohmann::json row = {{"layer", paper.net}, {"shapes", shapes.str()}, {"reference", reference.describe()},
                              {"max_abs_reference", scale},
                              {"paper", {{"direct", paper.direct}, {"unscaled", paper.unscaled}, {"scaled", paper.scaled}}}};
        double errors[std::size(kColumns)];
        for (std::size_t i = 0; i < std::size(kColumns); ++i) {
            const Column& column = kColumns[i];
            DeviceProfile profile = original;
            profile.tuned["winograd_scaling"] = column.scaled ? 1 : 0;
            struct Restore {  // the context's own profile back, however measure() ends
                const std::shared_ptr<Context>& context;
                const DeviceProfile& original;
                ~Restore() { context->set_profile(original); }
            } restore{context, original};
            context->set_profile(profile);
            const Measurement m = measure(context, candidate_by_id(column.variant), data, reference, RunSettings{0, 1});
            errors[i] = m.ran ? m.max_error / scale : NAN;
            if (!m.ran) failed = true;
            row[column.title] = {{"relative_error", m.ran ? nlohmann::json(errors[i]) : nlohmann::json(nullptr)},
                                 {"max_abs_error", m.ran ? nlohmann::json(m.max_error) : nlohmann::json(nullptr)},
                                 {"plan", m.ran ? m.choice : m.skipped}};
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        row["seconds"] = seconds;
        const std::string chw = std::to_string(shapes.C) + "x" + std::to_string(shapes.H) + "x" +
                                std::to_string(shapes.W) + "," + std::to_string(shapes.K);
        char line[300];
        std::snprintf(line, sizeof line, "%-14s %-22s %9s %9s   %11s %11s   %9s %9s   %9s %9s %8.1f\n", paper.net,
                      chw.c_str(), scientific(errors[0]).c_str(), scientific(paper.direct).c_str(), scientific(errors[1]).c_str(),
                      scientific(errors[2]).c_str(), scientific(errors[3]).c_str(), scientific(paper.unscaled).c_str(),
                      scientific(errors[4]).c_str(), scientific(paper.scaled).c_str(), seconds);
        out << line << std::flush;
        rows.push_back(row);
    }
    return rows;
}

}  // namespace netcl::bench
