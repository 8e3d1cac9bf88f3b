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

// What one candidate did on one layer.
struct Measurement {
    std::string candidate;     // Candidate::id
    bool ran = false;
    std::string skipped;       // why it did not run (cannot take the shape, or its error)
    std::string plan;          // Plan::str() with its reason (Conv2d candidates), or what CLBlast runs
    std::string choice;        // the candidate id of what ran: "wino-f4-fused-global", "clblast"
    std::vector<double> samples_ms;
    TimingSummary timing;      // of samples_ms: device time from OpenCL events
    double build_ms = 0;       // program builds/loads during the first run (excluded from timing);
                               // CLBlast: its first call's wall time minus the median (it compiles inside)
    double first_run_ms = 0;   // wall time of the first run, builds included
    double gflops = 0;         // direct_flops / median
    double max_error = 0;      // against the fp64 reference
    double tolerance = 0;      // conv_tolerance(shapes, factor of the algorithm)
    bool within_tolerance = false;
    std::size_t workspace_bytes = 0;
};

// Runs `candidate` on `layer`: a NaN-poisoned first run checked against
// `reference` (program builds happen here and are reported apart), `warmup`
// untimed runs, then `repeat` runs timed with the OpenCL events of each run.
// Never throws for a candidate that fails: the Measurement says why.
Measurement measure(const std::shared_ptr<Context>& context, const Candidate& candidate, const LayerData& layer,
                    const ReferenceCheck& reference, const RunSettings& settings);

}  // namespace netcl::bench
