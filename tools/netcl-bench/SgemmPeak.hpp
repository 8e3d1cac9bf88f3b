#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace netcl::bench {

// The machine's practical fp32 peak, for a roofline line per kernel (achieved
// GFLOPS / peak): oneDNN's dnnl_sgemm on a large square problem, timed on the
// wall clock in the same run as the convolutions, so a machine that is busy
// or throttled during the run lowers both. A 1024^3 SGEMM is compute-bound
// (2.1 GFLOP on 12 MiB of operands) and oneDNN blocks it for the caches, so it
// runs near what the cores' FMA units sustain with real loads and stores.
// Measured on a 2-core AVX2 development machine, quiet: 68-71 GFLOPS on both
// cores (39-40 on one; 73 at 1536^3 and 2048^3, which take 3-8x as long), against
// an 80 GFLOPS FMA-loop ceiling; on a 2-core Zen 3 (2026-11-26) 123-138 against
// FmaPeak.hpp's measured 176-184. It is a practical reference, not a hard
// ceiling: oneDNN's blocked direct convolutions reach 75-79 GFLOPS there, so
// "% of peak" can pass 100 for the best kernels; FmaPeak.hpp's is the hard one.
// With several oneDNN builds loaded, the newest one's SGEMM.
//
// Measured in batches -- one before the layers and one after -- and the faster
// batch is the peak: another tenant's job that starts or ends during the run
// would otherwise leave the peak measured in its busy moment and the kernels
// in a quiet one, and put them above 100 %.
struct SgemmPeak {
    std::string what;  // "dnnl_sgemm 1024x1024x1024 fp32 (oneDNN 2.6.3, avx2), host CPU, OMP_WAIT_POLICY=passive"
    std::int64_t size = 0;
    std::vector<std::vector<double>> batches_ms;  // wall time of each SGEMM, one list per batch
    double median_ms = 0;    // the faster batch's median
    double gflops = 0;       // 2 * size^3 / median_ms: the peak the report divides by
    double best_gflops = 0;  // 2 * size^3 / fastest single SGEMM: how far the median sits below a quiet moment
};

// Why the peak cannot be measured (oneDNN not built in); nothing when it can.
std::optional<std::string> sgemm_peak_why_not();

// The first batch: `repeat` wall-timed SGEMMs of size^3 after `warmup` untimed
// ones, data uniform in [-1, 1]. Throws netcl::Error when oneDNN is not built in or fails.
SgemmPeak measure_sgemm_peak(std::int64_t size = 1024, int warmup = 2, int repeat = 7);
// One more batch of the same; the peak becomes the faster batch's.
void add_sgemm_batch(SgemmPeak& peak, int warmup = 1, int repeat = 7);

}  // namespace netcl::bench
