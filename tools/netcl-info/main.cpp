// netcl-info: every OpenCL platform and device netcl can see, with the
// DeviceProfile it reads, the default device marked.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "netcl/Context.hpp"
#include "tools/ToolDevice.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "tests/support/LayerSets.hpp"
#include "selector/ProfileStore.hpp"
#include "ProgramManifest.hpp"
#include "WinogradReport.hpp"

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
    std::string explain, explain_profile, programs, winograd, direction = "fwd", dtype = "float32";
    std::vector<std::string> nets;
    app.add_option("--explain", explain,
                   "print the selector's whole decision for one shape N,C,H,W,K,R,S[,stride,pad] on this device");
    app.add_option("--direction", direction,
                   "with --explain: the direction to plan (fwd, bwd_data, bwd_weights; as netcl-bench takes it)");
    app.add_option("--dtype", dtype, "with --explain: the storage type to plan (float32, float16)");
    bool training = false;
    app.add_flag("--training", training,
                 "with --explain --direction fwd: plan the forward of a training step (new weights every run, "
                 "Conv2d::set_training) instead of inference's");
    app.add_option("--profile", explain_profile,
                   "with --explain or --programs: a stored profile (shipped name or JSON file) instead of a device");
    app.add_option("--programs", programs,
                   "write every OpenCL program netcl would build for the --net layers (float32, and float16 with "
                   "bias) on the device (or --profile) into this directory, with manifest.json (for tests/nvptx)");
    app.add_option("--net", nets, "with --programs: layer sets (vgg16, resnet50, alexnet5x5, inception5x5; repeatable)")
        ->delimiter(',');
    app.add_option("--winograd", winograd,
                   "print a Winograd tile's points, scaling, transforms and condition numbers: m,r (e.g. 4,3 or 9,5)");
    CLI11_PARSE(app, argc, argv);
    try {
        if (!winograd.empty()) {
            netcl::info::print_winograd_report(winograd);
            return 0;
        }
        if (!programs.empty()) {
            if (nets.empty()) nets = {"vgg16", "resnet50"};
            std::vector<netcl::NamedLayer> layers;
            for (const auto& net : nets) {
                for (netcl::NamedLayer layer : netcl::layer_set(net)) {
                    layers.push_back(layer);
                    layer.shapes.bias = true;  // as frameworks' layers mostly have: the bias paths too
                    layer.name += "+bias";
                    layers.push_back(layer);
                    // And in float16 storage: every kernel's half build faces the same budgets.
                    layer.shapes.dtype = netcl::DataType::FLOAT16;
                    layer.name += " float16";
                    layers.push_back(layer);
                }
            }
            std::map<std::string, double> budget;
            netcl::DeviceProfile device;
            if (explain_profile.empty()) {
                device = netcl::tools::tool_context("netcl-info")->profile();
            } else {
                const auto data = netcl::load_profile_data(explain_profile);
                device = data.device;
                budget = data.budget;
            }
            const netcl::DeviceProfile profile = netcl::KernelSelector::resolve_profile(device);
            const auto summary = netcl::info::write_program_manifest(programs, profile, layers, budget);
            std::printf("%zu programs for %zu (layer, variant) pairs over %zu layers on %s written to %s/manifest.json\n",
                        summary.programs, summary.variants, summary.layers, profile.name.c_str(), programs.c_str());
            return 0;
        }
        if (!explain.empty()) {
            netcl::ConvShapes shapes = netcl::parse_shape_spec(explain);
            shapes.dtype = netcl::data_type_from_string(dtype);
            shapes = shapes.in_direction(netcl::conv_direction_from_string(direction));
            if (training && shapes.direction != netcl::ConvDirection::FORWARD) {
                throw netcl::Error("--training plans a training forward; " + direction +
                                   " is planned for training already (backward data) or reads no weights");
            }
            shapes.training = training;
            const netcl::DeviceProfile profile =
                explain_profile.empty() ? netcl::tools::tool_context("netcl-info")->profile() : netcl::load_profile(explain_profile);
            std::printf("device: %s (%s, driver %s)\nshape:  %s\n", profile.name.c_str(),
                        netcl::to_string(profile.type).c_str(), profile.driver_version.c_str(), shapes.str().c_str());
            std::printf("%s", netcl::KernelSelector::global().explain(netcl::selector_op(shapes), shapes, profile).str().c_str());
            return 0;
        }
        const auto entries = netcl::Context::devices();
        const char* env = std::getenv("NETCL_DEVICE");
        const std::size_t chosen = netcl::tools::pick_device_or_exit("netcl-info", entries, "");
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
