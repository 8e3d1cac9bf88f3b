#include "FmaPeak.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <immintrin.h>

#include "netcl/Error.hpp"
#include "runtime/EventTiming.hpp"

namespace netcl::bench {

namespace {

// More independent chains than FMA latency x FMA pipes (Zen 3: 4 x 2 = 8;
// Skylake-X: 4 x 2), so the pipes never wait on a result: 12 ymm accumulators
// plus the two operands fit AVX2's 16 registers; 24 zmm fit AVX-512's 32.
constexpr int kChainsAvx2 = 12;
constexpr int kChainsAvx512 = 24;

// Each returns a sum of its accumulators so the loop cannot be optimised away.
__attribute__((target("avx2,fma"))) float chains_avx2(std::int64_t iterations) {
    __m256 acc[kChainsAvx2];
    for (int j = 0; j < kChainsAvx2; ++j) acc[j] = _mm256_set1_ps(1e-3f * static_cast<float>(j));
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
        for (int j = 0; j < kChainsAvx2; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    }
    float sum = 0;
    for (int j = 0; j < kChainsAvx2; ++j) sum += _mm256_cvtss_f32(acc[j]);
    return sum;
}

__attribute__((target("avx512f"))) float chains_avx512(std::int64_t iterations) {
    __m512 acc[kChainsAvx512];
    for (int j = 0; j < kChainsAvx512; ++j) acc[j] = _mm512_set1_ps(1e-3f * static_cast<float>(j));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 24
        for (int j = 0; j < kChainsAvx512; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
    }
    float sum = 0;
    for (int j = 0; j < kChainsAvx512; ++j) sum += _mm512_cvtss_f32(acc[j]);
    return sum;
}

struct Variant {
    const char* isa;
    int lanes, chains;
    float (*run)(std::int64_t);
};

// GFLOPS of one variant on `threads` threads, each running `iterations`.
double gflops_of(const Variant& v, int threads, std::int64_t iterations) {
    std::vector<float> sinks(static_cast<std::size_t>(threads));
    std::vector<double> samples;
    for (int round = 0; round < 6; ++round) {  // the first is the warm-up
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] { sinks[static_cast<std::size_t>(t)] = v.run(iterations); });
        }
        for (auto& thread : pool) thread.join();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (round > 0) samples.push_back(ms);
    }
    volatile float keep = sinks[0];
    (void)keep;
    const double flops = 2.0 * v.lanes * v.chains * static_cast<double>(iterations) * threads;
    return flops / (summarize(samples).min_ms * 1e6);
}

}  // namespace

bool host_has_avx2_fma() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

std::optional<std::string> fma_peak_why_not(bool device_is_cpu) {
    if (!device_is_cpu) {
        return std::string("the device is not the host CPU: a host FMA loop is no ceiling for it");
    }
    if (!host_has_avx2_fma()) {
        return std::string("the host CPU has no AVX2 + FMA: no FMA loop to measure");
    }
    return std::nullopt;
}

FmaPeak measure_fma_peak(int threads, bool avx2_only) {
    if (const auto why = fma_peak_why_not(true)) throw Error(*why);
    FmaPeak peak;
    peak.threads = std::max(threads, 1);
    peak.avx2_only = avx2_only;
    add_fma_batch(peak);
    return peak;
}

void add_fma_batch(FmaPeak& peak) {
    std::vector<Variant> variants{{"avx2", 8, kChainsAvx2, chains_avx2}};
    if (!peak.avx2_only && __builtin_cpu_supports("avx512f")) variants.push_back({"avx512", 16, kChainsAvx512, chains_avx512});
    // About 50 ms a run at 4 GHz and 2 FMAs a cycle: iterations x chains FMAs per thread.
    constexpr std::int64_t kFmasPerThread = 400'000'000;
    for (const Variant& v : variants) {
        const double gflops = gflops_of(v, peak.threads, kFmasPerThread / v.chains);
        if (gflops > peak.gflops) {
            peak.gflops = gflops;
            peak.what = "fp32 FMA loop, " + std::to_string(peak.threads) + " threads x " + v.isa + " (" +
                        std::to_string(v.lanes) + " lanes, " + std::to_string(v.chains) + " chains), the fastest run";
        }
    }
    ++peak.batches;
}

}  // namespace netcl::bench
