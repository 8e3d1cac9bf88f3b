// Tensor round trips and the size checks made before any allocation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "netcl/Error.hpp"
#include "netcl/Tensor.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

class TensorRoundTrip : public ::testing::TestWithParam<Tensor::Shape> {};

TEST_P(TensorRoundTrip, ReturnsExactlyWhatWasSent) {
    const auto shape = GetParam();
    const std::size_t numel = checked_numel(shape);
    const auto host = test::random_uniform(numel, 17 + numel);
    const auto tensor = Tensor::from_host(test::shared_context(), host, shape);
    EXPECT_EQ(tensor.numel(), numel);
    EXPECT_EQ(tensor.shape(), shape);
    EXPECT_EQ(tensor.bytes(), numel * sizeof(float));
    EXPECT_EQ(tensor.to_host(), host);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TensorRoundTrip,
                         ::testing::Values(Tensor::Shape{1}, Tensor::Shape{7}, Tensor::Shape{3, 5},
                                           Tensor::Shape{1, 1, 1, 1}, Tensor::Shape{2, 3, 13, 27},
                                           Tensor::Shape{8, 16, 7, 7}, Tensor::Shape{2, 3, 4, 5, 6}));

TEST(Tensor, FillPoisonsEveryElement) {
    auto tensor = Tensor::from_host(test::shared_context(), test::random_uniform(3 * 7 * 9, 5), {3, 7, 9});
    tensor.fill(std::numeric_limits<float>::quiet_NaN());
    for (const float v : tensor.to_host()) ASSERT_TRUE(std::isnan(v));
}

TEST(Tensor, EmptyHasTheShapeAsked) {
    const auto tensor = Tensor::empty(test::shared_context(), {2, 4, 6, 8});
    EXPECT_EQ(tensor.numel(), 384u);
    EXPECT_EQ(tensor.dim(3), 8);
    EXPECT_THROW(tensor.dim(4), Error);
}

struct BadShape {
    Tensor::Shape shape;
    const char* expected_text;
};

class TensorRejects : public ::testing::TestWithParam<BadShape> {};

TEST_P(TensorRejects, BeforeAllocating) {
    const auto& [shape, expected_text] = GetParam();
    try {
        Tensor::empty(test::shared_context(), shape);
        FAIL() << "shape " << shape_string(shape) << " was accepted";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find(expected_text), std::string::npos) << error.what();
    }
}

constexpr std::int64_t kHuge = std::int64_t{1} << 62;

INSTANTIATE_TEST_SUITE_P(
    Shapes, TensorRejects,
    ::testing::Values(BadShape{{}, "expected rank 1 to 5"}, BadShape{{1, 2, 3, 4, 5, 6}, "expected rank 1 to 5"},
                      BadShape{{4, 0, 3}, "expected every dimension >= 1"},
                      BadShape{{2, -3, 5}, "expected every dimension >= 1"},
                      BadShape{{kHuge, 4}, "size_t"}, BadShape{{kHuge, kHuge, kHuge}, "size_t"},
                      // Fits size_t but no device allows it in one allocation.
                      BadShape{{std::int64_t{1} << 40, 16}, "in one allocation"}));

TEST(Tensor, HostCountMustMatchTheShape) {
    const std::vector<float> host(11, 0.5f);
    EXPECT_THROW(Tensor::from_host(test::shared_context(), host, {3, 4}), Error);
}

TEST(Tensor, RefusesMoreThanTheDeviceAllocationLimit) {
    const auto ctx = test::shared_context();
    const std::int64_t too_many = static_cast<std::int64_t>(ctx->profile().max_alloc_bytes / sizeof(float)) + 1;
    try {
        Tensor::empty(ctx, {too_many});
        FAIL() << "an allocation above CL_DEVICE_MAX_MEM_ALLOC_SIZE was accepted";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("at most"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace netcl
