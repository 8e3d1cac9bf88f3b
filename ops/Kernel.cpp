#include "netcl/Kernel.hpp"

#include "netcl/Error.hpp"

namespace netcl {

const std::vector<Kernel>& all_kernels() {
    static const std::vector<Kernel> kernels = {Kernel::CONV2D_NAIVE, Kernel::IM2COL, Kernel::CONV2D_WINOGRAD};
    return kernels;
}

std::string to_string(Kernel kernel) {
    switch (kernel) {
        case Kernel::CONV2D_NAIVE: return "CONV2D_NAIVE";
        case Kernel::IM2COL: return "IM2COL";
        case Kernel::CONV2D_WINOGRAD: return "CONV2D_WINOGRAD";
    }
    throw Error("unknown Kernel value " + std::to_string(static_cast<int>(kernel)));
}

Kernel kernel_from_string(std::string_view name) {
    std::string valid;
    for (const Kernel k : all_kernels()) {
        if (name == to_string(k)) return k;
        valid += (valid.empty() ? "" : ", ") + to_string(k);
    }
    throw Error("unknown convolution strategy '" + std::string(name) + "'; expected one of: " + valid);
}

}  // namespace netcl
