#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "Measure.hpp"
#include "tools/PoclAffinity.hpp"
#include "OmpWaitPolicy.hpp"
#include "RunInfo.hpp"
#include "FmaPeak.hpp"
#include "IsaEmulation.hpp"
#include "SgemmPeak.hpp"
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
    // The candidates were timed in interleaved rounds (RunSettings::interleave): sample i of every
    // candidate that ran comes from round i, so two candidates' samples pair up.
    bool paired = false;

    const Measurement* find(const std::string& candidate) const;
    // How much faster `result` ran than `baseline` on `clock` (round_ratio: paired rounds give the
    // median of per-round ratios); nothing when either did not run.
    std::optional<double> speedup(const Measurement& result, const std::string& baseline, Clock clock) const;
    // The peer on a CPU: the oneDNN layout with the lower wall median on this layer; nullptr when none ran.
    const Measurement* best_onednn() const;
    // speedup() against best_onednn() on wall time: >1 is faster than oneDNN; nothing when either did not run.
    std::optional<double> speedup_vs_onednn(const Measurement& result) const;
};

// A candidate's depth-weighted sum over the layers it ran on, like the papers' "Total" lines.
struct Total {
    std::string candidate;
    std::int64_t N = 1;  // one total per batch size
    std::size_t layers_run = 0;
    std::size_t layers = 0;
    double weighted_ms = 0;       // sum of depth * median on the report's clock
    double weighted_wall_ms = 0;  // sum of depth * wall median
    double weighted_gflop = 0;    // sum of depth * direct GFLOP
    bool all_events = true;       // every layer run timed by OpenCL events (none by the wall clock alone)
    double gflops = 0;            // on the report's clock
    std::optional<double> speedup_vs_naive, speedup_vs_clblast;  // only when both ran on every layer; on one clock
    // Against the faster oneDNN layout over the whole set (a network keeps one layout throughout), wall
    // against wall; only when both ran on every layer. onednn_peer names that layout's candidate.
    std::optional<double> speedup_vs_onednn;
    std::string onednn_peer;
    std::optional<double> percent_of_peak;      // gflops / the SGEMM peak, when one was measured
    std::optional<double> percent_of_fma_peak;  // gflops / the FMA peak, when one was measured
    bool complete() const { return layers_run == layers; }
};

// What the report says about oneDNN, whether or not it ran.
struct OneDnnInfo {
    bool built_in = false;
    std::string version, cpu_isa;  // every version loaded, newest first; the newest one's ISA
    OmpWaitPolicy omp_wait_policy;
    std::vector<std::string> load_failures;  // onednn_load_failures()
};

struct BenchReport {
    RunInfo info;
    std::string layer_set;  // "vgg16", "--shape ...", ...
    RunSettings settings;
    // The clock of the table's ms/GFLOPS/speedup figures and of the totals: Wall when oneDNN runs in this
    // report (ratios against it must be like for like), else Events. Both are kept for every result.
    Clock clock = Clock::Events;
    OneDnnInfo onednn;
    tools::PoclAffinity pocl_affinity;  // POCL_AFFINITY for this run (tools/PoclAffinity.hpp)
    IsaEmulation isa_emulation;         // --isa: the ISA emulated, or the host's own
    std::optional<SgemmPeak> peak;  // the machine's SGEMM peak, when measured (--peak, or oneDNN ran)
    std::string peak_skipped;       // why --peak measured nothing
    std::optional<FmaPeak> fma_peak;  // the cores' FMA ceiling, measured with the SGEMM peak on CPU devices
    std::string fma_peak_skipped;     // why it was not
    std::vector<std::string> candidates;  // ids asked for, in order
    std::vector<LayerResult> layers;
    double wall_seconds = 0;

    // Per batch size (in order of appearance), per candidate.
    std::vector<Total> totals() const;
    std::vector<Total> totals_for(std::int64_t batch) const;
    // GFLOPS of `m` on `layer` on the report's clock, and that against the peak (nothing without a peak).
    double gflops(const LayerResult& layer, const Measurement& m) const;
    std::optional<double> percent_of_peak(double gflops) const;
    std::optional<double> percent_of_fma_peak(double gflops) const;
    bool any_onednn() const;  // a oneDNN candidate ran on some layer
};

// "3x224x224 K64 3x3 s1 p1" (+ "d2", "g32" where they are not 1).
std::string compact_shape(const ConvShapes& shapes);

void print_table(std::ostream& out, const BenchReport& report);
// Every figure, the device profile, driver, netcl version and git revision.
void write_json(const std::string& path, const BenchReport& report);
void write_csv(const std::string& path, const BenchReport& report);

}  // namespace netcl::bench
