#pragma once
// Internal: the order of netcl's commands within one call, on any queue.
//
// On an in-order queue the queue orders netcl's commands by itself; only the
// first command must wait for the caller's events (which may come from
// another queue). On an out-of-order queue each command waits for the one
// before it. A chain gives each command its wait list and records its event.
#include <functional>
#include <vector>

#include "netcl/OpenCL.hpp"

namespace netcl::internal {

// CL_QUEUED .. CL_COMPLETE (>= 0), or the negative error a failed command
// ended with; never blocks. An event whose status cannot be read counts as
// pending (0 is CL_COMPLETE, so CL_QUEUED is returned).
cl_int execution_status(const cl::Event& event);

class EventChain {
public:
    EventChain(bool in_order, std::vector<cl::Event> wait);

    // The wait list for the next command: nullptr when it needs none.
    const std::vector<cl::Event>* wait_list() const { return wait_.empty() ? nullptr : &wait_; }
    // Record the command just enqueued; what follows is ordered after it.
    void then(const cl::Event& event);
    // A library call that takes no wait list (CLBlast): `enqueue` makes it on
    // `queue` and returns its last command's event. A barrier before it waits
    // for what is pending; the barrier's event is not kept (it does no work,
    // and a run keeps as many events whether its waits were over or not, so
    // the live events of a long run stay flat). On an out-of-order queue the barrier and the call
    // are made under one process-wide lock: PoCL 3.1 orders a new command
    // after the queue's latest barrier only, so another thread's barrier
    // enqueued between ours and the call would let the call run before what
    // it reads (two threads sharing an out-of-order queue, each a kernel, a
    // barrier on its event and a kernel with no wait list: 26 of 4000 copies
    // read the first kernel's buffer before it was written; 0 of 15000 with
    // the pair under a lock). The lock cannot cover barriers the caller's own
    // threads enqueue on that queue at the same moment.
    void library_call(const cl::CommandQueue& queue, const std::function<cl::Event()>& enqueue);
    // More events the next command must wait for (e.g. weights copied in);
    // those already complete are dropped.
    void also_wait_for(const std::vector<cl::Event>& events);

    // Every command enqueued through the chain, in order (barriers apart).
    const std::vector<cl::Event>& events() const { return events_; }
    // True when the chain's first command of its own was a library call: the
    // library returns only its last command's event, so events() starts
    // there and its device span leaves out the library's earlier commands.
    bool starts_inside_a_library() const { return starts_inside_a_library_; }

private:
    void record(const cl::Event& event);
    void wait_for_pending(const std::vector<cl::Event>& events);

    bool in_order_;
    std::vector<cl::Event> wait_;
    std::vector<cl::Event> events_;
    bool own_command_ = false;
    bool starts_inside_a_library_ = false;
};

}  // namespace netcl::internal
