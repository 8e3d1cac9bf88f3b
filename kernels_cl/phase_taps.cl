// Where a filter tap's run of x starts in x's stride phases, for the weight
// gradient's GEMMs that read x's columns from its phases rather than a copy
// of them (gemm.cl's A_PHASES, gemm_dot.cl's D_PHASES). The phases are the
// im2col copy of x under a virtual stride_h x stride_w filter
// (ops/weight_gradient/WeightGradientGemmConfig.hpp): plane (c, h % stride_h,
// w % stride_w) of phase_rows x phase_width holds x's rows h, h + stride_h,
// ... and columns w, w + stride_w, ... So tap (c, r, s) of output pixel
// (p, q) is element (p + r·dil_h / stride_h, q + s·dil_w / stride_w) of the
// plane its offsets' remainders name: its run along an output row starts at
// the offset returned here, plus p·phase_width.
inline int phase_tap_offset(const int tap, const int taps_r, const int taps_s, const int stride_h,
                            const int stride_w, const int dil_h, const int dil_w, const int phase_rows,
                            const int phase_width) {
    const int s = tap % taps_s, r = tap / taps_s % taps_r, c = tap / (taps_s * taps_r);
    const int h = r * dil_h, w = s * dil_w;
    const int plane = (c * stride_h + h % stride_h) * stride_w + w % stride_w;
    return (plane * phase_rows + h / stride_h) * phase_width + w / stride_w;
}
