// y[n, k, :] = activation(y[n, k, :] + bias[k]) over an N x K x (P·Q)
// output, for a strategy whose main pass (CLBlast's GEMM) cannot add the
// bias or apply the activation as it writes. A residual sum takes no pass:
// that GEMM adds y's contents itself (beta = 1), so output_stage is built
// with the layer's post-ops less POST_SUM (after kernels_cl/post_ops.cl).
// NDRange: dim0 = P·Q rounded up, dim1 = N·K (of the images it covers).
#ifndef POST_SUM
__kernel void output_stage(__global STORAGE* restrict y, const ulong y_offset, __global const STORAGE* restrict bias,
                           const ulong bias_offset, const int has_bias, const int K, const int PQ) {
    y += y_offset;
    const int pq = (int)get_global_id(0);
    const int nk = (int)get_global_id(1);
    if (pq >= PQ) return;  // dim0 is rounded up to the work-group size
    const size_t at = (size_t)nk * PQ + pq;
    STORE(y, at, POST_OPS(LOAD(y, at) + (has_bias ? LOAD(bias, bias_offset + nk % K) : 0.0f), 0.0f));
}
#endif

// The same from a float32 GEMM output `from` (K x P·Q an image) into a half y
// (CLBlast's SGEMM cannot write half): built with every post-op, the
// residual read from y here.
__kernel void output_stage_from_float(__global const float* restrict from, const ulong from_offset,
                                      __global STORAGE* restrict y, const ulong y_offset,
                                      __global const STORAGE* restrict bias, const ulong bias_offset,
                                      const int has_bias, const int K, const int PQ) {
    y += y_offset;
    from += from_offset;
    const int pq = (int)get_global_id(0);
    const int nk = (int)get_global_id(1);
    if (pq >= PQ) return;
    const size_t at = (size_t)nk * PQ + pq;
    STORE(y, at, POST_OPS(from[at] + (has_bias ? LOAD(bias, bias_offset + nk % K) : 0.0f), LOAD(y, at)));
}
