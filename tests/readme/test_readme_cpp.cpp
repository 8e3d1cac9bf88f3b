// The README's C++ blocks, compiled and run as written (extract_cpp_blocks.py
// turns each section's blocks into a function), then their results checked
// against the fp64 reference: a README example that stops compiling, or
// computes something else, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "netcl/netcl.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace {

using netcl::test::compare;
using netcl::test::shared_context;

// A framework's state, as the README's framework example assumes it: raw
// OpenCL handles, buffers with data at offsets, events that have completed.
struct ReadmeFixture {
    static constexpr std::int64_t N = 2, C = 5, H = 9, W = 7, K = 6, P = 9, Q = 7;
    std::shared_ptr<netcl::Context> own = shared_context();
    cl_context cl_ctx = own->cl_context()();
    cl_device_id cl_dev = own->device()();
    cl_command_queue cl_queue = own->queue()();

    std::vector<float> xh = netcl::random_uniform(N * C * H * W, 1), wh = netcl::random_uniform(K * C * 9, 2),
                       bh = netcl::random_uniform(K, 3), dyh = netcl::random_uniform(N * K * P * Q, 4),
                       dw0 = netcl::random_uniform(K * C * 9, 5), db0 = netcl::random_uniform(K, 6),
                       rh = netcl::random_uniform(N * K * P * Q, 7);
    // Offsets off zero, as views into a framework's pool are.
    std::size_t x_offset_bytes = 64, y_offset_bytes = 128, w_offset_bytes = 4, b_offset_bytes = 32,
                dy_offset_bytes = 256, dx_offset_bytes = 8, dw_offset_bytes = 16, db_offset_bytes = 0;
    cl::Buffer x_buf = buffer(x_offset_bytes, xh), y_buf = poisoned(y_offset_bytes, N * K * P * Q),
               w_buf = buffer(w_offset_bytes, wh), b_buf = buffer(b_offset_bytes, bh),
               dy_buf = buffer(dy_offset_bytes, dyh), dx_buf = poisoned(dx_offset_bytes, N * C * H * W),
               dw_buf = buffer(dw_offset_bytes, dw0), db_buf = buffer(db_offset_bytes, db0),
               ws_buf = cl::Buffer(own->cl_context(), CL_MEM_READ_WRITE, 1 << 20);
    cl_mem x_mem = x_buf(), y_mem = y_buf(), w_mem = w_buf(), b_mem = b_buf(), dy_mem = dy_buf(), dx_mem = dx_buf(),
           dw_mem = dw_buf(), db_mem = db_buf(), ws_mem = ws_buf();
    cl::Event weights_ready = completed(), input_ready = completed(), grad_ready = completed();

    // The standalone example's host data.
    std::vector<float> host = xh, weights = wh, bias = bh;

    netcl::ConvShapes shapes() const {
        netcl::ConvShapes s;
        s.N = N, s.C = C, s.H = H, s.W = W, s.K = K, s.R = 3, s.S = 3;
        s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
        s.bias = true;
        return s;
    }

    cl::Buffer buffer(std::size_t offset, const std::vector<float>& values) {
        cl::Buffer b(own->cl_context(), CL_MEM_READ_WRITE, offset + values.size() * 4);
        own->queue().enqueueWriteBuffer(b, CL_TRUE, offset, values.size() * 4, values.data());
        return b;
    }
    cl::Buffer poisoned(std::size_t offset, std::int64_t count) {
        return buffer(offset, std::vector<float>(count, std::numeric_limits<float>::quiet_NaN()));
    }
    cl::Event completed() {
        cl::UserEvent e(own->cl_context());
        e.setStatus(CL_COMPLETE);
        return e;
    }
    std::vector<float> read(const cl::Buffer& b, std::size_t offset, std::size_t count) {
        std::vector<float> v(count);
        own->queue().enqueueReadBuffer(b, CL_TRUE, offset, count * 4, v.data());
        return v;
    }

    void expect_close(const std::vector<float>& got, const std::vector<double>& expected, double tolerance,
                      const char* what) {
        const auto c = compare(got, expected);
        EXPECT_EQ(c.non_finite, 0u) << what;
        EXPECT_LE(c.max_abs_error, tolerance) << what << " at " << c.worst_index;
    }

    void check_framework(netcl::Conv2d& conv) {
        own->finish();
        const auto s = shapes();
        const double factor = conv.plan_for({N, C, H, W}).error_factor;
        expect_close(read(y_buf, y_offset_bytes, N * K * P * Q), netcl::reference_conv(s, xh, wh, bh),
                     netcl::conv_tolerance(s, factor), "README forward y");
        const double dx_factor = conv.plan_for({N, C, H, W}, netcl::ConvDirection::BACKWARD_DATA).error_factor;
        expect_close(read(dx_buf, dx_offset_bytes, N * C * H * W), netcl::reference_conv_backward_data(s, dyh, wh),
                     1e-6 * K * 9 * dx_factor, "README backward data dx");
        // beta = 1 in the README: the gradients land on what dw and db held.
        auto g = netcl::reference_conv_backward_weights(s, xh, dyh);
        for (std::size_t i = 0; i < g.dw.size(); ++i) g.dw[i] += dw0[i];
        for (std::size_t i = 0; i < g.db.size(); ++i) g.db[i] += db0[i];
        expect_close(read(dw_buf, dw_offset_bytes, K * C * 9), g.dw, 1e-6 * (N * P * Q + 1), "README dw (accumulated)");
        expect_close(read(db_buf, db_offset_bytes, K), g.db, 1e-6 * (N * P * Q + 1), "README db (accumulated)");
    }

    void check_standalone(const std::vector<float>& out, netcl::Conv2d& conv) {
        const double factor = conv.plan_for({N, C, H, W}).error_factor;
        expect_close(out, netcl::reference_conv(shapes(), xh, wh, bh), netcl::conv_tolerance(shapes(), factor),
                     "README standalone y");
    }

    void check_fused(const netcl::Tensor& y, netcl::Conv2d& conv) {
        auto s = shapes();
        s.post_ops = netcl::PostOps::relu().with_sum();
        const double factor = conv.plan_for({N, C, H, W}).error_factor;
        expect_close(y.to_host(), netcl::reference_post_ops(s.post_ops, netcl::reference_conv(s, xh, wh, bh), rh),
                     netcl::conv_tolerance(s, factor), "README fused y");
    }

    // The 3-D example: clips of D = 6 frames, 3x3x3 filters, padding 1.
    static constexpr std::int64_t D = 6;
    netcl::ConvShapes shapes_3d() const {
        netcl::ConvShapes s = shapes();
        s.spatial_rank = 3;
        s.D = D, s.T = 3, s.pad_front = s.pad_back = 1;
        s.bias = true;
        return s;
    }
    std::vector<float> clip_h = netcl::random_uniform(N * C * D * H * W, 8), w3h = netcl::random_uniform(K * C * 27, 9);
    void check_conv3d(const netcl::Tensor& out, netcl::Conv3d& conv) {
        const auto s = shapes_3d();
        EXPECT_EQ(out.shape(), s.output_shape());
        const double factor = conv.last_plan().error_factor;
        expect_close(out.to_host(), netcl::reference_conv(s, clip_h, w3h, bh), netcl::conv_tolerance(s, factor),
                     "README Conv3d y");
    }

    // The half example: x stored as halves 2 bytes into a framework's buffer.
    std::vector<float> x16h = rounded(xh);
    cl::Buffer x16_buf = halves(2, x16h);
    cl_mem x16_mem = x16_buf();
    static std::vector<float> rounded(std::vector<float> values) {
        for (float& v : values) v = netcl::round_to_half(v);
        return values;
    }
    cl::Buffer halves(std::size_t offset, const std::vector<float>& values) {
        std::vector<std::uint16_t> bits;
        for (const float v : values) bits.push_back(netcl::half_from_float(v));
        cl::Buffer b(own->cl_context(), CL_MEM_READ_WRITE, offset + bits.size() * 2);
        own->queue().enqueueWriteBuffer(b, CL_TRUE, offset, bits.size() * 2, bits.data());
        return b;
    }
    void check_half(const netcl::Tensor& y, netcl::Conv2d& conv) {
        auto s = shapes();
        s.dtype = netcl::DataType::FLOAT16;
        EXPECT_EQ(y.dtype(), netcl::DataType::FLOAT16);
        const auto expected = netcl::reference_conv(s, x16h, rounded(wh), rounded(bh));
        double largest = 0;
        for (const double e : expected) largest = std::max(largest, std::abs(e));
        // float32 arithmetic's tolerance, plus half's rounding of each output.
        expect_close(y.to_host(), expected,
                     netcl::conv_tolerance(s, conv.last_plan().error_factor) + largest * 0x1p-11, "README half y");
    }

    void check_choosing(netcl::KernelSelector& sel, std::size_t rules_before) {
        EXPECT_EQ(sel.rule_count(), rules_before) << "the README's rule was removed";
        EXPECT_EQ(netcl::default_conv_strategy(), netcl::Kernel::CONV2D_NAIVE);
        netcl::clear_default_conv_strategy();
    }
};

}  // namespace

// The names each section's blocks take from the framework around them, and the checks after them.
#define README_PROLOGUE_from_a_framework_its_context_queue_and_buffers                                      \
    auto cl_ctx = fixture.cl_ctx; auto cl_dev = fixture.cl_dev; auto cl_queue = fixture.cl_queue;          \
    auto N = fixture.N, C = fixture.C, H = fixture.H, W = fixture.W, K = fixture.K, P = fixture.P,          \
         Q = fixture.Q;                                                                                     \
    auto x_mem = fixture.x_mem, y_mem = fixture.y_mem, w_mem = fixture.w_mem, b_mem = fixture.b_mem,        \
         ws_mem = fixture.ws_mem, dy_mem = fixture.dy_mem, dx_mem = fixture.dx_mem, dw_mem = fixture.dw_mem, \
         db_mem = fixture.db_mem;                                                                           \
    auto x_offset_bytes = fixture.x_offset_bytes, y_offset_bytes = fixture.y_offset_bytes,                 \
         w_offset_bytes = fixture.w_offset_bytes, b_offset_bytes = fixture.b_offset_bytes,                 \
         dy_offset_bytes = fixture.dy_offset_bytes, dx_offset_bytes = fixture.dx_offset_bytes,             \
         dw_offset_bytes = fixture.dw_offset_bytes, db_offset_bytes = fixture.db_offset_bytes;             \
    auto weights_ready = fixture.weights_ready, input_ready = fixture.input_ready,                          \
         grad_ready = fixture.grad_ready;
#define README_EPILOGUE_from_a_framework_its_context_queue_and_buffers \
    ASSERT_LE(conv.workspace_bytes(x.shape()), std::size_t{1} << 20); (void)done; (void)d; (void)g; (void)dw; \
    (void)db; (void)y; fixture.check_framework(conv);
#define README_PROLOGUE_standalone                                                                 \
    auto N = fixture.N, C = fixture.C, H = fixture.H, W = fixture.W, K = fixture.K;                \
    const auto& host = fixture.host; const auto& weights = fixture.weights; const auto& bias = fixture.bias;
#define README_EPILOGUE_standalone fixture.check_standalone(out, conv);
#define README_PROLOGUE_fused_output_stage                                                          \
    auto ctx = fixture.own;                                                                         \
    auto N = fixture.N, C = fixture.C, H = fixture.H, W = fixture.W, K = fixture.K;                 \
    const auto& weights = fixture.weights; const auto& bias = fixture.bias;                         \
    auto x = netcl::Tensor::from_host(ctx, fixture.xh, {N, C, H, W});                               \
    auto r = netcl::Tensor::from_host(ctx, fixture.rh, {N, K, H, W});
#define README_EPILOGUE_fused_output_stage fixture.check_fused(y, fused);
#define README_PROLOGUE_3_d_convolution                                                            \
    auto ctx = fixture.own;                                                                         \
    auto N = fixture.N, C = fixture.C, D = fixture.D, H = fixture.H, W = fixture.W, K = fixture.K;  \
    const auto& weights_3d = fixture.w3h; const auto& bias = fixture.bh;                            \
    auto clip = netcl::Tensor::from_host(ctx, fixture.clip_h, {N, C, D, H, W});
#define README_EPILOGUE_3_d_convolution fixture.check_conv3d(clip_out, conv3d);
#define README_PROLOGUE_half_precision_float16_storage                                              \
    auto ctx = fixture.own;                                                                         \
    auto N = fixture.N, C = fixture.C, H = fixture.H, W = fixture.W, K = fixture.K;                 \
    const auto& weights = fixture.wh; const auto& bias = fixture.bh; auto x16_mem = fixture.x16_mem;
#define README_EPILOGUE_half_precision_float16_storage fixture.check_half(y16, half_conv);
#define README_PROLOGUE_choosing_the_strategy                                              \
    auto ctx = fixture.own; auto shapes = fixture.shapes();                                \
    const std::size_t rules_before = netcl::KernelSelector::global().rule_count();
#define README_EPILOGUE_choosing_the_strategy fixture.check_choosing(sel, rules_before);

#include "readme_blocks.inc"

TEST(Readme, FrameworkPathRunsAsWrittenAndComputesTheConvolutionAndItsGradients) {
    ReadmeFixture fixture;
    readme_from_a_framework_its_context_queue_and_buffers(fixture);
}

TEST(Readme, StandaloneExampleRunsAsWritten) {
    ReadmeFixture fixture;
    readme_standalone(fixture);
}

TEST(Readme, ChoosingTheStrategyRunsAsWritten) {
    ReadmeFixture fixture;
    readme_choosing_the_strategy(fixture);
}

TEST(Readme, HalfPrecisionExampleRunsAsWrittenInHalf) {
    ReadmeFixture fixture;
    readme_half_precision_float16_storage(fixture);
}

TEST(Readme, Conv3dExampleRunsAsWritten) {
    ReadmeFixture fixture;
    readme_3_d_convolution(fixture);
}

TEST(Readme, FusedOutputStageRunsAsWrittenAndAppliesItsPostOps) {
    ReadmeFixture fixture;
    readme_fused_output_stage(fixture);
}
