#pragma once
// The one place the Khronos C++ bindings are included, so every translation
// unit (and every consumer of the installed headers) agrees on the target
// version. OpenCL 1.2 is what NVIDIA's driver offers; PoCL offers more, but
// netcl uses nothing beyond 1.2. Bindings exceptions stay off: every call's
// status goes through NETCL_CL_CHECK, which names the operation and the error.
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/opencl.hpp>
