#include "OneDnnLibraries.hpp"

#include <algorithm>
#include <filesystem>

#include <dlfcn.h>

namespace netcl::bench {

namespace {

namespace fs = std::filesystem;

// The folders a plugin may be in: beside the executable (the build folder),
// and the install folder relative to an installed netcl-bench.
std::vector<fs::path> plugin_folders() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (error) return {};
    return {exe.parent_path(), exe.parent_path() / NETCL_BENCH_PLUGIN_INSTALL_DIR};
}

struct Loaded {
    std::vector<LoadedOneDnn> libraries;
    std::vector<std::string> failures;
};

const Loaded& loaded() {
    static const Loaded result = [] {
        Loaded l;
        std::vector<fs::path> files;
        for (const fs::path& folder : plugin_folders()) {
            std::error_code error;
            for (const auto& entry : fs::directory_iterator(folder, error)) {
                const std::string name = entry.path().filename().string();
                if (name.rfind("libnetcl-bench-onednn", 0) == 0 && entry.path().extension() == ".so") {
                    files.push_back(entry.path());
                }
            }
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) {
            // RTLD_LOCAL: each plugin's oneDNN resolves its own dnnl_* symbols, never another's.
            void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                l.failures.push_back(file.string() + ": " + dlerror());
                continue;
            }
            using Entry = OneDnnLibrary* (*)();
            const auto entry = reinterpret_cast<Entry>(dlsym(handle, NETCL_BENCH_ONEDNN_ENTRY_NAME));
            if (!entry) {
                l.failures.push_back(file.string() + ": no " NETCL_BENCH_ONEDNN_ENTRY_NAME
                                     " symbol (a plugin of another netcl version; rebuild or reinstall it)");
                continue;
            }
            l.libraries.push_back({entry(), "", file.string()});  // kept loaded for the process
        }
        std::stable_sort(l.libraries.begin(), l.libraries.end(), [](const LoadedOneDnn& a, const LoadedOneDnn& b) {
            return a.library->version_numbers() > b.library->version_numbers();
        });
        // One per version: the same oneDNN twice (build and install folder) would only time it twice.
        l.libraries.erase(std::unique(l.libraries.begin(), l.libraries.end(),
                                      [](const LoadedOneDnn& a, const LoadedOneDnn& b) {
                                          return a.library->version_numbers() == b.library->version_numbers();
                                      }),
                          l.libraries.end());
        for (std::size_t i = 1; i < l.libraries.size(); ++i) {
            const std::vector<int> v = l.libraries[i].library->version_numbers();
            l.libraries[i].tag = "-" + std::to_string(v.at(0)) + "." + std::to_string(v.at(1));
        }
        return l;
    }();
    return result;
}

}  // namespace

std::string to_string(OneDnnLayout layout) { return layout == OneDnnLayout::Nchw ? "nchw" : "blocked"; }

const std::vector<LoadedOneDnn>& onednn_libraries() { return loaded().libraries; }
const std::vector<std::string>& onednn_load_failures() { return loaded().failures; }

bool onednn_built_in() { return !onednn_libraries().empty(); }

std::string onednn_version() {
    std::string text;
    for (const LoadedOneDnn& l : onednn_libraries()) text += (text.empty() ? "" : ", ") + l.library->version();
    return text;
}

std::string onednn_cpu_isa() { return onednn_built_in() ? onednn_libraries().front().library->cpu_isa() : ""; }

std::optional<std::string> onednn_why_not(const ConvShapes&, const DeviceProfile& profile) {
    if (!onednn_built_in()) {
        if (!onednn_load_failures().empty()) {
            return "no oneDNN plugin would load (" + onednn_load_failures().front() + ")";
        }
        return std::string("oneDNN not built in (netcl-bench was configured without oneDNN: install libdnnl-dev, or "
                           "PyPI's onednn-cpu-gomp and onednn-devel-cpu-gomp with NETCL_ONEDNN_ROOTS naming their "
                           "prefix, and re-run cmake)");
    }
    if (profile.type != DeviceType::CPU) {
        return "oneDNN runs on the host CPU and the device is a " + netcl::to_string(profile.type) +
               ": no like-for-like peer (CLBlast's Convgemm is the OpenCL one)";
    }
    return std::nullopt;
}

}  // namespace netcl::bench
