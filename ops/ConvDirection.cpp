#include "netcl/ConvDirection.hpp"

#include "netcl/Error.hpp"

namespace netcl {

std::string to_string(ConvDirection direction) {
    switch (direction) {
        case ConvDirection::FORWARD: return "forward";
        case ConvDirection::BACKWARD_DATA: return "backward_data";
        case ConvDirection::BACKWARD_WEIGHTS: return "backward_weights";
    }
    throw Error("unknown ConvDirection value " + std::to_string(static_cast<int>(direction)) +
                "; expected FORWARD, BACKWARD_DATA or BACKWARD_WEIGHTS");
}

ConvDirection conv_direction_from_string(std::string_view name) {
    if (name == "forward" || name == "fwd") return ConvDirection::FORWARD;
    if (name == "backward_data" || name == "bwd_data") return ConvDirection::BACKWARD_DATA;
    if (name == "backward_weights" || name == "bwd_weights") return ConvDirection::BACKWARD_WEIGHTS;
    throw Error("unknown convolution direction '" + std::string(name) +
                "'; expected forward (fwd), backward_data (bwd_data) or backward_weights (bwd_weights)");
}

const std::vector<ConvDirection>& all_conv_directions() {
    static const std::vector<ConvDirection> all = {ConvDirection::FORWARD, ConvDirection::BACKWARD_DATA,
                                                   ConvDirection::BACKWARD_WEIGHTS};
    return all;
}

}  // namespace netcl
