"""The mutation catalogue: small, plausible bugs the test suite must catch.

Each entry replaces one exact piece of text (found exactly once in its file)
with a buggy one. Kernel sources (kernels_cl/) are mutated in a copy that the
suite reads through NETCL_KERNEL_DIR, with no rebuild; host sources are
patched in the scratch copy of the tree and rebuilt incrementally.

Fields:
  id      short name, used by --only and in the report
  file    path from the repository root
  find    exact text in the file (must occur exactly once)
  replace the mutated text
  bug     the bug this models, in a user's words: what would go wrong
  area    what part of netcl it covers (the report groups by it)

An entry that survives is either explained here (`equivalent`: why no test
can tell it apart from the original) or answered by a test. Every
implementation that lands adds its entries.
"""

MUTATIONS = [
    # --- CONV2D_NAIVE: kernels_cl/conv2d_naive.cl ---------------------------
    dict(id="naive-weight-clamp", area="naive", file="kernels_cl/conv2d_naive.cl",
         find="wbase[kk] = (k0 + min(kk, kvalid - 1)) * Cg * RS;",
         replace="wbase[kk] = (k0 + kk) * Cg * RS;",
         bug="the KB=4 build reads weights past the group's last output channel (out of bounds when K % 4 != 0)"),
    dict(id="naive-bias-channel", area="bias", file="kernels_cl/conv2d_naive.cl",
         find="const float b = has_bias ? bias[k] : 0.0f;",
         replace="const float b = has_bias ? bias[k0] : 0.0f;",
         bug="every channel of a KB block gets the block's first bias"),
    dict(id="naive-pad-left", area="padding", file="kernels_cl/conv2d_naive.cl",
         find="const int w_origin = q0 * stride_w - pad_left;",
         replace="const int w_origin = q0 * stride_w - pad_top;",
         bug="the left padding taken from the top one (wrong only for asymmetric pads)"),
    dict(id="naive-dilation", area="naive", file="kernels_cl/conv2d_naive.cl",
         find="const int h = h_origin + r * dil_h;",
         replace="const int h = h_origin + r;",
         bug="vertical dilation ignored"),
    dict(id="naive-group-input", area="groups", file="kernels_cl/conv2d_naive.cl",
         find="(n * C + g * Cg + c) * H",
         replace="(n * C + c) * H",
         bug="every group reads the first group's input channels"),
    dict(id="naive-right-edge", area="padding", file="kernels_cl/conv2d_naive.cl",
         find="xv[j] = (col >= 0 && col < W && q0 + j < Q) ? row[col] : 0.0f;",
         replace="xv[j] = (col >= 0 && col <= W && q0 + j < Q) ? row[col] : 0.0f;",
         bug="off-by-one at the right border: the tap past the last column reads the next row"),

    # --- IM2COL: kernels_cl/im2col.cl, kernels_cl/bias_add.cl ---------------
    dict(id="im2col-pad-left", area="padding", file="kernels_cl/im2col.cl",
         find="const int w = q * stride_w - pad_left + s * dil_w;",
         replace="const int w = q * stride_w - pad_top + s * dil_w;",
         bug="im2col takes the left padding from the top one"),
    dict(id="im2col-right-bound", area="im2col", file="kernels_cl/im2col.cl",
         find="if (h >= 0 && h < H && w >= 0 && w < W)",
         replace="if (h >= 0 && h < H && w >= 0)",
         bug="taps right of the image read the next row instead of 0"),
    dict(id="im2col-pass-image", area="workspace", file="kernels_cl/im2col.cl",
         find="x[((size_t)(image0 + b) * C + c)",
         replace="x[((size_t)(b) * C + c)",
         bug="every pass of a workspace-limited IM2COL re-reads the first images"),
    dict(id="bias-add-channel", area="bias", file="kernels_cl/bias_add.cl",
         find="+= bias[nk % K];",
         replace="+= bias[nk / K];",
         bug="bias indexed by image instead of channel"),

    # --- GEMM engine: kernels_cl/gemm.cl, kernels_cl/gemm_tile.cl ----------
    dict(id="gemm-shift-back", area="gemm", file="kernels_cl/gemm.cl",
         find="const int n0 = max(min(tn * NR, N - NR), 0);",
         replace="const int n0 = tn * NR;",
         bug="the last column tile is not shifted back: it runs past N"),
    dict(id="gemm-edge-store", area="gemm", file="kernels_cl/gemm.cl",
         find="if (n0 + v * VW + t < N) cp[v * VW + t] = LANE(o, t);",
         replace="cp[v * VW + t] = LANE(o, t);",
         bug="a matrix narrower than one tile is stored past its last column"),
    dict(id="gemm-bias-row", area="bias", file="kernels_cl/gemm.cl",
         find="const vec_t bi = (vec_t)(bias[m]);",
         replace="const vec_t bi = (vec_t)(bias[m0]);",
         bug="every row of a tile gets the tile's first bias"),
    dict(id="gemm-slice-reset", area="gemm", file="kernels_cl/gemm.cl",
         find="total[i][v] += acc[i][v];\n                acc[i][v] = (vec_t)(0.0f);",
         replace="total[i][v] += acc[i][v];",
         bug="K_SLICE: a slice's partial sum is not cleared, so earlier slices are counted again"),
    dict(id="gemm-lane", area="gemm", file="kernels_cl/gemm_tile.cl",
         find="(t) == 4 ? (v).s4 :",
         replace="(t) == 4 ? (v).s3 :",
         bug="the 8-wide lane picker returns the wrong lane for t = 4"),

    # --- implicit GEMM: kernels_cl/conv_kvec.cl -----------------------------
    dict(id="kvec-interior-test", area="implicit-gemm", file="kernels_cl/conv_kvec.cl",
         find="cols_in &= (pw[i] >= 0) & (pw[i] + S - 1 < W);",
         replace="cols_in &= (pw[i] >= 0);",
         bug="a tile touching the right border takes the unchecked interior path"),
    dict(id="kvec-k-bound", area="implicit-gemm", file="kernels_cl/conv_kvec.cl",
         find="if (k >= K) break;",
         replace="if (k > K) break;",
         bug="the last channel panel stores one channel past K"),
    dict(id="kvec-pack-zero", area="implicit-gemm", file="kernels_cl/conv_kvec.cl",
         find="const float value = k < K ? w[w_offset + (size_t)k * C * R * S + crs] : 0.0f;",
         replace="const float value = w[w_offset + (size_t)min(k, K - 1) * C * R * S + crs];",
         bug="the packed panel past K holds the last filter instead of zeros",
         equivalent="equivalent: the lanes past K only ever feed accumulators of channels >= K, which the "
                    "store's K bound never writes, and lanes never mix (no NaN can cross)"),
    dict(id="kvec-x-offset", area="views", file="kernels_cl/conv_kvec.cl",
         find="X += x_offset + (size_t)n * x_image_stride;",
         replace="X += (size_t)n * x_image_stride;",
         bug="an input given as a view at an offset into a caller's buffer is read from the buffer's start"),

    # --- CONV2D_WINOGRAD fused: kernels_cl/winograd_fused.cl ----------------
    dict(id="wino-fused-c-barrier", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="#endif\n        barrier(CLK_LOCAL_MEM_FENCE);\n    }",
         replace="#endif\n    }",
         bug="no barrier between C steps: the next step's input transform overwrites V while it is read (a race)"),
    dict(id="wino-fused-k-bound", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="if (tile >= tiles_total || k >= K) continue;",
         replace="if (tile >= tiles_total) continue;",
         bug="outputs of the padded K block past K are written (into the next image's or group's channels)"),
    dict(id="wino-fused-bottom-edge", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="if (oy0 + i >= P) break;\n                for (int j = 0; j < WINO_M; ++j)\n                    if (ox0 + j < Q)",
         replace="for (int j = 0; j < WINO_M; ++j)\n                    if (ox0 + j < Q)",
         bug="the ragged last tile row is written past P"),
    dict(id="wino-fused-slice-live", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="const bool live = tile < tiles_total && ch < c_end;",
         replace="const bool live = tile < tiles_total && ch < C;",
         bug="split C: a slice also sums the channels of the next slice",
         equivalent="equivalent: c_slice is a whole number of C steps (WinogradConfig::c_slice), so inside "
                    "the c0 loop ch < c_begin + c_slice holds for every slice but the last, whose c_end is C"),
    dict(id="wino-fused-c-step", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="for (int c0 = c_begin; c0 < c_end; c0 += BC) {",
         replace="for (int c0 = c_begin; c0 < c_end; c0 += BC + 1) {",
         bug="the walk over C skips a channel between C steps"),
    dict(id="wino-fused-ctail", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="const int csteps = min(BC, Cp - c0);",
         replace="const int csteps = min(BC, Cp - c0 - 1);",
         bug="C_TAIL drops the last chunk of channels"),
    dict(id="wino-reduce-first", area="winograd-fused", file="kernels_cl/winograd_fused.cl",
         find="for (int s = 0; s < splits; ++s) sum += part[s * split_stride + at];",
         replace="for (int s = 1; s < splits; ++s) sum += part[s * split_stride + at];",
         bug="the split-C reduction skips the first slice"),
    dict(id="wino-weights-c-bound", area="winograd-fused", file="kernels_cl/winograd_weights.cl",
         find="g[i][j] = (k < Kg && c < Cg) ?",
         replace="g[i][j] = (k < Kg) ?",
         bug="U's padded channels read weights past C (out of bounds on the last filter)"),

    # --- CONV2D_WINOGRAD separate transforms: kernels_cl/winograd_gemm.cl ---
    dict(id="wino-gemm-u-layout", area="winograd-gemm", file="kernels_cl/winograd_gemm.cl",
         find="u[((size_t)e * K + k) * C + c] = v[e / WINO_ALPHA][e % WINO_ALPHA];",
         replace="u[((size_t)e * C + c) * K + k] = v[e / WINO_ALPHA][e % WINO_ALPHA];",
         bug="U written as [e][C][K] where the GEMM reads [e][K][C] (wrong whenever K != C)"),
    dict(id="wino-gemm-bottom-pad", area="padding", file="kernels_cl/winograd_gemm.cl",
         find="const bool row_in = iy >= 0 && iy < H;",
         replace="const bool row_in = iy >= 0;",
         bug="rows below the image read the clamped last row instead of 0"),
    dict(id="wino-gemm-bias-offset", area="views", file="kernels_cl/winograd_gemm.cl",
         find="const float b = has_bias ? bias[bias_offset + k] : 0.0f;",
         replace="const float b = has_bias ? bias[k] : 0.0f;",
         bug="a bias given as a view at an offset into a caller's buffer is read from the buffer's start",
         equivalent="equivalent: Conv2d::set_weights copies a caller's weights and bias into netcl's own "
                    "buffers at offset 0 (device to device), so bias_offset is always 0 when the kernel runs"),
    dict(id="wino-gemm-x-offset", area="views", file="kernels_cl/winograd_gemm.cl",
         find="__global const float* xp = x + x_offset + ((size_t)n * C + c) * H * W;",
         replace="__global const float* xp = x + ((size_t)n * C + c) * H * W;",
         bug="an input given as a view at an offset into a caller's buffer is read from the buffer's start"),

    # --- Winograd matrices and the emitted prelude (host) -------------------
    dict(id="matrices-vandermonde", area="matrix generator", file="ops/winograd/WinogradMatrices.cpp",
         find="power(f, j) * power(g, b - 1 - j)",
         replace="power(f, j) * power(g, b - j)",
         bug="the Vandermonde rows of finite points lose their homogeneous factor (the point at infinity breaks)"),
    dict(id="prelude-sign", area="matrix generator", file="ops/winograd/WinogradSource.cpp",
         find='const std::string sign = c < 0 ? " - " : (sum.empty() ? "" : " + ");',
         replace='const std::string sign = c < 0 ? " + " : (sum.empty() ? "" : " + ");',
         bug="the emitted transform macros add negative coefficients instead of subtracting them"),

    # --- selector (host) ----------------------------------------------------
    dict(id="selector-priority", area="selector", file="selector/KernelSelector.cpp",
         find="return a->priority != b->priority ? a->priority > b->priority : a->handle > b->handle;",
         replace="return a->priority != b->priority ? a->priority < b->priority : a->handle > b->handle;",
         bug="framework rules tried lowest priority first"),
    dict(id="selector-tie-order", area="selector", file="selector/KernelSelector.cpp",
         find="return a->priority != b->priority ? a->priority > b->priority : a->handle > b->handle;",
         replace="return a->priority != b->priority ? a->priority > b->priority : a->handle < b->handle;",
         bug="rules of equal priority tried oldest first instead of newest first"),
    dict(id="selector-default-skipped", area="selector", file="selector/KernelSelector.cpp",
         find="if (const auto& kernel = default_kernel) {",
         replace="if (const auto& kernel = default_kernel; false && kernel) {",
         bug="the global default strategy is ignored"),

    # --- program cache key (host) -------------------------------------------
    dict(id="cache-disk-key-options", area="program cache", file="runtime/ProgramCache.cpp",
         find='return device_key_ + "|" + hex(hash(source)) + "|" + options;',
         replace='return device_key_ + "|" + hex(hash(source));',
         bug="the disk cache key leaves out the build options: a binary built with other -D values is loaded"),
    dict(id="cache-memory-key-options", area="program cache", file="runtime/ProgramCache.cpp",
         find='const std::string memory_key = hex(hash(source)) + "|" + options;',
         replace="const std::string memory_key = hex(hash(source));",
         bug="the in-memory cache key leaves out the build options"),

    # --- validation (host) --------------------------------------------------
    dict(id="validate-groups-k", area="validation", file="ops/ConvShapes.cpp",
         find="if (C % groups != 0 || K % groups != 0) {",
         replace="if (C % groups != 0) {",
         bug="K not divisible by groups is accepted"),
    dict(id="validate-pad-right", area="validation", file="ops/ConvShapes.cpp",
         find="if (pad_top < 0 || pad_left < 0 || pad_bottom < 0 || pad_right < 0) {",
         replace="if (pad_top < 0 || pad_left < 0 || pad_bottom < 0) {",
         bug="a negative right padding is accepted"),
    dict(id="shapes-asymmetric-p", area="padding", file="ops/ConvShapes.cpp",
         find="return (H + pad_top + pad_bottom - dilation_h",
         replace="return (H + pad_top + pad_top - dilation_h",
         bug="the output height uses the top padding twice (wrong only for asymmetric pads)"),
    dict(id="view-bounds", area="views", file="runtime/Tensor.cpp",
         find="if (offset_bytes > size || bytes > size - offset_bytes) {",
         replace="if (offset_bytes > size) {",
         bug="a view that runs past the end of the caller's buffer is accepted"),

    # --- weights, workspace, faults (host) ----------------------------------
    dict(id="reweight-ignored", area="weights", file="ops/Conv2d.cpp",
         find="if (prepared.weights_version != weights_version_) {",
         replace="if (prepared.weights_version == 0) {",
         bug="new weights after the first forward are never uploaded or transformed again"),
    dict(id="im2col-limit-ignored", area="workspace", file="ops/im2col/Im2colLayout.cpp",
         find="const std::size_t target = std::min(kIm2colPassBytes, limit_bytes);",
         replace="const std::size_t target = kIm2colPassBytes;",
         bug="IM2COL's images per pass ignore the workspace limit"),
    dict(id="oom-no-fallback", area="faults", file="ops/Conv2d.cpp",
         find="if (!out_of_memory || options_.strategy) throw Error(context, e);",
         replace="throw Error(context, e);",
         bug="an allocation failure is never answered by planning a strategy that needs less"),
]
