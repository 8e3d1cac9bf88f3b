// The netcl-tune round trip: tune a small layer set on the test device into an
// empty user profile directory, then read the records back through the
// selector. Needs an OpenCL device (the default one, NETCL_DEVICE honoured)
// and the netcl-tune executable of this build.
#include <gtest/gtest.h>

#include "ops/Implementations.hpp"

#include <array>
#include <cstdio>
#include <filesystem>

#include "netcl/KernelSelector.hpp"
#include "tests/support/LayerSets.hpp"
#include "selector/ProfileStore.hpp"
#include "selector/Thresholds.hpp"
#include "tests/selector/SelectorTestSupport.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

const std::filesystem::path kTune = std::filesystem::path(NETCL_BINARY_DIR) / "netcl-tune";

// netcl-tune times what the device's profile runs: a variant it turns off
// (nvidia-gpu: the GEMM engine, direct-rows) is a FAILED line, and its tiles
// have nothing to search. The tests that run it start the user profile it
// writes into with every implementation on (TestData.hpp), as the suite's
// contexts have it.

// Runs a command; returns its exit status and what it printed.
std::pair<int, std::string> run(const std::string& command) {
    std::string output;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return {-1, "popen failed"};
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST_F(SelectorTest, TunedRecordsAreReadBackAfterNetclTune) {
    ASSERT_TRUE(std::filesystem::exists(kTune)) << kTune << " is not built; build the netcl-tune target";
    const auto context = shared_context();
    const DeviceProfile& device = context->profile();
    write_every_implementation_profile(dir_, device);
    const std::vector<std::string> specs = {"1,16,12,12,16,3,3,1,1", "2,8,9,9,8,1,1", "1,3,13,7,5,3,3,2,0"};
    std::string command = kTune.string() + " --repeats 2 --warmup 1 --direction fwd";
    for (const auto& s : specs) command += " --shape " + s;
    const auto [status, output] = run(command);
    ASSERT_EQ(status, 0) << output;
    EXPECT_NE(output.find("[3/3"), std::string::npos) << output;  // progress
    EXPECT_EQ(output.find("WRONG"), std::string::npos) << output;
    EXPECT_EQ(output.find("FAILED"), std::string::npos) << output;

    const auto path = user_profile_path(device);
    ASSERT_TRUE(std::filesystem::exists(path)) << output;
    const ProfileData data = load_profile_data(path.string());
    EXPECT_EQ(data.match.at("name"), device.name);
    ASSERT_EQ(data.records.size(), specs.size()) << output;

    ProfileStore::global().invalidate();
    KernelSelector selector;
    for (const auto& spec : specs) {
        const ConvShapes s = parse_shape_spec(spec);
        const TunedRecord& record = data.records.at(record_key(s));
        EXPECT_GT(record.median_ms, 0.0);
        const Plan plan = selector.select("conv2d", s, device);
        EXPECT_EQ(plan.kernel, record.kernel) << spec << ": " << plan.str();
        EXPECT_EQ(plan.variant, record.variant) << spec;
        EXPECT_NE(plan.reason.find("tuned record"), std::string::npos) << plan.reason;
        // The winner printed is the one recorded.
        EXPECT_NE(output.find("winner " + to_string(record.kernel)), std::string::npos) << output;
    }
    // The 3x3 layer ran both tiles: a preferred tile was fitted and is read back.
    const auto stored = ProfileStore::global().lookup(device);
    ASSERT_TRUE(stored->tuned.count(threshold_key::winograd_tile)) << output;
    EXPECT_EQ(stored->tuned.at(threshold_key::winograd_tile), data.device.tuned.at(threshold_key::winograd_tile));
    EXPECT_EQ(stored->sources.back(), path.string());
}

// Every direction by default: a record per direction, each read back by the
// selector under that direction's op, the gradients' winners among the
// variants that take them.
TEST_F(SelectorTest, NetclTuneTunesEveryDirection) {
    ASSERT_TRUE(std::filesystem::exists(kTune)) << kTune << " is not built; build the netcl-tune target";
    const DeviceProfile& device = shared_context()->profile();
    write_every_implementation_profile(dir_, device);
    const std::string spec = "2,12,10,11,16,3,3,1,1";
    const auto [status, output] = run(kTune.string() + " --repeats 2 --records-only --shape " + spec);
    ASSERT_EQ(status, 0) << output;
    EXPECT_NE(output.find("[3/3"), std::string::npos) << output;
    EXPECT_EQ(output.find("WRONG"), std::string::npos) << output;
    EXPECT_EQ(output.find("FAILED"), std::string::npos) << output;
    const ProfileData data = load_profile_data(user_profile_path(device).string());
    ProfileStore::global().invalidate();
    KernelSelector selector;
    for (const ConvDirection d : all_conv_directions()) {
        const ConvShapes s = parse_shape_spec(spec).in_direction(d);
        ASSERT_TRUE(data.records.count(record_key(s))) << to_string(d) << "\n" << output;
        const TunedRecord& record = data.records.at(record_key(s));
        EXPECT_FALSE(why_not(record.variant, s, device)) << record.variant.id << " recorded for " << to_string(d);
        const Plan plan = selector.select(selector_op(s), s, device);
        EXPECT_EQ(plan.variant, record.variant) << to_string(d) << ": " << plan.str();
        EXPECT_NE(plan.reason.find("tuned record"), std::string::npos) << plan.reason;
    }
    EXPECT_EQ(run(kTune.string() + " --direction sideways --shape " + spec).first, 1);
}

// --gemm-tiles with two candidates on a 1x1 and a 3x3 stride-2 layer, in
// every direction (the default): each GEMM-engine prefix those layers build
// with, the weight gradient's own included, gets one of the two, written to
// the user profile and read back by the next lookup.
TEST_F(SelectorTest, NetclTuneChoosesGemmTilesAndWritesThem) {
    ASSERT_TRUE(std::filesystem::exists(kTune)) << kTune << " is not built; build the netcl-tune target";
    const DeviceProfile& device = shared_context()->profile();
    write_every_implementation_profile(dir_, device);
    const auto [status, output] =
        run(kTune.string() + " --gemm-tiles --tile 4x2x8/4x4 --tile 6x1x8/8x2 --strategy IM2COL --repeats 2"
                             " --shape 1,16,10,12,12,1,1 --shape 1,8,21,19,8,3,3,2,1");
    ASSERT_EQ(status, 0) << output;
    EXPECT_EQ(output.find("WRONG"), std::string::npos) << output;
    EXPECT_NE(output.find("GEMM tile gemm: "), std::string::npos) << output;
    EXPECT_NE(output.find("GEMM tile implicit_gemm: "), std::string::npos) << output;
    EXPECT_NE(output.find("GEMM tile wgrad_gemm: "), std::string::npos) << output;
    ProfileStore::global().invalidate();
    const auto stored = ProfileStore::global().lookup(device);
    for (const char* prefix : {"gemm", "implicit_gemm", "wgrad_gemm"}) {
        const std::string p(prefix);
        ASSERT_TRUE(stored->tuned.count(p + "_mr")) << output;
        const double mr = stored->tuned.at(p + "_mr"), nv = stored->tuned.at(p + "_nv");
        EXPECT_TRUE((mr == 4 && nv == 2) || (mr == 6 && nv == 1)) << p << " " << mr << "x" << nv;
        EXPECT_EQ(stored->tuned.at(p + "_vw"), 8);
    }
    const auto [bad, bad_output] = run(kTune.string() + " --gemm-tiles --tile 8x2 --shape 1,16,10,12,12,1,1");
    EXPECT_EQ(bad, 1) << bad_output;
    EXPECT_NE(bad_output.find("is not MRxNVxVW/WG0xWG1"), std::string::npos) << bad_output;
}

TEST_F(SelectorTest, NetclTuneRejectsBadArguments) {
    ASSERT_TRUE(std::filesystem::exists(kTune)) << kTune << " is not built";
    const auto [status, output] = run(kTune.string() + " --shape 1,3,8,8,4,3,3 --strategy WINOGRAD --dry-run");
    EXPECT_EQ(status, 1) << output;
    EXPECT_NE(output.find("CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD"), std::string::npos) << output;
    const auto [status2, output2] = run(kTune.string() + " --shape 1,3,8 --dry-run");
    EXPECT_EQ(status2, 1) << output2;
    EXPECT_NE(output2.find("expected"), std::string::npos) << output2;
    const auto [status3, output3] = run(kTune.string());
    EXPECT_EQ(status3, 1) << output3;
    EXPECT_NE(output3.find("nothing to tune"), std::string::npos) << output3;
    EXPECT_TRUE(std::filesystem::is_empty(dir_));  // nothing written
}

TEST_F(SelectorTest, NetclInfoExplainsOneShapeAndLogsRejectionsAtDebug) {
    const auto info = std::filesystem::path(NETCL_BINARY_DIR) / "netcl-info";
    ASSERT_TRUE(std::filesystem::exists(info)) << info << " is not built";
    // A stored profile instead of a device: no OpenCL needed for this one.
    const auto [status, output] =
        run("NETCL_LOG_LEVEL=debug " + info.string() + " --explain 1,3,224,224,64,7,7,2,3 --profile nvidia-gpu");
    ASSERT_EQ(status, 0) << output;
    EXPECT_NE(output.find("N=1 C=3 H=224 W=224 K=64 R=7 S=7 stride=2 pad=3"), std::string::npos) << output;
    EXPECT_NE(output.find("reject built-in winograd: no Winograd variant takes this layer"), std::string::npos) << output;
    EXPECT_NE(output.find("takes 3x3 filters; this layer has 7x7"), std::string::npos) << output;
    EXPECT_NE(output.find("plan: IM2COL"), std::string::npos) << output;
    // The same rejections, logged at debug level by select() itself.
    EXPECT_NE(output.find("[netcl debug] selector N=1 C=3 H=224 W=224 K=64 R=7 S=7 stride=2 pad=3 dil=1 groups=1: "
                          "rejected built-in winograd"),
              std::string::npos)
        << output;
    const auto [bad, bad_output] = run(info.string() + " --explain 1,3,224 --profile nvidia-gpu");
    EXPECT_EQ(bad, 1) << bad_output;
    EXPECT_NE(bad_output.find("expected"), std::string::npos) << bad_output;
    // Another direction and type, planned under the direction's own op: the stem's input gradient on
    // NVIDIA takes col2im-gemm (at most 3 input channels), its half forward stages through float32.
    const auto [dgrad, dgrad_output] =
        run(info.string() + " --explain 8,3,224,224,64,7,7,2,3 --direction bwd_data --profile nvidia-gpu");
    ASSERT_EQ(dgrad, 0) << dgrad_output;
    EXPECT_NE(dgrad_output.find("dir=backward_data"), std::string::npos) << dgrad_output;
    EXPECT_NE(dgrad_output.find("plan: IM2COL col2im-gemm"), std::string::npos) << dgrad_output;
    const auto [half, half_output] =
        run(info.string() + " --explain 1,3,224,224,64,7,7,2,3 --dtype float16 --profile nvidia-gpu");
    ASSERT_EQ(half, 0) << half_output;
    EXPECT_NE(half_output.find("plan: IM2COL im2col-clblast"), std::string::npos) << half_output;
    EXPECT_NE(half_output.find("the output stored into half from float32"), std::string::npos) << half_output;
    const auto [wrong, wrong_output] =
        run(info.string() + " --explain 1,3,224,224,64,7,7,2,3 --direction sideways --profile nvidia-gpu");
    EXPECT_EQ(wrong, 1) << wrong_output;
    EXPECT_NE(wrong_output.find("expected forward (fwd), backward_data (bwd_data) or backward_weights"),
              std::string::npos)
        << wrong_output;
}

}  // namespace
}  // namespace netcl::test
