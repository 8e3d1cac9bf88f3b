#pragma once
#include <string>

namespace netcl::bench {

// oneDNN runs on OpenMP threads (libgomp here). With libgomp's default wait
// policy its idle threads spin after every parallel region; on a machine whose
// cores are shared -- another tenant's build, or PoCL's worker threads in this
// very process between oneDNN's runs -- the spinners and the work they wait for
// take turns on the same cores, and oneDNN's wall time collapses (measured on
// the 2-core development machine: 10-20 GFLOPS instead of 60-75 on 1x1 layers,
// /work/lab-gemm/REPORT.md "Method"). With OMP_WAIT_POLICY=passive the threads
// sleep instead and the figures hold; in quiet windows both policies measure
// the same within 1-2 %. So netcl-bench runs oneDNN passive unless the user
// chose a policy, and records which in the report.
//
// libgomp reads OMP_WAIT_POLICY once, when it is loaded -- before main, since
// libdnnl pulls it in -- so a setenv in main comes too late (checked: a
// setenv("OMP_WAIT_POLICY", "active") in main leaves the threads asleep).
// ensure_passive_omp_wait therefore sets the variable and re-executes the tool
// (/proc/self/exe, same arguments) once, before anything else runs.

// Without oneDNN built in, or with OMP_WAIT_POLICY already set: returns at
// once. Else sets OMP_WAIT_POLICY=passive and execs itself; returns only when
// that exec fails (the report then says the policy is libgomp's default).
void ensure_passive_omp_wait(char** argv);

struct OmpWaitPolicy {
    std::string value;   // OMP_WAIT_POLICY as libgomp read it: "passive", "active", or "" (libgomp's default)
    std::string source;  // "set by netcl-bench", "the user's environment", "libgomp's default (...)"
};
OmpWaitPolicy omp_wait_policy();

}  // namespace netcl::bench
