#include "ops/internal/OutputStage.hpp"

#include <sstream>

#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl::internal {

namespace {
// A float as an OpenCL C literal that is exactly it (hexadecimal: no
// decimal rounding between the caller's value and the kernel's).
std::string literal(float v) {
    std::ostringstream out;
    out << std::hexfloat << static_cast<double>(v) << "f";
    return out.str();
}
}  // namespace

std::string post_ops_options(const PostOps& post_ops) {
    std::string options;
    switch (post_ops.activation) {
        case Activation::NONE: break;
        case Activation::RELU: options += " -DPOST_ACT=1"; break;
        case Activation::CLAMP:
            options += " -DPOST_ACT=2 -DPOST_LO=" + literal(post_ops.lower) + " -DPOST_HI=" + literal(post_ops.upper);
            break;
        case Activation::LEAKY_RELU: options += " -DPOST_ACT=3 -DPOST_ALPHA=" + literal(post_ops.alpha); break;
    }
    if (post_ops.sum) options += " -DPOST_SUM";
    return options;
}

bool stream_output(const DeviceProfile& profile, std::size_t launch_output_bytes, const PostOps& post_ops,
                   DataType type) {
    // A CPU's build option: the non-temporal store is clang's builtin, and a GPU's caches are another matter.
    const double min_bytes = profile.tuned_or("stream_output_min_bytes", 0.0);
    return profile.type == DeviceType::CPU && min_bytes > 0 &&
           static_cast<double>(launch_output_bytes) >= min_bytes && !post_ops.sum && type == DataType::FLOAT32;
}

// Storage first: every kernel that writes an output also reads a tensor.
std::string post_ops_source() { return storage_source() + embedded_source("post_ops"); }

}  // namespace netcl::internal
