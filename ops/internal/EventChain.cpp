#include "ops/internal/EventChain.hpp"

#include <mutex>

#include "netcl/Error.hpp"

namespace netcl::internal {

EventChain::EventChain(bool in_order, std::vector<cl::Event> wait) : in_order_(in_order), wait_(std::move(wait)) {
    for (const auto& event : wait_) NETCL_REQUIRE(event() != nullptr, "a wait list holds a null cl_event; expected events of enqueued commands");
}

cl_int execution_status(const cl::Event& event) {
    cl_int status = CL_QUEUED;
    if (event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) != CL_SUCCESS) return CL_QUEUED;
    return status;
}

void EventChain::then(const cl::Event& event) {
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
        cl::Event barrier;
        NETCL_CL_CHECK(queue.enqueueBarrierWithWaitList(&wait_, &barrier), "enqueueing a barrier before a library call");
        then(barrier);
    }
    then(enqueue());
}

void EventChain::also_wait_for(const std::vector<cl::Event>& events) {
    wait_.insert(wait_.end(), events.begin(), events.end());
}

}  // namespace netcl::internal
