#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace netcl {

// The convolution strategies, named exactly as frameworks and NETCL_CONV_STRATEGY spell them.
enum class Kernel { CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD };

std::string to_string(Kernel kernel);
// Throws netcl::Error for an unknown name, listing the valid ones.
Kernel kernel_from_string(std::string_view name);
const std::vector<Kernel>& all_kernels();

}  // namespace netcl
