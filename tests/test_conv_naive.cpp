// CONV2D_NAIVE against the fp64 reference: the edge-case table and 200 random
// small shapes (fixed seed). Tolerance: conv_tolerance(shapes) =
// 1e-6 x (C/groups·R·S + bias), see ops/ReferenceConv.hpp.
#include <gtest/gtest.h>

#include <random>

#include "tests/support/ConvCase.hpp"

namespace netcl::test {
namespace {

TEST(ConvNaive, EdgeCaseShapesMatchReference) {
    std::uint64_t seed = 100;
    for (const ConvShapes& s : edge_case_shapes()) {
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, std::nullopt, seed++);
        EXPECT_TRUE(r.passed()) << describe(s, r);
        EXPECT_EQ(r.plan.kernel, Kernel::CONV2D_NAIVE) << s.str();
        EXPECT_EQ(r.workspace_bytes, 0u) << s.str();
    }
}

TEST(ConvNaive, RandomSmallShapesMatchReference) {
    std::mt19937_64 rng(20261122);
    for (int i = 0; i < 200; ++i) {
        const ConvShapes s = random_small_shape(rng);
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, std::nullopt, 1000 + i);
        ASSERT_TRUE(r.passed()) << "random shape #" << i << ": " << describe(s, r);
    }
}

TEST(ConvNaive, BiasIsAddedOncePerOutputChannel) {
    // The same layer with and without bias must differ by exactly the bias:
    // checked through the reference, which the previous tests tie the kernel to.
    ConvShapes s;
    s.N = 3, s.C = 5, s.H = 7, s.W = 13, s.K = 6, s.R = 3, s.S = 3, s.set_padding(1);
    for (const bool bias : {false, true}) {
        s.bias = bias;
        const ConvCaseResult r = run_conv_case(s, Kernel::CONV2D_NAIVE, std::nullopt, 7);
        EXPECT_TRUE(r.passed()) << describe(s, r);
    }
}

TEST(ConvNaive, LargerLayerMatchesSampledReference) {
    // A VGG-like layer, checked on 2000 sampled outputs (plus a scan of all
    // outputs for NaN poison) the way netcl-bench checks full-size layers.
    const ConvCaseResult r = run_sampled_vgg_like_case(Kernel::CONV2D_NAIVE, 41);
    EXPECT_TRUE(r.passed()) << describe(sampled_vgg_like_shape(), r);
    EXPECT_EQ(r.compared, 2000u);
}

}  // namespace
}  // namespace netcl::test
