// Runs the deliberately faulty kernels of seeded_faults.cl through netcl's own
// runtime (Context, ProgramCache, Tensor). Under oclgrind each launch must be
// reported; CTest's oclgrind_catches_seeded_faults checks that check.sh finds
// all four faults, made before a second context is created. Run without
// oclgrind it would corrupt memory: don't.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "netcl/Context.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"
#include "netcl/Tensor.hpp"

int main() {
    try {
        if (!std::getenv("NETCL_KERNEL_DIR")) {
            std::fprintf(stderr, "seeded_faults: set NETCL_KERNEL_DIR to tests/oclgrind\n");
            return 2;
        }
        auto ctx = netcl::Context::create();
        const cl::Program program = ctx->programs().get("seeded_faults");
        const int n = 16;
        auto out = netcl::Tensor::empty(ctx, {n});

        cl::Kernel past_end(program, "write_past_end");
        past_end.setArg(0, out.buffer());
        past_end.setArg(1, n);
        NETCL_CL_CHECK(ctx->queue().enqueueNDRangeKernel(past_end, cl::NullRange, cl::NDRange(n + 1)),
                       "write_past_end");

        cl::Kernel race(program, "local_race");
        race.setArg(0, out.buffer());
        NETCL_CL_CHECK(ctx->queue().enqueueNDRangeKernel(race, cl::NullRange, cl::NDRange(n), cl::NDRange(n)),
                       "local_race");

        cl::Kernel uninitialized(program, "read_uninitialized");
        uninitialized.setArg(0, out.buffer());
        uninitialized.setArg(1, n + 100);
        NETCL_CL_CHECK(ctx->queue().enqueueNDRangeKernel(uninitialized, cl::NullRange, cl::NDRange(n), cl::NDRange(n)),
                       "read_uninitialized");
        ctx->finish();

        // A second context after the faults: oclgrind reopens its log for each
        // context, and a log that lost the reports above would fail the
        // --expect checks (check.sh reads it through a FIFO for this reason).
        auto later = netcl::Context::create();
        later->finish();

        // An API misuse whose error status is ignored: --check-api must report it.
        const cl_int ignored = clGetDeviceInfo(ctx->device()(), 0x7FFF, 0, nullptr, nullptr);
        std::printf("seeded_faults: clGetDeviceInfo(0x7FFF) returned %d\n", ignored);
        std::printf("seeded_faults: ran 3 faulty kernels and 1 bad API call on %s\n", ctx->profile().name.c_str());
        return 0;
    } catch (const netcl::Error& e) {
        std::fprintf(stderr, "seeded_faults: %s\n", e.what());
        return 1;
    }
}
