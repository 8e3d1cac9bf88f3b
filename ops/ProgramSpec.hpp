#pragma once
// Internal: an OpenCL program an implementation builds for a layer -- the
// exact source text, build options and kernels with their work-group sizes.
// The strategy builds from it, and `netcl-info --programs` writes it out so
// that a static check (tests/nvptx) compiles exactly what a device would.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace netcl {

struct KernelSpec {
    std::string name;
    std::array<std::size_t, 3> work_group{1, 1, 1};  // the local size every launch of it uses
};

struct ProgramSpec {
    std::string label;    // "winograd F(4x4,3x3)": names it in logs and errors
    std::string source;   // complete OpenCL C, generated prelude included
    std::string options;  // build options
    std::vector<KernelSpec> kernels;
};

}  // namespace netcl
