// netcl-info: every OpenCL platform and device netcl can see, with the
// DeviceProfile it reads, the default device marked.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "runtime/Context.hpp"
#include "runtime/Error.hpp"

namespace {

std::string mib(std::uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }
std::string kib(std::uint64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }

void print_profile(const netcl::DeviceProfile& p) {
    std::printf("      vendor            %s\n", p.vendor.c_str());
    std::printf("      type              %s\n", netcl::to_string(p.type).c_str());
    std::printf("      driver            %s\n", p.driver_version.c_str());
    std::printf("      version           %s / %s\n", p.device_version.c_str(), p.opencl_c_version.c_str());
    std::printf("      compute units     %u @ %u MHz\n", p.compute_units, p.max_clock_mhz);
    std::printf("      global memory     %s (max allocation %s)\n", mib(p.global_mem_bytes).c_str(),
                mib(p.max_alloc_bytes).c_str());
    std::printf("      local memory      %s\n", kib(p.local_mem_bytes).c_str());
    std::printf("      constant buffer   %s, %u constant args\n", kib(p.max_constant_buffer_bytes).c_str(),
                p.max_constant_args);
    std::printf("      work-group        max %zu, preferred multiple %zu\n", p.max_work_group_size,
                p.preferred_work_group_multiple);
    std::printf("      fp16 / fp64       %s / %s\n", p.fp16 ? "yes" : "no", p.fp64 ? "yes" : "no");
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"netcl-info: the OpenCL devices netcl sees and their profiles"};
    CLI11_PARSE(app, argc, argv);
    try {
        const auto entries = netcl::Context::devices();
        const char* env = std::getenv("NETCL_DEVICE");
        const std::size_t chosen = netcl::Context::pick(entries, env ? env : "");
        std::size_t last_platform = static_cast<std::size_t>(-1);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const auto& e = entries[i];
            if (e.platform_index != last_platform) {
                std::printf("platform %zu: %s\n", e.platform_index, e.profile.platform_name.c_str());
                last_platform = e.platform_index;
            }
            // The preferred work-group multiple needs a context (a probe kernel).
            const auto profile = netcl::Context(e).profile();
            std::printf("  %s device %s: %s\n", i == chosen ? "*" : " ", e.id().c_str(), e.profile.name.c_str());
            print_profile(profile);
        }
        std::printf("\n* = the device netcl uses%s\n", env ? " (NETCL_DEVICE)" : " by default (first GPU, else first CPU)");
    } catch (const netcl::Error& error) {
        std::cerr << "netcl-info: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
