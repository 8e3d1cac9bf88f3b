#pragma once
#include <cstddef>
#include <functional>
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
// weights, (when the layer has one) bias and, for a gradient, the output's
// gradient dy, in [-1, 1], on the host and on the device.
struct LayerData {
    ConvShapes shapes;
    std::vector<float> x, weights, bias, dy;
    Tensor x_device, weights_device, bias_device, dy_device;

    LayerData(const std::shared_ptr<Context>& context, const ConvShapes& shapes, std::uint64_t seed);
    // The same values in float32 tensors (a float16 layer's halves, each a float exactly).
    LayerData in_float32(const std::shared_ptr<Context>& context) const;

private:
    LayerData(const std::shared_ptr<Context>& context, const ConvShapes& shapes, std::vector<float> x,
              std::vector<float> weights, std::vector<float> bias, std::vector<float> dy);
};

struct RunSettings {
    int warmup = 1;  // untimed runs after the checked first run
    int repeat = 5;  // timed runs
    // Interleaved: each round runs every candidate of a layer in turn, so a burst of load from another
    // process on a shared machine falls on all of them alike instead of on whichever candidate it caught
    // (seen sequentially: one 1x1 layer's median 0.57 ms against its own minimum of 0.30 while oneDNN,
    // timed next, ran undisturbed). In its turn a candidate runs twice and only the second run is timed:
    // the first PoCL run after another library's (oneDNN's, CLBlast's) ran at up to 2x its time (1x1,
    // 1024 -> 512 channels at 14x14: 1.5 against 0.8 ms in most rounds, the runs after it at 0.8), so
    // every timed run follows one of its own, as in a loop of its own. Sequential runs each candidate's
    // repeats back to back and keeps only one candidate's buffers alive at a time.
    bool interleave = true;
    // Training (--direction train): the weights change every step, so each run of a forward or backward
    // data pays what new weights cost first: netcl's borrow_weights (the device tensor itself, as
    // netcl.torch hands a training step's parameters over, then whatever the plan derives from it:
    // Winograd's U, packed panels, rotated filters; SPEED.md's first figures of 2026-11-30 had
    // set_weights' copy of it too), and its forward planned for training (set_training); oneDNN's reorder of plain oihw weights
    // into its primitive's layout (and backward weights' reorder of dW back to oihw). Both as a
    // framework's step pays them, before forward and again before backward data. Off: the weights stay,
    // as in inference (and in this tool's train figures before 2026-11-30).
    bool weights_every_run = false;
};
// "interleaved: ..." or "sequential: ...", for the reports.
std::string order_text(const RunSettings& settings);

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

// One candidate set up on one layer, as the timing protocol drives it.
struct Runner {
    std::function<void()> poison;                  // fill the output with NaN
    std::function<std::vector<cl::Event>()> run;   // one run to completion; its OpenCL events (none for oneDNN)
    std::function<std::vector<float>()> output;    // the output in NCHW, for the reference check
    std::function<double()> builds_ms;             // builds so far (netcl's program cache), if it can tell
};

// A candidate whose first run is done and checked, ready to be timed; m.skipped says why it is not.
struct PreparedCandidate {
    Measurement m;
    Runner runner;  // owns the candidate's state (its Conv2d or primitive, its output buffer)
    bool builds_inside_first_run = false;  // CLBlast: build_ms is its first run's wall time minus the median
};

// Sets `candidate` up on `layer` and makes its NaN-poisoned first run, checked against `reference`
// (program builds happen here and are reported apart). Never throws for a candidate that fails: the
// Measurement says why. settings.weights_every_run: each run (the first included) takes new weights first.
PreparedCandidate prepare(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                          const ReferenceCheck& reference, const RunSettings& settings);

// Times prepared candidates: `warmup` untimed rounds, then `repeat` timed rounds, a round being one run of
// every candidate in turn, each to completion before the next, timed on both clocks (wall; and the OpenCL
// events of the run where there are any). With one candidate this is its repeats back to back. A candidate
// that fails while timed is dropped from later rounds and its Measurement says why.
void time_prepared(std::vector<PreparedCandidate>& candidates, const RunSettings& settings);

// One candidate alone: prepare(), then time_prepared() on it.
Measurement measure(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                    const ReferenceCheck& reference, const RunSettings& settings);

}  // namespace netcl::bench
