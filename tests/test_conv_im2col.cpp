// IM2COL (im2col kernel + CLBlast GemmBatched) against the fp64 reference:
// the edge-case table, 200 random small shapes (fixed seed), passes of fewer
// images under a small workspace limit, and the workspace it reports.
// Tolerance: conv_tolerance(shapes) = 1e-6 x (C/groups·R·S + bias), see
// ops/ReferenceConv.hpp; CLBlast's blocked summation order stays well inside it.
#include <gtest/gtest.h>

#include <random>

#include "ops/Implementations.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/internal/ClblastStatus.hpp"
#include "netcl/Error.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

TEST(ConvIm2col, EdgeCaseShapesMatchReference) {
    std::uint64_t seed = 200;
    const DeviceProfile& profile = shared_context()->profile();
    for (const ConvShapes& s : edge_case_shapes()) {
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, std::nullopt, seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.kernel, Kernel::IM2COL) << s.str();
        EXPECT_EQ(r.workspace_bytes, implementation_of("im2col-clblast").workspace_bytes("im2col-clblast", s, profile)) << s.str();
    }
}

TEST(ConvIm2col, RandomSmallShapesMatchReference) {
    std::mt19937_64 rng(20261123);
    for (int i = 0; i < 200; ++i) {
        const ConvShapes s = random_small_shape(rng);
        const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, std::nullopt, 3000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
}

TEST(ConvIm2col, WorkspaceIsOneImagesColumnsPerPassUnderASmallLimit) {
    ConvShapes s;
    s.N = 3, s.C = 4, s.H = 13, s.W = 7, s.K = 6, s.R = 3, s.S = 3, s.set_padding(1), s.groups = 2, s.bias = true;
    const std::size_t per_image = static_cast<std::size_t>(s.C * s.R * s.S * s.P() * s.Q()) * sizeof(float);
    const Im2colLayout whole = im2col_layout(s);
    EXPECT_FALSE(whole.direct);
    EXPECT_EQ(whole.columns_per_image_bytes, per_image);
    EXPECT_EQ(whole.images_per_pass, 3);
    EXPECT_EQ(whole.workspace_bytes, 3 * per_image);

    // A limit of 1.5 images' columns: one image per pass, three passes.
    ConvCaseOptions options;
    options.strategy = Kernel::IM2COL;
    options.workspace_limit_bytes = per_image + per_image / 2;
    options.seed = 11;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_EQ(r.workspace_bytes, per_image);
}

TEST(ConvIm2col, OneByOneUnpaddedLayersNeedNoWorkspace) {
    ConvShapes s;
    s.N = 3, s.C = 12, s.H = 7, s.W = 13, s.K = 10, s.R = 1, s.S = 1, s.groups = 2, s.bias = true;
    const ConvCaseResult r = run_conv_case(s, Kernel::IM2COL, std::nullopt, 12);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_EQ(r.workspace_bytes, 0u);
    EXPECT_TRUE(im2col_layout(s).direct);
}

TEST(ConvIm2col, ClblastFailuresNameTheStatus) {
    try {
        internal::check_clblast(clblast::StatusCode::kInvalidLeadDimB, "a GEMM");
        ADD_FAILURE() << "expected a netcl::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("a GEMM failed"), std::string::npos) << message;
        EXPECT_NE(message.find("kInvalidLeadDimB (-1015)"), std::string::npos) << message;
    }
    EXPECT_NE(internal::clblast_status_name(clblast::StatusCode::kOpenCLOutOfResources).find("CL_OUT_OF_RESOURCES"),
              std::string::npos);
    EXPECT_NO_THROW(internal::check_clblast(clblast::StatusCode::kSuccess, "a GEMM"));
}

TEST(ConvIm2col, LargerLayerMatchesSampledReference) {
    // A VGG-like layer, checked on 2000 sampled outputs (plus a scan of all
    // outputs for NaN poison) the way netcl-bench checks full-size layers.
    const ConvCaseResult r = run_sampled_vgg_like_case(Kernel::IM2COL, 42);
    EXPECT_TRUE(r.passed()) << describe(sampled_vgg_like_shape(), r);
    EXPECT_EQ(r.compared, 2000u);
}

}  // namespace
}  // namespace netcl::test
