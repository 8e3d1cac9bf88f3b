// C[M x N] = A[M x Kd] * B[Kd x N] (+ bias[m]), batched over dimension 2:
// netcl's dense GEMM, vectorised along N. Needs kernels_cl/gemm_tile.cl first.
//
// Used for 1x1 stride-1 convolutions straight on NCHW (A = the weights,
// K x C as given; B = image n's input, C x H*W; C = its output, K x H*W; no
// im2col copy at all) and for the multiply stage of separate-transform
// Winograd (M_e = U_e[K x C] * V_e[C x T] per transform element e).
// A row-major: each of the MR rows is its own sequential stream; the
// transposed (k-major) layout was 0-40% slower on every shape measured (1.6x
// on the Winograd T = 16 GEMM), page-crossing every step.
//
// Edges, with no padded copies: the last tile in each dimension is shifted
// back to end at M (N); it overlaps its neighbour, whose work-item writes
// bit-identical values (same FMA order), so the inner loop never tests
// bounds. EDGE_M (M < MR) / EDGE_N (N < NR): the tile is larger than the
// matrix; loads use clamped indices, stores are guarded.
//
// K_SLICE: the reduction summed in slices of K_SLICE steps, each slice's sum
// added to a running total (the Winograd multiply sums C = 512 channels as
// four sums of 128, whose fp32 rounding error is under half that of one sum
// of 512). The totals are touched once a slice, so they live in the stack
// frame and the inner loop keeps its registers: on VGG's conv3.2, conv4.2
// and conv5.2 shapes the three together ran in 54.4 and 53.0 ms against 56.3
// and 54.7 as one sum (noise), where a launch per slice adding into C in
// memory had cost +22% on conv4.2.
//
// B_PANEL: B stored in panels of NR columns, each a contiguous Kd x NR
// block (column n of row k at B[(n / NR) * Kd * NR + k * NR + n % NR], ldb
// = NR), the last panel padded to NR columns: a work-item's B is one
// sequential stream, where row-major B with ldb = N steps a whole row (2 KiB
// at N = 512) each k, 2 steps a page, which the hardware prefetchers
// re-learn page by page. Column tiles follow the panels (not shifted back);
// the last one's columns past N are computed from the padding and not
// stored. C is then stored in groups (C_GROUP, below). The Winograd
// multiply, transposed, streams U this way: at N = 1 on 28x28 (C = K = 512)
// F(6x6)'s multiply 2.54-2.66 -> 2.05-2.14 ms, F(4x4)'s 2.22-2.28 ->
// 1.94-1.96 (OpenCL events, min of 20, two alternating runs).
//
// PREFETCH_PANEL (with B_PANEL, CPUs whose compiler has __builtin_prefetch):
// the work-items of a panel's row tiles after the first prefetch the next
// panel (this batch entry's next, else the next entry's first) into the
// outer caches, one 64-byte line a reduction step between them. A panel's
// first row tile streams it from memory with the FMAs waiting, the others
// read it from cache with the memory idle; this spreads the stream over all
// of them. At N = 1 on 28x28 (C = K = 512, U 64 MiB with F(6x6), 36 with
// F(4x4)) the multiply took 4.14 against 4.67-4.78 ms with F(6x6) and 4.80
// against 5.12-5.14 with F(4x4) (Zen 4; the other shapes measured are in
// ops/winograd_gemm/WinogradGemmConfig.cpp). Locality 1 (x86: prefetcht2): the
// default (3, prefetcht0, into L1) was 10% slower than none, evicting the
// lines the other row tiles were reading. Where few row tiles share a panel
// the stream is near the memory's bandwidth and the prefetch competes with
// it (3 row tiles: 8% slower), and where many do the stall is a small share
// (20: 2% slower), so the configuration takes it for 5-10. oclgrind cannot
// run it (no llvm.prefetch).
//
// C_GROUP (with B_PANEL and only with it): C stored in groups of VW
// columns, each row's group holding every batch entry's columns of it in
// turn: entry z's C[m][n] at Cm[m * ldc + g * VW * batch + z * w + n % VW],
// g = n / VW, w = min(VW, N - g * VW) (the last group narrower), ldc =
// batch * N. The transposed Winograd multiply writes M this way, so that the
// output transform's work-item (a tile, VW output channels) reads its
// alpha^2 vectors as one contiguous block where [e][T][K] had it read
// alpha^2 lines a plane apart: on VGG's 56x56 (C 128 -> K 256) and 28x28
// (256 -> 512) at N = 1 the output transform took F(6x6) 0.59-0.67 ->
// 0.47-0.54 ms and 0.31 -> 0.26-0.27, F(4x4) 0.47-0.55 -> 0.42-0.52 and
// 0.22-0.24 -> 0.20-0.22 (PoCL 3.1, Zen 4, OpenCL events, median of 21,
// alternating processes); the multiply's fastest run unchanged at 56x56,
// its median 2-4% slower (126 runs each over 6 alternating processes).
//
// STREAM_OUTPUT (kernels_cl/storage.cl): C's whole vectors, in the plain and
// C_IMAGES stores, leave past the caches where aligned, without the read for
// ownership a plain store of a line not in cache costs; a convolution's
// output of at least stream_output_min_bytes a launch (ResNet-50's res2 and
// res3 1x1 layers at N = 8 on an Intel Xeon: pocl-cpu-avx512-intel.json,
// item 19).
//
// A_PANEL: A stored in panels of MR rows, row tile t's at A[t * Kd * MR],
// its rows' step-k values side by side at [k * MR + i] (the last panel holds
// the shifted-back tile's rows, clamped where M < MR; kernels_cl/panels.cl
// packs it): one sequential stream where row-major A is MR streams a row
// apart. With B_PANEL and C_IMAGES, B packed the same way from x, on 2 Zen 3
// cores (PoCL 3.1, OpenCL events, the kernel alone): M = K = N = 1024 88 ->
// 143 GFLOPS; res5's 2048 -> 512 over 8 images of 7x7, 60 -> 157; A alone in
// panels with res2's tall work-groups (256 -> 64 over 56x56) 64 -> 98.
//
// C_IMAGES (with B_PANEL or B_IMAGES, in place of C_GROUP): B's columns run
// over every image's pixels in turn (x packed across images,
// kernels_cl/panels.cl, or read in place: B_IMAGES below), so
// few-pixel layers fill whole panels (8 images of 7x7 are 392 columns, where
// a GEMM per image computes 64 of every 49); column j of C is image j / ldc's
// pixel j % ldc, the images bsC apart (the batch dimension is then 1).
//
// B_IMAGES (with C_IMAGES, in place of B_PANEL): the columns run over
// every image's pixels in turn as with C_IMAGES, but B is read where it
// lies, each image's Kd x ldc rows bsB apart (a stride-1 1x1 layer's x, no
// packed copy). A 14x14 image's 196 pixels took 5 tiles of 48 (240 columns
// computed) a GEMM per image; 8 images' 1568 take 33. A vector that
// crosses an image's end (ldc >= VW: at most one end) is two loads blended;
// the tiles that hold one run a loop of their own, the others load as
// before. The last tile is shifted back to end at N, and stores only the
// columns its neighbour did not.
//
// PREFETCH_B (B row-major where it lies: not B_PANEL, B_IMAGES or EDGE_N;
// CPUs whose compiler has __builtin_prefetch): each step prefetches the
// tile's columns PREFETCH_B rows ahead into L1. A 1x1 layer's B is x, whose
// rows are planes H*W floats apart: a tile's NR columns are then one short
// run in each of C pages, more streams than the hardware prefetchers follow,
// so the first row tile of a panel waited on memory at every step. The last
// steps' prefetches point past B, which a prefetch may (it never faults). On 2
// cores of an Intel Xeon (family 6 model 207, 8 x 48 tiles, netcl-bench,
// ratios to oneDNN 3.2 in the same processes, 2 pairs of alternating
// processes) ResNet-50's res2.reduce (256 -> 64 at 56x56) at N = 8 0.74, 0.72x
// -> 0.99, 0.95x; pocl-cpu-avx512-intel.json (item 8) has the other layers.
//
// A_IMAGES (not with A_PANEL, K_SLICE, B_PANEL or B_IMAGES): the reduction
// runs over a_images images of Kd steps each (two arguments after ldc),
// A's next image a_image_stride elements on where it lies, B's rows running
// on across them (the images' rows side by side). The weight gradient of
// res5's 7x7 layers sums over every image in one GEMM, where a GEMM an image
// read and wrote dW's float32 sum (4 MiB on res5.reduce) once an image:
// pocl-cpu-avx512-intel.json (item 15).
//
// A_PHASES (with A_IMAGES): A is x's column matrix (rows the taps (c, r, s)
// of a group, columns the output pixels) read in place from x's stride
// phases (kernels_cl/im2col.cl's im2col or im2col_rows under a stride_h x
// stride_w filter: plane (c, a, b) holds x[c][i * stride_h + a][j * stride_w + b],
// padded, phase_rows x phase_width), the "images" of A_IMAGES being output
// rows (a_image_stride = phase_width, Kd = Q). Tap (c, r, s) is the plane of
// its phase shifted by whole phase rows and columns, so row m of A starts at
// an offset of its own, not m * lda: the copy is x's size where the columns
// were R * S / (stride_h * stride_w) times it (ResNet's stem: 147 floats a
// pixel against 12). ops/weight_gradient/WeightGradientGemmConfig.hpp has
// the measurement.
//
// A_TRANSPOSED (not with A_PANEL, A_IMAGES or A_PHASES): A stored Kd x M,
// step k's rows side by side at [k * lda + m]: a 1x1 layer's K x C/groups
// filters read as its backward data's C x K/groups weights, in place, where
// a rotated copy cost a pass over the weights every training step: on 2
// Xeon cores (PoCL 3.1, netcl-bench --direction train, one run) backward data
// of res5.expand (dy of 2048 channels to dx of 512, 7x7) at N = 1 took 2.31 ->
// 1.28 ms. col2im-gemm reads a layer's K/groups x C/groups·R·S filters so as
// W^T (ops/col2im/Col2imGemmConfig.hpp).
// PREFETCH_A (with A_TRANSPOSED; CPUs whose compiler has __builtin_prefetch):
// each step prefetches the tile's rows PREFETCH_A steps ahead. Transposed, a
// step's MR rows lie a row of lda floats (2-18 KiB) after the last, a page a
// step, which the hardware prefetchers do not follow. On 2 Xeon cores, N = 1,
// backward data of res5.reduce 1.30, 1.10 -> 0.88, 0.76 ms (16 steps ahead)
// and of res5.3x3 on col2im-gemm 2.00, 2.12 -> 1.98, 1.81 (8 ahead):
// pocl-cpu-avx512-intel.json, items 25 and 26. The last steps' prefetches
// point past A, which a prefetch may (it never faults).
//
// NDRange: dim0 = ceil(N / NR) column tiles, dim1 = ceil(M / MR) row tiles,
// dim2 = batch. Offsets and batch strides in floats.

#ifndef EDGE_M
#define EDGE_M 0
#endif
#ifndef EDGE_N
#define EDGE_N 0
#endif
#ifndef K_SLICE
#define K_SLICE 0
#endif
#if defined(B_PANEL) && EDGE_N
#error "B_PANEL pads B to whole panels: no EDGE_N"
#endif
#if defined(B_PANEL) && !defined(C_GROUP) && !defined(C_IMAGES)
#error "B_PANEL stores C in groups or across images: it needs C_GROUP or C_IMAGES"
#endif
#if defined(C_IMAGES) && (!(defined(B_PANEL) || defined(B_IMAGES)) || defined(C_GROUP))
#error "C_IMAGES stores the columns of B's panels or images across images: it needs B_PANEL or B_IMAGES (not C_GROUP)"
#endif
#if defined(B_IMAGES) && (!defined(C_IMAGES) || defined(B_PANEL) || EDGE_N)
#error "B_IMAGES reads B's images in place, columns across them: it needs C_IMAGES (not B_PANEL or EDGE_N)"
#endif
#if defined(C_GROUP) && (!defined(B_PANEL) || defined(BIAS))
#error "C_GROUP stores whole vectors of panel-aligned columns: it needs B_PANEL (and no BIAS)"
#endif
#if defined(C_GROUP) && (defined(POST_SUM) || POST_ACT)
#error "C_GROUP writes the Winograd multiply's M, not a convolution's output: no post-ops"
#endif
#if defined(C_GROUP) && defined(STREAM_OUTPUT)
#error "C_GROUP writes the Winograd multiply's M, which its output transform reads next: not past the caches"
#endif
#if defined(PREFETCH_B) && (defined(B_PANEL) || defined(B_IMAGES) || EDGE_N)
#error "PREFETCH_B prefetches row-major B where it lies: not with B_PANEL, B_IMAGES or EDGE_N"
#endif
#if defined(A_IMAGES) && (defined(A_PANEL) || K_SLICE || defined(B_PANEL) || defined(B_IMAGES))
#error "A_IMAGES reads A's images where they lie, B's rows running on across them: no panels, slices or B_IMAGES"
#endif
#if defined(PREFETCH_A) && !defined(A_TRANSPOSED)
#error "PREFETCH_A prefetches A read transposed where it lies: it needs A_TRANSPOSED"
#endif
#if defined(A_TRANSPOSED) && (defined(A_PANEL) || defined(A_IMAGES) || defined(A_PHASES))
#error "A_TRANSPOSED reads A Kd x M where it lies: no panels, images or phases"
#endif
#if defined(A_PHASES) && !defined(A_IMAGES)
#error "A_PHASES reads x's phases an output row at a time: it needs A_IMAGES"
#endif
#if defined(PREFETCH_PANEL) && !defined(B_PANEL)
#error "PREFETCH_PANEL prefetches B's panels: it needs B_PANEL"
#endif

// Each operand's type (kernels_cl/storage.cl, which comes first): float, or
// half where it is a float16 layer's tensor rather than netcl's float32
// workspace. The 1x1 convolution reads a half layer's weights and x and
// writes its y (all half); im2col-gemm reads float32 columns (B); the weight
// gradient writes float32 partial sums (C); the Winograd multiply is float32
// but for a U kept in half (winograd_gemm_half_u: A, or B where transposed).
// Bias is in C's type (the layer's, where there is one).
#ifndef A_TYPE
#define A_TYPE float
#endif
#ifndef B_TYPE
#define B_TYPE float
#endif
#ifndef C_TYPE
#define C_TYPE float
#endif

__kernel void gemm(__global const A_TYPE* restrict A, const ulong a_offset, const int bsA,
                   __global const B_TYPE* restrict B, const ulong b_offset, const int bsB,
                   __global C_TYPE* restrict Cm, const ulong c_offset, const int bsC,
                   __global const C_TYPE* restrict bias, const ulong bias_offset,
                   const int M, const int N, const int Kd, const int lda, const int ldb, const int ldc
#ifdef A_IMAGES
                   , const int a_images, const long a_image_stride
#endif
#ifdef A_PHASES
                   , const int taps_r, const int taps_s, const int stride_h, const int stride_w, const int dil_h,
                   const int dil_w, const int phase_rows, const int phase_width
#endif
                   ) {
    const int ntn = (N + NR - 1) / NR, ntm = (M + MR - 1) / MR;
    const int tn = (int)get_global_id(0), tm = (int)get_global_id(1);
    if (tn >= ntn || tm >= ntm) return;
    const int z = (int)get_global_id(2);
#ifdef B_PANEL
    const int n0 = tn * NR;
#else
    const int n0 = max(min(tn * NR, N - NR), 0);
#endif
    const int m0 = max(min(tm * MR, M - MR), 0);
    A += a_offset + (size_t)z * bsA;
    B += b_offset + (size_t)z * bsB;
#ifdef C_GROUP
    Cm += c_offset;  // entry z's offset depends on the group's width (bsC unused)
    const int batch = (int)get_global_size(2);
#else
    Cm += c_offset + (size_t)z * bsC;
#endif
    bias += bias_offset;

    int arow[MR];
#pragma unroll
    for (int i = 0; i < MR; ++i) arow[i] = min(m0 + i, M - 1);
#ifdef A_PHASES
    // Row m's tap (c, r, s): its phase's plane, shifted down and right by the tap's whole phase rows and columns.
#pragma unroll
    for (int i = 0; i < MR; ++i)
        arow[i] = phase_tap_offset(arow[i], taps_r, taps_s, stride_h, stride_w, dil_h, dil_w, phase_rows, phase_width);
#endif

    vec_t acc[MR][NV];
#pragma unroll
    for (int i = 0; i < MR; ++i)
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[i][v] = (vec_t)(0.0f);

#if K_SLICE
    vec_t total[MR][NV];
#pragma unroll
    for (int i = 0; i < MR; ++i)
#pragma unroll
        for (int v = 0; v < NV; ++v) total[i][v] = (vec_t)(0.0f);
#define RESULT total
#else
#define RESULT acc
#endif

    vec_t b[NV];
#ifdef A_PANEL
    __global const A_TYPE* ap = A + (size_t)tm * Kd * MR;
#define A_AT(i) LOAD_AS(A_TYPE, ap, i)
#define A_STEP MR
#elif defined(A_PHASES)
    __global const A_TYPE* ap = A;
#define A_AT(i) LOAD_AS(A_TYPE, ap, arow[i])
#define A_STEP 1
#elif defined(A_TRANSPOSED)
    __global const A_TYPE* ap = A;
#define A_AT(i) LOAD_AS(A_TYPE, ap, arow[i])
#define A_STEP lda
#else
    __global const A_TYPE* ap = A;
#define A_AT(i) LOAD_AS(A_TYPE, ap, arow[i] * lda)
#define A_STEP 1
#endif
#ifdef PREFETCH_A
#define PREFETCH_A_STEP() __builtin_prefetch(ap + (size_t)PREFETCH_A * lda + arow[0], 0, 3)
#else
#define PREFETCH_A_STEP()
#endif
// One reduction step on b[]: every row's multiply-add, then both operands on a step.
#define MULTIPLY_STEP()                                                                           \
    PREFETCH_A_STEP();                                                                            \
    _Pragma("unroll") for (int i = 0; i < MR; ++i) {                                              \
        const vec_t a = (vec_t)(A_AT(i));                                                         \
        _Pragma("unroll") for (int v = 0; v < NV; ++v) acc[i][v] = fma(a, b[v], acc[i][v]);       \
    }                                                                                             \
    ap += A_STEP;                                                                                 \
    bp += ldb
#if EDGE_N
    // Columns clamped into the matrix; the duplicates are never stored.
    __global const B_TYPE* bp = B;
#elif defined(B_IMAGES)
    // Vector v's first column: image bi, pixel bx; the lanes from `split` on lie in the next image (split = VW: none).
    // bp is vector 0's; vector v's is bp + b_at[v] and, across an image's end, bp + b_next[v].
    __global const B_TYPE* bp = B;
    long b_at[NV];
    long b_next[NV];
    ivec_t first_image[NV];  // lanes still in vector v's first image
    bool crosses = false;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
        const int j = n0 + v * VW, bi = j / ldc, bx = j - bi * ldc, split = min(ldc - bx, VW);
        crosses |= split < VW;
        first_image[v] = LANE_INDEX < split;
        b_at[v] = (long)bi * bsB + bx;
        b_next[v] = split < VW ? (long)(bi + 1) * bsB + bx - ldc : b_at[v];
    }
    const long b_first = b_at[0];
    bp += b_first;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
        b_at[v] -= b_first;
        b_next[v] -= b_first;
    }
#elif defined(B_PANEL)
    __global const B_TYPE* bp = B + (size_t)tn * Kd * NR;
#else
    __global const B_TYPE* bp = B + n0;
#endif
#ifdef PREFETCH_PANEL
    // Line `line` of the next panel, then every (ntm - 1)th: each row tile
    // past the first takes its share, `lines_a_step` a step. A 64-byte line
    // holds 16 floats or 32 halves (Winograd's U in half).
#define PANEL_LINE NETCL_PASTE(PANEL_LINE_, B_TYPE)
#define PANEL_LINE_float 16
#define PANEL_LINE_half 32
    const int panel_lines = (Kd * NR + PANEL_LINE - 1) / PANEL_LINE;
    __global const B_TYPE* next_panel = tn + 1 < ntn                        ? bp + (size_t)Kd * NR
                                       : z + 1 < (int)get_global_size(2) ? B + bsB
                                                                          : 0;
    const int sharers = ntm - 1;
    const int lines_a_step = sharers > 0 ? ((NR + PANEL_LINE - 1) / PANEL_LINE + sharers - 1) / sharers : 0;
    int line = tm > 0 && next_panel ? tm - 1 : panel_lines;  // the first row tile prefetches nothing
#endif
#ifdef A_IMAGES
    // The reduction over a_images images of Kd steps each: A's next image
    // a_image_stride elements on, B's rows running on across them.
    for (int image = 0; image < a_images; ++image) {
        ap = A + (size_t)image * a_image_stride;
        int k = 0;
#else
    int k = 0;
#endif
#if K_SLICE
    for (int k0 = 0; k0 < Kd; k0 += K_SLICE) {
        const int k_end = min(k0 + K_SLICE, Kd);
#else
    {
        const int k_end = Kd;
#endif
#if EDGE_N
        for (; k < k_end; ++k) {
#pragma unroll
            for (int v = 0; v < NV; ++v) {
                float lanes[VW];
#pragma unroll
                for (int t = 0; t < VW; ++t) lanes[t] = LOAD_AS(B_TYPE, bp, min(n0 + v * VW + t, N - 1));
                b[v] = VLOAD(0, lanes);
            }
            MULTIPLY_STEP();
        }
#else
#ifdef B_IMAGES
        if (crosses) {
            for (; k < k_end; ++k) {
#pragma unroll
                for (int v = 0; v < NV; ++v)
                    b[v] = select(LOADN_AS(B_TYPE, VW, 0, bp + b_next[v]), LOADN_AS(B_TYPE, VW, 0, bp + b_at[v]),
                                  first_image[v]);
                MULTIPLY_STEP();
            }
        }
#endif
        for (; k < k_end; ++k) {
#ifdef PREFETCH_PANEL
            for (int j = 0; j < lines_a_step && line < panel_lines; ++j, line += sharers)
                __builtin_prefetch(next_panel + (size_t)line * PANEL_LINE, 0, 1);
#endif
#ifdef PREFETCH_B
#pragma unroll
            for (int v = 0; v < NV; ++v) __builtin_prefetch(bp + (size_t)PREFETCH_B * ldb + v * VW, 0, 3);
#endif
#pragma unroll
            for (int v = 0; v < NV; ++v) {
#ifdef B_IMAGES
                b[v] = LOADN_AS(B_TYPE, VW, 0, bp + b_at[v]);
#else
                b[v] = LOADN_AS(B_TYPE, VW, v, bp);
#endif
            }
            MULTIPLY_STEP();
        }
#endif
#if K_SLICE
#pragma unroll
        for (int i = 0; i < MR; ++i)
#pragma unroll
            for (int v = 0; v < NV; ++v) {
                total[i][v] += acc[i][v];
                acc[i][v] = (vec_t)(0.0f);
            }
#endif
    }
#ifdef A_IMAGES
    }
#endif

#pragma unroll
    for (int i = 0; i < MR; ++i) {
        const int m = m0 + i;
#if EDGE_M
        if (m >= M) break;
#endif
#ifdef POST_SUM
        if (m < tm * MR) continue;  // the shifted-back last row tile: rows its neighbour stored
#endif
#ifdef BIAS
        const vec_t bi = (vec_t)(LOAD_AS(C_TYPE, bias, m));
#endif
#ifdef C_GROUP
#pragma unroll
        for (int v = 0; v < NV; ++v) {
            // Group g of this row; w <= 0: a vector of the last panel's padding.
            const int g = n0 / VW + v, w = min(VW, N - g * VW);
            __global C_TYPE* gp = Cm + (size_t)m * ldc + (size_t)g * VW * batch + (size_t)z * max(w, 0);
            if (w == VW) {
                STOREN_AS(C_TYPE, VW, RESULT[i][v], 0, gp);
            } else {
#pragma unroll
                for (int t = 0; t < VW; ++t)
                    if (t < w) STORE_AS(C_TYPE, gp, t, LANE(RESULT[i][v], t));
            }
        }
#elif defined(C_IMAGES)
#pragma unroll
        for (int v = 0; v < NV; ++v) {
            vec_t o = RESULT[i][v];
#ifdef BIAS
            o += bi;
#endif
            // Columns from tn * NR on: the shifted-back last tile (B_IMAGES) leaves its neighbour's alone.
            const int j0 = n0 + v * VW, image = j0 / ldc, pixel = j0 - image * ldc;
            __global C_TYPE* cp = Cm + (size_t)image * bsC + (size_t)m * ldc + pixel;
            if (j0 + VW <= N && pixel + VW <= ldc && j0 >= tn * NR) {
                STOREN_STREAM_AS(C_TYPE, VW, POST_OPS(o, LOADN_AS(C_TYPE, VW, 0, cp)), 0, cp);
            } else {
                // Across an image's end, past the last column (the last panel's padding), or before tn * NR (the
                // shifted-back last tile under B_IMAGES: its neighbour's columns).
#pragma unroll
                for (int t = 0; t < VW; ++t) {
                    const int j = j0 + t, image_t = j / ldc;
                    __global C_TYPE* ct = Cm + (size_t)image_t * bsC + (size_t)m * ldc + (j - image_t * ldc);
                    if (j < N && j >= tn * NR) STORE_AS(C_TYPE, ct, 0, POST_OPS(LANE(o, t), LOAD_AS(C_TYPE, ct, 0)));
                }
            }
        }
#else
        __global C_TYPE* cp = Cm + (size_t)m * ldc + n0;
#pragma unroll
        for (int v = 0; v < NV; ++v) {
            vec_t o = RESULT[i][v];
#ifdef BIAS
            o += bi;
#endif
#if EDGE_N
            // A tile past N's last column.
#pragma unroll
            for (int t = 0; t < VW; ++t)
                if (n0 + v * VW + t < N) STORE_AS(C_TYPE, cp, v * VW + t, POST_OPS(LANE(o, t), LOAD_AS(C_TYPE, cp, v * VW + t)));
#else
#ifdef POST_SUM
            if (n0 != tn * NR) {
                // The shifted-back last column tile: only the columns its neighbour did not store.
#pragma unroll
                for (int t = 0; t < VW; ++t)
                    if (n0 + v * VW + t >= tn * NR) STORE_AS(C_TYPE, cp, v * VW + t, POST_OPS(LANE(o, t), LOAD_AS(C_TYPE, cp, v * VW + t)));
                continue;
            }
#endif
            STOREN_STREAM_AS(C_TYPE, VW, POST_OPS(o, LOADN_AS(C_TYPE, VW, v, cp)), v, cp);
#endif
        }
#endif
    }
}
