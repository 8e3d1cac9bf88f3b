#include "runtime/EmbeddedSources.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "netcl/Error.hpp"
#include "runtime/Log.hpp"

namespace netcl::detail {
// Defined in the source that kernels_cl/embed.cmake generates.
struct EmbeddedFile {
    const char* name;
    const char* text;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;
}  // namespace netcl::detail

namespace netcl {

std::vector<std::string> embedded_source_names() {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) names.emplace_back(detail::kEmbeddedFiles[i].name);
    return names;
}

std::string embedded_source(const std::string& name) {
    if (const char* dir = std::getenv("NETCL_KERNEL_DIR"); dir && *dir) {
        const auto path = std::filesystem::path(dir) / (name + ".cl");
        if (std::ifstream file{path}) {
            log().info("kernel source '{}' read from {} (NETCL_KERNEL_DIR)", name, path.string());
            std::ostringstream text;
            text << file.rdbuf();
            return text.str();
        }
    }
    for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
        if (name == detail::kEmbeddedFiles[i].name) return detail::kEmbeddedFiles[i].text;
    }
    std::string known;
    for (const auto& n : embedded_source_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("no embedded kernel source named '" + name + "'; the embedded sources are: " + known);
}

}  // namespace netcl
