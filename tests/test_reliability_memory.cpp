// 1000 forward calls on one Conv2d leave device and host memory flat.
//
// Device memory: this executable defines clCreateBuffer, clCreateSubBuffer,
// clRetainMemObject and clReleaseMemObject, which the dynamic linker binds
// ahead of libOpenCL's for libnetcl and libclblast too; each forwards to the
// real one (dlsym RTLD_NEXT) and keeps the reference count and size of every
// live cl_mem. A leaked Tensor, workspace or CLBlast temporary shows up as a
// live object (and bytes) that was not there after the warm-up.
// Host memory: the resident set (/proc/self/statm) after the warm-up and
// after the 1000 calls, with a margin for allocator noise (kHostMarginBytes).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>

#include "ops/Conv2d.hpp"
#include "ops/ReferenceConv.hpp"
#include "runtime/OpenCL.hpp"
#include "tests/support/TestData.hpp"

namespace {

struct LiveBuffers {
    std::mutex mutex;
    std::map<cl_mem, std::pair<cl_uint, std::size_t>> objects;  // refcount, bytes
};
LiveBuffers& live() {
    static LiveBuffers* instance = new LiveBuffers;  // never destroyed: calls may come during exit
    return *instance;
}

template <typename F>
F real(const char* name) {
    return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

void track_new(cl_mem mem, std::size_t bytes) {
    if (mem == nullptr) return;
    std::lock_guard lock(live().mutex);
    live().objects[mem] = {1, bytes};
}

}  // namespace

extern "C" {

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr, cl_int* errcode_ret) {
    static const auto next = real<cl_mem (*)(cl_context, cl_mem_flags, size_t, void*, cl_int*)>("clCreateBuffer");
    cl_mem mem = next(context, flags, size, host_ptr, errcode_ret);
    track_new(mem, size);
    return mem;
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void* info,
                         cl_int* errcode_ret) {
    static const auto next =
        real<cl_mem (*)(cl_mem, cl_mem_flags, cl_buffer_create_type, const void*, cl_int*)>("clCreateSubBuffer");
    cl_mem mem = next(buffer, flags, type, info, errcode_ret);
    track_new(mem, 0);  // a view: its bytes belong to the parent
    return mem;
}

cl_int clRetainMemObject(cl_mem mem) {
    static const auto next = real<cl_int (*)(cl_mem)>("clRetainMemObject");
    const cl_int status = next(mem);
    if (status == CL_SUCCESS) {
        std::lock_guard lock(live().mutex);
        if (auto it = live().objects.find(mem); it != live().objects.end()) ++it->second.first;
    }
    return status;
}

cl_int clReleaseMemObject(cl_mem mem) {
    static const auto next = real<cl_int (*)(cl_mem)>("clReleaseMemObject");
    {
        std::lock_guard lock(live().mutex);
        if (auto it = live().objects.find(mem); it != live().objects.end() && --it->second.first == 0) {
            live().objects.erase(it);
        }
    }
    return next(mem);
}

}  // extern "C"

namespace netcl {
namespace {

struct DeviceUse {
    std::size_t objects = 0;
    std::size_t bytes = 0;
};
DeviceUse device_use() {
    std::lock_guard lock(live().mutex);
    DeviceUse use;
    for (const auto& [mem, entry] : live().objects) {
        ++use.objects;
        use.bytes += entry.second;
    }
    return use;
}

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

constexpr int kWarmUp = 50;
constexpr int kCalls = 1000;
// Allocator and driver noise allowed over 1000 calls: 4 MiB, i.e. under 4.2 KB
// per call, far below what one leaked output (here 2x8x12x12 floats = 9 KiB
// plus its driver bookkeeping) per call would add (> 9 MiB).
constexpr std::size_t kHostMarginBytes = 4u << 20;
// Under AddressSanitizer freed blocks wait in its quarantine (256 MiB by
// default), so the resident set grows by design and says nothing; there
// LeakSanitizer checks host leaks instead, and the device counts still hold.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kResidentSetIsMeaningful = false;
#else
constexpr bool kResidentSetIsMeaningful = true;
#endif

void expect_flat(Kernel kernel, std::optional<Variant> variant) {
    auto ctx = test::shared_context();
    ConvShapes s;
    s.N = 2, s.C = 3, s.H = 12, s.W = 12, s.K = 8, s.R = 3, s.S = 3, s.pad_h = s.pad_w = 1, s.bias = true;
    Conv2dOptions o;
    o.in_channels = s.C;
    o.out_channels = s.K;
    o.padding = {1, 1};
    o.strategy = kernel;
    o.variant = variant;
    Conv2d conv(ctx, o);
    const auto x_host = test::random_uniform(static_cast<std::size_t>(s.input_numel()), 11);
    const auto w_host = test::random_uniform(static_cast<std::size_t>(s.weight_numel()), 12);
    const auto b_host = test::random_uniform(static_cast<std::size_t>(s.K), 13);
    conv.set_weights(w_host, b_host);
    const Tensor x = Tensor::from_host(ctx, x_host, {s.N, s.C, s.H, s.W});

    Tensor y;
    for (int i = 0; i < kWarmUp; ++i) y = conv(x);
    ctx->finish();
    y = Tensor{};
    const DeviceUse device_before = device_use();
    const std::size_t host_before = resident_bytes();

    for (int i = 0; i < kCalls; ++i) {
        y = conv(x);
        if (i % 100 == 99) ctx->finish();
    }
    const auto result = test::compare(y.to_host(), reference_conv(s, x_host, w_host, b_host));
    y = Tensor{};
    ctx->finish();
    const DeviceUse device_after = device_use();
    const std::size_t host_after = resident_bytes();

    const std::string name = conv.last_plan().str();
    std::printf("%s: live cl_mem %zu objects / %zu bytes before, %zu / %zu after %d calls; "
                "host RSS %.2f MiB before, %.2f MiB after (%+.1f KiB)\n",
                name.c_str(), device_before.objects, device_before.bytes, device_after.objects, device_after.bytes,
                kCalls, host_before / 1048576.0, host_after / 1048576.0,
                (static_cast<double>(host_after) - static_cast<double>(host_before)) / 1024.0);
    EXPECT_GT(device_before.objects, 0u) << "the cl_mem interposer saw no buffers: it is not in effect";
    EXPECT_EQ(device_after.objects, device_before.objects) << name;
    EXPECT_EQ(device_after.bytes, device_before.bytes) << name;
    if (kResidentSetIsMeaningful) EXPECT_LE(host_after, host_before + kHostMarginBytes) << name;
    EXPECT_EQ(result.non_finite, 0u) << name;
    EXPECT_LE(result.max_abs_error, conv_tolerance(s, 16.0)) << name;
}

TEST(ReliabilityMemory, NaiveForwardLoopIsFlat) { expect_flat(Kernel::CONV2D_NAIVE, std::nullopt); }
TEST(ReliabilityMemory, Im2colForwardLoopIsFlat) { expect_flat(Kernel::IM2COL, std::nullopt); }
TEST(ReliabilityMemory, WinogradF2ForwardLoopIsFlat) {
    expect_flat(Kernel::CONV2D_WINOGRAD, Variant{2, false, true});
}
TEST(ReliabilityMemory, WinogradF4LowLocalForwardLoopIsFlat) {
    expect_flat(Kernel::CONV2D_WINOGRAD, Variant{4, true, false});
}

// The interposer itself: a Tensor made and dropped is one object up, then down.
TEST(ReliabilityMemory, InterposerCountsTensors) {
    auto ctx = test::shared_context();
    const DeviceUse before = device_use();
    {
        Tensor t = Tensor::empty(ctx, {1000});
        Tensor copy = t;  // shares the buffer: a retain, not a new object
        const DeviceUse during = device_use();
        EXPECT_EQ(during.objects, before.objects + 1);
        EXPECT_EQ(during.bytes, before.bytes + 4000);
    }
    const DeviceUse after = device_use();
    EXPECT_EQ(after.objects, before.objects);
    EXPECT_EQ(after.bytes, before.bytes);
}

}  // namespace
}  // namespace netcl
