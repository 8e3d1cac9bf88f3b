#pragma once
#include <string>

#include "WinogradMatrices.hpp"

namespace netcl {

// OpenCL C text that gives the kernels the generated matrices as compile-time
// code, prepended to kernels_cl/winograd_*.cl. It defines WINO_M, WINO_R,
// WINO_ALPHA (products a dimension), WINO_TILE (m + r - 1 inputs a
// dimension; WINO_ALPHA too unless the tile has quadratic factors) and
// three one-dimensional transforms written out term by term (zero
// coefficients dropped, +-1 without a multiply, the rows or columns of the
// points p and -p sharing their sums: WinogradSource.cpp says how):
//   WINO_BT(X, Y): Y(i) = sum_j BT[i][j] X(j), i < alpha, j < tile  (input)
//   WINO_G(X, Y):  Y(i) = sum_j G[i][j]  X(j), i < alpha  (filter)
//   WINO_AT(X, Y): Y(i) = sum_j AT[i][j] X(j), i < m      (output)
// X and Y are macros naming element j / i, so one text serves rows, columns,
// scalars and vectors.
std::string winograd_cl_prelude(const WinogradMatrices& matrices);

// For kernels_cl/winograd_gemm_rows.cl: the shuffles between a tile row's
// floats and vectors whose lane l is tile l (TL = `lanes` tiles of m
// outputs, alpha inputs each), written out as swizzles so that the compiler
// emits register permutes (a private-array gather compiled to one insert
// per element and was no faster than PoCL's gathers):
//   WINO_DEAL(S, D):   D[j] lane l = float l*m + j of the input span held in
//                      S[0 .. ceil((lanes*m + alpha - m) / lanes)), j < alpha
//   WINO_UNDEAL(O, S): S[q] = floats 16q .. of the output span whose float
//                      l*m + j is O[j] lane l, q < m
std::string winograd_row_lanes_prelude(int m, int alpha, int lanes);

}  // namespace netcl
