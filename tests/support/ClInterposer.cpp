// The counting OpenCL entry points of tests/support/ClInterposer.hpp. Each
// forwards to the next definition of its name (the ICD loader's) and keeps a
// reference count per handle, so "live" means what the driver would still
// hold: a handle retained twice and released once is still alive.
#include "tests/support/ClInterposer.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

#include "tests/support/ClFaults.hpp"

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
    std::vector<std::size_t> copy_wait_lists;  // each clEnqueueCopyBuffer's wait-list length, under `mutex`

    // Fault injection (ClFaults.hpp), under `mutex`.
    bool recording = false;
    std::vector<CallSite> recorded;
    std::optional<CallSite> armed;
    cl_int armed_error = CL_SUCCESS;
    bool fired = false;
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

// Records the call and says whether it must fail (and with what).
std::optional<cl_int> intercept(ClCall call, const void* caller) {
    auto& r = registry();
    {
        std::lock_guard lock(r.mutex);
        if (!r.recording && !r.armed) return std::nullopt;  // the common case: no stack walk
    }
    // The caller and the frames above it, from the stack (the frames below
    // the caller are the interposer's own).
    CallSite site{call, {}};
    void* stack[32];
    const int depth = ::backtrace(stack, 32);
    int first = 0;
    while (first < depth && stack[first] != caller) ++first;
    if (first == depth) {
        site.frames[0] = caller;
    } else {
        // Up to where the libraries return to the program (the test): the
        // test's own frames differ between the run that records a site and
        // the run that fails it.
        Dl_info own{};
        ::dladdr(reinterpret_cast<const void*>(&intercept), &own);
        for (std::size_t i = 0; i < site.frames.size() && first + static_cast<int>(i) < depth; ++i) {
            Dl_info info{};
            if (::dladdr(stack[first + i], &info) != 0 && info.dli_fbase == own.dli_fbase) break;
            site.frames[i] = stack[first + i];
        }
    }
    std::lock_guard lock(r.mutex);
    if (r.recording) r.recorded.push_back(site);
    if (r.armed && !r.fired && *r.armed == site) {
        r.fired = true;
        return r.armed_error;
    }
    return std::nullopt;
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

std::vector<std::size_t> copy_wait_lists() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    return r.copy_wait_lists;
}

Seen seen() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    return r.seen;
}

const char* name(ClCall call) {
    switch (call) {
        case ClCall::CreateBuffer: return "clCreateBuffer";
        case ClCall::CreateSubBuffer: return "clCreateSubBuffer";
        case ClCall::CreateProgramWithSource: return "clCreateProgramWithSource";
        case ClCall::CreateProgramWithBinary: return "clCreateProgramWithBinary";
        case ClCall::BuildProgram: return "clBuildProgram";
        case ClCall::CreateKernel: return "clCreateKernel";
        case ClCall::SetKernelArg: return "clSetKernelArg";
        case ClCall::EnqueueNDRangeKernel: return "clEnqueueNDRangeKernel";
        case ClCall::EnqueueReadBuffer: return "clEnqueueReadBuffer";
        case ClCall::EnqueueWriteBuffer: return "clEnqueueWriteBuffer";
        case ClCall::EnqueueCopyBuffer: return "clEnqueueCopyBuffer";
        case ClCall::EnqueueFillBuffer: return "clEnqueueFillBuffer";
        case ClCall::EnqueueMapBuffer: return "clEnqueueMapBuffer";
        case ClCall::EnqueueUnmapMemObject: return "clEnqueueUnmapMemObject";
        case ClCall::EnqueueMarkerWithWaitList: return "clEnqueueMarkerWithWaitList";
        case ClCall::EnqueueBarrierWithWaitList: return "clEnqueueBarrierWithWaitList";
        case ClCall::WaitForEvents: return "clWaitForEvents";
        case ClCall::Finish: return "clFinish";
    }
    return "?";
}

cl_int typical_error(ClCall call) {
    switch (call) {
        case ClCall::CreateBuffer:
        case ClCall::CreateSubBuffer: return CL_MEM_OBJECT_ALLOCATION_FAILURE;
        case ClCall::BuildProgram: return CL_BUILD_PROGRAM_FAILURE;
        case ClCall::WaitForEvents: return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
        default: return CL_OUT_OF_RESOURCES;
    }
}

namespace {

// "netcl::ProgramCache::build(...)" and "libnetcl.so.0.2+0x1234" for a return address.
std::pair<std::string, std::string> describe_frame(const void* address) {
    Dl_info info{};
    if (address == nullptr || ::dladdr(address, &info) == 0 || info.dli_fname == nullptr) return {"?", "?"};
    std::string function = "?";
    if (info.dli_sname != nullptr) {
        int status = 0;
        char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
        function = status == 0 && demangled ? demangled : info.dli_sname;
        std::free(demangled);
        // The name without its parameter list: enough to tell functions apart here.
        if (const auto paren = function.find('('); paren != std::string::npos && paren > 0) {
            function = function.substr(0, paren);
        }
    }
    std::string library = info.dli_fname;
    library = library.substr(library.find_last_of('/') + 1);
    char offset[32];
    std::snprintf(offset, sizeof offset, "+0x%tx",
                  static_cast<const char*>(address) - static_cast<const char*>(info.dli_fbase));
    return {function, library + offset};
}

}  // namespace

std::string CallSite::where() const {
    std::string text = std::string(name(call)) + " from ";
    for (std::size_t i = 0; i < frames.size() && frames[i] != nullptr; ++i) {
        const auto [function, place] = describe_frame(frames[i]);
        text += (i ? " < " : "") + function + (i == 0 ? " (" + place + ")" : "");
    }
    return text;
}

bool CallSite::passes_through(const std::string& function) const {
    for (const void* frame : frames) {
        if (frame != nullptr && describe_frame(frame).first.find(function) != std::string::npos) return true;
    }
    return false;
}

void start_recording() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    r.recorded.clear();
    r.recording = true;
}

std::vector<CallSite> stop_recording() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    r.recording = false;
    return std::move(r.recorded);
}

std::vector<CallSite> distinct(const std::vector<CallSite>& calls) {
    std::vector<CallSite> out;
    for (const auto& c : calls) {
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

void arm_fault(const CallSite& site, cl_int error) {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    r.armed = site;
    r.armed_error = error;
    r.fired = false;
}

void disarm_fault() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    r.armed.reset();
}

bool fault_fired() {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    return r.fired;
}

}  // namespace netcl::test

using netcl::test::ClCall;
using netcl::test::Kind;
using netcl::test::next;

// The first thing each entry point does: the call is recorded, and an armed
// fault at this call site returns its error instead of calling the driver.
#define NETCL_FAULT_POINT(call) \
    const std::optional<cl_int> injected = netcl::test::intercept(call, __builtin_return_address(0))

extern "C" {

// --- memory objects ------------------------------------------------------------
cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateBuffer)>("clCreateBuffer");
    NETCL_FAULT_POINT(ClCall::CreateBuffer);
    if (injected) { if (errcode_ret) *errcode_ret = *injected; return nullptr; }
    cl_mem mem = real(context, flags, size, host_ptr, errcode_ret);
    netcl::test::created(mem, Kind::Buffer, size);
    return mem;
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void* info,
                         cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateSubBuffer)>("clCreateSubBuffer");
    NETCL_FAULT_POINT(ClCall::CreateSubBuffer);
    if (injected) { if (errcode_ret) *errcode_ret = *injected; return nullptr; }
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
    NETCL_FAULT_POINT(ClCall::CreateProgramWithSource);
    if (injected) { if (errcode_ret) *errcode_ret = *injected; return nullptr; }
    cl_program program = real(context, count, strings, lengths, errcode_ret);
    netcl::test::created(program, Kind::Program);
    return program;
}

cl_program clCreateProgramWithBinary(cl_context context, cl_uint num_devices, const cl_device_id* devices,
                                     const size_t* lengths, const unsigned char** binaries, cl_int* binary_status,
                                     cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateProgramWithBinary)>("clCreateProgramWithBinary");
    NETCL_FAULT_POINT(ClCall::CreateProgramWithBinary);
    if (injected) { if (errcode_ret) *errcode_ret = *injected; return nullptr; }
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

cl_int clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id* devices, const char* options,
                      void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
    static const auto real = next<decltype(&clBuildProgram)>("clBuildProgram");
    NETCL_FAULT_POINT(ClCall::BuildProgram);
    if (injected) return *injected;
    return real(program, num_devices, devices, options, notify, user_data);
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
    static const auto real = next<decltype(&clSetKernelArg)>("clSetKernelArg");
    NETCL_FAULT_POINT(ClCall::SetKernelArg);
    if (injected) return *injected;
    return real(kernel, index, size, value);
}

cl_kernel clCreateKernel(cl_program program, const char* name, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clCreateKernel)>("clCreateKernel");
    NETCL_FAULT_POINT(ClCall::CreateKernel);
    if (injected) { if (errcode_ret) *errcode_ret = *injected; return nullptr; }
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
    NETCL_FAULT_POINT(ClCall::EnqueueNDRangeKernel);
    if (injected) { return *injected; }
    const cl_int status = real(queue, kernel, dims, offset, global, local, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void* ptr, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueReadBuffer)>("clEnqueueReadBuffer");
    NETCL_FAULT_POINT(ClCall::EnqueueReadBuffer);
    if (injected) { return *injected; }
    if (blocking) ++netcl::test::registry().blocking_transfers;
    const cl_int status = real(queue, buffer, blocking, offset, size, ptr, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                            const void* ptr, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueWriteBuffer)>("clEnqueueWriteBuffer");
    NETCL_FAULT_POINT(ClCall::EnqueueWriteBuffer);
    if (injected) { return *injected; }
    if (blocking) ++netcl::test::registry().blocking_transfers;
    const cl_int status = real(queue, buffer, blocking, offset, size, ptr, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset, size_t dst_offset,
                           size_t size, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueCopyBuffer)>("clEnqueueCopyBuffer");
    NETCL_FAULT_POINT(ClCall::EnqueueCopyBuffer);
    if (injected) { return *injected; }
    {
        std::lock_guard lock(netcl::test::registry().mutex);
        netcl::test::registry().copy_wait_lists.push_back(num_events);
    }
    const cl_int status = real(queue, src, dst, src_offset, dst_offset, size, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern, size_t pattern_size,
                           size_t offset, size_t size, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueFillBuffer)>("clEnqueueFillBuffer");
    NETCL_FAULT_POINT(ClCall::EnqueueFillBuffer);
    if (injected) { return *injected; }
    const cl_int status = real(queue, buffer, pattern, pattern_size, offset, size, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

void* clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
                         size_t size, cl_uint num_events, const cl_event* wait, cl_event* event, cl_int* errcode_ret) {
    static const auto real = next<decltype(&clEnqueueMapBuffer)>("clEnqueueMapBuffer");
    NETCL_FAULT_POINT(ClCall::EnqueueMapBuffer);
    if (injected) { if (errcode_ret) *errcode_ret = *injected; return nullptr; }
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
    NETCL_FAULT_POINT(ClCall::EnqueueUnmapMemObject);
    if (injected) { return *injected; }
    const cl_int status = real(queue, mem, mapped, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events, const cl_event* wait, cl_event* event) {
    static const auto real = next<decltype(&clEnqueueMarkerWithWaitList)>("clEnqueueMarkerWithWaitList");
    NETCL_FAULT_POINT(ClCall::EnqueueMarkerWithWaitList);
    if (injected) { return *injected; }
    const cl_int status = real(queue, num_events, wait, event);
    netcl::test::event_out(status, event);
    return status;
}

cl_int clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events, const cl_event* wait,
                                    cl_event* event) {
    static const auto real = next<decltype(&clEnqueueBarrierWithWaitList)>("clEnqueueBarrierWithWaitList");
    NETCL_FAULT_POINT(ClCall::EnqueueBarrierWithWaitList);
    if (injected) { return *injected; }
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
    NETCL_FAULT_POINT(ClCall::Finish);
    if (injected) { return *injected; }
    ++netcl::test::registry().finish;
    return real(queue);
}

cl_int clWaitForEvents(cl_uint num_events, const cl_event* events) {
    static const auto real = next<decltype(&clWaitForEvents)>("clWaitForEvents");
    NETCL_FAULT_POINT(ClCall::WaitForEvents);
    if (injected) { return *injected; }
    ++netcl::test::registry().wait_for_events;
    return real(num_events, events);
}

}  // extern "C"
