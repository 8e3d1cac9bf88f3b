#include "ops/internal/ClblastStatus.hpp"

#include "netcl/Error.hpp"

namespace netcl::internal {

std::string clblast_status_name(clblast::StatusCode status) {
    using S = clblast::StatusCode;
    const int code = static_cast<int>(status);
    switch (status) {
#define NETCL_CLBLAST_CASE(name) \
    case S::name:                \
        return std::string("CLBlast " #name " (") + std::to_string(code) + ")";
        NETCL_CLBLAST_CASE(kNotImplemented)
        NETCL_CLBLAST_CASE(kInvalidMatrixA)
        NETCL_CLBLAST_CASE(kInvalidMatrixB)
        NETCL_CLBLAST_CASE(kInvalidMatrixC)
        NETCL_CLBLAST_CASE(kInvalidVectorX)
        NETCL_CLBLAST_CASE(kInvalidVectorY)
        NETCL_CLBLAST_CASE(kInvalidDimension)
        NETCL_CLBLAST_CASE(kInvalidLeadDimA)
        NETCL_CLBLAST_CASE(kInvalidLeadDimB)
        NETCL_CLBLAST_CASE(kInvalidLeadDimC)
        NETCL_CLBLAST_CASE(kInvalidIncrementX)
        NETCL_CLBLAST_CASE(kInvalidIncrementY)
        NETCL_CLBLAST_CASE(kInsufficientMemoryA)
        NETCL_CLBLAST_CASE(kInsufficientMemoryB)
        NETCL_CLBLAST_CASE(kInsufficientMemoryC)
        NETCL_CLBLAST_CASE(kInsufficientMemoryX)
        NETCL_CLBLAST_CASE(kInsufficientMemoryY)
        NETCL_CLBLAST_CASE(kInsufficientMemoryTemp)
        NETCL_CLBLAST_CASE(kInvalidBatchCount)
        NETCL_CLBLAST_CASE(kInvalidOverrideKernel)
        NETCL_CLBLAST_CASE(kMissingOverrideParameter)
        NETCL_CLBLAST_CASE(kInvalidLocalMemUsage)
        NETCL_CLBLAST_CASE(kNoHalfPrecision)
        NETCL_CLBLAST_CASE(kNoDoublePrecision)
        NETCL_CLBLAST_CASE(kInvalidVectorScalar)
        NETCL_CLBLAST_CASE(kInsufficientMemoryScalar)
        NETCL_CLBLAST_CASE(kDatabaseError)
        NETCL_CLBLAST_CASE(kUnknownError)
        NETCL_CLBLAST_CASE(kUnexpectedError)
#undef NETCL_CLBLAST_CASE
        default: break;
    }
    // The rest share OpenCL's codes.
    return "CLBlast " + cl_error_name(code);
}

void check_clblast(clblast::StatusCode status, const std::string& operation) {
    if (status == clblast::StatusCode::kSuccess) return;
    const int code = static_cast<int>(status);
    // CLBlast passes OpenCL's own failures on with their codes (above -1000):
    // the Error carries them, so a caller can tell an out-of-memory apart.
    if (code > -1000) throw Error(operation, code, "reported by CLBlast");
    throw Error(operation + " failed: " + clblast_status_name(status));
}

}  // namespace netcl::internal
