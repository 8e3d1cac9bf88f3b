#include "tests/support/TestData.hpp"

#include "ops/Implementations.hpp"
#include "selector/ProfileStore.hpp"
#include "selector/internal/ProfileJson.hpp"

#include <cmath>
#include <fstream>

namespace netcl::test {

// Every profile key that turns an implementation or one of its variants on:
// what a profile's <name>_enabled = 0 turns off (tools/gpu/README.md: on the
// H200 the suites that forced such a variant got the strict override's
// refusal): each implementation's own key and the variants' among its keys
// (im2col_gemm_enabled). On the CPU profiles nothing is off: no change there.
void enable_every_implementation(DeviceProfile& profile) {
    const std::string suffix = "_enabled";
    for (const ConvImplementation* impl : conv_implementations()) {
        profile.tuned[impl->enabled_key()] = 1;
        for (const std::string& key : impl->profile_keys()) {
            if (key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
                profile.tuned[key] = 1;
            }
        }
    }
}

std::shared_ptr<Context> with_every_implementation(std::shared_ptr<Context> context) {
    // A context's own tuned values win over the stored profiles' (the shipped
    // ones and the user's), so this reaches every plan made on it.
    DeviceProfile profile = context->profile();
    enable_every_implementation(profile);
    context->set_profile(profile);
    return context;
}

std::shared_ptr<Context> shared_context() {
    static const std::shared_ptr<Context> context = with_every_implementation(Context::create());
    return context;
}

std::shared_ptr<Context> context_with_profile(const std::function<void(DeviceProfile&)>& edit) {
    auto context = Context::create();
    DeviceProfile profile = context->profile();
    enable_every_implementation(profile);
    if (edit) edit(profile);
    context->set_profile(profile);
    return context;
}

std::shared_ptr<Context> context_planned_as_avx2(const std::function<void(DeviceProfile&)>& edit) {
    return context_with_profile([&](DeviceProfile& p) {
        for (auto at = p.name.find("avx512"); at != std::string::npos; at = p.name.find("avx512")) {
            p.name.replace(at, 6, "avx2");
        }
        p.vendor = "AuthenticAMD";  // pocl-cpu.json alone, as on Zen 3: not pocl-cpu-intel.json over it
        if (edit) edit(p);
    });
}

std::map<std::string, double> nvidia_tuned() {
    std::map<std::string, double> tuned = load_profile("default").tuned;
    for (const auto& [key, value] : load_profile("nvidia-gpu").tuned) tuned[key] = value;
    return tuned;
}

std::filesystem::path write_every_implementation_profile(const std::filesystem::path& dir, const DeviceProfile& device) {
    ProfileData data;
    data.match = {{"name", device.name}, {"driver", device.driver_version}};
    data.device = device;
    data.device.tuned.clear();
    enable_every_implementation(data.device);
    std::filesystem::create_directories(dir);
    const std::filesystem::path path = dir / user_profile_path(device).filename();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << detail::serialize_profile(data);
    if (!out.flush()) throw Error("cannot write the every-implementation profile " + path.string());
    ProfileStore::global().invalidate();
    return path;
}

Comparison compare(const std::vector<float>& actual, const std::vector<double>& expected) {
    Comparison result;
    if (actual.size() != expected.size()) {
        result.max_abs_error = INFINITY;
        return result;
    }
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (!std::isfinite(actual[i])) {
            if (std::isfinite(expected[i])) ++result.non_finite;
            continue;
        }
        const double error = std::abs(static_cast<double>(actual[i]) - expected[i]);
        if (error > result.max_abs_error) {
            result.max_abs_error = error;
            result.worst_index = i;
        }
    }
    if (result.non_finite) result.max_abs_error = INFINITY;
    return result;
}

}  // namespace netcl::test
