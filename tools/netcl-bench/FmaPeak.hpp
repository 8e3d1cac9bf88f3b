#pragma once
#include <optional>
#include <string>

namespace netcl::bench {

// The cores' arithmetic ceiling, the second roofline line beside the SGEMM
// peak (SgemmPeak.hpp): independent fp32 FMA chains in registers, no loads or
// stores, on as many threads as the device has compute units, in the widest
// vectors the host CPU takes (AVX-512 where it has avx512f, else AVX2 + FMA;
// both are tried on an AVX-512 machine and the faster kept, since Zen 4 runs
// 512-bit FMAs as two 256-bit halves). No direct or GEMM kernel can pass it
// (Winograd's effective GFLOPS, counted as direct multiply-adds, can: it does
// fewer); how far SGEMM stays below it is what loads, stores and blocking
// cost on this machine.
// A ceiling is what the cores do at their quietest, so it is the fastest run,
// over two batches (before the layers and after, as the SGEMM peak): on the
// shared 2-core Zen 3 of 2026-11-26 a single median read 122 GFLOPS in one
// run and 176-184 in others, and oneDNN's conv1.2 then ran at 117% of it.
struct FmaPeak {
    std::string what;  // "fp32 FMA loop, 2 threads x avx2 (8 lanes, 12 chains)"
    int threads = 0;
    int batches = 0;
    double gflops = 0;  // 2 flops per lane per FMA, the fastest timed run of every batch
    bool avx2_only = false;  // --isa avx2: the AVX2 loop alone, the ceiling of the code being timed
};

// Whether this host's CPU runs AVX2 with FMA (the FMA loop's, and --isa avx2's, precondition).
bool host_has_avx2_fma();

// Why the FMA peak cannot be measured: the device is not the host's CPU, or
// the host has no AVX2 + FMA. Nothing when it can.
std::optional<std::string> fma_peak_why_not(bool device_is_cpu);

// Measures it on `threads` threads: per variant a warm-up run, then 5 timed (about 50 ms each); with
// `avx2_only` (IsaEmulation.hpp) not in AVX-512 even where the host has it.
FmaPeak measure_fma_peak(int threads, bool avx2_only = false);
// One more batch of the same; the peak becomes the faster of all.
void add_fma_batch(FmaPeak& peak);

}  // namespace netcl::bench
