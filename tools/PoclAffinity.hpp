#pragma once
// PoCL's CPU device runs work-groups on one worker thread per core, and by
// default leaves their placement to the kernel's scheduler. On the 2-core
// development machine the scheduler put both workers on one core in
// stretches of tens of runs, so a run took twice its time (a 1x1 layer, 128
// -> 512 channels at 28x28: 0.55-0.62 ms in 19 of 62 runs, 0.28-0.37 in the
// rest); with POCL_AFFINITY=1 (PoCL pins worker i to core i) none of 124 runs
// left 0.28-0.47. So the tools that time kernels pin PoCL's workers unless the
// user chose otherwise, and say which in their reports. PoCL reads the
// variable when its platform is first initialised: this must run before the
// process's first OpenCL call. Other OpenCL drivers ignore it.
//
// oneDNN's OpenMP threads are left unbound: OMP_PROC_BIND=true measured
// slower on the same layer (0.46 ms in every run against 0.29-0.50 unbound).
#include <cstdlib>
#include <string>

namespace netcl::tools {

struct PoclAffinity {
    std::string value;   // POCL_AFFINITY as PoCL will read it
    std::string source;  // "set by the tool" or "the user's environment"
};

inline PoclAffinity pin_pocl_workers() {
    if (const char* value = std::getenv("POCL_AFFINITY")) return {value, "the user's environment"};
    setenv("POCL_AFFINITY", "1", 1);
    return {"1", "set by the tool"};
}

}  // namespace netcl::tools
