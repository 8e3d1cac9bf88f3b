// The register tile netcl's GEMM engine is built from (kernels_cl/gemm.cl,
// kernels_cl/conv_kvec.cl prepend it, after kernels_cl/vector_lane.cl): each
// work-item owns MR x NR outputs, NR = NV vectors of VW floats, held in
// MR * NV vector accumulators; a reduction step loads NV vectors, broadcasts
// MR scalars and issues MR * NV vector FMAs.
//
// Why this shape (measured on PoCL 3.1, 2 cores of a Zen-1 EPYC, FMA peak 80
// GFLOPS; the lab tables are in the README's speed section):
//  * PoCL runs a work-group as a loop over its work-items and does not
//    vectorise a kernel with an inner reduction loop across work-items, so
//    the SIMD comes from explicit vector types (float8 = one ymm register).
//  * MR * NV accumulators + NV vectors + 1 broadcast must fit 16 ymm
//    registers, and the loads per step (NV + MR broadcasts) must stay below
//    the FMAs: 6 x 16 (12 accumulators, 8 loads : 12 FMAs) was best overall
//    (0.94-0.99 of the per-shape best in every convolution class); 4 x 24 and
//    4 x 16 within 2-9%; 8 x 8 (9 loads : 8 FMAs, load-bound) 20-40% slower.
//  * No local memory and no barriers: on PoCL both cost (copies; a barrier
//    splits the kernel into regions that spill private state). Reuse comes
//    from a work-group's work-items running back to back on one core.
//  * On AVX-512 (32 zmm registers; measured on a 2-core Zen-5 EPYC, 512-bit
//    FMA units): float8 compiles to ymm, half the FMA width, and capped the
//    1x1 GEMMs at ~200 GFLOPS; float16 tiles of 8 x 48 / 8 x 32 (24 / 16
//    accumulators) ran them at 330-410 (res2.reduce 0.49 -> 0.22 ms). The
//    pocl-cpu-avx512 profile holds those tiles.
//
// Build options: MR, NV, VW (4, 8 or 16), BIAS (add bias[row]).

#ifndef MR
#error "the GEMM engine needs MR, NV and VW from its configuration"
#endif
#define NR (NV * VW)

#if VW == 4
typedef float4 vec_t;
typedef int4 ivec_t;
#define LANE_INDEX ((int4)(0, 1, 2, 3))
#define VLOAD vload4
#define VSTORE vstore4
#elif VW == 8
typedef float8 vec_t;
typedef int8 ivec_t;
#define LANE_INDEX ((int8)(0, 1, 2, 3, 4, 5, 6, 7))
#define VLOAD vload8
#define VSTORE vstore8
#elif VW == 16
typedef float16 vec_t;
typedef int16 ivec_t;
#define LANE_INDEX ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define VLOAD vload16
#define VSTORE vstore16
#else
#error "VW must be 4, 8 or 16"
#endif

// Lane t of a vec_t (kernels_cl/vector_lane.cl, which comes first).
#define LANE(v, t) LANE_OF(VW, v, t)
