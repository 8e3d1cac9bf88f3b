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

// The same for an operand whose type a build option names (A_TYPE=half in
// the GEMM engine, whose operands may be a layer's tensors or netcl's float32
// workspaces): LOAD_AS(T, p, i) and so on, T being float or half (or a
// macro that expands to one). Two levels, so that T is expanded before it is
// pasted.
#define NETCL_PASTE(a, b) NETCL_PASTE_(a, b)
#define NETCL_PASTE_(a, b) a##b
#define LOAD_AS(T, p, i) NETCL_PASTE(NETCL_LOAD_, T)(p, i)
#define STORE_AS(T, p, i, v) NETCL_PASTE(NETCL_STORE_, T)(p, i, v)
#define LOADN_AS(T, n, i, p) NETCL_PASTE(NETCL_LOADN_, T)(n, i, p)
#define STOREN_AS(T, n, v, i, p) NETCL_PASTE(NETCL_STOREN_, T)(n, v, i, p)
#define NETCL_LOAD_float(p, i) ((p)[i])
#define NETCL_STORE_float(p, i, v) ((p)[i] = (v))
#define NETCL_LOADN_float(n, i, p) NETCL_PASTE(vload, n)((i), (p))
#define NETCL_STOREN_float(n, v, i, p) NETCL_PASTE(vstore, n)((v), (i), (p))
#define NETCL_LOAD_half(p, i) vload_half((i), (p))
#define NETCL_STORE_half(p, i, v) vstore_half((v), (i), (p))
#define NETCL_LOADN_half(n, i, p) NETCL_PASTE(vload_half, n)((i), (p))
#define NETCL_STOREN_half(n, v, i, p) NETCL_PASTE(vstore_half, n)((v), (i), (p))

// The layer's own type, STORAGE_HALF or not.
#ifdef STORAGE_HALF
#define STORAGE half
#else
#define STORAGE float
#endif
#define LOAD(p, i) LOAD_AS(STORAGE, p, i)
#define STORE(p, i, v) STORE_AS(STORAGE, p, i, v)
#define LOADN(n, i, p) LOADN_AS(STORAGE, n, i, p)
#define STOREN(n, v, i, p) STOREN_AS(STORAGE, n, v, i, p)

#endif  // NETCL_STORAGE_CL
