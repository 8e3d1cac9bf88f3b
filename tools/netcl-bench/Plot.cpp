#include "Plot.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "netcl/Error.hpp"

#ifndef NETCL_PLOT_SCRIPT
#define NETCL_PLOT_SCRIPT "tools/plot_bench.py"
#endif

namespace netcl::bench {

namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string python_with_matplotlib() {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("NETCL_PYTHON")) candidates.emplace_back(env);
    candidates.emplace_back("python3");
    candidates.emplace_back("/usr/bin/python3");
    for (const auto& python : candidates) {
        const std::string probe = quoted(python) + " -c 'import matplotlib' >/dev/null 2>&1";
        if (std::system(probe.c_str()) == 0) return python;
    }
    throw Error("--plot needs a python3 that can import matplotlib (Debian/Ubuntu: python3-matplotlib); none of "
                "$NETCL_PYTHON, python3 on PATH, /usr/bin/python3 can; set NETCL_PYTHON to one that can");
}

}  // namespace

void plot_report(const std::string& json_path, const std::string& png_path) {
    const char* env = std::getenv("NETCL_PLOT_SCRIPT");
    const std::string script = env ? env : NETCL_PLOT_SCRIPT;
    if (!std::filesystem::exists(script)) {
        throw Error("--plot: the plot script '" + script + "' does not exist (set NETCL_PLOT_SCRIPT to tools/plot_bench.py)");
    }
    const std::string command =
        quoted(python_with_matplotlib()) + " " + quoted(script) + " " + quoted(json_path) + " " + quoted(png_path);
    if (std::system(command.c_str()) != 0) throw Error("--plot: '" + command + "' failed");
}

}  // namespace netcl::bench
