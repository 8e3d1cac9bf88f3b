#include "IsaEmulation.hpp"

#include <cstdlib>

#include "FmaPeak.hpp"
#include "UsageError.hpp"
#include "netcl/Error.hpp"
#include "runtime/internal/Text.hpp"

namespace netcl::bench {

namespace {

// The LLVM CPU that PoCL's AVX2 kernel library is built for, and the name
// PoCL then gives the device.
constexpr const char* kAvx2Cpu = "haswell";

}  // namespace

std::string IsaEmulation::text() const {
    if (!active()) return "the host's own";
    std::string settings;
    for (const auto& [name, value] : environment) settings += (settings.empty() ? "" : ", ") + name + "=" + value;
    return isa + " on this host's cores (" + settings + ")";
}

IsaEmulation emulate_isa(const std::string& isa) {
    if (isa == "native") return {};
    if (isa != "avx2") throw UsageError("--isa " + isa + ": expected native or avx2");
    if (!host_has_avx2_fma()) {
        throw UsageError("--isa avx2: this host's CPU has no AVX2 + FMA, so code for it would not run here");
    }
    IsaEmulation emulation{isa,
                           {{"POCL_LLVM_CPU_NAME", kAvx2Cpu},
                            {"POCL_KERNELLIB_NAME", "avx2"},
                            {"ONEDNN_MAX_CPU_ISA", "AVX2"}}};
    for (const auto& [name, value] : emulation.environment) {
        const char* set = std::getenv(name.c_str());
        // A user's setting that differs only in case is the same request (oneDNN upper-cases what it reads;
        // this run sets its own spelling over it anyway).
        if (set && internal::lowercase(set) != internal::lowercase(value)) {
            throw UsageError("--isa avx2 sets " + name + "=" + value + ", but the environment already has " + name +
                             "=" + set + ": unset it, or leave out --isa");
        }
    }
    for (const auto& [name, value] : emulation.environment) setenv(name.c_str(), value.c_str(), 1);
    return emulation;
}

void check_isa_emulation(const IsaEmulation& emulation, const std::string& platform_name,
                         const std::string& device_name, const std::string& onednn_isa) {
    if (!emulation.active()) return;
    if (!onednn_isa.empty() && onednn_isa != emulation.isa) {
        throw Error("--isa " + emulation.isa + ": oneDNN runs at " + onednn_isa +
                    " (it reads ONEDNN_MAX_CPU_ISA once, at its first use; expected " + emulation.isa + ")");
    }
    if (platform_name.find("Portable Computing Language") == std::string::npos) {
        throw Error("--isa " + emulation.isa + " emulates an ISA on PoCL's CPU device, but the device is '" +
                    device_name + "' on '" + platform_name + "' (choose PoCL with --device or NETCL_DEVICE)");
    }
    if (device_name.find(std::string("-") + kAvx2Cpu + "-") == std::string::npos) {
        throw Error("--isa " + emulation.isa + ": PoCL did not take the " + kAvx2Cpu + " target (its device is '" +
                    device_name + "'; expected 'pthread-" + kAvx2Cpu +
                    "-...'). PoCL reads POCL_LLVM_CPU_NAME and POCL_KERNELLIB_NAME once, at its first initialisation, "
                    "and needs its avx2 kernel library (kernel-<triple>-avx2.bc)");
    }
}

}  // namespace netcl::bench
