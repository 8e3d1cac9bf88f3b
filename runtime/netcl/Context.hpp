#pragma once
// netcl's handle on one OpenCL device: its context, the command queue netcl
// enqueues on, the device's profile and the compiled programs. Two ways in:
//
//   Context::wrap(ctx, device, queue)   a framework's own context and queue;
//                                       netcl retains them and creates none
//   Context::create()                   a standalone program: netcl makes a
//                                       context and an in-order profiling queue
//
// Every Tensor and op is made on one Context and shares it.
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"

namespace netcl {

class ProgramCache;
class MemoryBudget;

// One OpenCL device as discovery finds it.
struct DeviceEntry {
    std::size_t platform_index = 0;
    std::size_t device_index = 0;
    cl::Platform platform;
    cl::Device device;
    DeviceProfile profile;  // device facts only
    std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};

class Context {
public:
    // NETCL_DEVICE picks the device when set ("1:0" or a case-insensitive
    // substring of platform, vendor or device name); otherwise the first GPU,
    // else the first CPU. The queue is in-order with profiling enabled.
    static std::shared_ptr<Context> create();
    // `selector` as NETCL_DEVICE takes it; empty means the default device.
    static std::shared_ptr<Context> create(const std::string& selector);

    // A framework's context, device and command queue. netcl retains each
    // handle for as long as this Context (or anything made on it) lives and
    // releases only the references it took. It never creates a queue: every
    // command goes to `queue`, which may be
    //  - without CL_QUEUE_PROFILING_ENABLE: forward works; only the timing
    //    helpers need profiling, and say so;
    //  - out of order: netcl orders its own commands with events (each waits
    //    on the one before it, the first on the caller's wait list). CLBlast
    //    (IM2COL's GEMM) takes no wait list: a barrier orders it, and on
    //    PoCL 3.1 a barrier the caller's own threads enqueue on the queue at
    //    that moment can take its place (PoCL orders a command after the
    //    latest barrier only). netcl's own threads cannot: it makes the
    //    barrier and the call under one lock.
    // Throws netcl::Error for a null handle, or a queue that belongs to
    // another context or device.
    static std::shared_ptr<Context> wrap(::cl_context context, cl_device_id device, cl_command_queue queue);

    // Every device of every platform. Throws netcl::Error when there is no
    // OpenCL platform at all, saying how to install one.
    static std::vector<DeviceEntry> devices();
    // Index into `entries` of the device `selector` names (or the default).
    static std::size_t pick(const std::vector<DeviceEntry>& entries, const std::string& selector);
    static std::size_t default_index(const std::vector<DeviceEntry>& entries);

    // A context of netcl's own on `entry`'s device (what create() makes).
    explicit Context(const DeviceEntry& entry);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const cl::Context& cl_context() const { return context_; }
    const cl::Device& device() const { return device_; }
    const cl::CommandQueue& queue() const { return queue_; }
    bool wrapped() const { return wrapped_; }
    // The queue records start and end times (CL_QUEUE_PROFILING_ENABLE).
    bool profiling() const { return profiling_; }
    // The queue may run commands out of order: netcl chains its own with events.
    bool out_of_order() const { return out_of_order_; }

    const DeviceProfile& profile() const { return profile_; }
    // Replaces the profile the selector and strategies read (tuned values, or a
    // capped local memory to exercise fallbacks). The device itself is unchanged.
    // Its tuned key memory_limit_bytes, when set, becomes the memory limit.
    void set_profile(DeviceProfile profile);
    ProgramCache& programs() { return *programs_; }
    // "platform:device" as NETCL_DEVICE takes it ("wrapped" when the device is
    // not one discovery lists, e.g. a sub-device).
    const std::string& device_id() const { return device_id_; }

    // Device memory netcl itself holds on this Context (its tensors: weights,
    // transformed weights, workspaces, outputs it allocates; never the
    // caller's views). With a limit (0: none, the default; or the profile's
    // memory_limit_bytes), an allocation past it throws netcl::Error with
    // CL_MEM_OBJECT_ALLOCATION_FAILURE, and a Conv2d without a strict strategy
    // falls back to a plan that needs less.
    std::size_t memory_in_use() const;
    std::size_t memory_limit() const;
    void set_memory_limit(std::size_t bytes);
    MemoryBudget& memory_budget() { return *memory_; }

    // Runs `hook` when this Context is destroyed, after everything made on it
    // is gone: a library netcl calls (CLBlast) can drop what it caches for
    // this cl_context, which would otherwise keep the context alive for ever.
    void at_destruction(std::function<void()> hook);

    // Blocks until the queue is empty (tools and tests; netcl's own calls never do).
    void finish() const;

private:
    Context(cl::Context context, cl::Device device, cl::CommandQueue queue, DeviceProfile profile,
            std::string device_id, bool wrapped);

    cl::Context context_;
    cl::Device device_;
    cl::CommandQueue queue_;
    DeviceProfile profile_;
    std::unique_ptr<ProgramCache> programs_;
    std::shared_ptr<MemoryBudget> memory_;
    std::mutex hooks_mutex_;
    std::vector<std::function<void()>> destruction_hooks_;
    std::string device_id_;
    bool wrapped_ = false;
    bool profiling_ = false;
    bool out_of_order_ = false;
};

}  // namespace netcl
