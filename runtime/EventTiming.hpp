#pragma once
#include <chrono>
#include <vector>

#include "netcl/OpenCL.hpp"

namespace netcl {

// Device time from the first event's start to the last event's end, in ms,
// over the commands that do work (barriers and markers are left out where
// others are given). The one timing helper: bench, tune and the cache report
// all use it.
double device_span_ms(const std::vector<cl::Event>& events);
// Host time since `start`, in ms: the wall clock, for what events cannot time.
double wall_ms_since(std::chrono::steady_clock::time_point start);

struct TimingSummary {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
};
TimingSummary summarize(std::vector<double> samples_ms);

}  // namespace netcl
