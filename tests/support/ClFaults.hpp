#pragma once
// Fault injection through the OpenCL interposer (tests/support/ClInterposer.cpp):
// make one chosen call of one OpenCL entry point fail with a chosen error,
// without reaching the driver, the way a driver fails underneath netcl.
//
// Call sites: each call is recorded with the return addresses of its caller
// and the three frames above it, so a test can list every distinct place
// netcl (or CLBlast under it) calls an entry point during a forward -- a
// shared wrapper such as cl::Program::build counts once per path through it
// -- and fail each place once in turn.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/OpenCL.hpp"

namespace netcl::test {

enum class ClCall {
    CreateBuffer,
    CreateSubBuffer,
    CreateProgramWithSource,
    CreateProgramWithBinary,
    BuildProgram,
    CreateKernel,
    SetKernelArg,
    EnqueueNDRangeKernel,
    EnqueueReadBuffer,
    EnqueueWriteBuffer,
    EnqueueCopyBuffer,
    EnqueueFillBuffer,
    EnqueueMapBuffer,
    EnqueueUnmapMemObject,
    EnqueueMarkerWithWaitList,
    EnqueueBarrierWithWaitList,
    WaitForEvents,
    Finish,
};
const char* name(ClCall call);
// The error a driver gives for this entry point when it runs out of something
// (CL_MEM_OBJECT_ALLOCATION_FAILURE for buffers, CL_BUILD_PROGRAM_FAILURE for
// builds, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST for waits, else
// CL_OUT_OF_RESOURCES).
cl_int typical_error(ClCall call);

// One place in the code that calls an entry point.
struct CallSite {
    ClCall call;
    std::array<const void*, 4> frames{};  // [0]: the return address in the calling library
    // "clEnqueueNDRangeKernel from netcl::internal::launch(...) (libnetcl.so.0.2+0x1234) < ...": the frames
    // by function, outermost last.
    std::string where() const;
    bool passes_through(const std::string& function) const;  // a frame's function name contains it
    bool operator==(const CallSite&) const = default;
};

// Recording: every call from now on is appended (this thread's and others').
void start_recording();
std::vector<CallSite> stop_recording();  // in call order, repeats included
std::vector<CallSite> distinct(const std::vector<CallSite>& calls);

// The next call at `site` fails with `error`; at most one fault is armed.
void arm_fault(const CallSite& site, cl_int error);
void disarm_fault();
bool fault_fired();  // since it was armed

}  // namespace netcl::test
