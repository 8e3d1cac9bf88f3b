// How a kernel reads and writes a caller's tensor (x, w, bias, y and the
// gradients): float32, or with the build option STORAGE_HALF float16 storage
// through vload_half / vstore_half. Those are core OpenCL 1.2 and need no
// cl_khr_fp16 (neither NVIDIA's driver nor PoCL here report it), and a half
// pointer may be declared without it. Arithmetic stays float32 either way;
// netcl's own intermediates (packed weights, Winograd's U, V, M, columns)
// stay float32, but F(2x2)'s U where a profile asks (winograd_gemm_half_u).
//
//   STORAGE            the element type of a tensor pointer
//   LOAD(p, i)         p[i] as a float
//   STORE(p, i, v)     p[i] = v, rounded to nearest even in half
//   LOADN(n, i, p)     vload##n(i, p) as a floatn (n = 2, 4, 8, 16)
//   STOREN(n, v, i, p) vstore##n(v, i, p) from a floatn
//   STORAGE_BITS       an unsigned integer of the element's size (moves)
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
// A lone half is converted here, in arithmetic the compiler can vectorise
// across work-items, not through vload_half/vstore_half: PoCL's scalar forms
// are library calls that kept its work-group loops scalar (the plain
// Winograd output transform in half ran at 0.67x of float32 on Zen 3; the
// widening copy one element a work-item took 16.2 against 12.9 ms in
// vectors). The vector forms stay vload_halfN/vstore_halfN (F16C on PoCL,
// a cvt instruction on NVIDIA), but 8 loaded lanes on x86 with F16C and 16 on
// AVX-512 (below).
inline float netcl_float_from_half_bits(const ushort bits) {
    const uint e = bits & 0x7fffu;
    const uint sign = (uint)(bits & 0x8000u) << 16;
    const float normal = as_float((e << 13) + 0x38000000u);  // exponent rebiased from 15 to 127
    const float subnormal = (float)e * 0x1p-24f;              // e < 0x400: e x 2^-24, exact
    const float special = as_float((e << 13) | 0x7f800000u);  // Inf and NaN keep their payload
    const float magnitude = e < 0x400u ? subnormal : e >= 0x7c00u ? special : normal;
    return as_float(as_uint(magnitude) | sign);
}
// Round to nearest even, as vstore_half: overflow to Inf, NaN to a quiet NaN.
inline ushort netcl_half_bits_from_float(const float value) {
    const uint bits = as_uint(value);
    const uint sign = (bits >> 16) & 0x8000u;
    const uint a = bits & 0x7fffffffu;
    const uint rebiased = a - 0x38000000u;  // for |value| >= 2^-14: half's exponent in bits 23 and up
    const uint normal = (rebiased + 0x0fffu + ((rebiased >> 13) & 1u)) >> 13;  // ties to even; a carry bumps the exponent
    const uint subnormal = (uint)rint(as_float(a) * 0x1p24f);  // below 2^-14: the value in units of 2^-24, ties to even
    const uint magnitude = a > 0x7f800000u ? 0x7e00u : a >= 0x477ff000u ? 0x7c00u : a >= 0x38800000u ? normal : subnormal;
    return (ushort)(sign | magnitude);
}
// The same rounding for a whole floatN, where a kernel stores lanes that are
// not neighbours in memory (the implicit GEMM's channels, the Winograd
// channel-lane output transform): the vector vstore_halfN (F16C on PoCL, one
// instruction; round to nearest even, as vstore_half) into private bits,
// then a 2-byte store a lane. On Zen 3 (PoCL 3.1) the channel-lane F(6x6)
// output transform of VGG's conv1.2 at N = 8 took 58.4 ms a run with the
// lanes rounded in integer arithmetic (as netcl_half_bits_from_float,
// vectorised), 36.9 through vstore_half8, float32's 39.9.
#define NETCL_DEFINE_HALF_BITS(N)                                              \
    inline ushort##N netcl_half_bits_from_float##N(const float##N value) {    \
        ushort bits[N];                                                        \
        vstore_half##N(value, 0, (__private half*)bits);                       \
        return vload##N(0, bits);                                              \
    }
NETCL_DEFINE_HALF_BITS(4)
NETCL_DEFINE_HALF_BITS(8)
NETCL_DEFINE_HALF_BITS(16)
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__)
// A CPU compiled by PoCL's clang: the inline arithmetic above.
#define NETCL_LOAD_half(p, i) netcl_float_from_half_bits(((__global const ushort*)(p))[i])
#define NETCL_STORE_half(p, i, v) (((__global ushort*)(p))[i] = netcl_half_bits_from_float(v))
#else
// A GPU converts a half in one instruction (NVIDIA: cvt.f32.f16 / cvt.rn.f16.f32);
// the inline arithmetic cost the direct kernel 20 bytes of spills on sm_90
// (tests/nvptx), the builtins none.
#define NETCL_LOAD_half(p, i) vload_half((i), (p))
#define NETCL_STORE_half(p, i, v) vstore_half((v), (i), (p))
#endif
#define NETCL_LOADN_half(n, i, p) NETCL_PASTE(NETCL_LOADN_half_, n)((i), (p))
#define NETCL_LOADN_half_2(i, p) vload_half2((i), (p))
#define NETCL_LOADN_half_4(i, p) vload_half4((i), (p))
#if (defined(__x86_64__) || defined(__i386__)) && defined(__F16C__) && defined(__FLT16_MAX__)
// Eight halves as one 128-bit load widened by one vcvtph2ps: PoCL 3.1's vload_half8 loads its 16 bytes as if
// aligned to 16 (vmovdqa where the load is not folded into the conversion: the 1x1 GEMM's vectors blended across
// an image's end, at any half's offset, faulted), where OpenCL asks only a half's alignment of it.
typedef _Float16 netcl_half8_bits __attribute__((ext_vector_type(8)));
#define NETCL_LOADN_half_8(i, p) \
    __builtin_convertvector(__builtin_astype(vload8((i), (__global const ushort*)(p)), netcl_half8_bits), float8)
#else
#define NETCL_LOADN_half_8(i, p) vload_half8((i), (p))
#endif
#if (defined(__x86_64__) || defined(__i386__)) && defined(__AVX512F__) && defined(__FLT16_MAX__)
// Sixteen halves as one 256-bit load widened into one zmm (vcvtph2ps zmm, m256): PoCL's vload_half16 is two
// 8-lane conversions and a vinsertf64x4 (its cached kernel's disassembly), three uops on the ports the GEMM
// engine's FMAs use where one does. __FLT16_MAX__: a clang that has _Float16 on this target (15 and later on
// any x86 with SSE2; 14 only with AVX512-FP16); without it vload_half16 stays. The 1x1 GEMM's half layers on 2 cores of an Intel Xeon went from
// 0.77-0.82x to 0.94-1.00x of float32 (tools/netcl-bench/SPEED-FP16.md).
typedef _Float16 netcl_half16_bits __attribute__((ext_vector_type(16)));
#define NETCL_LOADN_half_16(i, p) \
    __builtin_convertvector(__builtin_astype(vload16((i), (__global const ushort*)(p)), netcl_half16_bits), float16)
#else
#define NETCL_LOADN_half_16(i, p) vload_half16((i), (p))
#endif
#define NETCL_STOREN_half(n, v, i, p) NETCL_PASTE(vstore_half, n)((v), (i), (p))

// The layer's own type, STORAGE_HALF or not; STORAGE_BITS, its element as
// bits of the same size, for a kernel that moves elements unchanged (a half
// moved as its 16 bits, not widened and rounded back: the stride phases'
// scatter into dx took 5.4 ms a phase in half against 2.5 in float32 on
// ResNet's strided layers at N = 8, Zen 3). Zero bits are +0 in both types.
#ifdef STORAGE_HALF
#define STORAGE half
#define STORAGE_BITS ushort
#else
#define STORAGE float
#define STORAGE_BITS uint
#endif
#define LOAD(p, i) LOAD_AS(STORAGE, p, i)
#define STORE(p, i, v) STORE_AS(STORAGE, p, i, v)
#define LOADN(n, i, p) LOADN_AS(STORAGE, n, i, p)
#define STOREN(n, v, i, p) STOREN_AS(STORAGE, n, v, i, p)

// STOREN_STREAM(n, v, i, p), STOREN_STREAM_AS(T, n, v, i, p): STOREN, but
// with the build option STREAM_OUTPUT a float vector whose address is
// aligned to its size is stored non-temporally, past the caches, and not
// read for ownership first. For an output many times the caches' size that
// no one reads before it leaves them: on 2 cores of an Intel Xeon (family 6
// model 207) 103 MB of zmm stores took 7.9-9.3 ms plain and 2.9-3.5 ms
// non-temporal, and VGG's conv1.1 at N = 8 (its 103 MB output) through the
// direct rows went from 0.55-0.62x to 0.79-0.83x of oneDNN. Half stores and
// unaligned vectors stay plain STOREN (the configurations ask for it only
// for float32 outputs); a compiler other than clang (no
// __builtin_nontemporal_store) ignores the option. Never with POST_SUM: that
// reads the output first, so its lines are in the caches anyway. No sfence
// after them: the stores are weakly ordered, but a command's completion in
// PoCL's pthread driver takes a mutex (a locked instruction, which drains
// the write-combining buffers) before anything can read the output.
#if defined(STREAM_OUTPUT) && defined(POST_SUM)
#error "STREAM_OUTPUT with POST_SUM: the sum reads the output, whose lines are then cached anyway"
#endif
#if defined(STREAM_OUTPUT) && defined(__clang__)
#define NETCL_STOREN_STREAM_float(n, v, i, p)                                               \
    do {                                                                                    \
        const NETCL_PASTE(float, n) netcl_value = (v);                                      \
        __global float* const netcl_at = (p) + (size_t)(i) * (n);                           \
        if (((size_t)netcl_at & (sizeof(NETCL_PASTE(float, n)) - 1)) == 0)                  \
            __builtin_nontemporal_store(netcl_value, (__global NETCL_PASTE(float, n)*)netcl_at); \
        else                                                                                \
            NETCL_PASTE(vstore, n)(netcl_value, 0, netcl_at);                               \
    } while (0)
#else
#define NETCL_STOREN_STREAM_float(n, v, i, p) NETCL_STOREN_float(n, v, i, p)
#endif
#define NETCL_STOREN_STREAM_half(n, v, i, p) NETCL_STOREN_half(n, v, i, p)
#define STOREN_STREAM_AS(T, n, v, i, p) NETCL_PASTE(NETCL_STOREN_STREAM_, T)(n, v, i, p)
#define STOREN_STREAM(n, v, i, p) STOREN_STREAM_AS(STORAGE, n, v, i, p)

#endif  // NETCL_STORAGE_CL
