// The disk program cache in a hostile place: a directory that cannot be
// created or written, a full disk, a file replaced under a running process,
// and 20 processes racing on a cold cache. Every process still gets right
// answers, warnings name the path, and the cache ends consistent (no partial
// files, every entry loads).
//
// The processes are this test program run again with a filter for
// CacheChild.RunsTwoLayers, which checks its own answers against the fp64
// reference and exits non-zero when one is wrong.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "netcl/Conv2d.hpp"
#include "netcl/Context.hpp"
#include "runtime/ProgramCache.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

namespace fs = std::filesystem;

// Two layers, two programs of netcl's own: naive and F(2x2) fused Winograd.
void run_two_layers_and_check(const std::shared_ptr<Context>& ctx) {
    ConvShapes s;
    s.N = 2, s.C = 4, s.H = 7, s.W = 6, s.K = 5, s.R = 3, s.S = 3, s.bias = true;
    s.set_padding(1);
    const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 3);
    const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 4);
    const auto b = random_uniform(static_cast<std::size_t>(s.K), 5);
    const auto expected = reference_conv(s, x, w, b);
    for (const char* id : {"naive", "wino-f2-fused-global"}) {
        Conv2dOptions o = Conv2dOptions::for_shapes(s);
        o.variant = Variant{id};
        o.strategy = std::string(id) == "naive" ? Kernel::CONV2D_NAIVE : Kernel::CONV2D_WINOGRAD;
        Conv2d conv(ctx, o);
        conv.set_weights(w, b);
        const auto y = conv.forward(Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W})).to_host();
        const auto cmp = test::compare(y, expected);
        EXPECT_EQ(cmp.non_finite, 0u) << id;
        EXPECT_LE(cmp.max_abs_error, conv_tolerance(s, tolerance_factor(Variant{id}))) << id;
    }
}

// The child: NETCL_CACHE_DIR is the parent's.
TEST(CacheChild, RunsTwoLayers) {
    auto ctx = Context::create();
    run_two_layers_and_check(ctx);
    const auto stats = ctx->programs().stats();
    std::printf("child: %llu built, %llu loaded, %llu unusable files\n",
                static_cast<unsigned long long>(stats.builds), static_cast<unsigned long long>(stats.disk_hits),
                static_cast<unsigned long long>(stats.corrupt_files));
}

struct Child {
    int exit_code = -1;
    std::string output;
};

std::string child_command(const std::string& cache_dir, const std::string& extra_env = "") {
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    return "NETCL_CACHE_DIR='" + cache_dir + "' " + extra_env + " '" + self +
           "' --gtest_filter=CacheChild.RunsTwoLayers --gtest_brief=1 2>&1";
}

Child finish(FILE* pipe) {
    Child child;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) child.output += buffer;
    const int status = ::pclose(pipe);
    child.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return child;
}

Child run_child(const std::string& cache_dir, const std::string& extra_env = "") {
    FILE* pipe = ::popen(child_command(cache_dir, extra_env).c_str(), "r");
    if (!pipe) return {};
    return finish(pipe);
}

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() /
                         ("netcl-cache-" + name + "-" + std::to_string(::getpid()) + "-" +
                          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::remove_all(dir);
    return dir;
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& suffix_or_part) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::exists(dir / "programs", ec)) return out;
    for (const auto& entry : fs::directory_iterator(dir / "programs")) {
        if (entry.path().filename().string().find(suffix_or_part) != std::string::npos) out.push_back(entry.path());
    }
    return out;
}

// The directory cannot be made: under /proc nobody, root included, can create
// one; and a cache directory whose "programs" is a regular file.
TEST(CacheHostile, ADirectoryThatCannotBeCreatedWarnsWithThePathAndBuilds) {
    const std::string impossible = "/proc/self/netcl-cache";
    const Child child = run_child(impossible);
    EXPECT_EQ(child.exit_code, 0) << child.output;
    EXPECT_NE(child.output.find("cannot create the program cache directory " + impossible), std::string::npos)
        << child.output;

    const fs::path dir = fresh_dir("blocked");
    fs::create_directories(dir);
    std::ofstream(dir / "programs") << "not a directory";
    const Child blocked = run_child(dir.string());
    EXPECT_EQ(blocked.exit_code, 0) << blocked.output;
    EXPECT_NE(blocked.output.find("cannot create the program cache directory " + (dir / "programs").string()),
              std::string::npos)
        << blocked.output;
    fs::remove_all(dir);
}

// A directory the process may not write to (as root, permissions do not stop
// writes, so this runs only for other users, and says so).
TEST(CacheHostile, AReadOnlyDirectoryWarnsWithThePathAndBuilds) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "running as root: a mode 0555 directory is still writable; the /proc case above covers "
                        "a directory that cannot be written";
    }
    const fs::path dir = fresh_dir("readonly");
    fs::create_directories(dir / "programs");
    fs::permissions(dir / "programs", fs::perms::owner_read | fs::perms::owner_exec);
    const Child child = run_child(dir.string());
    fs::permissions(dir / "programs", fs::perms::owner_all);
    EXPECT_EQ(child.exit_code, 0) << child.output;
    EXPECT_NE(child.output.find("cannot write the program cache file " + (dir / "programs").string()),
              std::string::npos)
        << child.output;
    fs::remove_all(dir);
}

// A full disk: the cache directory is a 12 KiB tmpfs, mounted in a mount
// namespace of the child's own (unshare), so every cache file (tens of KiB)
// fails part-way with ENOSPC while the driver's own files elsewhere are
// written as usual. (A file-size rlimit would not do: PoCL's LLVM aborts the
// process when its own writes fail.) Warnings name the file, the answers are
// right, and no partial file is left behind.
TEST(CacheHostile, AFullDiskLeavesNoPartialFileAndBuilds) {
    const std::string unshare = ::geteuid() == 0 ? "unshare --mount" : "unshare --mount --map-root-user";
    if (std::system((unshare + " true 2>/dev/null").c_str()) != 0) {
        GTEST_SKIP() << "'" << unshare << "' is not allowed here, so no private tmpfs can stand in for a full disk";
    }
    const fs::path dir = fresh_dir("full");
    fs::create_directories(dir);
    const fs::path listing = dir.string() + ".listing";
    const std::string inner = "mount -t tmpfs -o size=12k tmpfs '" + dir.string() + "' && " +
                              child_command(dir.string()) + "; rc=$?; ls -a '" + dir.string() +
                              "/programs' > '" + listing.string() + "' 2>&1; exit $rc";
    FILE* pipe = ::popen((unshare + " sh -c \"" + inner + "\" 2>&1").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    const Child child = finish(pipe);
    EXPECT_EQ(child.exit_code, 0) << child.output;
    EXPECT_NE(child.output.find("could not write the program cache file " + (dir / "programs").string()),
              std::string::npos)
        << child.output;
    std::ifstream in(listing);
    const std::string left((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(left.find(".tmp"), std::string::npos) << "a partial file was left behind:\n" << left;
    EXPECT_EQ(left.find(".bin"), std::string::npos) << "a file was stored though no write succeeded:\n" << left;
    fs::remove_all(dir);
    fs::remove(listing);
}

// A cache file replaced while a process runs: with garbage, and with another
// entry's valid file (copied over it). The running Context keeps its programs;
// a new one refuses both files, saying why, rebuilds and stores them again.
TEST(CacheHostile, AFileReplacedUnderARunningProcessIsRefusedAndRebuilt) {
    const fs::path dir = fresh_dir("replaced");
    ::setenv("NETCL_CACHE_DIR", dir.c_str(), 1);
    auto running = Context::create();
    run_two_layers_and_check(running);
    auto entries = files_in(dir, ".bin");
    ASSERT_GE(entries.size(), 3u) << "probe, naive and Winograd programs";
    // One file becomes another entry's; another becomes garbage.
    fs::copy_file(entries[1], entries[0], fs::copy_options::overwrite_existing);
    std::ofstream(entries[2], std::ios::binary | std::ios::trunc) << "garbage";

    run_two_layers_and_check(running);  // the running process is not affected
    const auto before = running->programs().stats();
    EXPECT_EQ(before.corrupt_files, 0u);

    auto fresh = Context::create();
    run_two_layers_and_check(fresh);
    const auto stats = fresh->programs().stats();
    EXPECT_EQ(stats.corrupt_files, 2u) << "the copied file and the garbage must both be refused";
    EXPECT_EQ(stats.builds, 2u);
    // Stored again, whole: a third Context loads everything.
    auto third = Context::create();
    run_two_layers_and_check(third);
    EXPECT_EQ(third->programs().stats().corrupt_files, 0u);
    EXPECT_EQ(third->programs().stats().builds, 0u);
    ::unsetenv("NETCL_CACHE_DIR");
    fs::remove_all(dir);
}

// 20 processes on one cold cache at once: all right, the cache consistent.
TEST(CacheHostile, TwentyProcessesRacingOnAColdCache) {
    const fs::path dir = fresh_dir("race");
    std::vector<FILE*> pipes;
    for (int i = 0; i < 20; ++i) pipes.push_back(::popen(child_command(dir.string()).c_str(), "r"));
    int built = 0;
    for (FILE* pipe : pipes) {
        ASSERT_NE(pipe, nullptr);
        const Child child = finish(pipe);
        EXPECT_EQ(child.exit_code, 0) << child.output;
        EXPECT_EQ(child.output.find("unusable ("), std::string::npos) << "a half-written file was read:\n"
                                                                      << child.output;
        if (child.output.find("child: 0 built") == std::string::npos) ++built;
    }
    std::printf("%d of 20 processes built at least one program; the rest loaded them\n", built);
    EXPECT_TRUE(files_in(dir, ".tmp").empty()) << "a partial file was left behind";
    ::setenv("NETCL_CACHE_DIR", dir.c_str(), 1);
    auto ctx = Context::create();
    run_two_layers_and_check(ctx);
    EXPECT_EQ(ctx->programs().stats().builds, 0u) << "every entry must load after the race";
    EXPECT_EQ(ctx->programs().stats().corrupt_files, 0u);
    ::unsetenv("NETCL_CACHE_DIR");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace netcl
