#pragma once
// Which pass of training a convolution problem is, as oneDNN's prop_kind
// names it. The problem's shapes are the forward layer's in every direction:
// x is N x C x H x W, w is K x C/groups x R x S, y is N x K x P x Q.
#include <string>
#include <string_view>
#include <vector>

namespace netcl {

enum class ConvDirection {
    FORWARD,           // y = conv(x, w) + b
    BACKWARD_DATA,     // dx from dy and w (dgrad)
    BACKWARD_WEIGHTS,  // dw (and db = sum of dy over N, P, Q) from x and dy (wgrad)
};

std::string to_string(ConvDirection direction);  // "forward", "backward_data", "backward_weights"
// Throws netcl::Error for an unknown name, listing the valid ones; also takes
// netcl-bench's short names "fwd", "bwd_data", "bwd_weights".
ConvDirection conv_direction_from_string(std::string_view name);
const std::vector<ConvDirection>& all_conv_directions();

}  // namespace netcl
