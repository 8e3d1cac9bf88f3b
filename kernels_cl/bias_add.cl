// y[n, k, :] += bias[k] over an N x K x (P·Q) output, for strategies whose
// main pass (a GEMM) cannot add the bias itself.
// NDRange: dim0 = P·Q rounded up, dim1 = N·K.
__kernel void bias_add(__global float* restrict y, const ulong y_offset, __global const float* restrict bias,
                       const int K, const int PQ) {
    y += y_offset;
    const int pq = (int)get_global_id(0);
    const int nk = (int)get_global_id(1);
    if (pq >= PQ) return;  // dim0 is rounded up to the work-group size
    y[(size_t)nk * PQ + pq] += bias[nk % K];
}
