// How a kernel reads and writes a caller's tensor (x, w, bias, y and the
// gradients): float32, or with the build option STORAGE_HALF float16 storage
// through vload_half / vstore_half. Those are core OpenCL 1.2 and need no
// cl_khr_fp16 (neither NVIDIA's driver nor PoCL here report it), and a half
// pointer may be declared without it. Arithmetic stays float32 either way;
// netcl's own intermediates (packed weights, Winograd's U, V, M, columns)
// stay float32.
//
//   STORAGE            the element type of a tensor pointer
//   LOAD(p, i)         p[i] as a float
//   STORE(p, i, v)     p[i] = v, rounded to nearest even in half
//   LOADN(n, i, p)     vload##n(i, p) as a floatn (n = 2, 4, 8, 16)
//   STOREN(n, v, i, p) vstore##n(v, i, p) from a floatn
//
// Included by every program that touches a tensor (ops/internal/Storage), so
// the guard keeps a second copy from redefining it.
#ifndef NETCL_STORAGE_CL
#define NETCL_STORAGE_CL

// LOADN and STOREN pass through a second macro so that n may itself be a
// macro (VW): it is expanded before it is pasted.
#define LOADN(n, i, p) NETCL_LOADN(n, i, p)
#define STOREN(n, v, i, p) NETCL_STOREN(n, v, i, p)
#ifdef STORAGE_HALF
#define STORAGE half
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half((v), (i), (p))
#define NETCL_LOADN(n, i, p) vload_half##n((i), (p))
#define NETCL_STOREN(n, v, i, p) vstore_half##n((v), (i), (p))
#else
#define STORAGE float
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define NETCL_LOADN(n, i, p) vload##n((i), (p))
#define NETCL_STOREN(n, v, i, p) vstore##n((v), (i), (p))
#endif

#endif  // NETCL_STORAGE_CL
