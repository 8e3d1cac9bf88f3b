// netcl-bench: times every convolution strategy netcl has (and the selector's
// choice, CLBlast's Convgemm and, on CPU devices, oneDNN's convolution) on
// network layer sets or any shape, checks each result against the fp64
// reference, and reports a table, JSON, CSV and a plot. --accuracy prints
// Lavin & Gray's Table 4 for netcl instead.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "tools/PoclAffinity.hpp"
#include "tools/ToolDevice.hpp"
#include "Accuracy.hpp"
#include "AccuracyHalf.hpp"
#include "BenchRun.hpp"
#include "Candidates.hpp"
#include "FmaPeak.hpp"
#include "Layers.hpp"
#include "IsaEmulation.hpp"
#include "OmpWaitPolicy.hpp"
#include "OneDnnLibraries.hpp"
#include "Plot.hpp"
#include "Report.hpp"
#include "RunInfo.hpp"
#include "SgemmPeak.hpp"
#include "ShapeArgs.hpp"
#include "UsageError.hpp"
#include "netcl/Context.hpp"
#include "netcl/ConvDirection.hpp"
#include "netcl/Error.hpp"

namespace {

using namespace netcl::bench;

struct Arguments {
    std::string net;
    std::vector<std::string> shapes;
    std::string batch;
    std::string strategies = "all";
    int repeat = 5;
    int warmup = 1;
    bool sequential = false;
    bool weights_once = false;
    std::string json, csv, plot;
    bool accuracy = false;
    bool bias = false;
    bool peak = false;
    std::string device;
    std::string direction = "fwd";
    std::string dtype = "float32";
    std::string isa = "native";
    std::size_t samples = ReferencePolicy{}.samples;
    double full_reference_macs = ReferencePolicy{}.full_limit_macs;
};

std::vector<BenchLayer> chosen_layers(const Arguments& a) {
    if (a.net.empty() && a.shapes.empty()) {
        throw UsageError("nothing to bench: give --net (one of " + [] {
            std::string names;
            for (const auto& n : net_names()) names += (names.empty() ? "" : ", ") + n;
            return names;
        }() + ") and/or --shape N,C,H,W,K,R,S[,stride,pad,dilation,groups]");
    }
    std::vector<BenchLayer> layers;
    if (!a.net.empty()) layers = net_layers(a.net);
    for (std::size_t i = 0; i < a.shapes.size(); ++i) {
        layers.push_back({"shape" + std::to_string(i + 1), 1, parse_shape(a.shapes[i])});
    }
    if (a.bias) {
        for (auto& layer : layers) layer.shapes.bias = true;
    }
    layers = with_batches(layers, a.batch.empty() ? std::vector<std::int64_t>{} : parse_batches(a.batch));
    // --direction: each layer in that direction, or in all three one after another (train: a training
    // step is their sum, and so the depth-weighted total). Gradients carry the direction in their name.
    std::vector<netcl::ConvDirection> directions;
    if (a.direction == "train") {
        directions = netcl::all_conv_directions();
    } else {
        try {
            directions = {netcl::conv_direction_from_string(a.direction)};
        } catch (const netcl::Error&) {
            throw UsageError("--direction: unknown direction '" + a.direction +
                             "'; expected fwd, bwd_data, bwd_weights or train");
        }
    }
    netcl::DataType dtype = netcl::DataType::FLOAT32;
    try {
        dtype = netcl::data_type_from_string(a.dtype);
    } catch (const netcl::Error&) {
        throw UsageError("--dtype: unknown type '" + a.dtype + "'; expected float32 or float16");
    }
    std::vector<BenchLayer> directed;
    for (const BenchLayer& layer : layers) {
        for (const netcl::ConvDirection d : directions) {
            BenchLayer l = layer;
            l.shapes.direction = d;
            l.shapes.dtype = dtype;
            if (d != netcl::ConvDirection::FORWARD) l.name += d == netcl::ConvDirection::BACKWARD_DATA ? "/bwd_data" : "/bwd_weights";
            directed.push_back(std::move(l));
        }
    }
    return directed;
}

int run(const Arguments& a, int argc, char** argv) {
    const std::vector<Candidate> candidates = parse_strategies(a.strategies);
    const ReferencePolicy policy{a.full_reference_macs, a.samples};
    // Usage errors first: nothing touches the device before the arguments are good.
    if (a.weights_once && a.direction != "train") {
        throw UsageError("--weights-once: only with --direction train (the other directions set the weights once)");
    }
    const std::vector<BenchLayer> layers = a.accuracy ? std::vector<BenchLayer>{} : chosen_layers(a);

    const netcl::tools::PoclAffinity pocl_affinity = netcl::tools::pin_pocl_workers();  // before any OpenCL call
    const IsaEmulation isa = emulate_isa(a.isa);  // likewise, and before oneDNN's first primitive
    const auto context = netcl::tools::tool_context("netcl-bench", a.device);
    check_isa_emulation(isa, context->profile().platform_name, context->profile().name,
                        isa.active() ? onednn_cpu_isa() : "");
    const RunInfo info = collect_run_info(context->profile(), context->device_id(), argc, argv);
    if (a.accuracy) {
        return a.dtype == "float16" ? run_accuracy_half(context, info, policy, a.json, std::cout)
                                    : run_accuracy(context, info, policy, a.json, std::cout);
    }

    BenchReport report;
    report.info = info;
    report.pocl_affinity = pocl_affinity;
    report.isa_emulation = isa;
    report.onednn = {onednn_built_in(), onednn_version(), onednn_cpu_isa(), omp_wait_policy(),
                     onednn_load_failures()};
    // oneDNN can run here when it is built in and the device is a CPU (its reason does not depend on the shape).
    const bool onednn_runs =
        std::any_of(candidates.begin(), candidates.end(),
                    [](const Candidate& c) { return c.kind == Candidate::Kind::OneDnn; }) &&
        !onednn_why_not(netcl::ConvShapes{}, context->profile());
    // With oneDNN in the run every figure is wall time: its only clock, so the ratios compare like with like.
    // So too with new weights every run: a training step's directions are summed on one clock.
    const bool weights_every_run = a.direction == "train" && !a.weights_once;
    report.clock = onednn_runs || weights_every_run ? Clock::Wall : Clock::Events;
    if (a.peak || onednn_runs) {
        if (const auto why = sgemm_peak_why_not()) {
            report.peak_skipped = *why;
        } else {
            report.peak = measure_sgemm_peak();
        }
        const bool cpu = context->profile().type == netcl::DeviceType::CPU;
        if (const auto why = fma_peak_why_not(cpu)) {
            report.fma_peak_skipped = *why;
        } else {
            report.fma_peak = measure_fma_peak(static_cast<int>(context->profile().compute_units), isa.active());
        }
    }
    report.layer_set = a.net.empty() ? "--shape" : a.net;
    if (!a.net.empty() && !a.shapes.empty()) report.layer_set += " + --shape";
    if (a.direction != "fwd" && a.direction != "forward") report.layer_set += " (direction " + a.direction + ")";
    report.settings = RunSettings{a.warmup, a.repeat, /*interleave=*/!a.sequential};
    report.settings.weights_every_run = weights_every_run;
    for (const auto& c : candidates) report.candidates.push_back(c.id);

    bench_layers(context, layers, candidates, policy, report);
    if (report.peak) add_sgemm_batch(*report.peak);  // SgemmPeak.hpp: why a second batch
    if (report.fma_peak) add_fma_batch(*report.fma_peak);  // FmaPeak.hpp: likewise
    print_table(std::cout, report);
    std::cout.flush();

    std::string json_path = a.json;
    if (json_path.empty() && !a.plot.empty()) {
        json_path = (std::filesystem::temp_directory_path() / ("netcl-bench-" + std::to_string(getpid()) + ".json"))
                        .string();
    }
    if (!json_path.empty()) write_json(json_path, report);
    if (!a.csv.empty()) write_csv(a.csv, report);
    if (!a.plot.empty()) {
        plot_report(json_path, a.plot);
        if (a.json.empty()) std::filesystem::remove(json_path);
        std::cout << "plot written to " << a.plot << "\n";
    }
    for (const auto& layer : report.layers) {
        for (const auto& m : layer.results) {
            if (m.ran && !m.within_tolerance) return 3;  // a wrong result is not a benchmark
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // Before anything else: oneDNN's OpenMP must see OMP_WAIT_POLICY at load time (OmpWaitPolicy.hpp says why).
    ensure_passive_omp_wait(argv);
    CLI::App app{"netcl-bench: times netcl's convolution strategies, the selector's choice, CLBlast's Convgemm "
                 "and (on CPU devices) oneDNN's convolution"};
    app.footer("Exit codes: 0 done, 1 a run-time error, 2 a bad command line, 3 a result outside its tolerance.\n"
               "Timing: median of --repeat runs after one checked run and --warmup runs, on OpenCL event device "
               "time;\nthe runs of a layer's candidates interleaved (one run of each in turn, --repeat rounds) unless "
               "--sequential;\nwhen oneDNN runs, on wall time from submit to completion for every candidate (OpenCL event "
               "time kept beside it).\noneDNN runs with OMP_WAIT_POLICY=passive unless the environment sets it.");
    Arguments a;
    app.add_option("--net", a.net, "layer set: vgg16, resnet50, alexnet5x5, inception5x5; 3-D: v3d, c3d, r3d18");
    app.add_option("--shape", a.shapes, "a layer N,C,H,W,K,R,S[,stride,pad,dilation,groups] (repeatable)");
    app.add_option("--batch", a.batch, "batch sizes replacing N, e.g. 1,8,32");
    app.add_option("--direction", a.direction,
                   "fwd, bwd_data (dx from dy), bwd_weights (dw, db from x and dy), or train (all three per layer; "
                   "the total is a training step, each forward and backward data run taking new weights first: "
                   "netcl's borrow_weights and what its plans derive from them, oneDNN's weight reorders, and "
                   "oneDNN's dW reordered back to oihw; wall time; netcl's forward planned for training, "
                   "set_training); oneDNN runs its backward primitives beside the gradients")
        ->capture_default_str();
    app.add_option("--dtype", a.dtype,
                   "netcl's tensors: float32, or float16 (storage; arithmetic stays float32). The peers "
                   "(oneDNN, CLBlast) run float32 on the same values")
        ->capture_default_str();
    app.add_option("--strategies", a.strategies,
                   "comma list: all, selector, float32-selector (the selector in float32 beside a --dtype float16 "
                   "run), naive, im2col, wino, wino-f2, wino-f4, wino-f4-fused-global, ..., clblast, onednn-nchw, "
                   "onednn-blocked, onednn-2.6-nchw, onednn-2.6-blocked (an older oneDNN found beside the newest; "
                   "onednn: every layout of every oneDNN; CPU devices), or CONV2D_NAIVE/IM2COL/CONV2D_WINOGRAD")
        ->capture_default_str();
    app.add_option("--repeat", a.repeat, "timed runs per candidate (median, min, max)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    app.add_option("--warmup", a.warmup, "untimed runs before timing")->capture_default_str()->check(CLI::Range(0, 1000000));
    app.add_flag("--sequential", a.sequential,
                 "time each candidate's runs back to back (one candidate's buffers alive at a time) instead of in "
                 "interleaved rounds of one run per candidate");
    app.add_flag("--weights-once", a.weights_once,
                 "with --direction train: the weights set once before the runs, not before each, and the forward "
                 "planned for inference (the train figures before 2026-11-30)");
    app.add_option("--json", a.json, "write every figure as JSON");
    app.add_option("--csv", a.csv, "write every figure as CSV");
    app.add_option("--plot", a.plot, "write a bar chart of GFLOPS per layer (PNG, via tools/plot_bench.py)");
    app.add_flag("--bias", a.bias, "give every layer a bias (as frameworks' Conv2d does by default; CLBlast's Convgemm has none)");
    app.add_flag("--peak", a.peak,
                 "measure the machine's SGEMM peak (oneDNN's dnnl_sgemm, 1024^3) for a % of peak per result; "
                 "on by itself when oneDNN runs");
    app.add_flag("--accuracy", a.accuracy, "Lavin & Gray Table 4: max element error on the VGG layers, N = 1");
    app.add_option("--isa", a.isa,
                   "native, or avx2: PoCL's kernels, oneDNN and the FMA peak in AVX2 on an AVX-512 host (PoCL "
                   "device pthread-haswell, profile pocl-cpu, and pocl-cpu-intel on Intel; the host's caches and clocks stay: "
                   "tools/netcl-bench/IsaEmulation.hpp)")
        ->capture_default_str();
    app.add_option("--device", a.device, "device as NETCL_DEVICE takes it (default: NETCL_DEVICE, else first GPU/CPU)");
    app.add_option("--samples", a.samples, "outputs checked when the full fp64 reference is too costly")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    app.add_option("--full-reference-macs", a.full_reference_macs,
                   "largest reference (multiply-adds) computed in full; larger layers are sampled")
        ->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // prints the message
        return kUsageExitCode;
    }
    try {
        return run(a, argc, argv);
    } catch (const UsageError& error) {
        std::cerr << "netcl-bench: " << error.what() << "\n";
        return kUsageExitCode;
    } catch (const std::exception& error) {
        std::cerr << "netcl-bench: " << error.what() << "\n";
        return 1;
    }
}
