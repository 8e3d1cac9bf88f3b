// Uses only the installed umbrella header: a tensor round trip on the default
// device, and the exit code says whether the values came back unchanged.
#include <netcl/netcl.hpp>

#include <cstdio>
#include <vector>

int main() {
    auto ctx = netcl::Context::create();
    std::vector<float> host(2 * 3 * 5 * 7);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = 0.25f * static_cast<float>(i) - 7.0f;
    const auto tensor = netcl::Tensor::from_host(ctx, host, {2, 3, 5, 7});
    const auto back = tensor.to_host();
    if (back != host) {
        std::puts("consumer: round trip changed the data");
        return 1;
    }
    std::printf("consumer: %zu floats round-tripped on %s\n", back.size(), ctx->profile().name.c_str());
    return 0;
}
