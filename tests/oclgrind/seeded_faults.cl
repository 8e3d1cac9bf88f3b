// Three deliberate faults, one per oclgrind check the netcl kernels are run
// under. tests/oclgrind/seeded_faults.cpp runs them so that the log parser
// (tests/oclgrind/check.sh) is shown to catch each kind of report; a parser
// that passes these would pass anything. Never part of the library.

// Writes one element past the end when launched with n + 1 work-items.
__kernel void write_past_end(__global float* out, int n) {
    const int i = (int)get_global_id(0);
    out[i] = (float)n;  // i == n is out of bounds
}

// Every work-item writes a different value to the same local element with no
// barrier in between: a write-write data race in local memory.
__kernel void local_race(__global float* out) {
    __local float scratch[1];
    scratch[0] = (float)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = scratch[0];
}

// Reads local memory that no work-item wrote (the guarded store never runs,
// but keeps the compiler from folding the array away).
__kernel void read_uninitialized(__global float* out, int never) {
    __local float never_set[64];
    if ((int)get_local_id(0) == never) never_set[0] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = never_set[get_local_id(0)];
}
