#include "SgemmPeak.hpp"

#include <algorithm>
#include <chrono>

#include "OmpWaitPolicy.hpp"
#include "OneDnnLibraries.hpp"
#include "netcl/Error.hpp"
#include "runtime/EventTiming.hpp"
#include "tests/support/ReferenceConv.hpp"

namespace netcl::bench {

std::optional<std::string> sgemm_peak_why_not() {
    if (!onednn_built_in()) return std::string("oneDNN not built in: no SGEMM to measure the peak with");
    return std::nullopt;
}

SgemmPeak measure_sgemm_peak(std::int64_t size, int warmup, int repeat) {
    if (const auto why = sgemm_peak_why_not()) throw Error(*why);
    SgemmPeak peak;
    peak.size = size;
    const std::string policy = omp_wait_policy().value;
    peak.what = "dnnl_sgemm " + std::to_string(size) + "x" + std::to_string(size) + "x" + std::to_string(size) +
                " fp32 (oneDNN " + onednn_libraries().front().library->version() + ", " + onednn_cpu_isa() + "), host CPU, OMP_WAIT_POLICY=" +
                (policy.empty() ? "default" : policy);
    add_sgemm_batch(peak, warmup, repeat);
    return peak;
}

void add_sgemm_batch(SgemmPeak& peak, int warmup, int repeat) {
    if (const auto why = sgemm_peak_why_not()) throw Error(*why);
    std::vector<double> samples;
    const OneDnnLibrary& onednn = *onednn_libraries().front().library;  // the newest: the peer's own SGEMM
    const std::int64_t size = peak.size;
    const auto n = static_cast<std::size_t>(size * size);
    const std::vector<float> a = random_uniform(n, 7), b = random_uniform(n, 8);
    std::vector<float> c(n, 0.0f);
    const auto once = [&] { onednn.sgemm(size, a.data(), b.data(), c.data()); };
    for (int i = 0; i < warmup; ++i) once();
    for (int i = 0; i < repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        once();
        const auto end = std::chrono::steady_clock::now();
        samples.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    const TimingSummary t = summarize(samples);
    const double flops = 2.0 * static_cast<double>(peak.size) * static_cast<double>(peak.size) *
                         static_cast<double>(peak.size);
    peak.batches_ms.push_back(samples);
    if (peak.median_ms <= 0 || t.median_ms < peak.median_ms) {
        peak.median_ms = t.median_ms;
        peak.gflops = flops / (t.median_ms * 1e6);
    }
    peak.best_gflops = std::max(peak.best_gflops, flops / (t.min_ms * 1e6));
}

}  // namespace netcl::bench
