// The counting OpenCL entry points of tests/support/ClInterposer.hpp. Each
// forwards to the next definition of its name (the ICD loader's) and keeps a
// reference count per handle, so "live" means what the driver would still
// hold: a handle retained twice and released once is still alive.
#include "tests/support/ClInterposer.hpp"

#include <dlfcn.h>

#include <atomic>
#include <map>
#include <mutex>

#include "netcl/OpenCL.hpp"

namespace netcl::test {
namespace {

enum class Kind { Buffer, Kernel, Program, Event };

struct Entry {
    Kind kind;
    cl_uint references;
    std::size_t bytes;
};

struct Registry {
    std::mutex mutex;
    std::map<const void*, Entry> objects;
    Seen seen;
    std::atomic<std::uint64_t> finish{0}, wait_for_events{0}, blocking_transfers{0};
};
Registry& registry() {
    static Registry* instance = new Registry;  // never destroyed: calls may come during exit
    return *instance;
}

template <typename F>
F next(const char* name) {
    return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

void created(const void* handle, Kind kind, std::size_t bytes = 0) {
    if (handle == nullptr) return;
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    r.objects[handle] = {kind, 1, bytes};
    switch (kind) {
        case Kind::Buffer: r.seen.buffers = true; break;
        case Kind::Kernel: r.seen.kernels = true; break;
        case Kind::Program: r.seen.programs = true; break;
        case Kind::Event: r.seen.events = true; break;
    }
}

void retained(const void* handle, cl_int status) {
    if (status != CL_SUCCESS) return;
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    if (auto it = r.objects.find(handle); it != r.objects.end()) ++it->second.references;
}

// Called before the real release: once the count reaches zero the driver may
// hand the same address out again.
void released(const void* handle) {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    if (auto it = r.objects.find(handle); it != r.objects.end() && --it->second.references == 0) r.objects.erase(it);
}

// The event an enqueue call handed back, when the caller asked for one.
void event_out(cl_int status, cl_event* event) {
    if (status == CL_SUCCESS && event != nullptr) created(*event, Kind::Event);
}

}  // namespace

LiveObjects live_objects() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    LiveObjects live;
    for (const auto& [handle, entry] : r.objects) {
        switch (entry.kind) {
            case Kind::Buffer:
                ++live.buffers;
                live.buffer_bytes += entry.bytes;
                break;
            case Kind::Kernel: ++live.kernels; break;
            case Kind::Program: ++live.programs; break;
            case Kind::Event: ++live.events; break;
        }
    }
    return live;
}

BlockingCalls blocking_calls() {
    auto& r = registry();
    return {r.finish.load(), r.wait_for_events.load(), r.blocking_transfers.load()};
}

Seen seen() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    return r.seen;
}

}  // namespace netcl::test

using netcl::test::Kind;
using netcl::test::next;

extern "C" {

// --- memory objects ------------------------------------------------------------
cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateBuffer)>("clCreateBuffer");
    cl_mem mem = real(context, flags, size, host_ptr, errcode_ret);
    netcl::test::created(mem, Kind::Buffer, size);
    return mem;
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void* info,
                         cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateSubBuffer)>("clCreateSubBuffer");
    cl_mem mem = real(buffer, flags, type, info, errcode_ret);
    netcl::test::created(mem, Kind::Buffer, 0);
    return mem;
}

cl_int clRetainMemObject(cl_mem mem) {
    static const auto real = next<decltype(&clRetainMemObject)>("clRetainMemObject");
    const cl_int status = real(mem);
    netcl::test::retained(mem, status);
    return status;
}

cl_int clReleaseMemObject(cl_mem mem) {
    static const auto real = next<decltype(&clReleaseMemObject)>("clReleaseMemObject");
    netcl::test::released(mem);
    return real(mem);
}

// --- programs and kernels --------------------------------------------------------
cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char** strings, const size_t* lengths,
                                     cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateProgramWithSource)>("clCreateProgramWithSource");
    cl_program program = real(context, count, strings, lengths, errcode_ret);
    netcl::test::created(program, Kind::Program);
    return program;
}

cl_program clCreateProgramWithBinary(cl_context context, cl_uint num_devices, const cl_device_id* devices,
                                     const size_t* lengths, const unsigned char** binaries, cl_int* binary_status,
                                     cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateProgramWithBinary)>("clCreateProgramWithBinary");
    cl_program program = real(context, num_devices, devices, lengths, binaries, binary_status, errcode_ret);
    netcl::test::created(program, Kind::Program);
    return program;
}

cl_int clRetainProgram(cl_program program) {
    static const auto real = next<decltype(&clRetainProgram)>("clRetainProgram");
    const cl_int status = real(program);
    netcl::test::retained(program, status);
    return status;
}

cl_int clReleaseProgram(cl_program program) {
    static const auto real = next<decltype(&clReleaseProgram)>("clReleaseProgram");
    netcl::test::released(program);
    return real(program);
}

cl_kernel clCreateKernel(cl_program program, const char* name, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateKernel)>("clCreateKernel");
    cl_kernel kernel = real(program, name, errcode_ret);
    netcl::test::created(kernel, Kind::Kernel);
    return kernel;
}

cl_int clRetainKernel(cl_kernel kernel) {
    static const auto real = next<decltype(&clRetainKernel)>("clRetainKernel");
    const cl_int status = real(kernel);
    netcl::test::retained(kernel, status);
    return status;
}

cl_int clReleaseKernel(cl_kernel kernel) {
    static const auto real = next<decltype(&clReleaseKernel)>("clReleaseKernel");
    netcl::test::released(kernel);
    return real(kernel);
}

// --- events: every enqueue that can hand one back ----------------------------------
cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                              const size_t* global, const size_t* local, cl_uint num_events, const cl_event* wait,
                              cl_event* event) {
    static const auto real = next<decltype(&clEnqueueNDRangeKernel)>("clEnqueueNDRangeKernel");
    const cl_int status = real(queue, kernel, dims, offset, global, local, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void* ptr, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueReadBuffer)>("clEnqueueReadBuffer");
    if (blocking) ++netcl::test::registry().blocking_transfers;
    const cl_int status = real(queue, buffer, blocking, offset, size, ptr, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                            const void* ptr, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueWriteBuffer)>("clEnqueueWriteBuffer");
    if (blocking) ++netcl::test::registry().blocking_transfers;
    const cl_int status = real(queue, buffer, blocking, offset, size, ptr, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset, size_t dst_offset,
                           size_t size, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueCopyBuffer)>("clEnqueueCopyBuffer");
    const cl_int status = real(queue, src, dst, src_offset, dst_offset, size, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern, size_t pattern_size,
                           size_t offset, size_t size, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueFillBuffer)>("clEnqueueFillBuffer");
    const cl_int status = real(queue, buffer, pattern, pattern_size, offset, size, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

void* clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
                         size_t size, cl_uint num_events, const cl_event* wait, cl_event* event, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clEnqueueMapBuffer)>("clEnqueueMapBuffer");
    if (blocking) ++netcl::test::registry().blocking_transfers;
    cl_int status = CL_SUCCESS;
    void* mapped = real(queue, buffer, blocking, flags, offset, size, num_events, wait, event, &status);
    if (errcode_ret) *errcode_ret = status;
    netcl::test::event_out(status, event);
    return mapped;
}

cl_int clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void* mapped, cl_uint num_events,
                               const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueUnmapMemObject)>("clEnqueueUnmapMemObject");
    const cl_int status = real(queue, mem, mapped, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueMarkerWithWaitList)>("clEnqueueMarkerWithWaitList");
    const cl_int status = real(queue, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events, const cl_event* wait,
                                    cl_event* event) {
    static const auto real = next<decltype(&clEnqueueBarrierWithWaitList)>("clEnqueueBarrierWithWaitList");
    const cl_int status = real(queue, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_event clCreateUserEvent(cl_context context, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateUserEvent)>("clCreateUserEvent");
    cl_event event = real(context, errcode_ret);
    netcl::test::created(event, Kind::Event);
    return event;
}

cl_int clRetainEvent(cl_event event) {
    static const auto real = next<decltype(&clRetainEvent)>("clRetainEvent");
    const cl_int status = real(event);
    netcl::test::retained(event, status);
    return status;
}

cl_int clReleaseEvent(cl_event event) {
    static const auto real = next<decltype(&clReleaseEvent)>("clReleaseEvent");
    netcl::test::released(event);
    return real(event);
}

// --- host waits --------------------------------------------------------------------
cl_int clFinish(cl_command_queue queue) {
    static const auto real = next<decltype(&clFinish)>("clFinish");
    ++netcl::test::registry().finish;
    return real(queue);
}

cl_int clWaitForEvents(cl_uint num_events, const cl_event* events) {
    static const auto real = next<decltype(&clWaitForEvents)>("clWaitForEvents");
    ++netcl::test::registry().wait_for_events;
    return real(num_events, events);
}

}  // extern "C"
