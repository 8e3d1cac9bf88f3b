// OpenCL failing underneath netcl: every call site a layer reaches, in every
// direction each variant takes, is failed once, and each time the caller gets a netcl::Error that names the operation,
// the OpenCL error and the layer; nothing leaks; the same Conv2d then gives
// the fp64-verified answer; the caller's own buffers keep their contents.
//
// How: the interposer (tests/support/ClFaults.hpp) records each OpenCL call
// with its caller's return address during one clean run of a variant (its
// weights set, one forward or gradient into wrapped views, the result read back). Every
// distinct (entry point, caller) is a call site; each one is then failed in a
// run of its own on a fresh Context, with the error a driver gives there
// (CL_MEM_OBJECT_ALLOCATION_FAILURE for buffers, CL_BUILD_PROGRAM_FAILURE for
// builds, CL_OUT_OF_RESOURCES for the rest). Programs come from the disk cache
// (binaries) in the main sweep, and from source in a sweep of the build call
// sites with an empty cache directory.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <map>
#include <set>

#include "netcl/Conv2d.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "tests/support/LayerFactory.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/ConvImplementation.hpp"
#include "ops/Implementations.hpp"
#include "tests/support/ClFaults.hpp"
#include "tests/support/ClInterposer.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl {
namespace {

using test::CallSite;
using test::ClCall;
using test::live_objects;
using test::LiveObjects;

// A 3x3 layer every 3x3 variant takes (odd sizes, K off every block, batch 2,
// bias), and a 1x1 one for gemm-1x1.
ConvShapes layer_3x3() {
    ConvShapes s;
    s.N = 2, s.C = 5, s.H = 9, s.W = 7, s.K = 10, s.R = 3, s.S = 3, s.bias = true;
    s.set_padding(1);
    return s;
}
ConvShapes layer_1x1() {
    ConvShapes s;
    s.N = 2, s.C = 6, s.H = 5, s.W = 7, s.K = 9, s.R = 1, s.S = 1, s.bias = true;
    return s;
}
ConvShapes layer_5x5() {  // the 5x5 Winograd tiles take only 5x5 filters
    ConvShapes s;
    s.N = 2, s.C = 5, s.H = 9, s.W = 8, s.K = 10, s.R = 5, s.S = 5, s.bias = true;
    s.set_padding(2);
    return s;
}

// 3-D (the naive kernel's depth loops, the implicit GEMM's and Winograd's DEPTH builds).
ConvShapes layer_3d() {
    ConvShapes s;
    s.spatial_rank = 3;
    s.N = 2, s.C = 3, s.D = 3, s.H = 5, s.W = 6, s.K = 5, s.T = s.R = s.S = 3, s.bias = true;
    s.set_padding(1);
    s.pad_front = s.pad_back = 1;
    return s;
}

struct Data {
    std::vector<float> x, w, b, dy;
    std::vector<double> expected;  // y forward, dx backward data, dw then db backward weights
};

Data data_for(const ConvShapes& s) {
    Data d;
    d.x = random_uniform(static_cast<std::size_t>(s.input_numel()), 11);
    d.w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 12);
    d.b = random_uniform(static_cast<std::size_t>(s.K), 13);
    d.dy = random_uniform(static_cast<std::size_t>(s.output_numel()), 14);
    switch (s.direction) {
        case ConvDirection::FORWARD: d.expected = reference_conv(s, d.x, d.w, d.b); break;
        case ConvDirection::BACKWARD_DATA: d.expected = reference_conv_backward_data(s, d.dy, d.w); break;
        case ConvDirection::BACKWARD_WEIGHTS: {
            const WeightGradients g = reference_conv_backward_weights(s, d.x, d.dy);
            d.expected = g.dw;
            d.expected.insert(d.expected.end(), g.db.begin(), g.db.end());
            break;
        }
    }
    return d;
}

// One layer on one Context, every tensor of its direction in a buffer "the
// framework" owns (Tensor::view over the test's own cl_mem): what it reads
// (x forward and backward weights, dy backward) and what it writes (y; dx;
// dw and db).
struct Layer {
    std::shared_ptr<Context> context;
    ConvShapes shapes;
    std::vector<cl::Buffer> buffers;
    std::vector<Tensor> inputs, outputs;
    std::unique_ptr<ConvLayer> conv;

    // A context of its own with every implementation on (TestData.hpp): the variant is forced.
    Layer(const ConvShapes& s, const Variant& variant, const Data& d) : context(test::context_with_profile()), shapes(s) {
        const auto caller_buffer = [&](const std::vector<float>& values, Tensor::Shape shape, bool input) {
            const std::size_t bytes = checked_numel(shape) * sizeof(float);
            buffers.push_back(input ? cl::Buffer(context->cl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                 bytes, const_cast<float*>(values.data()))
                                    : cl::Buffer(context->cl_context(), CL_MEM_READ_WRITE, bytes));
            (input ? inputs : outputs).push_back(Tensor::view(context, buffers.back()(), 0, std::move(shape)));
        };
        const Tensor::Shape x_shape = s.input_shape(), y_shape = s.output_shape();
        switch (s.direction) {
            case ConvDirection::FORWARD:
                caller_buffer(d.x, x_shape, true);
                caller_buffer({}, y_shape, false);
                break;
            case ConvDirection::BACKWARD_DATA:
                caller_buffer(d.dy, y_shape, true);
                caller_buffer({}, x_shape, false);
                break;
            case ConvDirection::BACKWARD_WEIGHTS:
                caller_buffer(d.x, x_shape, true);
                caller_buffer(d.dy, y_shape, true);
                caller_buffer({}, s.weight_shape(), false);
                caller_buffer({}, {s.K}, false);
                break;
        }
        LayerOverrides strict;
        strict.strategy = implementation_of(variant).kernel();
        strict.variant = variant;
        conv = make_conv_layer(context, s, strict);  // a Conv2d, or a Conv3d for the 3-D layer
    }

    // What a framework does with a layer: weights in (the directions that
    // read them), a run (the returned event waited on, as a framework's next
    // op would), the result read back.
    void weights_and_run(const Data& d) {
        cl::Event done;
        switch (shapes.direction) {
            case ConvDirection::FORWARD:
                conv->set_weights(d.w, d.b);
                done = conv->forward(inputs[0], outputs[0]);
                break;
            case ConvDirection::BACKWARD_DATA:
                conv->set_weights(d.w, d.b);
                done = conv->backward_data(inputs[0], outputs[0]);
                break;
            case ConvDirection::BACKWARD_WEIGHTS:
                done = conv->backward_weights(inputs[0], inputs[1], outputs[0], &outputs[1]);
                break;
        }
        NETCL_CL_CHECK(done.wait(), "waiting for the run's event");
    }
    std::vector<float> output() {
        std::vector<float> all;
        for (const Tensor& t : outputs) {
            const auto values = t.to_host();
            all.insert(all.end(), values.begin(), values.end());
        }
        return all;
    }
};

// A variant, the direction it runs, and the layer it runs in this test.
struct Case {
    Variant variant;
    ConvShapes shapes;
};

struct FaultParam {
    Variant variant;
    ConvDirection direction = ConvDirection::FORWARD;
    bool only_3d = false;  // the 3-D layer only: a 3-D path of its own (ops/as_2d/)
};

// Every variant in every direction its implementation takes, and the first
// variant again in 3-D where the implementation's 3-D gradient runs as a 2-D
// one (the copies' call sites around its own; backward data under a depth
// stride, which takes that route).
std::vector<FaultParam> every_variant_and_direction() {
    std::vector<FaultParam> all;
    for (const ConvImplementation* impl : conv_implementations()) {
        const ProblemKinds kinds = impl->problem_kinds();
        for (const Variant& v : impl->variants()) {
            for (const ConvDirection d : kinds.directions) {
                all.push_back({v, d});
                const bool first = v == impl->variants().front();
                if (first && ((d == ConvDirection::BACKWARD_WEIGHTS && kinds.weight_gradient_3d_as_2d) ||
                              (d == ConvDirection::BACKWARD_DATA && kinds.backward_data_3d_as_2d))) {
                    all.push_back({v, d, true});
                }
            }
        }
    }
    return all;
}

// The first of the test layers the variant takes in the direction on this device.
std::optional<Case> case_for(const FaultParam& p, std::string& why) {
    const DeviceProfile profile = KernelSelector::resolve_profile(test::shared_context()->profile());
    ConvShapes strided_3d = layer_3d();
    strided_3d.stride_d = 2;
    const std::vector<ConvShapes> layers =
        p.only_3d ? std::vector<ConvShapes>{p.direction == ConvDirection::BACKWARD_DATA ? strided_3d : layer_3d()}
                  : std::vector<ConvShapes>{layer_3x3(), layer_1x1(), layer_5x5(), layer_3d()};
    for (const ConvShapes& forward : layers) {
        const ConvShapes s = forward.in_direction(p.direction);
        const auto reason = why_not(p.variant, s, profile);
        if (!reason) return Case{p.variant, s};
        why += (why.empty() ? "" : "; ") + *reason;
    }
    return std::nullopt;
}

// netcl's own calls and CLBlast's under it (not the test's own).
bool ours(const CallSite& site) {
    const std::string where = site.where();
    const std::string first = where.substr(0, where.find(')'));
    return first.find("libnetcl") != std::string::npos || first.find("libclblast") != std::string::npos;
}
std::vector<CallSite> only_ours(const std::vector<CallSite>& sites) {
    std::vector<CallSite> out;
    for (const auto& s : sites) {
        if (ours(s)) out.push_back(s);
    }
    return out;
}

std::string scratch_dir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("netcl-faults-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

struct Recorded {
    std::vector<CallSite> conv_sites;    // reached inside Conv2d (set_weights, forward)
    std::vector<CallSite> output_sites;  // reached reading the output back (Tensor::to_host)
    LiveObjects live_after;              // with the layer alive, after a clean run
};

Recorded record_clean_run(const Case& c, const Data& d) {
    Recorded r;
    Layer layer(c.shapes, c.variant, d);
    test::start_recording();
    layer.weights_and_run(d);
    r.conv_sites = only_ours(test::distinct(test::stop_recording()));
    test::start_recording();
    const auto out = layer.output();
    r.output_sites = only_ours(test::distinct(test::stop_recording()));
    const auto cmp = test::compare(out, d.expected);
    EXPECT_LE(cmp.max_abs_error, conv_tolerance(c.shapes, tolerance_factor(c.variant))) << c.variant.id;
    r.live_after = live_objects();
    return r;
}

cl_int internal_status(const cl::Event& event) {
    cl_int status = CL_QUEUED;
    event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
    return status;
}

bool in_clblast(const CallSite& site) {
    const std::string where = site.where();
    return where.substr(0, where.find(')')).find("libclblast") != std::string::npos;
}

// A program binary from the disk cache that fails to load or build is
// dropped and the program built from source: the caller never sees it.
bool recoverable(const CallSite& site) {
    return (site.call == ClCall::CreateProgramWithBinary || site.call == ClCall::BuildProgram) &&
           site.passes_through("load_binary");
}

// Fails `site` once in a fresh layer and checks everything the issue asks.
// Returns false (with a failure recorded) when something did not hold.
void fail_once(const Case& c, const Data& d, const CallSite& site, bool in_conv, const LiveObjects& clean_live,
               std::map<std::string, int>& per_entry) {
    const std::string where = c.variant.id + ", " + site.where();
    const LiveObjects before_context = live_objects();
    {
        Layer layer(c.shapes, c.variant, d);
        const cl_int error = test::typical_error(site.call);
        test::arm_fault(site, error);
        bool threw = false;
        try {
            layer.weights_and_run(d);
            if (!in_conv) (void)layer.output();
        } catch (const Error& e) {
            threw = true;
            const std::string what = e.what();
            if (in_clblast(site)) {
                // CLBlast reports a failed build as CL_INVALID_PROGRAM: its code, by name, whatever it is.
                EXPECT_NE(e.cl_status(), 0) << where << ": " << what;
                EXPECT_NE(what.find(cl_error_name(e.cl_status())), std::string::npos) << where << ": " << what;
                EXPECT_NE(what.find("CLBlast"), std::string::npos) << where << ": " << what;
            } else {
                EXPECT_EQ(e.cl_status(), error) << where << ": " << what;
                EXPECT_NE(what.find(cl_error_name(error)), std::string::npos) << where << ": " << what;
            }
            EXPECT_NE(what.find(" failed"), std::string::npos) << where << ": names no operation: " << what;
            if (in_conv) {
                EXPECT_NE(what.find("layer "), std::string::npos) << where << ": names no layer: " << what;
                for (const char* op : {"Conv2d::forward", "Conv2d::backward_data", "Conv2d::backward_weights",
                                       "Conv3d::forward", "Conv3d::backward_data", "Conv3d::backward_weights"}) {
                    if (what.find(op) != std::string::npos) {
                        EXPECT_NE(what.find("the output is undefined"), std::string::npos) << where << ": " << what;
                    }
                }
            }
        }
        const bool fired = test::fault_fired();
        test::disarm_fault();
        ASSERT_TRUE(fired) << where << ": the call site was not reached again";
        if (!threw) {
            // netcl recovered by itself (a cached binary that fails to load is
            // rebuilt from source): then the answer it gave must be right.
            ASSERT_TRUE(recoverable(site)) << where << ": a failed " << test::name(site.call)
                                           << " neither reached the caller nor was recovered from";
            const auto cmp = test::compare(layer.output(), d.expected);
            EXPECT_EQ(cmp.non_finite, 0u) << where;
            EXPECT_LE(cmp.max_abs_error, conv_tolerance(c.shapes, tolerance_factor(c.variant))) << where;
            ++per_entry[std::string(test::name(site.call)) + " (recovered)"];
        } else {
            ++per_entry[test::name(site.call)];
        }

        // The caller's inputs are untouched; the same Conv2d then works.
        for (std::size_t i = 0; i < layer.inputs.size(); ++i) {
            const bool is_x = c.shapes.direction != ConvDirection::BACKWARD_DATA && i == 0;
            EXPECT_EQ(layer.inputs[i].to_host(), is_x ? d.x : d.dy) << where << ": the caller's input buffer changed";
        }
        layer.weights_and_run(d);
        const auto cmp = test::compare(layer.output(), d.expected);
        EXPECT_EQ(cmp.non_finite, 0u) << where;
        EXPECT_LE(cmp.max_abs_error, conv_tolerance(c.shapes, tolerance_factor(c.variant))) << where;
        // As many objects alive as after a run that never failed.
        EXPECT_EQ(live_objects(), clean_live) << where;
    }
    // The layer and its Context gone: everything they made is released.
    const LiveObjects after = live_objects();
    EXPECT_EQ(after.buffers, before_context.buffers) << where;
    EXPECT_EQ(after.kernels, before_context.kernels) << where;
    EXPECT_EQ(after.programs, before_context.programs) << where;
    EXPECT_EQ(after.events, before_context.events) << where;
}

bool is_build_site(const CallSite& site) {
    return site.call == ClCall::CreateProgramWithSource || site.call == ClCall::CreateProgramWithBinary ||
           site.call == ClCall::BuildProgram || site.call == ClCall::CreateKernel;
}

}  // namespace

namespace {

void PrintTo(const FaultParam& p, std::ostream* os) {
    *os << p.variant.id << " " << to_string(p.direction) << (p.only_3d ? " 3-D" : "");
}

class FaultTest : public ::testing::TestWithParam<FaultParam> {};

TEST_P(FaultTest, EveryCallSiteFailedOnce) {
    std::string why;
    const auto found = case_for(GetParam(), why);
    // Every variant takes one of the test layers in each of its directions: one without would go untested.
    ASSERT_TRUE(found) << GetParam().variant.id << " takes none of the test layers " << to_string(GetParam().direction)
                       << " on this device: " << why;
    const Case& c = *found;
    const Data d = data_for(c.shapes);
    // A warm disk cache: programs come back as binaries.
    const Recorded clean = record_clean_run(c, d);
    const Recorded warm = record_clean_run(c, d);  // the same sites once the cache is warm
    ASSERT_FALSE(warm.conv_sites.empty());
    std::map<std::string, int> per_entry;
    for (const auto& site : warm.conv_sites) fail_once(c, d, site, true, warm.live_after, per_entry);
    for (const auto& site : warm.output_sites) fail_once(c, d, site, false, warm.live_after, per_entry);
    (void)clean;

    // From source: an empty cache directory per run, only the build sites.
    const char* previous = std::getenv("NETCL_CACHE_DIR");
    const std::string saved = previous ? previous : "";
    std::vector<CallSite> source_sites;
    {
        ::setenv("NETCL_CACHE_DIR", scratch_dir("record").c_str(), 1);
        const Recorded cold = record_clean_run(c, d);
        for (const auto& site : cold.conv_sites) {
            if (is_build_site(site) && std::find(warm.conv_sites.begin(), warm.conv_sites.end(), site) ==
                                           warm.conv_sites.end()) {
                source_sites.push_back(site);
            }
        }
        for (const auto& site : source_sites) {
            ::setenv("NETCL_CACHE_DIR", scratch_dir("fail").c_str(), 1);
            // Clean objects of a cold run: the same as a warm one's.
            fail_once(c, d, site, true, warm.live_after, per_entry);
        }
    }
    if (previous) {
        ::setenv("NETCL_CACHE_DIR", saved.c_str(), 1);
    } else {
        ::unsetenv("NETCL_CACHE_DIR");
    }
    EXPECT_FALSE(source_sites.empty()) << c.variant.id << ": an empty cache must build from source";

    std::string summary;
    for (const auto& [entry, n] : per_entry) summary += " " + entry + " x" + std::to_string(n);
    std::printf("[ faults   ] %s %s: %zu call sites failed once each:%s\n", c.variant.id.c_str(),
                to_string(c.shapes.direction).c_str(),
                warm.conv_sites.size() + warm.output_sites.size() + source_sites.size(), summary.c_str());
    EXPECT_GE(per_entry["clEnqueueNDRangeKernel"], 1) << c.variant.id;
    // Every run allocates (the weights' device copy, a workspace) but a weight
    // gradient with no workspace, which reads no weights and allocates nothing.
    const DeviceProfile profile = KernelSelector::resolve_profile(test::shared_context()->profile());
    if (c.shapes.direction != ConvDirection::BACKWARD_WEIGHTS ||
        implementation_of(c.variant).workspace_bytes(c.variant, c.shapes, profile) > 0) {
        EXPECT_GE(per_entry["clCreateBuffer"], 1) << c.variant.id;
    }
    EXPECT_GE(per_entry["clBuildProgram"], 1) << c.variant.id;
}

INSTANTIATE_TEST_SUITE_P(Variants, FaultTest, ::testing::ValuesIn(every_variant_and_direction()),
                         [](const ::testing::TestParamInfo<FaultParam>& info) {
                             std::string name = info.param.variant.id;
                             if (info.param.direction != ConvDirection::FORWARD) name += "_" + to_string(info.param.direction);
                             if (info.param.only_3d) name += "_3d";
                             for (char& ch : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             }
                             return name;
                         });

}  // namespace
}  // namespace netcl

namespace netcl {
namespace {

TEST(Faults, ThreeDimensionalTilesTakeBackwardDataAtStrideOneOnly) {
    const DeviceProfile profile = KernelSelector::resolve_profile(test::shared_context()->profile());
    int checked = 0;
    for (const Variant& v : variants_of(Kernel::CONV2D_WINOGRAD)) {
        const auto tile = winograd_gemm_tile(v);
        if (!tile || tile->rank != 3) continue;
        EXPECT_FALSE(why_not(v, layer_3d().in_direction(ConvDirection::BACKWARD_DATA), profile)) << v.id;
        ConvShapes strided = layer_3d();
        strided.stride_d = 2;
        const auto on_strided = why_not(v, strided.in_direction(ConvDirection::BACKWARD_DATA), profile);
        ASSERT_TRUE(on_strided.has_value()) << v.id;
        EXPECT_NE(on_strided->find("takes 3-D layers at stride 1"), std::string::npos) << *on_strided;
        const auto on_2d = why_not(v, layer_3x3().in_direction(ConvDirection::BACKWARD_DATA), profile);
        ASSERT_TRUE(on_2d.has_value()) << v.id;
        EXPECT_NE(on_2d->find("takes 3-D layers"), std::string::npos) << *on_2d;
        ++checked;
    }
    EXPECT_EQ(checked, 2);
}

// A caller's event that fails (a framework's op before this one failed): the
// forward that waited for it fails on the device and says so on its event; the
// same layer's next forward, not waiting for it, gives the right answer (it
// does not wait for the failed commands it left behind).
TEST(Faults, AFailedCallerEventFailsThatForwardAndNotTheNext) {
    for (const char* id : {"naive", "im2col-clblast", "wino-f4-fused-global", "wino-f4-gemm"}) {
        SCOPED_TRACE(id);
        const Case c{Variant{id}, layer_3x3()};
        const Data d = data_for(c.shapes);
        Layer layer(c.shapes, c.variant, d);
        layer.conv->set_weights(d.w, d.b);
        cl_int status = CL_SUCCESS;
        cl::UserEvent upstream(layer.context->cl_context(), &status);
        ASSERT_EQ(status, CL_SUCCESS);
        cl::Event done = layer.conv->forward(layer.inputs[0], layer.outputs[0], {upstream});
        ASSERT_EQ(upstream.setStatus(-1), CL_SUCCESS);  // the caller's op failed
        const cl_int waited = done.wait();
        const cl_int final_status = internal_status(done);
        EXPECT_TRUE(waited != CL_SUCCESS || final_status < 0)
            << "the forward after a failed event reported success (wait " << cl_error_name(waited) << ", status "
            << final_status << ")";
        // The next forward, on the same layer and buffers: it must finish (a
        // command waiting for the failed one would never run on PoCL).
        const cl::Event next = layer.conv->forward(layer.inputs[0], layer.outputs[0]);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (internal_status(next) > CL_COMPLETE && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ASSERT_EQ(internal_status(next), CL_COMPLETE) << "the next forward did not complete within 30 s";
        const auto cmp = test::compare(layer.output(), d.expected);
        EXPECT_EQ(cmp.non_finite, 0u);
        EXPECT_LE(cmp.max_abs_error, conv_tolerance(c.shapes, tolerance_factor(c.variant)));
    }
}

// Device memory running out: with netcl's memory limit on the Context just
// above what the layer's tensors and the naive plan need, the selector's
// choice (Winograd or a GEMM, which keep transformed or packed weights and a
// workspace) cannot allocate; the layer falls back, plan by plan, to one that
// fits, says so in the plan's reason, and gives the right answer. Strict, the
// same limit is an error naming the limit. Everything given back at the end.
ConvShapes layer_vgg_like() {
    ConvShapes s;
    s.N = 1, s.C = 64, s.H = 28, s.W = 28, s.K = 64, s.R = 3, s.S = 3, s.bias = true;
    s.set_padding(1);
    return s;
}

TEST(Faults, MemoryLimitFallsBackToAPlanThatFitsOrFailsWhenStrict) {
    const ConvShapes s = layer_vgg_like();
    const Data d = data_for(s);
    auto ctx = Context::create();
    ASSERT_EQ(ctx->memory_in_use(), 0u);
    {
        Tensor x = Tensor::from_host(ctx, d.x, {s.N, s.C, s.H, s.W});
        Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
        const std::size_t tensors = (d.x.size() + static_cast<std::size_t>(s.output_numel()) + d.w.size() + d.b.size()) *
                                    sizeof(float);
        // Unlimited: the selector's own plan needs more than the tensors.
        std::string preferred;
        {
            Conv2d conv(ctx, Conv2dOptions::for_shapes(s));
            conv.set_weights(d.w, d.b);
            conv.forward(x, y);
            preferred = conv.last_plan().variant.id;
            EXPECT_GT(ctx->memory_in_use(), tensors) << preferred << " keeps nothing of its own?";
        }
        ASSERT_NE(preferred, "naive");
        ctx->set_memory_limit(tensors + 4096);
        {
            Conv2d conv(ctx, Conv2dOptions::for_shapes(s));
            conv.set_weights(d.w, d.b);
            conv.forward(x, y);
            const Plan& plan = conv.last_plan();
            EXPECT_NE(plan.variant.id, preferred);
            EXPECT_NE(plan.reason.find("fallback: "), std::string::npos) << plan.reason;
            EXPECT_NE(plan.reason.find("could not allocate"), std::string::npos) << plan.reason;
            EXPECT_LE(ctx->memory_in_use(), ctx->memory_limit());
            const auto cmp = test::compare(y.to_host(), d.expected);
            EXPECT_EQ(cmp.non_finite, 0u);
            EXPECT_LE(cmp.max_abs_error, conv_tolerance(s, tolerance_factor(plan.variant))) << plan.variant.id;
        }

        // Strict: the error, naming the limit; the layer still usable once it is raised.
        Conv2dOptions strict = Conv2dOptions::for_shapes(s);
        strict.strategy = implementation_of(Variant{preferred}).kernel();
        strict.variant = Variant{preferred};
        Conv2d pinned(ctx, strict);
        pinned.set_weights(d.w, d.b);
        try {
            pinned.forward(x, y);
            ADD_FAILURE() << preferred << " ran under a limit it cannot fit";
        } catch (const Error& e) {
            EXPECT_EQ(e.cl_status(), CL_MEM_OBJECT_ALLOCATION_FAILURE) << e.what();
            EXPECT_NE(std::string(e.what()).find("memory_limit_bytes"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(preferred), std::string::npos) << e.what();
        }
        ctx->set_memory_limit(0);
        pinned.forward(x, y);
        const auto again = test::compare(y.to_host(), d.expected);
        EXPECT_LE(again.max_abs_error, conv_tolerance(s, tolerance_factor(Variant{preferred})));
    }
    EXPECT_EQ(ctx->memory_in_use(), 0u) << "netcl's tensors gone, their bytes must be given back";
}

// The same fallback when the driver, not netcl's limit, refuses a buffer: the
// selector's plan's first allocation of its own fails once.
TEST(Faults, DriverAllocationFailureFallsBack) {
    const ConvShapes s = layer_vgg_like();
    const Data d = data_for(s);
    Layer probe(s, Variant{"naive"}, d);  // for its context only
    Conv2d conv(probe.context, Conv2dOptions::for_shapes(s));
    conv.set_weights(d.w, d.b);
    const std::string preferred = conv.plan_for({s.N, s.C, s.H, s.W}).variant.id;
    ASSERT_NE(preferred, "naive");
    // The allocation sites of a fresh layer's strategy, recorded.
    std::vector<CallSite> sites;
    {
        Conv2d fresh(probe.context, Conv2dOptions::for_shapes(s));
        test::start_recording();
        (void)fresh.plan_for({s.N, s.C, s.H, s.W});
        sites = test::distinct(test::stop_recording());
    }
    // Planning makes the strategy: every buffer allocated then is its own.
    const auto site = std::find_if(sites.begin(), sites.end(), [](const CallSite& c) {
        return c.call == ClCall::CreateBuffer;
    });
    ASSERT_NE(site, sites.end()) << preferred << " allocates nothing when it is made";
    Conv2d layer(probe.context, Conv2dOptions::for_shapes(s));
    layer.set_weights(d.w, d.b);
    test::arm_fault(*site, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    layer.forward(probe.inputs[0], probe.outputs[0]);
    EXPECT_TRUE(test::fault_fired());
    test::disarm_fault();
    EXPECT_NE(layer.last_plan().variant.id, preferred);
    EXPECT_NE(layer.last_plan().reason.find("CL_MEM_OBJECT_ALLOCATION_FAILURE"), std::string::npos)
        << layer.last_plan().reason;
    const auto cmp = test::compare(probe.output(), d.expected);
    EXPECT_LE(cmp.max_abs_error, conv_tolerance(s, tolerance_factor(layer.last_plan().variant)));
}

}  // namespace
}  // namespace netcl
