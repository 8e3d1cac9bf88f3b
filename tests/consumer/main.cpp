// A framework's program, built against the installed package only: its own
// OpenCL context and queue (no profiling), one buffer holding x, y and the
// weights at offsets, netcl wrapped around them. Exit code 0 when the
// convolution matches a direct host sum and the library reports the version
// the headers were installed with.
#include <netcl/netcl.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    if (netcl::version() != NETCL_EXPECTED_VERSION) {
        std::printf("consumer: library version %s, installed %s\n", netcl::version().c_str(), NETCL_EXPECTED_VERSION);
        return 1;
    }
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    cl_int status = clGetPlatformIDs(1, &platform, nullptr);
    if (status == CL_SUCCESS) status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
    if (status != CL_SUCCESS) {
        std::printf("consumer: no OpenCL device (%d)\n", status);
        return 1;
    }
    cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);

    // x: 1 x 2 x 5 x 5 at float 16; weights 3 x 2 x 3 x 3 at 80; y: 1 x 3 x 5 x 5 at 160.
    const std::size_t x_at = 16, w_at = 80, y_at = 160, total = 240;
    std::vector<float> host(total, 0.0f);
    for (std::size_t i = 0; i < 50; ++i) host[x_at + i] = static_cast<float>(i % 7) - 3.0f;
    for (std::size_t i = 0; i < 54; ++i) host[w_at + i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * sizeof(float),
                                   host.data(), &status);

    int result = 0;
    {
        auto ctx = netcl::Context::wrap(context, device, queue);
        const auto x = netcl::Tensor::view(ctx, buffer, x_at * sizeof(float), {1, 2, 5, 5});
        const auto w = netcl::Tensor::view(ctx, buffer, w_at * sizeof(float), {3, 2, 3, 3});
        auto y = netcl::Tensor::view(ctx, buffer, y_at * sizeof(float), {1, 3, 5, 5});
        netcl::Conv2d conv(ctx, {.in_channels = 2, .out_channels = 3, .kernel = {3, 3}, .padding = {1, 1}, .bias = false});
        conv.set_weights(w);
        cl::Event done = conv.forward(x, y);
        const std::vector<float> out = y.to_host({done});
        double worst = 0;
        for (int k = 0; k < 3; ++k)
            for (int p = 0; p < 5; ++p)
                for (int q = 0; q < 5; ++q) {
                    double sum = 0;
                    for (int c = 0; c < 2; ++c)
                        for (int r = 0; r < 3; ++r)
                            for (int s = 0; s < 3; ++s) {
                                const int h = p + r - 1, col = q + s - 1;
                                if (h < 0 || h >= 5 || col < 0 || col >= 5) continue;
                                sum += host[x_at + (c * 5 + h) * 5 + col] * host[w_at + ((k * 2 + c) * 3 + r) * 3 + s];
                            }
                    worst = std::fmax(worst, std::fabs(sum - out[static_cast<std::size_t>((k * 5 + p) * 5 + q)]));
                }
        std::printf("consumer: netcl %s on %s, %s, max error %g\n", netcl::version().c_str(),
                    ctx->profile().name.c_str(), conv.last_plan().str().c_str(), worst);
        result = worst < 1e-4 ? 0 : 1;
    }
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return result;
}
