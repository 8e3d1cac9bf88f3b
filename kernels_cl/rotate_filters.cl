// Backward data as forward convolutions (Lavin & Gray §4.2; ops/as_forward/):
// dx is dy convolved, at stride 1, with the filters rotated 180° and C and K
// swapped within each group. Under a stride, each phase (a, b) of dx takes
// the sub-filter of rows a, a + stride_h, ... and columns b, b + stride_w, ...
// (taps_r x taps_s of them); at stride 1 that is the whole filter:
//   out[g*Cg + c][kk][taps_r-1-t][taps_s-1-u] = w[g*Kg + kk][c][a + t*stride_h][b + u*stride_w],
// so out is C x K/groups x taps_r x taps_s. Run once per new set of weights
// (set_weights or borrow_weights; in training, every step). A work-item moves
// one channel's run of RUN filters: the work-items along dim 0 read
// neighbouring channels of one filter (R*S floats apart, one run of memory
// for a 1x1 filter), and each writes its RUN
// filters' taps as one run of out's row. With new weights every run (2 Xeon
// cores, PoCL 3.1, netcl-bench --direction train, N = 1), backward data of a
// 1x1 1024 -> 2048 layer at 14x14 took 10.9 -> 6.3 ms and of res5's 3x3
// (512 channels, 7x7) 10.4 -> 5.1, against a transpose through a 16 x 16
// local-memory tile a tap at a time (a work-item an element, two barriers a
// tap: PoCL's work-item loops around the barriers ran scalar). RUN 8 and 32
// were slower on both. A work-item a filter (reads Cg*R*S apart across the
// work-items, one cache set at 1024 channels of 1x1) had taken 12-15 ms.
// A filter of one tap now takes transpose_filters below instead: the same
// tile, but one barrier for the whole filter; on that 1024 -> 2048 layer
// (the same cores, 21 runs under perf) 173 -> 140 samples, its backward
// data 4.87 -> 4.50 ms.
// NDRange: dim0 = Cg rounded up to the work-group, dim1 = ceil(K/groups /
// RUN), dim2 = groups.
#ifndef RUN
#define RUN 16
#endif
__kernel void rotate_filters(__global const STORAGE* restrict w, const ulong w_offset, __global STORAGE* restrict out,
                             const int K, const int Cg, const int R, const int S, const int groups, const int a,
                             const int b, const int stride_h, const int stride_w, const int taps_r,
                             const int taps_s) {
    const int Kg = K / groups;
    const int c = (int)get_global_id(0), kk0 = (int)get_global_id(1) * RUN, g = (int)get_global_id(2);
    if (c >= Cg) return;
    const int taps = taps_r * taps_s, filters = min(RUN, Kg - kk0);
    const size_t filter_stride = (size_t)Cg * R * S;
    __global const STORAGE_BITS* from =
        (__global const STORAGE_BITS*)w + w_offset + (g * Kg + kk0) * filter_stride + (size_t)c * R * S;
    __global STORAGE_BITS* to = (__global STORAGE_BITS*)out + ((size_t)(g * Cg + c) * Kg + kk0) * taps;
    for (int j = 0; j < filters; ++j) {
        for (int t = 0; t < taps_r; ++t) {
            for (int u = 0; u < taps_s; ++u) {
                const int r = a + t * stride_h, s = b + u * stride_w;
                to[(size_t)j * taps + (taps_r - 1 - t) * taps_s + taps_s - 1 - u] = from[j * filter_stride + r * S + s];
            }
        }
    }
}
#undef RUN

// A filter of one tap (1x1, or 1x1x1 in 3-D; its one phase at any stride):
// the rotation is the transpose of each group's Kg x Cg block,
//   out[g*Cg + c][kk] = w[g*Kg + kk][c],
// through a 16 x 16 tile of local memory, a work-item an element: the
// work-items along dim 0 read a run of one filter, then write a run of one
// channel's row. rotate_filters above reads its 16 filters an element at a
// time, Cg apart: at 2048 channels 8 KiB, one L1 set for all 16 lines, more
// than its ways, so nearly every element missed (res5.reduce's 512 x 2048
// took 0.95 ms there and 0.72-0.78 here; 2 Xeon cores, PoCL 3.1, perf samples
// over 43 runs: rotate_filters's RUN filters for one channel are then a
// column of a matrix Cg wide, not the taps of a filter). A private 16 x 16 block a work-item, read and written as
// vectors, took 0.57 ms on the CPU, but NVIDIA's compiler puts such a block
// on the stack (tests/nvptx).
// NDRange: dim0 = Cg and dim1 = K/groups, each rounded up to 16; dim2 = groups.
#define BLOCK 16
__kernel __attribute__((reqd_work_group_size(BLOCK, BLOCK, 1))) void transpose_filters(
    __global const STORAGE* restrict w, const ulong w_offset, __global STORAGE* restrict out, const int K,
    const int Cg, const int groups) {
    __local STORAGE_BITS tile[BLOCK][BLOCK + 1];
    const int Kg = K / groups, g = (int)get_global_id(2);
    const int c0 = (int)get_group_id(0) * BLOCK, k0 = (int)get_group_id(1) * BLOCK;
    const int x = (int)get_local_id(0), y = (int)get_local_id(1);
    __global const STORAGE_BITS* from = (__global const STORAGE_BITS*)w + w_offset + (size_t)g * Kg * Cg;
    __global STORAGE_BITS* to = (__global STORAGE_BITS*)out + (size_t)g * Cg * Kg;
    if (k0 + y < Kg && c0 + x < Cg) tile[y][x] = from[(size_t)(k0 + y) * Cg + c0 + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (c0 + y < Cg && k0 + x < Kg) to[(size_t)(c0 + y) * Kg + k0 + x] = tile[x][y];
}
#undef BLOCK
