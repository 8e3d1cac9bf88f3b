#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "Measure.hpp"
#include "RunInfo.hpp"
#include "netcl/ConvShapes.hpp"

namespace netcl::bench {

// One benched layer and what every candidate did on it.
struct LayerResult {
    std::string name;
    int depth = 1;  // times the shape occurs in the network: the totals' weight
    ConvShapes shapes;
    std::string reference;  // ReferenceCheck::describe()
    bool reference_sampled = false;
    double reference_seconds = 0;
    std::vector<Measurement> results;

    const Measurement* find(const std::string& candidate) const;
    // median(baseline) / median(result); nothing when either did not run.
    std::optional<double> speedup(const Measurement& result, const std::string& baseline) const;
};

// A candidate's depth-weighted sum over the layers it ran on, like the papers' "Total" lines.
struct Total {
    std::string candidate;
    std::int64_t N = 1;  // one total per batch size
    std::size_t layers_run = 0;
    std::size_t layers = 0;
    double weighted_ms = 0;     // sum of depth * median
    double weighted_gflop = 0;  // sum of depth * direct GFLOP
    double gflops = 0;
    std::optional<double> speedup_vs_naive, speedup_vs_clblast;  // only when all three ran on every layer
    bool complete() const { return layers_run == layers; }
};

struct BenchReport {
    RunInfo info;
    std::string layer_set;  // "vgg16", "--shape ...", ...
    RunSettings settings;
    std::vector<std::string> candidates;  // ids asked for, in order
    std::vector<LayerResult> layers;
    double wall_seconds = 0;

    // Per batch size (in order of appearance), per candidate.
    std::vector<Total> totals() const;
    std::vector<Total> totals_for(std::int64_t batch) const;
};

// "3x224x224 K64 3x3 s1 p1" (+ "d2", "g32" where they are not 1).
std::string compact_shape(const ConvShapes& shapes);

void print_table(std::ostream& out, const BenchReport& report);
// Every figure, the device profile, driver, netcl version and git revision.
void write_json(const std::string& path, const BenchReport& report);
void write_csv(const std::string& path, const BenchReport& report);

}  // namespace netcl::bench
