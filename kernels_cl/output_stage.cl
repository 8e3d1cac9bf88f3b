// y[n, k, :] = activation(y[n, k, :] + bias[k]) over an N x K x (P·Q)
// output, for a strategy whose main pass (CLBlast's GEMM) cannot add the
// bias or apply the activation as it writes. A residual sum takes no pass:
// that GEMM adds y's contents itself (beta = 1), so this is built with the
// layer's post-ops less POST_SUM (after kernels_cl/post_ops.cl).
// NDRange: dim0 = P·Q rounded up, dim1 = N·K.
#ifdef POST_SUM
#error "the output stage pass follows a GEMM that has already added the residual"
#endif
__kernel void output_stage(__global STORAGE* restrict y, const ulong y_offset, __global const STORAGE* restrict bias,
                           const ulong bias_offset, const int has_bias, const int K, const int PQ) {
    y += y_offset;
    const int pq = (int)get_global_id(0);
    const int nk = (int)get_global_id(1);
    if (pq >= PQ) return;  // dim0 is rounded up to the work-group size
    const size_t at = (size_t)nk * PQ + pq;
    STORE(y, at, POST_OPS(LOAD(y, at) + (has_bias ? LOAD(bias, bias_offset + nk % K) : 0.0f), 0.0f));
}
