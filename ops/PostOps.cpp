#include "netcl/PostOps.hpp"

#include <cmath>
#include <sstream>

#include "netcl/Error.hpp"

namespace netcl {

namespace {
// Shortest text that reads back as the same float (tuned records and
// explain() show it; it is part of the problem's key).
std::string number(float v) {
    std::ostringstream out;
    out.precision(9);
    out << v;
    return out.str();
}
}  // namespace

std::string to_string(Activation activation) {
    switch (activation) {
        case Activation::NONE: return "none";
        case Activation::RELU: return "relu";
        case Activation::CLAMP: return "clamp";
        case Activation::LEAKY_RELU: return "leaky_relu";
    }
    throw Error("unknown activation " + std::to_string(static_cast<int>(activation)) +
                "; expected NONE, RELU, CLAMP or LEAKY_RELU");
}

std::string PostOps::str() const {
    std::string text = sum ? "sum" : "";
    std::string act;
    switch (activation) {
        case Activation::NONE: break;
        case Activation::RELU: act = "relu"; break;
        case Activation::CLAMP: act = "clamp(" + number(lower) + "," + number(upper) + ")"; break;
        case Activation::LEAKY_RELU: act = "leaky_relu(" + number(alpha) + ")"; break;
    }
    if (!act.empty()) text += (text.empty() ? "" : "+") + act;
    return text;
}

void PostOps::validate() const {
    to_string(activation);  // throws for a value outside the enum
    if (activation == Activation::CLAMP &&
        !(std::isfinite(lower) && std::isfinite(upper) && lower <= upper)) {
        throw Error("clamp post-op bounds [" + number(lower) + ", " + number(upper) +
                    "]; expected finite lower <= upper");
    }
    if (activation == Activation::LEAKY_RELU && !std::isfinite(alpha)) {
        throw Error("leaky_relu post-op slope " + number(alpha) + "; expected a finite number");
    }
}

}  // namespace netcl
