#include "OmpWaitPolicy.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <unistd.h>

#include "OneDnnLibraries.hpp"

namespace netcl::bench {

namespace {

constexpr const char* kPolicy = "OMP_WAIT_POLICY";
// Marks a policy netcl-bench set before re-executing itself, so the report can tell it from the user's.
constexpr const char* kSetByBench = "NETCL_BENCH_SET_OMP_WAIT_POLICY";
std::string exec_failure;  // why the re-exec failed, for the report

}  // namespace

void ensure_passive_omp_wait(char** argv) {
    if (!onednn_built_in() || std::getenv(kPolicy)) return;
    setenv(kPolicy, "passive", 1);
    setenv(kSetByBench, "1", 1);
    execv("/proc/self/exe", argv);
    // Still here: the exec failed; run on with libgomp's default (already loaded, it never saw the setenv).
    exec_failure = std::strerror(errno);
    unsetenv(kPolicy);
    unsetenv(kSetByBench);
    std::cerr << "netcl-bench: warning: could not re-execute with OMP_WAIT_POLICY=passive (" << exec_failure
              << "); oneDNN runs with libgomp's default wait policy\n";
}

OmpWaitPolicy omp_wait_policy() {
    const char* value = std::getenv(kPolicy);
    if (!value) {
        if (exec_failure.empty()) return {"", "libgomp's default (unset)"};
        return {"", "libgomp's default (re-executing with passive failed: " + exec_failure + ")"};
    }
    const char* marker = std::getenv(kSetByBench);
    return {value, marker && std::strcmp(marker, "1") == 0 ? "set by netcl-bench" : "the user's environment"};
}

}  // namespace netcl::bench
