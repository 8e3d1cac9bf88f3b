#include "runtime/EventTiming.hpp"

#include <algorithm>
#include <limits>

#include "netcl/Error.hpp"

namespace netcl {

namespace {
bool orders_only(const cl::Event& event) {
    cl_command_type type = 0;
    NETCL_CL_CHECK(event.getInfo(CL_EVENT_COMMAND_TYPE, &type), "reading an event's command type");
    return type == CL_COMMAND_BARRIER || type == CL_COMMAND_MARKER;
}
}  // namespace

double device_span_ms(const std::vector<cl::Event>& events) {
    NETCL_REQUIRE(!events.empty(), "timing needs at least one event");
    // A barrier or marker does no work, and its timestamps are the driver's
    // to choose: NVIDIA's (580.159) put a barrier's start before the run it
    // belonged to. The span covers the commands that work, where there are any.
    std::vector<const cl::Event*> timed;
    for (const auto& event : events) {
        if (!orders_only(event)) timed.push_back(&event);
    }
    if (timed.empty()) {
        for (const auto& event : events) timed.push_back(&event);
    }
    cl_ulong first = std::numeric_limits<cl_ulong>::max(), last = 0;
    for (const cl::Event* timed_event : timed) {
        const cl::Event& event = *timed_event;
        NETCL_CL_CHECK(event.wait(), "waiting for a timed event");
        cl_ulong start = 0, end = 0;
        const cl_int status = event.getProfilingInfo(CL_PROFILING_COMMAND_START, &start);
        if (status == CL_PROFILING_INFO_NOT_AVAILABLE) {
            throw Error("timing needs events from a command queue made with CL_QUEUE_PROFILING_ENABLE; this queue "
                        "has no profiling (a wrapped framework queue?): time with a queue of its own, e.g. "
                        "Context::create(), or make the framework's queue with profiling (CL_PROFILING_INFO_NOT_AVAILABLE)");
        }
        NETCL_CL_CHECK(status, "reading an event's start time");
        NETCL_CL_CHECK(event.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "reading an event's end time");
        first = std::min(first, start);
        last = std::max(last, end);
    }
    return static_cast<double>(last - first) * 1e-6;
}

double wall_ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

TimingSummary summarize(std::vector<double> samples_ms) {
    NETCL_REQUIRE(!samples_ms.empty(), "summarize needs at least one sample");
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t n = samples_ms.size();
    const double median = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    return {median, samples_ms.front(), samples_ms.back()};
}

}  // namespace netcl
