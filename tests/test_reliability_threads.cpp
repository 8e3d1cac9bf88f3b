// Threads sharing one Context: the program cache (documented thread-safe) is
// hit by several threads at once for the same and for different build
// options, and several Conv2d layers (one per thread) enqueue on the shared
// queue at once. Two frameworks' contexts in one process, each wrapped with
// its own queue, driven from two threads at once. Run by the ThreadSanitizer build of tools/netcl.sh test
// (target netcl_tsan_suites), where a data race in netcl fails it; in the
// other builds it checks that the results stay right.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "netcl/Conv2d.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "runtime/ProgramCache.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

constexpr int kThreads = 4;

TEST(ReliabilityThreads, ProgramCacheBuildsEachOptionSetOnceUnderContention) {
    auto ctx = Context::create();  // a fresh cache: nothing built yet
    // Unique source text: neither this process nor the disk cache has seen it.
    const std::string source = "// threads " + std::to_string(::getpid()) + "-" +
                               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                               "\n__kernel void add(__global float* x) { x[get_global_id(0)] += (float)VALUE; }\n";
    const auto before = ctx->programs().stats();
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round) {
                // Two option sets shared by all threads, so both same-key and
                // different-key requests overlap.
                const int value = (t + round) % 2 + 1;
                try {
                    const cl::Program program = ctx->programs().get_source("add", source, "-DVALUE=" + std::to_string(value));
                    cl::Kernel kernel(program, "add");
                    Tensor x = Tensor::from_host(ctx, std::vector<float>{1, 2, 3}, {3});
                    kernel.setArg(0, x.buffer());
                    if (ctx->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(3)) != CL_SUCCESS) ++failures;
                    const auto host = x.to_host();
                    if (host != std::vector<float>{1.0f + value, 2.0f + value, 3.0f + value}) ++failures;
                } catch (const std::exception&) {
                    ++failures;
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    const auto after = ctx->programs().stats();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(after.builds + after.disk_hits - before.builds - before.disk_hits, 2u)
        << "each of the 2 option sets must be built (or loaded) exactly once";
    EXPECT_EQ(after.memory_hits - before.memory_hits, static_cast<std::uint64_t>(kThreads * 3 - 2));
}

TEST(ReliabilityThreads, LayersOnOneContextEnqueueConcurrently) {
    auto ctx = test::shared_context();
    ConvShapes s;
    s.N = 1, s.C = 3, s.H = 9, s.W = 7, s.K = 4, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    const Kernel kernels[kThreads] = {Kernel::CONV2D_NAIVE, Kernel::IM2COL, Kernel::CONV2D_WINOGRAD,
                                      Kernel::CONV2D_NAIVE};
    std::atomic<int> wrong{0};
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            try {
                const auto x_host = test::random_uniform(static_cast<std::size_t>(s.input_numel()), 70 + t);
                const auto w_host = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 80 + t);
                const auto b_host = test::random_uniform(static_cast<std::size_t>(s.K), 90 + t);
                const auto expected = reference_conv(s, x_host, w_host, b_host);
                Conv2dOptions o;
                o.in_channels = s.C;
                o.out_channels = s.K;
                o.padding = {1, 1};
                o.strategy = kernels[t];
                Conv2d conv(ctx, o);
                conv.set_weights(w_host, b_host);
                const Tensor x = Tensor::from_host(ctx, x_host, {s.N, s.C, s.H, s.W});
                for (int i = 0; i < 10; ++i) {
                    const auto result = test::compare(conv(x).to_host(), expected);
                    if (result.non_finite != 0 || result.max_abs_error > conv_tolerance(s, 16.0)) ++wrong;
                }
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
    EXPECT_EQ(wrong.load(), 0);
}

// Two contexts on the same device, as two frameworks (or two model replicas)
// in one process would make them, each with its own profiling-less queue and
// its own layers of every strategy; one thread drives each, at once. netcl's
// process-wide state (the selector, the profile store, the logger) is shared
// between them.
TEST(ReliabilityThreads, TwoWrappedContextsOnTwoThreads) {
    const auto entries = Context::devices();
    cl_device_id device = entries[Context::pick(entries, std::getenv("NETCL_DEVICE") ? std::getenv("NETCL_DEVICE") : "")].device();
    struct Own {
        cl_context context = nullptr;
        cl_command_queue queue = nullptr;
    } own[2];
    for (auto& o : own) {
        cl_int status = CL_SUCCESS;
        o.context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
        ASSERT_EQ(status, CL_SUCCESS);
        o.queue = clCreateCommandQueue(o.context, device, 0, &status);
        ASSERT_EQ(status, CL_SUCCESS);
    }
    ConvShapes s;
    s.N = 2, s.C = 6, s.H = 10, s.W = 9, s.K = 9, s.R = 3, s.S = 3, s.bias = true;
    s.set_padding(1, 1, 0, 2);
    const Kernel kernels[] = {Kernel::CONV2D_NAIVE, Kernel::IM2COL, Kernel::CONV2D_WINOGRAD};
    std::atomic<int> wrong{0}, checked{0};
    std::vector<std::string> errors(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            try {
                auto ctx = Context::wrap(own[t].context, device, own[t].queue);
                for (int round = 0; round < 4; ++round) {
                    for (const Kernel kernel : kernels) {
                        const std::uint64_t seed = 1000 * t + 10 * round + static_cast<std::uint64_t>(kernel);
                        const auto x_host = test::random_uniform(static_cast<std::size_t>(s.input_numel()), seed);
                        const auto w_host = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), seed + 1);
                        const auto b_host = test::random_uniform(static_cast<std::size_t>(s.K), seed + 2);
                        Conv2dOptions o = Conv2dOptions::for_shapes(s);
                        o.strategy = kernel;
                        Conv2d conv(ctx, o);
                        conv.set_weights(w_host, b_host);
                        const Tensor x = Tensor::from_host(ctx, x_host, {s.N, s.C, s.H, s.W});
                        Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
                        cl::Event done = y.fill(std::numeric_limits<float>::quiet_NaN());
                        done = conv.forward(x, y, {done});
                        const auto result = test::compare(y.to_host({done}), reference_conv(s, x_host, w_host, b_host));
                        if (result.non_finite != 0 || result.max_abs_error > conv_tolerance(s, 16.0)) ++wrong;
                        ++checked;
                    }
                }
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (auto& o : own) {
        clReleaseCommandQueue(o.queue);
        clReleaseContext(o.context);
    }
    for (int t = 0; t < 2; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
    EXPECT_EQ(checked.load(), 24);
    EXPECT_EQ(wrong.load(), 0);
}

// Two threads share one wrapped out-of-order queue, each with its own
// im2col-clblast layer. CLBlast takes no wait list, so netcl orders its GEMM
// behind a barrier; PoCL 3.1 orders a command after the queue's latest
// barrier only, and without netcl's lock the other thread's barrier landing
// between ours and the GEMM let the GEMM run before its columns were written
// (the soak caught one NaN in CI). Thread 0's forwards are held back by a
// user event until each batch is enqueued, so a GEMM that runs early reads
// the previous batch's columns (the other input) or NaN; thread 1 runs
// freely, enqueueing barriers all the time.
TEST(ReliabilityThreads, OutOfOrderQueueSharedByThreadsOrdersClblastAfterItsColumns) {
    auto own = Context::create();
    cl_int status = CL_SUCCESS;
    cl::CommandQueue ooo(own->cl_context(), own->device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    auto ctx = Context::wrap(own->cl_context()(), own->device()(), ooo());
    ConvShapes s;
    s.N = 1, s.C = 8, s.H = 12, s.W = 12, s.K = 16, s.R = 3, s.S = 3, s.groups = 4, s.bias = false;
    s.set_padding(1);
    // Groups: each group's GEMM is a barrier and a CLBlast call, four chances
    // a forward. Without netcl's lock, 150 rounds (1.4 s) saw 1-8 wrong
    // forwards in each of 6 runs. ThreadSanitizer's build looks for data
    // races and runs fewer.
#if defined(__SANITIZE_THREAD__)
    constexpr int kBatch = 8, kRounds = 40;
#else
    constexpr int kBatch = 8, kRounds = 250;
#endif
    std::atomic<bool> held_done{false};
    std::atomic<int> wrong{0}, checked{0};
    std::vector<std::string> errors(2);
    const auto run = [&](int t) {
        Conv2dOptions o = Conv2dOptions::for_shapes(s);
        o.strategy = Kernel::IM2COL;
        o.variant = Variant("im2col-clblast");
        Conv2d conv(ctx, o);
        const auto w = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 300 + t);
        conv.set_weights(w, {});
        std::vector<float> x_host[2];
        std::vector<double> expected[2];
        Tensor x[2];
        for (int i = 0; i < 2; ++i) {
            x_host[i] = test::random_uniform(static_cast<std::size_t>(s.input_numel()), 310 + 2 * t + i);
            expected[i] = reference_conv(s, x_host[i], w, {});
            x[i] = Tensor::from_host(ctx, x_host[i], {s.N, s.C, s.H, s.W});
        }
        std::vector<Tensor> y;
        for (int i = 0; i < kBatch; ++i) y.push_back(Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()}));
        // Thread 1 runs until thread 0 has checked all its rounds.
        for (int round = 0; t == 0 ? round < kRounds : !held_done; ++round) {
            cl_int made = CL_SUCCESS;
            cl::UserEvent hold(ctx->cl_context(), &made);
            if (made != CL_SUCCESS) throw std::runtime_error("clCreateUserEvent failed");
            std::vector<cl::Event> done;
            try {
                for (int i = 0; i < kBatch; ++i) {
                    std::vector<cl::Event> wait{y[i].fill(std::numeric_limits<float>::quiet_NaN())};
                    if (t == 0) wait.push_back(hold);
                    done.push_back(conv.forward(x[i % 2], y[i], wait));
                }
            } catch (...) {
                hold.setStatus(-1);  // what waits on it fails instead of waiting for ever
                throw;
            }
            if (t == 0) {
                // Long enough for a GEMM ordered only behind the other thread's barrier to run.
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            hold.setStatus(CL_COMPLETE);
            for (int i = 0; i < kBatch; ++i) {
                const auto result = test::compare(y[i].to_host({done[i]}), expected[i % 2]);
                if (result.non_finite != 0 || result.max_abs_error > conv_tolerance(s, 16.0)) ++wrong;
                ++checked;
            }
        }
        if (t == 0) held_done = true;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            try {
                run(t);
            } catch (const std::exception& e) {
                errors[t] = e.what();
                held_done = true;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < 2; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
    EXPECT_GE(checked.load(), kBatch * kRounds);
    EXPECT_EQ(wrong.load(), 0) << "of " << checked.load() << " forwards";
}

}  // namespace
}  // namespace netcl
