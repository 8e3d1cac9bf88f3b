#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "Candidates.hpp"
#include "ReferenceCheck.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Context.hpp"
#include "runtime/EventTiming.hpp"
#include "netcl/Tensor.hpp"

namespace netcl::bench {

// One layer's data, made once and shared by every candidate: random input,
// weights and (when the layer has one) bias in [-1, 1], on the host and on
// the device.
struct LayerData {
    ConvShapes shapes;
    std::vector<float> x, weights, bias;
    Tensor x_device, weights_device;

    LayerData(const std::shared_ptr<Context>& context, const ConvShapes& shapes, std::uint64_t seed);
};

struct RunSettings {
    int warmup = 1;  // untimed runs after the checked first run
    int repeat = 5;  // timed runs
};

// The two clocks netcl-bench reads.
//   Events: OpenCL device time, first command's start to last command's end --
//           what the kernels take; OpenCL candidates only.
//   Wall:   host time from submit to completion of one run (netcl: forward +
//           clFinish; CLBlast: Convgemm + clFinish; oneDNN: execute + stream
//           wait) -- what a caller waits, and the only clock oneDNN has, so every
//           comparison with oneDNN is wall against wall.
enum class Clock { Events, Wall };
std::string to_string(Clock clock);  // "opencl-events", "wall"

// What one candidate did on one layer.
struct Measurement {
    std::string candidate;     // Candidate::id
    bool ran = false;
    std::string skipped;       // why it did not run (cannot take the shape, or its error)
    std::string plan;          // Plan::str() with its reason (Conv2d candidates), or what the peer runs
    std::string choice;        // the candidate id of what ran: "wino-f4-fused-global", "clblast", "onednn-blocked"
    std::string impl;          // oneDNN: primitive_desc::impl_info_str() ("jit:avx2"); empty otherwise
    std::vector<double> wall_samples_ms, event_samples_ms;  // one per timed run; no events for oneDNN
    TimingSummary wall, events;
    double build_ms = 0;       // program builds/loads during the first run (excluded from timing);
                               // CLBlast: its first call's wall time minus the median (it compiles inside);
                               // oneDNN: making the primitive (its JIT) and reordering the weights in
    double first_run_ms = 0;   // wall time of the first run, builds included
    // Share of the machine's CPU other processes used during the warm-up and timed runs (OtherLoad.hpp),
    // over a window of other_load_window_ms; negative when the window was too short to tell or /proc/stat
    // could not be read.
    double other_load = -1;
    double other_load_window_ms = 0;
    double max_error = 0;      // against the fp64 reference
    double tolerance = 0;      // conv_tolerance(shapes, factor of the algorithm)
    bool within_tolerance = false;
    std::size_t workspace_bytes = 0;

    bool has_events() const { return !event_samples_ms.empty(); }
    // On `clock`; an OpenCL-less candidate (oneDNN) has only Wall and answers it for either.
    const TimingSummary& timing(Clock clock) const;
    const std::vector<double>& samples_ms(Clock clock) const;
};

// Runs `candidate` on `layer`: a NaN-poisoned first run checked against
// `reference` (program builds happen here and are reported apart), `warmup`
// untimed runs, then `repeat` runs, each run to completion before the next
// and timed on both clocks (wall; and the OpenCL events of the run where
// there are any). Never throws for a candidate that fails: the Measurement says why.
Measurement measure(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                    const ReferenceCheck& reference, const RunSettings& settings);

}  // namespace netcl::bench
