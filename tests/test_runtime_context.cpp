// Device discovery and NETCL_DEVICE selection.
#include <gtest/gtest.h>

#include <cstdlib>

#include "netcl/Context.hpp"
#include "netcl/Error.hpp"

namespace netcl {
namespace {

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return error.what();
    }
    return "<no error>";
}

TEST(Context, DiscoversAtLeastOneDeviceWithAProfile) {
    const auto entries = Context::devices();
    ASSERT_FALSE(entries.empty());
    for (const auto& e : entries) {
        EXPECT_FALSE(e.profile.name.empty());
        EXPECT_GT(e.profile.compute_units, 0u);
        EXPECT_GT(e.profile.local_mem_bytes, 0u);
        EXPECT_GT(e.profile.max_alloc_bytes, 0u);
        EXPECT_GT(e.profile.max_constant_buffer_bytes, 0u);
        EXPECT_GT(e.profile.max_work_group_size, 0u);
    }
}

TEST(Context, DefaultPrefersGpuThenCpu) {
    const auto entries = Context::devices();
    const auto chosen = entries[Context::default_index(entries)].profile.type;
    bool any_gpu = false;
    for (const auto& e : entries) any_gpu |= e.profile.type == DeviceType::GPU;
    EXPECT_EQ(chosen, any_gpu ? DeviceType::GPU : DeviceType::CPU);
}

TEST(Context, SelectsByIndex) {
    const auto entries = Context::devices();
    const auto& last = entries.back();
    EXPECT_EQ(Context::pick(entries, last.id()), entries.size() - 1);
    auto ctx = Context::create(last.id());
    EXPECT_EQ(ctx->device_id(), last.id());
    EXPECT_EQ(ctx->profile().name, last.profile.name);
    EXPECT_GT(ctx->profile().preferred_work_group_multiple, 0u);
}

TEST(Context, SelectsByCaseInsensitiveSubstring) {
    const auto entries = Context::devices();
    const std::string name = entries.front().profile.name;
    std::string shouted = name.substr(0, std::min<std::size_t>(name.size(), 6));
    for (auto& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto index = Context::pick(entries, shouted);
    EXPECT_NE(entries[index].profile.name.find(name.substr(0, shouted.size())), std::string::npos);
}

TEST(Context, HonoursTheEnvironmentVariable) {
    const auto entries = Context::devices();
    ::setenv("NETCL_DEVICE", entries.back().id().c_str(), 1);
    auto ctx = Context::create();
    ::unsetenv("NETCL_DEVICE");
    EXPECT_EQ(ctx->device_id(), entries.back().id());
}

TEST(Context, NoMatchListsTheDevices) {
    const auto entries = Context::devices();
    const std::string message = error_of([&] { Context::pick(entries, "no-such-device-xyz"); });
    EXPECT_NE(message.find("no-such-device-xyz"), std::string::npos) << message;
    EXPECT_NE(message.find(entries.front().profile.name), std::string::npos) << message;
    EXPECT_NE(message.find("0:0"), std::string::npos) << message;
}

TEST(Context, OutOfRangeIndexIsAnError) {
    const auto entries = Context::devices();
    const std::string message = error_of([&] { Context::create("97:3"); });
    EXPECT_NE(message.find("97:3"), std::string::npos) << message;
    EXPECT_NE(message.find(entries.front().id()), std::string::npos) << message;
}

TEST(Error, NamesTheOpenCLError) {
    EXPECT_EQ(cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    EXPECT_EQ(cl_error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
    EXPECT_EQ(cl_error_name(-9999), "CL_UNKNOWN_ERROR(-9999)");
    const Error error("enqueueing a kernel", CL_INVALID_WORK_GROUP_SIZE, "global 7, local 4");
    EXPECT_EQ(error.cl_status(), CL_INVALID_WORK_GROUP_SIZE);
    EXPECT_NE(std::string(error.what()).find("CL_INVALID_WORK_GROUP_SIZE"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("enqueueing a kernel"), std::string::npos);
}

TEST(Error, RequireCarriesTheExpression) {
    const std::string message = error_of([] {
        const int channels = 3;
        NETCL_REQUIRE(channels == 4, "expected 4 channels");
    });
    EXPECT_NE(message.find("expected 4 channels"), std::string::npos);
    EXPECT_NE(message.find("channels == 4"), std::string::npos);
}

}  // namespace
}  // namespace netcl
