#pragma once
// An OpenCL interposer for tests: counts the live objects netcl (and CLBlast
// under it) hold, and the calls that make the host wait.
//
// How it works: tests/support/ClInterposer.cpp defines clCreateBuffer,
// clReleaseEvent, clFinish and the other entry points listed there. A test
// executable that uses anything declared here pulls that object file in; the
// dynamic linker then binds those names in libnetcl and libclblast to the
// executable's definitions, which count and forward to the ICD loader's own
// (dlsym RTLD_NEXT). Executables that use nothing from here are not affected.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace netcl::test {

// Objects alive now (created or retained, not yet released to zero).
struct LiveObjects {
    std::size_t buffers = 0;       // cl_mem, sub-buffers included
    std::size_t buffer_bytes = 0;  // bytes of the live buffers (sub-buffers count 0: their parent holds them)
    std::size_t kernels = 0;
    std::size_t programs = 0;
    std::size_t events = 0;  // events handed out by enqueue calls and user events

    bool operator==(const LiveObjects&) const = default;
};
LiveObjects live_objects();

// Calls that block the calling thread until the device has caught up:
// clFinish, clWaitForEvents, and reads, writes and maps with blocking = true.
struct BlockingCalls {
    std::uint64_t finish = 0;
    std::uint64_t wait_for_events = 0;
    std::uint64_t blocking_transfers = 0;  // blocking read / write / map

    std::uint64_t total() const { return finish + wait_for_events + blocking_transfers; }
};
BlockingCalls blocking_calls();

// The wait-list length of every clEnqueueCopyBuffer since the process started, in order.
std::vector<std::size_t> copy_wait_lists();

// Every object kind the interposer has seen created at least once since the
// process started (a check that it is in effect at all).
struct Seen {
    bool buffers = false, kernels = false, programs = false, events = false;
};
Seen seen();

}  // namespace netcl::test
