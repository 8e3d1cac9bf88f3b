// The program cache: in-memory hits, binaries loaded from disk by a second
// process, corrupt files rebuilt, build failures carrying the compiler's log.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "netcl/Context.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"
#include "netcl/Tensor.hpp"

namespace netcl {
namespace {

namespace fs = std::filesystem;

// A source no earlier run has cached: the nonce makes its hash new.
std::string fresh_source(const std::string& nonce) {
    return "// nonce " + nonce +
           "\n__kernel void scale(__global float* x, float a) {\n"
           "    const size_t i = get_global_id(0);\n"
           "    x[i] = a * x[i] + sin((float)i) * 0.0f;\n"
           "}\n";
}

std::string unique_nonce() {
    return std::to_string(::getpid()) + "-" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Stats since `base`: a new Context already built (or loaded) its probe kernel.
ProgramCache::Stats since(const ProgramCache::Stats& now, const ProgramCache::Stats& base) {
    ProgramCache::Stats d;
    d.memory_hits = now.memory_hits - base.memory_hits;
    d.disk_hits = now.disk_hits - base.disk_hits;
    d.builds = now.builds - base.builds;
    d.corrupt_files = now.corrupt_files - base.corrupt_files;
    d.build_ms = now.build_ms - base.build_ms;
    d.disk_load_ms = now.disk_load_ms - base.disk_load_ms;
    return d;
}

// Each test gets its own cache directory; ProgramCache reads it when a Context is made.
class ProgramCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("netcl-cache-test-" + unique_nonce());
        ::setenv("NETCL_CACHE_DIR", dir_.c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("NETCL_CACHE_DIR");
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
    }
    // The program runs: scale by 2 and read back.
    static void expect_program_works(const std::shared_ptr<Context>& ctx, const cl::Program& program) {
        cl_int status = CL_SUCCESS;
        cl::Kernel kernel(program, "scale", &status);
        ASSERT_EQ(status, CL_SUCCESS);
        auto x = Tensor::from_host(ctx, std::vector<float>{1, -2, 3, 0.5f}, {4});
        kernel.setArg(0, x.buffer());
        kernel.setArg(1, 2.0f);
        ASSERT_EQ(ctx->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(4)), CL_SUCCESS);
        EXPECT_EQ(x.to_host(), (std::vector<float>{2, -4, 6, 1}));
    }
    fs::path dir_;
};

TEST_F(ProgramCacheTest, SecondRequestIsAMemoryHit) {
    auto ctx = Context::create();
    const auto base = ctx->programs().stats();
    const std::string source = fresh_source(unique_nonce());
    const auto first = ctx->programs().get_source("scale", source, "-cl-mad-enable");
    const auto second = ctx->programs().get_source("scale", source, "-cl-mad-enable");
    const auto stats = since(ctx->programs().stats(), base);
    EXPECT_EQ(stats.builds, 1u);
    EXPECT_EQ(stats.memory_hits, 1u);
    EXPECT_EQ(first(), second());
    // Other options are another program.
    ctx->programs().get_source("scale", source, "");
    EXPECT_EQ(since(ctx->programs().stats(), base).builds, 2u);
    expect_program_works(ctx, second);
}

TEST_F(ProgramCacheTest, ANewContextLoadsTheBinaryFromDisk) {
    const std::string source = fresh_source(unique_nonce());
    {
        auto ctx = Context::create();
        const auto base = ctx->programs().stats();
        ctx->programs().get_source("scale", source);
        EXPECT_EQ(since(ctx->programs().stats(), base).builds, 1u);
        EXPECT_TRUE(fs::exists(ctx->programs().disk_path(source, "")));
    }
    auto ctx = Context::create();
    const auto base = ctx->programs().stats();
    const auto program = ctx->programs().get_source("scale", source);
    const auto stats = since(ctx->programs().stats(), base);
    EXPECT_EQ(stats.builds, 0u);
    EXPECT_EQ(stats.disk_hits, 1u);
    expect_program_works(ctx, program);
}

// Run in a child process by the test below; on its own it checks that exactly
// one of build or load happened.
TEST(ProgramCacheChild, LoadsWhatTheParentBuilt) {
    const char* source_nonce = std::getenv("NETCL_TEST_NONCE");
    auto ctx = Context::create();
    const auto base = ctx->programs().stats();
    const auto program = ctx->programs().get_source("scale", fresh_source(source_nonce ? source_nonce : unique_nonce()));
    const auto stats = since(ctx->programs().stats(), base);
    if (source_nonce) {
        EXPECT_EQ(stats.builds, 0u);
        EXPECT_EQ(stats.disk_hits, 1u);
        std::printf("child process: loaded from disk in %.1f ms\n", stats.disk_load_ms);
    } else {
        EXPECT_EQ(stats.builds + stats.disk_hits, 1u);
    }
    cl_int status = CL_SUCCESS;
    cl::Kernel kernel(program, "scale", &status);
    EXPECT_EQ(status, CL_SUCCESS);
}

TEST_F(ProgramCacheTest, ASecondProcessLoadsTheBinaryFromDisk) {
    const std::string nonce = unique_nonce();
    auto ctx = Context::create();
    const auto base = ctx->programs().stats();
    ctx->programs().get_source("scale", fresh_source(nonce));
    const auto stats = since(ctx->programs().stats(), base);
    const double build_ms = stats.build_ms;
    ASSERT_EQ(stats.builds, 1u);

    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::string command = "NETCL_TEST_NONCE=" + nonce + " '" + self +
                                "' --gtest_filter=ProgramCacheChild.LoadsWhatTheParentBuilt --gtest_brief=1";
    std::printf("parent process: built in %.1f ms\n", build_ms);
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

TEST_F(ProgramCacheTest, ACorruptFileIsDeletedAndRebuilt) {
    const std::string source = fresh_source(unique_nonce());
    std::string path;
    {
        auto ctx = Context::create();
        ctx->programs().get_source("scale", source);
        path = ctx->programs().disk_path(source, "");
    }
    ASSERT_TRUE(fs::exists(path));
    // Flip bytes in the middle of the payload: the checksum no longer matches.
    {
        std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(static_cast<std::streamoff>(fs::file_size(path) / 2));
        file.write("\x13\x37\x13\x37", 4);
    }
    auto ctx = Context::create();
    const auto base = ctx->programs().stats();
    const auto program = ctx->programs().get_source("scale", source);
    const auto stats = since(ctx->programs().stats(), base);
    EXPECT_EQ(stats.corrupt_files, 1u);
    EXPECT_EQ(stats.builds, 1u);
    EXPECT_TRUE(fs::exists(path)) << "the rebuilt binary is stored again";
    expect_program_works(ctx, program);
}

TEST_F(ProgramCacheTest, ATruncatedFileIsDeletedAndRebuilt) {
    const std::string source = fresh_source(unique_nonce());
    std::string path;
    {
        auto ctx = Context::create();
        ctx->programs().get_source("scale", source);
        path = ctx->programs().disk_path(source, "");
    }
    fs::resize_file(path, 12);
    auto ctx = Context::create();
    const auto base = ctx->programs().stats();
    const auto program = ctx->programs().get_source("scale", source);
    EXPECT_EQ(since(ctx->programs().stats(), base).corrupt_files, 1u);
    EXPECT_EQ(since(ctx->programs().stats(), base).builds, 1u);
    expect_program_works(ctx, program);
}

// An empty file and a directory where the entry's file belongs: each reads as a corrupt entry, is removed
// and the program built and stored again (the load takes its size from the open file, and a directory
// opens too: its "end" is no size).
TEST_F(ProgramCacheTest, AnEmptyFileOrADirectoryInTheEntrysPlaceIsRemovedAndRebuilt) {
    for (const bool directory : {false, true}) {
        const std::string source = fresh_source(unique_nonce());
        std::string path;
        {
            auto ctx = Context::create();
            path = ctx->programs().disk_path(source, "");
        }
        fs::create_directories(fs::path(path).parent_path());
        if (directory) {
            fs::create_directory(path);
        } else {
            std::ofstream(path, std::ios::binary).close();
        }
        auto ctx = Context::create();
        const auto base = ctx->programs().stats();
        const auto program = ctx->programs().get_source("scale", source);
        const auto stats = since(ctx->programs().stats(), base);
        EXPECT_EQ(stats.corrupt_files, 1u) << (directory ? "directory" : "empty file");
        EXPECT_EQ(stats.builds, 1u) << (directory ? "directory" : "empty file");
        EXPECT_TRUE(fs::is_regular_file(path)) << "the rebuilt binary is stored in its place";
        expect_program_works(ctx, program);
    }
}

TEST_F(ProgramCacheTest, ABuildFailureCarriesTheLog) {
    auto ctx = Context::create();
    try {
        ctx->programs().get_source("broken", "__kernel void broken(__global float* x) { x[0] = undefined_name; }");
        FAIL() << "a program with an undefined name built";
    } catch (const Error& error) {
        EXPECT_EQ(error.cl_status(), CL_BUILD_PROGRAM_FAILURE);
        EXPECT_NE(error.build_log().find("undefined_name"), std::string::npos) << error.build_log();
        EXPECT_NE(std::string(error.what()).find("broken"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos);
    }
}

TEST_F(ProgramCacheTest, UnknownEmbeddedSourceListsTheKnownOnes) {
    auto ctx = Context::create();
    try {
        ctx->programs().get("no_such_kernel_file");
        FAIL();
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("probe"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace netcl
