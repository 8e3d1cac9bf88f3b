// netcl-bench as a user runs it: a benchmark that runs (not a timed test).
// Two tiny shapes plus a grouped one, every candidate, --repeat 2 --json/--csv;
// the JSON must carry every figure and every strategy's error must be within
// its tolerance. Also: the usage errors exit with code 2 and say what is wrong.
// The exit-code checks for bad --shape values are CTest entries too
// (tests/CMakeLists.txt, bench_bad_*), run without a device.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

using nlohmann::json;

const std::string kBench = std::string(NETCL_BINARY_DIR) + "/netcl-bench";

struct Outcome {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

Outcome run_bench(const std::string& arguments) {
    const std::string command = "'" + kBench + "' " + arguments + " 2>&1";
    Outcome outcome;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return outcome;
    char buffer[4096];
    while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) outcome.output.append(buffer, n);
    const int status = pclose(pipe);
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return outcome;
}

std::filesystem::path scratch(const std::string& name) {
    const auto dir = std::filesystem::path(NETCL_BINARY_DIR) / "test-bench";
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::filesystem::remove(path);
    return path;
}

TEST(Bench, TinyShapesJsonHasEveryFigureAndEveryErrorIsWithinTolerance) {
    const auto json_path = scratch("tiny.json"), csv_path = scratch("tiny.csv");
    // Odd sizes, H != W, N = 2 and 1, C = 3, a grouped layer CLBlast and
    // Winograd cannot take.
    const Outcome run = run_bench("--shape 2,3,7,9,5,3,3 --shape 1,4,13,11,8,3,3,1,1 --shape 1,4,9,9,6,3,3,1,1,1,2 "
                                  "--repeat 2 --json '" + json_path.string() + "' --csv '" + csv_path.string() + "'");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::ifstream file(json_path);
    ASSERT_TRUE(file) << "no JSON written; output:\n" << run.output;
    const json report = json::parse(file);
    EXPECT_EQ(report.at("tool"), "netcl-bench");
    EXPECT_FALSE(report.at("netcl_version").get<std::string>().empty());
    EXPECT_FALSE(report.at("git_revision").get<std::string>().empty());
    EXPECT_FALSE(report.at("driver").get<std::string>().empty());
    for (const char* field : {"name", "platform", "vendor", "type", "driver_version", "compute_units",
                              "local_mem_bytes", "max_constant_buffer_bytes", "profile_source"}) {
        EXPECT_TRUE(report.at("device").contains(field)) << field;
    }
    EXPECT_EQ(report.at("settings").at("repeat"), 2);

    const auto& layers = report.at("layers");
    ASSERT_EQ(layers.size(), 3u);
    const std::set<std::string> always{"selector", "naive", "im2col"};
    std::size_t ran = 0, winograd_ran = 0;
    for (const auto& layer : layers) {
        const std::string name = layer.at("name");
        const double gflop = layer.at("direct_gflop");
        EXPECT_GT(gflop, 0) << name;
        EXPECT_FALSE(layer.at("reference_sampled").get<bool>()) << name << ": a tiny layer is checked in full";
        ASSERT_EQ(layer.at("results").size(), report.at("candidates").size()) << name;
        for (const auto& r : layer.at("results")) {
            const std::string id = r.at("candidate");
            const std::string where = name + " " + id;
            if (always.count(id)) {
                EXPECT_TRUE(r.at("ran").get<bool>()) << where << ": " << r.dump();
            }
            if (!r.at("ran").get<bool>()) {
                EXPECT_FALSE(r.at("skipped").get<std::string>().empty()) << where;
                EXPECT_EQ(r.at("skipped").get<std::string>().rfind("failed", 0), std::string::npos)
                    << where << " crashed instead of being skipped: " << r.at("skipped");
                continue;
            }
            ++ran;
            if (id.rfind("wino", 0) == 0) ++winograd_ran;
            ASSERT_FALSE(r.at("max_abs_error").is_null()) << where << ": NaN/Inf in the output";
            const double error = r.at("max_abs_error"), tolerance = r.at("tolerance");
            EXPECT_GT(tolerance, 0) << where;
            EXPECT_LE(error, tolerance) << where;
            EXPECT_TRUE(r.at("within_tolerance").get<bool>()) << where;
            const double median = r.at("median_ms"), lo = r.at("min_ms"), hi = r.at("max_ms");
            EXPECT_GT(lo, 0) << where;
            EXPECT_LE(lo, median) << where;
            EXPECT_LE(median, hi) << where;
            EXPECT_EQ(r.at("samples_ms").size(), 2u) << where;
            EXPECT_NEAR(r.at("gflops").get<double>(), gflop / (median * 1e-3), 1e-6 * gflop / (median * 1e-3)) << where;
            EXPECT_GE(r.at("build_ms").get<double>(), 0) << where;
            EXPECT_TRUE(r.at("workspace_bytes").is_number_unsigned()) << where;
            EXPECT_FALSE(r.at("plan").get<std::string>().empty()) << where;
            if (id == "naive") {
                EXPECT_DOUBLE_EQ(r.at("speedup_vs_naive").get<double>(), 1.0) << where;
            }
        }
    }
    EXPECT_GE(winograd_ran, 2u) << "the 3x3 stride-1 layers must run Winograd";

    // CLBlast runs where it applies and is skipped, with a reason, where it does not (groups).
    const auto clblast_of = [&](std::size_t i) {
        for (const auto& r : layers[i].at("results")) {
            if (r.at("candidate") == "clblast") return r;
        }
        return json{};
    };
    EXPECT_TRUE(clblast_of(0).at("ran").get<bool>());
    EXPECT_TRUE(clblast_of(1).at("ran").get<bool>());
    EXPECT_FALSE(clblast_of(2).at("ran").get<bool>());
    EXPECT_NE(clblast_of(2).at("skipped").get<std::string>().find("groups"), std::string::npos);

    // Totals per batch size (N = 2, N = 1), weighted by depth.
    bool naive_total = false;
    for (const auto& t : report.at("totals")) {
        if (t.at("candidate") == "naive" && t.at("N") == 1) {
            naive_total = true;
            EXPECT_EQ(t.at("layers"), 2);
            EXPECT_TRUE(t.at("complete").get<bool>());
            EXPECT_GT(t.at("gflops").get<double>(), 0);
        }
    }
    EXPECT_TRUE(naive_total);

    // The CSV: one row per layer and candidate plus the totals, all the same width.
    std::ifstream csv(csv_path);
    ASSERT_TRUE(csv);
    std::string line;
    std::size_t rows = 0, header_fields = 0;
    while (std::getline(csv, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::size_t fields = 1;
        bool quoted = false;
        for (const char c : line) {
            if (c == '"') quoted = !quoted;
            if (c == ',' && !quoted) ++fields;
        }
        if (!header_fields) header_fields = fields;
        EXPECT_EQ(fields, header_fields) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 1 + 3 * report.at("candidates").size() + report.at("totals").size());
    EXPECT_GT(ran, 6u);
}

// A layer whose full reference is "too costly" (limit forced down) is checked on
// a sample; the header says so and the sampled error is still within tolerance.
TEST(Bench, SampledReferenceIsReportedAndStillChecks) {
    const auto json_path = scratch("sampled.json");
    const Outcome run = run_bench("--shape 3,5,13,7,6,3,3,2,1 --strategies naive,im2col,clblast --repeat 2 "
                                  "--full-reference-macs 100 --samples 40 --json '" + json_path.string() + "'");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("sampled 40 of"), std::string::npos) << run.output;
    std::ifstream file(json_path);
    const json report = json::parse(file);
    const auto& layer = report.at("layers").at(0);
    EXPECT_TRUE(layer.at("reference_sampled").get<bool>());
    ASSERT_EQ(layer.at("results").size(), 3u);
    for (const auto& r : layer.at("results")) {
        ASSERT_TRUE(r.at("ran").get<bool>()) << r.dump();
        EXPECT_TRUE(r.at("within_tolerance").get<bool>()) << r.dump();
        EXPECT_GT(r.at("max_abs_error").get<double>(), 0) << "an fp32 sum of 45 products is never exact everywhere";
    }
}

// --bias: every layer gets a bias, and every strategy's error check covers
// it (the reference adds it too). A strategy that dropped the bias would be
// off by up to 1 on every output, far beyond the tolerance. CLBlast's
// Convgemm has no bias and says so.
TEST(Bench, BiasIsCheckedForEveryStrategy) {
    const auto json_path = scratch("bias.json");
    const Outcome run = run_bench("--shape 2,5,9,7,6,3,3,1,1 --shape 1,4,6,6,8,1,1 --bias --repeat 1 --json '" +
                                  json_path.string() + "'");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::ifstream file(json_path);
    const json report = json::parse(file);
    EXPECT_EQ(report.at("settings").at("data"), "uniform [-1,1], with bias");
    std::size_t ran = 0;
    for (const auto& layer : report.at("layers")) {
        EXPECT_TRUE(layer.at("shapes").at("bias").get<bool>());
        for (const auto& r : layer.at("results")) {
            const std::string id = r.at("candidate");
            if (id == "clblast") {
                EXPECT_FALSE(r.at("ran").get<bool>());
                EXPECT_NE(r.at("skipped").get<std::string>().find("bias"), std::string::npos) << r.dump();
                continue;
            }
            if (!r.at("ran").get<bool>()) continue;
            ++ran;
            EXPECT_TRUE(r.at("within_tolerance").get<bool>()) << r.dump();
        }
    }
    EXPECT_GE(ran, 6u);
}

// Usage errors exit with code 2 and a message naming the problem; nothing runs.
TEST(Bench, UsageErrorsExitWithCodeTwoAndSayWhy) {
    const std::pair<const char*, const char*> cases[] = {
        {"--shape 1,2,3", "3 fields; expected 7"},
        {"--shape 1,0,8,8,4,3,3", "expected >= 1"},
        {"--shape 1,3,8,8,-4,3,3", "expected >= 1"},
        {"--shape 1,3,8,x,4,3,3", "not an integer"},
        {"--shape 1,3,2,2,4,5,5", "larger than the padded input"},
        {"--shape 1,6,8,8,4,3,3,1,1,1,4", "groups = 4 must divide"},
        {"--net alexnet", "unknown layer set 'alexnet'"},
        {"--net vgg16 --strategies naive,fft", "unknown strategy 'fft'"},
        {"--net vgg16 --batch 0", "not a batch size"},
        {"--net vgg16 --repeat 0", "repeat"},
        {"", "nothing to bench"},
    };
    for (const auto& [arguments, message] : cases) {
        const Outcome run = run_bench(arguments);
        EXPECT_EQ(run.exit_code, 2) << arguments << "\n" << run.output;
        EXPECT_NE(run.output.find(message), std::string::npos) << arguments << "\n" << run.output;
        EXPECT_EQ(run.output.find("terminate called"), std::string::npos) << arguments;
    }
}

}  // namespace
