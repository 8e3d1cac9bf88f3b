#pragma once
#include <string>

namespace netcl::bench {

// Runs tools/plot_bench.py on a JSON report to write `png_path`. The script's
// path is baked in at configure time (NETCL_PLOT_SCRIPT overrides it); the
// interpreter is the first of $NETCL_PYTHON, python3 on PATH and
// /usr/bin/python3 that can import matplotlib (a pyenv python3 on PATH often
// cannot). Throws netcl::Error saying what is missing.
void plot_report(const std::string& json_path, const std::string& png_path);

}  // namespace netcl::bench
