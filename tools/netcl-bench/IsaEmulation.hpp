#pragma once
// --isa avx2: netcl and oneDNN timed as on an AVX2 CPU, on an AVX-512 one.
// Machines differ from session to session, and the AVX2 class (its profile
// pocl-cpu, with pocl-cpu-intel on Intel, its float8 tiles, oneDNN's avx2
// kernels) must stay fast where
// only an AVX-512 machine is at hand. PoCL generates code for the CPU that
// POCL_LLVM_CPU_NAME names, but only with its kernel library of the same
// class (POCL_KERNELLIB_NAME): with the CPU name alone the device kept the
// name pthread-skylake-avx512 and its kernels kept zmm registers (PoCL 3.1,
// an Intel Xeon, the disassembly of its cached probe kernel); with both it is
// pthread-haswell and has none. oneDNN stops at ONEDNN_MAX_CPU_ISA (3.2 and
// 2.6.3 alike). PoCL reads its variables at its first initialisation and
// oneDNN at its first primitive, so this runs before either; the run then
// checks that both took it. What it cannot change: the core's caches,
// clocks and memory system stay the host's, so its figures are the AVX2
// path of this machine, not of an AVX2 machine; the report says so.
#include <string>
#include <utility>
#include <vector>

namespace netcl::bench {

struct IsaEmulation {
    std::string isa;  // "" = the host's own (nothing set); "avx2"
    std::vector<std::pair<std::string, std::string>> environment;  // what was set, in order
    bool active() const { return !isa.empty(); }
    std::string text() const;  // "avx2 on this host's cores (POCL_LLVM_CPU_NAME=haswell, ...)"
};

// Sets the environment for `isa` ("native" or "avx2"). A UsageError for any
// other name, or where the user's environment already sets one of the
// variables to something else (the run would not be what it says).
IsaEmulation emulate_isa(const std::string& isa);

// A netcl::Error where the device did not take the emulation: not PoCL's CPU
// device, or its name does not carry the target (PoCL was initialised
// before, or ignored the variables); or oneDNN's effective ISA (onednn_isa,
// "" where oneDNN is not built in) is another.
void check_isa_emulation(const IsaEmulation& emulation, const std::string& platform_name,
                         const std::string& device_name, const std::string& onednn_isa);

}  // namespace netcl::bench
