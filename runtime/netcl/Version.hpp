#pragma once
// netcl's version, as the library that is loaded reports it (which may be
// newer than the headers a program was built with).
#include <string>

namespace netcl {

// "0.2.0": major.minor.patch. The shared library's SONAME carries the major
// and minor (libnetcl.so.0.2): a program built against one minor version
// loads no other, since 0.x makes no ABI promise between minors.
std::string version();

}  // namespace netcl
