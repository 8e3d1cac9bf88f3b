#include "ops/internal/EventChain.hpp"

#include <mutex>

#include "netcl/Error.hpp"

namespace netcl::internal {

EventChain::EventChain(bool in_order, std::vector<cl::Event> wait) : in_order_(in_order) {
    for (const auto& event : wait) NETCL_REQUIRE(event() != nullptr, "a wait list holds a null cl_event; expected events of enqueued commands");
    wait_for_pending(wait);
}

cl_int execution_status(const cl::Event& event) {
    cl_int status = CL_QUEUED;
    if (event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) != CL_SUCCESS) return CL_QUEUED;
    return status;
}

// A command that has finished orders nothing, so a wait on it is dropped (a
// failed one stays: what waits on it must fail too). Then a library call
// whose waits are all done needs no barrier, and none is timed: on NVIDIA's
// driver (580.159, H200) a barrier that waited for the previous run's last
// command gave im2col-clblast's 1x1 layers device spans of 0.26 ms against
// 0.045 ms of wall clock at N = 1: its start lay before the run began.
void EventChain::wait_for_pending(const std::vector<cl::Event>& events) {
    for (const auto& event : events) {
        if (execution_status(event) != CL_COMPLETE) wait_.push_back(event);
    }
}

void EventChain::then(const cl::Event& event) {
    own_command_ = true;
    record(event);
}

void EventChain::record(const cl::Event& event) {
    events_.push_back(event);
    if (in_order_) {
        wait_.clear();  // the queue orders whatever comes next after this command
    } else {
        wait_.assign(1, event);
    }
}

void EventChain::library_call(const cl::CommandQueue& queue, const std::function<cl::Event()>& enqueue) {
    static std::mutex out_of_order_calls;
    std::unique_lock lock(out_of_order_calls, std::defer_lock);
    if (!in_order_) lock.lock();
    if (!wait_.empty()) {
        NETCL_CL_CHECK(queue.enqueueBarrierWithWaitList(&wait_, nullptr), "enqueueing a barrier before a library call");
    }
    if (!own_command_) starts_inside_a_library_ = true;
    record(enqueue());
}

void EventChain::also_wait_for(const std::vector<cl::Event>& events) { wait_for_pending(events); }

}  // namespace netcl::internal
