// Backward data under a stride (ops/as_forward/BackwardDataPhases.hpp): each
// phase's forward output lands in its places in dx, rows stride_h and columns
// stride_w apart; a phase without filter taps (has_part 0) writes zeros. One
// work-item per dx element of the phase: dim 0 its column, dim 1 its row,
// dim 2 image x channel; reads run along the phase's rows. Elements move as
// their bits (kernels_cl/storage.cl's STORAGE_BITS).
__kernel void scatter_phase(__global const STORAGE* restrict part, const ulong part_offset, const int has_part,
                            const int length_h, const int length_w, const int skip_h, const int skip_w,
                            __global STORAGE* restrict dx, const ulong dx_offset, const int NC, const int H,
                            const int W, const int first_h, const int first_w, const int stride_h,
                            const int stride_w, const int rows, const int cols) {
    const int q = (int)get_global_id(0);
    const int p = (int)get_global_id(1);
    const int nc = (int)get_global_id(2);
    if (q >= cols || p >= rows || nc >= NC) return;
    __global const STORAGE_BITS* from = (__global const STORAGE_BITS*)part;
    const STORAGE_BITS v =
        has_part ? from[part_offset + ((size_t)nc * length_h + skip_h + p) * length_w + skip_w + q] : 0;
    ((__global STORAGE_BITS*)dx)[dx_offset + ((size_t)nc * H + first_h + stride_h * p) * W + first_w + stride_w * q] = v;
}

// A row phase's dx rows under stride_w 2 in one pass: its two column phases
// interleaved, dx's even columns from the phase whose first column is 0 and
// its odd ones from the other, 32 dx columns a work-item (16 of each phase,
// read as vectors and stored as two whole vectors of dx's row), where
// scatter_phase wrote each column phase's elements 2 apart in a pass of its
// own. A phase without taps reads nothing and gives zeros. ResNet-50's
// res3.3x3.stride2 backward data at N = 8 (dx 8 x 128 x 56 x 56) on 2 cores
// of an Intel Xeon (family 6 model 207), the copy's cycles under perf
// against the implicit GEMM's (netcl-bench --repeat 10, two runs each,
// millions): scattered 65, 83 / 236, 304; so 39, 50 / 246, 317. netcl /
// oneDNN 3.2 in the same runs as before 0.46-0.48x, now 0.52, 0.55x.
//
// NDRange: dim0 = ceil(W / 32), dim1 = the row phase's dx rows, dim2 = N x C.
#define BITS16 NETCL_PASTE(STORAGE_BITS, 16)
__kernel void gather_phase_pair(__global const STORAGE* restrict parts, const ulong even_offset, const int even_has,
                                const int even_length_w, const int even_skip_w, const ulong odd_offset,
                                const int odd_has, const int odd_length_w, const int odd_skip_w, const int length_h,
                                const int skip_h, __global STORAGE* restrict dx, const ulong dx_offset, const int NC,
                                const int H, const int W, const int first_h, const int stride_h, const int rows) {
    const int j0 = (int)get_global_id(0) * 16;  // the work-item's first column of each phase
    const int p = (int)get_global_id(1);
    const int nc = (int)get_global_id(2);
    if (2 * j0 >= W || p >= rows || nc >= NC) return;
    __global const STORAGE_BITS* from = (__global const STORAGE_BITS*)parts;
    __global const STORAGE_BITS* even =
        from + even_offset + ((size_t)nc * length_h + skip_h + p) * even_length_w + even_skip_w + j0;
    __global const STORAGE_BITS* odd =
        from + odd_offset + ((size_t)nc * length_h + skip_h + p) * odd_length_w + odd_skip_w + j0;
    __global STORAGE_BITS* to =
        (__global STORAGE_BITS*)dx + dx_offset + ((size_t)nc * H + first_h + stride_h * p) * W + 2 * j0;
    if (2 * j0 + 32 <= W) {
        const BITS16 e = even_has ? vload16(0, even) : (BITS16)(0);
        const BITS16 o = odd_has ? vload16(0, odd) : (BITS16)(0);
        vstore16(shuffle2(e, o, (BITS16)(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)), 0, to);
        vstore16(shuffle2(e, o, (BITS16)(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)), 1, to);
        return;
    }
    for (int t = 0; 2 * j0 + t < W; ++t) {
        const int j = t / 2;
        to[t] = t % 2 == 0 ? (even_has ? even[j] : 0) : (odd_has ? odd[j] : 0);
    }
}
#undef BITS16
