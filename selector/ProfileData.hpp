#pragma once
#include <map>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Plan.hpp"

namespace netcl {

// One find-database entry: the measured winner for one shape on one device.
struct TunedRecord {
    std::string shape;  // ConvShapes::str() of the layer
    Kernel kernel = Kernel::CONV2D_NAIVE;
    Variant variant;  // empty: the record names only the strategy, and the selector picks its variant
    double median_ms = 0;  // the winner's median time when it was tuned
};

// The key records are stored under: ConvShapes::str() (bias does not change the winner).
std::string record_key(const ConvShapes& shapes);

// One profile file (shipped JSON or user cache), parsed. A profile says which
// devices it applies to (`match`), optionally the facts of such a device
// (for loading it without one), tuned values by name and per-shape records.
struct ProfileData {
    std::string source;                        // "embedded:nvidia-gpu" or a file path
    std::map<std::string, std::string> match;  // keys: vendor, platform, type, name, driver
    DeviceProfile device;                      // facts as the file gives them; tuned = the file's values
    std::map<std::string, TunedRecord> records;  // by record_key
    // Static budgets the kernels built for such a device are held to by the
    // nvptx check (tests/nvptx): min_occupancy, max_spill_bytes,
    // max_stack_bytes, max_registers, max_shared_bytes.
    std::map<std::string, double> budget;

    // 0: matches every device (default); 1: platform/type (a device class,
    // pocl-cpu); 2: vendor, without a name (one vendor's devices of a class,
    // whatever their ISA: pocl-cpu-intel over pocl-cpu; nvidia-gpu, which
    // names its vendor, so a user file matching only platform and type layers
    // under it); 3: device name
    // (pocl-cpu-avx512); 4: device name and vendor (one vendor's share of a
    // named class, pocl-cpu-avx512-intel over pocl-cpu-avx512); 5: device
    // name and driver (netcl-tune's file for one device). Higher layers over
    // lower.
    int specificity() const;
    // vendor/platform/name: case-insensitive substring; type: exact; driver: exact.
    bool matches(const DeviceProfile& device) const;
};

}  // namespace netcl
