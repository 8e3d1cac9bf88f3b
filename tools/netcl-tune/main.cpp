// netcl-tune: times every strategy and variant on a set of layers on this
// device, in each direction (forward, backward data, backward weights), after
// checking each against the fp64 reference, and writes the per-shape,
// per-direction winners (the find-database) and the thresholds fitted from
// forward into the user profile of this device, which the selector reads
// before its built-in rules.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "tools/PoclAffinity.hpp"
#include "tools/ToolDevice.hpp"
#include "netcl/Context.hpp"
#include "netcl/ConvDirection.hpp"
#include "netcl/Error.hpp"
#include "tests/support/LayerSets.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "selector/ProfileStore.hpp"
#include "Tuner.hpp"

int main(int argc, char** argv) {
    CLI::App app{"netcl-tune: measure every convolution strategy on this device and store the winners"};
    std::vector<std::string> nets, shape_specs, strategy_names, tile_specs;
    std::int64_t batch = 0;
    std::string direction = "all";
    bool dry_run = false, records_only = false, gemm_tiles = false;
    netcl::tune::TuneOptions options;
    app.add_option("--net", nets, "layer set(s) to tune: " + [] {
        std::string names;
        for (const auto& n : netcl::layer_set_names()) names += (names.empty() ? "" : ", ") + n;
        return names;
    }());
    app.add_option("--shape", shape_specs, "a layer N,C,H,W,K,R,S[,stride,pad] (repeatable)");
    app.add_option("--batch", batch, "batch N for the --net layers (default 1)")->check(CLI::PositiveNumber);
    app.add_option("--direction", direction,
                   "fwd, bwd_data, bwd_weights or all: each layer is tuned in these directions, each under its own "
                   "record (the selector's op per direction); thresholds are fitted from forward alone")
        ->capture_default_str();
    app.add_option("--strategy", strategy_names, "only these strategies (CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD)");
    app.add_option("--warmup", options.warmup, "untimed runs before timing")->check(CLI::NonNegativeNumber);
    app.add_option("--repeats", options.repeats, "timed runs; the median is recorded")->check(CLI::PositiveNumber);
    app.add_option("--samples", options.samples, "reference elements checked on layers too large for a full check")
        ->check(CLI::PositiveNumber);
    app.add_flag("--dry-run", dry_run, "measure and report, but write nothing");
    app.add_flag("--gemm-tiles", gemm_tiles,
                 "first search the GEMM engine's register tiles (" + std::to_string(netcl::tune::gemm_tile_candidates().size()) +
                     " per profile prefix) on these layers in the --direction(s), and time the rest with the winners");
    app.add_flag("--records-only", records_only,
                 "write the per-shape winners but not the fitted thresholds (a small layer set says little about others)");
    app.add_option("--tile", tile_specs,
                   "with --gemm-tiles: a candidate MRxNVxVW/WG0xWG1 (e.g. 8x2x16/8x2; repeatable) instead of the built-in list");
    CLI11_PARSE(app, argc, argv);

    try {
        std::vector<netcl::NamedLayer> layers;
        for (const auto& net : nets) {
            for (auto layer : netcl::layer_set(net)) {
                if (batch > 0) layer.shapes.N = batch;
                layer.name = net + "/" + layer.name;
                layers.push_back(layer);
            }
        }
        for (const auto& spec : shape_specs) layers.push_back({spec, netcl::parse_shape_spec(spec), 1});
        if (layers.empty()) throw netcl::Error("nothing to tune; give --net vgg16|resnet50 and/or --shape N,C,H,W,K,R,S");
        const std::vector<netcl::ConvDirection> directions =
            direction == "all" ? netcl::all_conv_directions()
                               : std::vector<netcl::ConvDirection>{netcl::conv_direction_from_string(direction)};
        if (!strategy_names.empty()) {
            options.strategies.clear();
            for (const auto& name : strategy_names) options.strategies.push_back(netcl::kernel_from_string(name));
        }

        const netcl::tools::PoclAffinity pocl_affinity = netcl::tools::pin_pocl_workers();  // before any OpenCL call
        const auto context = netcl::tools::tool_context("netcl-tune");
        const auto& device = context->profile();
        std::printf("netcl-tune on %s (%s, driver %s, POCL_AFFINITY=%s from %s): %zu layer(s), %d warm-up + %d "
                    "timed run(s) each\n",
                    device.name.c_str(), netcl::to_string(device.type).c_str(), device.driver_version.c_str(),
                    pocl_affinity.value.c_str(), pocl_affinity.source.c_str(), layers.size(), options.warmup,
                    options.repeats);
        std::vector<netcl::ShapeTiming> timings;
        std::vector<netcl::TunedRecord> records;
        std::map<std::string, double> tile_keys;
        const auto start = std::chrono::steady_clock::now();
        if (gemm_tiles) {
            // Every direction asked for: the weight gradient's GEMM has a prefix of its own (wgrad_gemm).
            std::vector<netcl::ConvShapes> shapes;
            for (const auto& layer : layers) {
                for (const netcl::ConvDirection d : directions) shapes.push_back(layer.shapes.in_direction(d));
            }
            std::vector<netcl::GemmTile> candidates = netcl::tune::gemm_tile_candidates();
            if (!tile_specs.empty()) {
                candidates.clear();
                for (const auto& spec : tile_specs) {
                    netcl::GemmTile t;
                    unsigned long wg0 = 0, wg1 = 0;
                    char tail = 0;
                    if (std::sscanf(spec.c_str(), "%dx%dx%d/%lux%lu%c", &t.mr, &t.nv, &t.vw, &wg0, &wg1, &tail) != 5) {
                        throw netcl::Error("--tile '" + spec + "' is not MRxNVxVW/WG0xWG1, e.g. 8x2x16/8x2");
                    }
                    t.work_group = {wg0, wg1};
                    netcl::DeviceProfile check;
                    netcl::set_gemm_tile(check, "tile", t);
                    candidates.push_back(netcl::gemm_tile(check, "tile", t));  // refuses a tile the engine cannot build
                }
            }
            const auto chosen = netcl::tune::tune_gemm_tiles(context, shapes, candidates, options,
                                                             [](const std::string& line) {
                                                                 std::printf("%s\n", line.c_str());
                                                                 std::fflush(stdout);
                                                             });
            netcl::DeviceProfile tuned = context->profile();
            for (const auto& [prefix, choice] : chosen) {
                std::printf("GEMM tile %s: %s (%.3f ms over its layers)\n", prefix.c_str(), choice.tile.str().c_str(),
                            choice.total_ms);
                netcl::set_gemm_tile(tuned, prefix, choice.tile);
                netcl::DeviceProfile keys;
                netcl::set_gemm_tile(keys, prefix, choice.tile);
                for (const auto& [key, value] : keys.tuned) tile_keys[key] = value;
            }
            context->set_profile(tuned);  // the records below are timed with the chosen tiles
        }
        const std::size_t runs = layers.size() * directions.size();
        std::size_t run = 0;
        for (const auto& layer : layers) {
            for (const netcl::ConvDirection d : directions) {
                const netcl::ConvShapes shapes = layer.shapes.in_direction(d);
                const double elapsed =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                std::printf("[%zu/%zu, %.0f s] %s: %s\n", ++run, runs, elapsed, layer.name.c_str(),
                            shapes.str().c_str());
                std::fflush(stdout);
                auto timing = netcl::tune::tune_shape(context, shapes, options, [](const std::string& line) {
                    std::printf("%s\n", line.c_str());
                    std::fflush(stdout);
                });
                if (const auto best = netcl::fastest(timing)) {
                    records.push_back({netcl::record_key(shapes), best->kernel, best->variant, best->median_ms});
                    std::printf("  winner %s %s %.3f ms\n", netcl::to_string(best->kernel).c_str(),
                                best->variant.str().c_str(), best->median_ms);
                } else {
                    std::printf("  no correct candidate: nothing recorded for this layer\n");
                }
                // The thresholds describe the forward rules; the gradients' winners are records only.
                if (d == netcl::ConvDirection::FORWARD) timings.push_back(std::move(timing));
            }
        }
        std::vector<std::string> notes;
        auto fitted = netcl::fit_thresholds(timings, &notes);
        if (records_only) fitted.clear();
        for (const auto& [key, value] : tile_keys) fitted[key] = value;
        std::printf("thresholds%s:\n", records_only ? " (--records-only: not written)" : "");
        for (const auto& n : notes) std::printf("  %s\n", n.c_str());
        if (dry_run) {
            std::printf("--dry-run: nothing written\n");
        } else {
            const auto path = netcl::write_user_profile(device, fitted, records);
            std::printf("wrote %zu record(s) and %zu tuned value(s) to %s\n", records.size(), fitted.size(),
                        path.string().c_str());
        }
    } catch (const netcl::Error& e) {
        std::cerr << "netcl-tune: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
