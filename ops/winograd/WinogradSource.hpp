#pragma once
#include <string>

#include "WinogradMatrices.hpp"

namespace netcl {

// OpenCL C text that gives the kernels the generated matrices as compile-time
// code, prepended to kernels_cl/winograd_*.cl. It defines WINO_M, WINO_R,
// WINO_ALPHA and three one-dimensional transforms written out term by term
// (zero coefficients dropped, +-1 without a multiply):
//   WINO_BT(X, Y): Y(i) = sum_j BT[i][j] X(j), i < alpha  (input)
//   WINO_G(X, Y):  Y(i) = sum_j G[i][j]  X(j), i < alpha  (filter)
//   WINO_AT(X, Y): Y(i) = sum_j AT[i][j] X(j), i < m      (output)
// X and Y are macros naming element j / i, so one text serves rows, columns,
// scalars and vectors.
std::string winograd_cl_prelude(const WinogradMatrices& matrices);

}  // namespace netcl
