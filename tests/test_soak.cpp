// Soak: 4 threads on 2 contexts (one netcl's own, one a wrapped out-of-order
// queue) run mixed layers by every strategy, the selector's choice among
// them, for NETCL_SOAK_SECONDS (default 600; `bash tools/netcl.sh test` runs
// 60). Each thread keeps six layers, gives one new weights now and then and
// rebuilds one from scratch every 25 forwards. Every result is checked on
// sampled outputs against the fp64 reference; live OpenCL objects after the
// soak (each layer given new weights and run once, as after the warm-up)
// equal those after the warm-up, the resident set grows by less than
// 16 MiB, and no call throws.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <thread>

#include "netcl/Conv2d.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "tests/support/ClInterposer.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

ConvShapes shape(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t r,
                 std::int64_t stride, std::int64_t pad, std::int64_t groups, bool bias) {
    ConvShapes s;
    s.N = n, s.C = c, s.H = h, s.W = w, s.K = k, s.R = r, s.S = r, s.stride_h = stride, s.stride_w = stride;
    s.groups = groups, s.bias = bias;
    s.set_padding(pad);
    return s;
}

// Small enough to check quickly, large enough for multi-block kernels.
const std::vector<ConvShapes>& layers() {
    static const std::vector<ConvShapes> all = {
        shape(1, 32, 14, 14, 32, 3, 1, 1, 1, true),  shape(2, 16, 9, 11, 24, 3, 1, 1, 1, false),
        shape(1, 64, 8, 8, 40, 1, 1, 0, 1, true),    shape(2, 24, 12, 12, 48, 3, 2, 1, 1, true),
        shape(1, 3, 23, 19, 16, 5, 2, 2, 1, true),   shape(1, 16, 10, 10, 16, 3, 1, 1, 4, true),
        shape(3, 8, 7, 7, 12, 1, 2, 0, 1, false),    shape(1, 48, 6, 6, 64, 3, 1, 1, 1, true),
    };
    return all;
}

// A variant that takes the layer, or the selector's choice (nullopt).
std::optional<Variant> pick_variant(const ConvShapes& s, const DeviceProfile& profile, std::mt19937_64& rng) {
    std::vector<Variant> takers;
    for (const Kernel k : all_kernels()) {
        for (const Variant& v : variants_of(k)) {
            if (!why_not(v, s, profile)) takers.push_back(v);
        }
    }
    std::uniform_int_distribution<std::size_t> pick(0, takers.size());  // one past the end: the selector
    const std::size_t i = pick(rng);
    if (i == takers.size()) return std::nullopt;
    return takers[i];
}

struct Layer {
    ConvShapes shapes;
    std::optional<Variant> variant;
    std::unique_ptr<Conv2d> conv;
    std::vector<float> x, w, b;
    std::vector<std::size_t> samples;
    std::vector<double> expected;  // at the samples
    Tensor input, output;

    void set_weights(std::uint64_t seed) {
        w = random_uniform(static_cast<std::size_t>(shapes.weight_numel()), seed);
        b = shapes.bias ? random_uniform(static_cast<std::size_t>(shapes.K), seed + 1) : std::vector<float>{};
        conv->set_weights(w, b);
        expected = reference_conv_sampled(shapes, x, w, b, samples);
    }
};

Layer make_layer(const std::shared_ptr<Context>& ctx, const ConvShapes& s, std::optional<Variant> v,
                 std::uint64_t seed) {
    Layer l;
    l.shapes = s;
    l.variant = std::move(v);
    Conv2dOptions o = Conv2dOptions::for_shapes(s);
    if (l.variant) {
        o.strategy = implementation_of(*l.variant).kernel();
        o.variant = l.variant;
    }
    l.conv = std::make_unique<Conv2d>(ctx, o);
    l.x = random_uniform(static_cast<std::size_t>(s.input_numel()), seed);
    l.samples = sample_output_indices(s, 48, seed);
    l.input = Tensor::from_host(ctx, l.x, {s.N, s.C, s.H, s.W});
    l.output = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
    l.set_weights(seed + 7);
    return l;
}

// One forward and its check; the error text when wrong.
std::string run_and_check(Layer& l) {
    // Ordered by events: one of the contexts has an out-of-order queue.
    const cl::Event poisoned = l.output.fill(std::numeric_limits<float>::quiet_NaN());
    const cl::Event done = l.conv->forward(l.input, l.output, {poisoned});
    const auto y = l.output.to_host({done});
    const Variant ran = l.conv->last_plan().variant;
    const double tolerance = conv_tolerance(l.shapes, tolerance_factor(ran));
    for (std::size_t i = 0; i < l.samples.size(); ++i) {
        const double got = y[l.samples[i]];
        if (!std::isfinite(got) || std::abs(got - l.expected[i]) > tolerance) {
            return ran.id + " on " + l.shapes.str() + ": output " + std::to_string(l.samples[i]) + " = " +
                   std::to_string(got) + ", expected " + std::to_string(l.expected[i]);
        }
    }
    return {};
}

TEST(Soak, FourThreadsTwoContextsMixedLayers) {
    const char* env = std::getenv("NETCL_SOAK_SECONDS");
    const double seconds = env ? std::atof(env) : 600.0;
    ASSERT_GT(seconds, 0) << "NETCL_SOAK_SECONDS must be a positive number of seconds";

    auto own = Context::create();
    cl_int status = CL_SUCCESS;
    cl::CommandQueue ooo(own->cl_context(), own->device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    auto wrapped = Context::wrap(own->cl_context()(), own->device()(), ooo());
    const std::shared_ptr<Context> contexts[2] = {own, wrapped};
    const DeviceProfile profile = KernelSelector::resolve_profile(own->profile());

    constexpr int kThreads = 4;
    // Phases every thread and the main thread pass together: warmed up (main
    // counts), running, finished (main counts again, the layers still alive).
    std::barrier warmed(kThreads + 1), measured(kThreads + 1), finished(kThreads + 1), counted(kThreads + 1);
    std::barrier<>* phases[] = {&warmed, &measured, &finished, &counted};
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> forwards{0};
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937_64 rng(1000 + t);
            auto ctx = contexts[t % 2];
            std::vector<Layer> mine;
            std::size_t phase = 0;  // barriers passed
            const auto pass = [&] { phases[phase++]->arrive_and_wait(); };
            try {
                for (int i = 0; i < 6; ++i) {
                    const ConvShapes& s = layers()[(t * 3 + i) % layers().size()];
                    mine.push_back(make_layer(ctx, s, pick_variant(s, profile, rng), rng()));
                }
                // Warm-up: every layer once, then the counts are taken.
                for (auto& l : mine) {
                    if (auto e = run_and_check(l); !e.empty()) throw std::runtime_error(e);
                }
                ctx->finish();
                pass();  // warmed
                pass();  // measured
                std::uniform_int_distribution<std::size_t> which(0, mine.size() - 1);
                for (std::uint64_t n = 1; !stop.load(); ++n) {
                    Layer& l = mine[which(rng)];
                    if (n % 7 == 0) l.set_weights(rng());
                    if (n % 25 == 0) {  // rebuilt from scratch, the same shape and choice of variant
                        l = make_layer(ctx, l.shapes, l.variant, rng());
                    }
                    if (auto e = run_and_check(l); !e.empty()) throw std::runtime_error(e);
                    ++forwards;
                }
                // The same state as after the warm-up: new weights, one forward each.
                for (auto& l : mine) {
                    l.set_weights(rng());
                    if (auto e = run_and_check(l); !e.empty()) throw std::runtime_error(e);
                }
                ctx->finish();
            } catch (const std::exception& e) {
                errors[t] = e.what();
                stop = true;
            }
            while (phase < std::size(phases)) pass();  // the main thread counts with the layers alive
        });
    }
    warmed.arrive_and_wait();
    const test::LiveObjects live_warm = test::live_objects();
    const std::size_t rss_warm = resident_bytes();
    measured.arrive_and_wait();
    const auto start = std::chrono::steady_clock::now();
    while (!stop.load() && std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    stop = true;
    finished.arrive_and_wait();
    const test::LiveObjects live_end = test::live_objects();
    counted.arrive_and_wait();
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];

    EXPECT_EQ(live_end.buffers, live_warm.buffers);
    EXPECT_EQ(live_end.buffer_bytes, live_warm.buffer_bytes);
    EXPECT_EQ(live_end.kernels, live_warm.kernels);
    EXPECT_EQ(live_end.programs, live_warm.programs);
    EXPECT_EQ(live_end.events, live_warm.events);
    const std::size_t rss_end = resident_bytes();
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    EXPECT_LT(rss_end, rss_warm + (16u << 20)) << "resident set " << (rss_warm >> 20) << " -> " << (rss_end >> 20)
                                               << " MiB";
#endif
    std::printf("[ soak     ] %.0f s: %llu forwards verified on 4 threads x 2 contexts; live objects flat "
                "(%zu buffers, %zu kernels, %zu programs, %zu events); resident set %zu -> %zu MiB\n",
                seconds, static_cast<unsigned long long>(forwards.load()), live_end.buffers, live_end.kernels,
                live_end.programs, live_end.events, rss_warm >> 20, rss_end >> 20);
    EXPECT_GT(forwards.load(), 0u);
}

}  // namespace
}  // namespace netcl
