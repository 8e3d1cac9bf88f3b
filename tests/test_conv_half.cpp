// float16 storage (fp32 arithmetic): the host conversion, half tensors and
// views, and every implementation that declares float16 in every direction
// and rank it takes, on the 2-D and 3-D edge tables and random layers against
// the fp64 reference of the exact half inputs (tests/support/ConvCase: the
// tolerance is fp32's plus half's rounding of the output). An implementation
// that does not take float16 must say so, and a float16 layer must always
// find one that does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "netcl/Conv2d.hpp"
#include "netcl/Conv3d.hpp"
#include "netcl/Error.hpp"
#include "netcl/Half.hpp"
#include "netcl/KernelSelector.hpp"
#include "ops/Implementations.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "selector/ProfileStore.hpp"
#include "tests/support/ConvCase.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {
namespace {

ConvShapes in_half(ConvShapes s) {
    s.dtype = DataType::FLOAT16;
    return s;
}

TEST(Half, EveryHalfWidensExactlyAndRoundTrips) {
    for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
        const auto h = static_cast<std::uint16_t>(bits);
        const float f = float_from_half(h);
        const bool nan = (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0;
        if (nan) {
            EXPECT_TRUE(std::isnan(f)) << bits;
            EXPECT_TRUE(std::isnan(float_from_half(half_from_float(f)))) << bits;
        } else {
            ASSERT_EQ(half_from_float(f), h) << "half bits " << bits << " -> " << f;
        }
    }
}

TEST(Half, FloatRoundsToNearestEvenAsVstoreHalfDoes) {
    EXPECT_EQ(float_from_half(half_from_float(1.0f + 0x1p-11f)), 1.0f);                 // tie: to even (down)
    EXPECT_EQ(float_from_half(half_from_float(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);   // tie: to even (up)
    EXPECT_EQ(float_from_half(half_from_float(1.0f + 0x1p-11f + 0x1p-20f)), 1.0f + 0x1p-10f);  // above the tie
    EXPECT_EQ(float_from_half(half_from_float(65504.0f)), 65504.0f);                    // the largest half
    EXPECT_EQ(float_from_half(half_from_float(65519.0f)), 65504.0f);                    // below the overflow tie
    EXPECT_TRUE(std::isinf(float_from_half(half_from_float(65520.0f))));                // rounds to Inf
    EXPECT_TRUE(std::isinf(float_from_half(half_from_float(-1e30f))));
    EXPECT_EQ(float_from_half(half_from_float(0x1p-24f)), 0x1p-24f);                    // the smallest subnormal
    EXPECT_EQ(float_from_half(half_from_float(0x1p-25f)), 0.0f);                        // its half: tie to even 0
    EXPECT_EQ(float_from_half(half_from_float(0x1.8p-25f)), 0x1p-24f);                  // above it
    EXPECT_EQ(float_from_half(half_from_float(0x1.ff8p-15f)), 0x1.ff8p-15f);            // the largest subnormal
    EXPECT_EQ(float_from_half(half_from_float(0x1.ffep-15f)), 0x1p-14f);                // its tie carries to normal
    EXPECT_TRUE(std::signbit(float_from_half(half_from_float(-0.0f))));
    EXPECT_TRUE(std::isnan(float_from_half(half_from_float(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Half, TensorsStoreHalvesAndViewsTakeTwoByteOffsets) {
    const auto context = shared_context();
    const std::vector<float> host{0.1f, -1.0f / 3.0f, 2049.0f, 1e-7f, 70000.0f};
    const Tensor t = Tensor::from_host(context, host, {5}, DataType::FLOAT16);
    EXPECT_EQ(t.dtype(), DataType::FLOAT16);
    EXPECT_EQ(t.bytes(), 10u);
    const auto back = t.to_host();
    for (std::size_t i = 0; i < host.size(); ++i) EXPECT_EQ(back[i], round_to_half(host[i])) << i;

    const Tensor whole = Tensor::empty(context, {8}, DataType::FLOAT16);
    const Tensor view = Tensor::view(context, whole.buffer()(), 6, {5}, DataType::FLOAT16);
    EXPECT_EQ(view.offset(), 3u);  // in halves, as the kernels take it
    expect_error([&] { Tensor::view(context, whole.buffer()(), 3, {2}, DataType::FLOAT16); },
                 {"byte offset 3", "multiple of 2", "float16"});
    expect_error([&] { Tensor::view(context, whole.buffer()(), 10, {4}, DataType::FLOAT16); },
                 {"runs past the end of a 16-byte buffer"});

    Tensor filled = Tensor::empty(context, {3}, DataType::FLOAT16);
    filled.fill(0.1f);
    for (const float v : filled.to_host()) EXPECT_EQ(v, round_to_half(0.1f));
}

// Every implementation that declares float16, in every direction and rank it
// takes, with every variant, on up to three edge shapes it takes, spread
// over the table (its first, middle and last): what half changes is each
// kernel's loads and stores, whose ragged tiles, borders and strides the
// float32 suites cover shape by shape; three builds a variant keep the
// suite's PoCL compiles modest. A variant that refuses in half a shape it
// takes in float32 must say why for half, so none declares float16 and
// silently takes nothing; one the device refuses in float32 too (NVIDIA's
// constant and local memory) is named, not run.
TEST(Half, EveryImplementationThatTakesHalfMatchesTheReferenceOnTheEdgeTables) {
    const auto context = with_every_implementation(shared_context());
    const DeviceProfile& profile = context->profile();
    std::uint64_t seed = 9100;
    for (const ConvImplementation* impl : conv_implementations()) {
        const ProblemKinds kinds = impl->problem_kinds();
        if (std::find(kinds.types.begin(), kinds.types.end(), DataType::FLOAT16) == kinds.types.end()) continue;
        for (const Variant& variant : impl->variants()) {
            int ran = 0;
            std::string refusal;
            for (const int rank : kinds.spatial_ranks) {
                const auto table = rank == 3 ? edge_case_shapes_3d() : edge_case_shapes();
                for (const ConvDirection direction : kinds.directions) {
                    std::vector<ConvShapes> taken;
                    for (const ConvShapes& edge : table) {
                        const ConvShapes s = in_half(edge.in_direction(direction));
                        if (const auto why = why_not(variant, s, profile)) {
                            // A shape the variant takes in float32 it refuses in half only saying so.
                            ConvShapes f32 = s;
                            f32.dtype = DataType::FLOAT32;
                            if (!why_not(variant, f32, profile)) {
                                EXPECT_NE(why->find("float16"), std::string::npos)
                                    << variant.id << " refused in half what it takes in float32: " << *why;
                                refusal = *why;
                            }
                        } else {
                            taken.push_back(s);
                        }
                    }
                    std::vector<ConvShapes> picked;
                    if (!taken.empty()) picked = {taken.front(), taken[taken.size() / 2], taken.back()};
                    if (taken.size() < 3) picked = taken;
                    for (const ConvShapes& s : picked) {
                        ConvCaseOptions options;
                        options.strategy = impl->kernel();
                        options.variant = variant;
                        options.seed = seed++;
                        options.context = context;
                        options.tolerance_factor = tolerance_factor(variant);
                        const ConvCaseResult r = run_conv_case(s, options);
                        EXPECT_TRUE(r.passed()) << describe(s, r);
                        EXPECT_EQ(r.plan.variant, variant) << s.str();
                        ++ran;
                    }
                }
            }
            // None taken: every refusal above named float16, or the device refuses the variant in float32
            // too (on NVIDIA's limits the __constant and F(6x6) fused Winograd kernels take no edge shape);
            // said, not passed silently.
            if (ran == 0 && refusal.empty()) {
                std::cout << "[ NOTE     ] " << variant.id
                          << ": this device takes no edge shape for it in float32 either; not run in half here\n";
            }
        }
    }
}

TEST(Half, RandomLayersMatchTheReferenceInEveryDirection) {
    std::mt19937_64 rng(20261126);
    const auto directions = all_conv_directions();
    for (int i = 0; i < 36; ++i) {
        const ConvShapes s = in_half(random_small_shape(rng).in_direction(directions[i % 3]));
        ConvCaseOptions options;
        options.seed = 9500 + i;
        const ConvCaseResult r = run_conv_case(s, options);  // the selector's choice
        EXPECT_TRUE(r.passed()) << describe(s, r);
    }
}

// Half data through Lavin & Gray's protocol on a VGG-like layer: the error is
// half's output rounding, not more (Table 4's fp16 column is 1.1e-2..3.2e-2
// on their layers; the arithmetic here is fp32, so direct stays near
// 2^-11 of the output's size).
TEST(Half, AVggLikeLayerIsWithinHalfRoundingOfTheExactAnswer) {
    ConvShapes s = in_half(sampled_vgg_like_shape());
    ConvCaseOptions options;
    options.strategy = Kernel::CONV2D_NAIVE;
    options.samples = 2000;
    options.seed = 9700;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_GT(r.max_abs_error, 0.0) << "half storage rounds: an exact answer means the output was not half";
}

// Separate-transform Winograd keeps a float32 copy of a half input in its
// workspace beside V and M: under a workspace limit the passes get what the
// copy leaves (here two tiles' transforms: the layer's 12 F(2x2) tiles in 6
// passes), the whole stays within the limit, and a limit the copy alone
// fills is refused with the reason.
TEST(Half, WinogradPassesShareTheWorkspaceWithTheWidenedInput) {
    ConvShapes layer;
    layer.N = 1, layer.C = 8, layer.H = 6, layer.W = 8, layer.K = 8, layer.R = layer.S = 3;
    layer.set_padding(1);
    const ConvShapes s = in_half(layer);
    const std::size_t widened = static_cast<std::size_t>(s.input_numel()) * sizeof(float);
    const std::size_t per_tile = static_cast<std::size_t>((s.C + s.K) * 16) * sizeof(float);
    ConvCaseOptions options;
    options.strategy = Kernel::CONV2D_WINOGRAD;
    options.variant = Variant("wino-f2-gemm");
    options.seed = 31;
    options.workspace_limit_bytes = widened + 2 * per_tile;
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_LE(r.workspace_bytes, *options.workspace_limit_bytes) << r.plan.config;
    EXPECT_EQ(r.workspace_bytes, widened + 2 * per_tile) << r.plan.config;
    EXPECT_NE(r.plan.config.find("2 of 12 tiles a pass"), std::string::npos) << r.plan.config;
    DeviceProfile tight = shared_context()->profile();
    tight.tuned["winograd_gemm_workspace_limit_bytes"] = static_cast<double>(widened + per_tile - 1);
    const auto reason = why_not(Variant("wino-f2-gemm"), s, tight);
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find("float32 copy of the half input"), std::string::npos) << *reason;
}

// Where the whole batch's float32 copy would take more than half the
// workspace limit, the layer runs in chunks of images (a divisor of N), each
// widened alone and written to its own images of y: N = 6 in 2 chunks of 3,
// ragged tiles, a bias, passes within each chunk.
TEST(Half, WinogradRunsTheBatchInChunksWhereTheWholeCopyWouldCrowdThePasses) {
    ConvShapes layer;
    layer.N = 6, layer.C = 8, layer.H = 7, layer.W = 9, layer.K = 8, layer.R = layer.S = 3, layer.bias = true;
    layer.set_padding(1);
    const ConvShapes s = in_half(layer);
    const std::size_t image = static_cast<std::size_t>(s.C * s.H * s.W) * sizeof(float);
    ConvCaseOptions options;
    options.strategy = Kernel::CONV2D_WINOGRAD;
    options.variant = Variant("wino-f2-gemm");
    options.seed = 37;
    options.workspace_limit_bytes = 7 * image;  // half of it holds 3 images' copy, not 6
    const ConvCaseResult r = run_conv_case(s, options);
    EXPECT_TRUE(r.passed()) << describe(s, r);
    EXPECT_LE(r.workspace_bytes, *options.workspace_limit_bytes) << r.plan.config;
    EXPECT_NE(r.plan.config.find("in each of 2 chunks of 3 image(s)"), std::string::npos) << r.plan.config;
    // The whole copy within half the limit: one chunk, as before.
    options.workspace_limit_bytes = 13 * image;
    const ConvCaseResult whole = run_conv_case(s, options);
    EXPECT_TRUE(whole.passed()) << describe(s, whole);
    EXPECT_EQ(whole.plan.config.find("chunks"), std::string::npos) << whole.plan.config;
}

// s on separate-transform F(4x4) Winograd under `context`'s profile.
ConvCaseResult run_winograd_f4(const ConvShapes& s, const std::shared_ptr<Context>& context, std::uint64_t seed) {
    ConvCaseOptions o;
    o.strategy = Kernel::CONV2D_WINOGRAD;
    o.variant = Variant("wino-f4-gemm");
    o.tolerance_factor = tolerance_factor(*o.variant);
    o.seed = seed;
    o.context = context;
    return run_conv_case(s, o);
}

// Separate-transform Winograd stores a half y from each of its three output
// transforms (forced by the profile): a tile a work-item, a tile row's tiles
// in a vector's lanes, and a group of channels in a vector's lanes after the
// transposed multiply, whose whole groups round a vector at once and whose
// last group (K off the group) and ragged tiles store lane by lane. With the
// activation alone (the vector rounding) and with the residual (read back
// from half).
TEST(Half, EachWinogradOutputTransformStoresHalf) {
    const std::vector<std::pair<std::string, std::function<void(DeviceProfile&)>>> transforms = {
        {"a tile a work-item", [](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = 0, p.tuned["winograd_transform_lanes"] = 0; }},
        {"tiles a work-item", [](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = 0, p.tuned["winograd_transform_lanes"] = 8; }},
        {"channels a work-item", [](DeviceProfile& p) { p.tuned["winograd_gemm_transposed"] = 1; }},
    };
    ConvShapes s;
    s.N = 2, s.C = 8, s.H = 9, s.W = 37, s.K = 35, s.R = 3, s.S = 3, s.set_padding(1, 0, 1, 2), s.bias = true;
    s = in_half(s);
    std::uint64_t seed = 9800;
    for (const auto& [name, edit] : transforms) {
        const auto context = context_with_profile(edit);
        // The first two stores are covered without post-ops by the edge
        // tables; a PoCL build per case, so the residual alone for them.
        std::vector<PostOps> cases{PostOps::leaky_relu(0.25f).with_sum()};
        if (name == "channels a work-item") cases.push_back(PostOps::relu());
        for (const PostOps& post_ops : cases) {
            s.post_ops = post_ops;
            const auto result = run_winograd_f4(s, context, seed++);
            EXPECT_TRUE(result.passed()) << name << " " << post_ops.str() << ": " << describe(s, result);
            if (name != "a tile a work-item") {
                EXPECT_NE(result.plan.config.find(name), std::string::npos) << result.plan.config;
            }
        }
    }
}

// The channel-lane input transform (the transposed multiply's) reads a half
// x itself, gathering a pixel's channels as half bits converted as one
// vector (kernels_cl/winograd_gemm_channels.cl): no float32 copy in the
// workspace, at 8 and 16 channels a work-item (16: rows inside the image
// loaded eight halves at a time and transposed in registers), C = 21 off
// both (a last group of 5), asymmetric padding, ragged tiles, two images.
// The one-tile transform, which would convert a lane at a time, still
// transforms a float32 copy.
TEST(Half, TheChannelTransformReadsTheHalfInputItself) {
    ConvShapes s;
    s.N = 2, s.C = 21, s.H = 11, s.W = 29, s.K = 16, s.R = 3, s.S = 3, s.set_padding(2, 1, 0, 1), s.bias = true;
    s = in_half(s);
    const WinogradTile f4{4, 3};
    std::uint64_t seed = 9900;
    for (const int lanes : {8, 16}) {
        const auto context = context_with_profile([lanes](DeviceProfile& p) {
            p.tuned["winograd_gemm_transposed"] = 1, p.tuned["winograd_gemm_transposed_vw"] = lanes;
        });
        const WinogradGemmConfig c = winograd_gemm_config(f4, s, context->profile());
        ASSERT_TRUE(c.transposed && c.tile.vw == lanes) << c.str();
        EXPECT_FALSE(c.widens_input) << c.str();
        EXPECT_EQ(c.widened_input_bytes(s), 0u);
        const auto result = run_winograd_f4(s, context, seed++);
        EXPECT_TRUE(result.passed()) << lanes << " channels a work-item: " << describe(s, result);
        EXPECT_EQ(result.workspace_bytes, c.workspace_bytes(s)) << result.plan.config;
        EXPECT_NE(result.plan.config.find("the half input read by the channel transform"), std::string::npos)
            << result.plan.config;
    }
    DeviceProfile one_tile = shared_context()->profile();
    one_tile.tuned["winograd_gemm_transposed"] = 0, one_tile.tuned["winograd_transform_lanes"] = 0;
    const WinogradGemmConfig widened = winograd_gemm_config(f4, s, one_tile);
    EXPECT_TRUE(widened.widens_input) << widened.str();
    EXPECT_EQ(widened.widened_input_bytes(s), static_cast<std::size_t>(s.input_numel()) * sizeof(float));
    EXPECT_NE(widened.str().find("the half input widened to float32"), std::string::npos) << widened.str();
}

// F(2x2)'s U kept in half where the profile asks (winograd_gemm_half_u), on
// both multiplies that read it (transposed: U as the GEMM's B in panels, with
// a K of 35 padding the last panel with zeros; plain: U as its A) and in 3-D
// (F(2x2x2), the DEPTH store): the weight transform rounds U to half, the
// GEMM widens it. U's rounding is an error of its own beyond fp32's, bounded
// here from F(2x2)'s matrices: each output sums 3 x 3 of the alpha^2 = 16
// products U_e V_e over C with coefficients of at most 1 (A^T's entries),
// |V| <= 4 max|x| (B^T's rows sum to at most 2) and |U| <= 2.25 max|w| (G's
// rows to 1.5), each U off by at most 2^-11 of itself: 0.04 C (in 3-D
// 27 x 3.375 x 8 x 2^-11 = 0.36 C); against the 1e-6 a term that
// conv_tolerance() allows (C R S terms), a factor of 4400 (3-D 13300). F(4x4)
// never takes it (its error went to 0.08-0.22 on VGG's layers).
TEST(Half, WinogradF2KeepsUInHalfWhereTheProfileAsks) {
    ConvShapes s;
    s.N = 2, s.C = 19, s.H = 9, s.W = 13, s.K = 35, s.R = 3, s.S = 3, s.set_padding(1, 2, 0, 1), s.bias = true;
    s = in_half(s);
    const ConvShapes s3 = in_half(make3d(2, 6, 11, {5, 3, 1, 1, 0}, {6, 3, 1, 0, 1}, {7, 3, 1, 1, 1}));
    struct Case {
        const char* name;
        ConvShapes shapes;
        Variant variant;
        int transposed;
        double factor;
    };
    const std::vector<Case> cases = {{"transposed", s, Variant("wino-f2-gemm"), 1, 4400},
                                     {"plain", s, Variant("wino-f2-gemm"), 0, 4400},
                                     {"3-D", s3, Variant("wino3d-f2-gemm"), 0, 13300}};
    std::uint64_t seed = 9950;
    for (const Case& c : cases) {
        const auto context = context_with_profile([&c](DeviceProfile& p) {
            p.tuned["winograd_gemm_half_u"] = 1, p.tuned["winograd_gemm_transposed"] = c.transposed;
        });
        const auto tile = winograd_gemm_tile(c.variant);
        ASSERT_TRUE(tile);
        const WinogradGemmConfig config = winograd_gemm_config(*tile, c.shapes, context->profile());
        EXPECT_TRUE(config.half_u) << c.name << ": " << config.str();
        EXPECT_EQ(config.transposed, c.transposed != 0) << config.str();
        EXPECT_EQ(config.weight_bytes(c.shapes),
                  static_cast<std::size_t>(config.elements() *
                                           (config.u_columns(c.shapes) * c.shapes.C + (config.transposed ? 32 : 0))) *
                      2);
        ConvCaseOptions o;
        o.strategy = Kernel::CONV2D_WINOGRAD;
        o.variant = c.variant;
        o.tolerance_factor = tolerance_factor(c.variant) + c.factor;
        o.seed = seed++;
        o.context = context;
        const auto result = run_conv_case(c.shapes, o);
        EXPECT_TRUE(result.passed()) << c.name << ": " << describe(c.shapes, result);
        EXPECT_NE(result.plan.config.find("U in half"), std::string::npos) << result.plan.config;
    }
    // Neither a float32 layer nor F(4x4) takes it, whatever the profile says.
    DeviceProfile asks = shared_context()->profile();
    asks.tuned["winograd_gemm_half_u"] = 1;
    ConvShapes f32 = s;
    f32.dtype = DataType::FLOAT32;
    EXPECT_FALSE(winograd_gemm_config(WinogradTile{2, 3}, f32, asks).half_u);
    EXPECT_FALSE(winograd_gemm_config(WinogradTile{4, 3}, s, asks).half_u);
    EXPECT_FALSE(winograd_gemm_config(WinogradTile{2, 3}, s, shared_context()->profile()).half_u);
}

// The fused Winograd kernel in half on NVIDIA's configuration (nvidia-gpu.json's
// block sizes, exact C tails, C split into slices for enough work-groups): with
// C = 150 over F(4x4)'s 72-channel steps it splits C, and the slices' partial
// sums go to the float32 workspace (PARTIAL_FLOAT) before winograd_reduce
// stores half through the bias and a residual sum; C = 19 in one slice stores
// half from the fused kernel itself.
TEST(Half, FusedWinogradSplitsCIntoFloatPartialsAndStoresHalf) {
    const DeviceProfile nvidia = load_profile("nvidia-gpu");
    const auto context = context_with_profile([&](DeviceProfile& p) {
        p.tuned = nvidia_tuned();
        p.local_mem_bytes = nvidia.local_mem_bytes;
        p.max_constant_buffer_bytes = nvidia.max_constant_buffer_bytes;
        p.max_constant_args = nvidia.max_constant_args;
    });
    const Variant variant("wino-f4-fused-global");
    ConvShapes split;
    split.N = 1, split.C = 150, split.H = split.W = 9, split.K = 70, split.R = split.S = 3, split.bias = true;
    split.set_padding(1);
    split.post_ops = PostOps::relu().with_sum();
    ConvShapes whole = split;
    whole.C = 19, whole.H = 5, whole.W = 7, whole.K = 9, whole.post_ops = {};
    std::uint64_t seed = 9900;
    for (const ConvShapes& s : {in_half(split), in_half(whole)}) {
        ConvCaseOptions o;
        o.strategy = Kernel::CONV2D_WINOGRAD;
        o.variant = variant;
        o.tolerance_factor = tolerance_factor(variant);
        o.seed = seed++;
        o.context = context;
        const auto result = run_conv_case(s, o);
        EXPECT_TRUE(result.passed()) << describe(s, result);
        const std::vector<ProgramSpec> programs = implementation_of(variant).programs(variant, s, context->profile());
        ASSERT_EQ(programs.size(), 1u);
        const bool splits = result.plan.config.find("C split in") != std::string::npos;
        EXPECT_EQ(splits, s.C == 150) << result.plan.config;
        EXPECT_EQ(programs.front().options.find("-DPARTIAL_FLOAT") != std::string::npos, splits) << programs.front().options;
        EXPECT_NE(programs.front().options.find("-DSTORAGE_HALF"), std::string::npos) << programs.front().options;
    }
    // There the selector plans a half VGG layer on it, as it does the float32 one (before, every half layer
    // on NVIDIA ran on the direct kernel: VGG-16 at N = 1 in 12.3 ms against float32's 1.43 on an H100).
    const ConvShapes vgg = in_half(sampled_vgg_like_shape());
    const Decision d = KernelSelector::global().explain(selector_op(vgg), vgg, context->profile());
    EXPECT_EQ(d.plan.variant, variant) << d.str();
}

// wgrad-gemm in half widens its GEMM's A operand (dy beside x's patches; x
// read in place beside dy's copy) into the workspace a chunk of pixels at a
// time, rows P*Q apart packed, and blends dw eight halves at a time: chunks
// that split images, groups, a dw of 270 elements (a tail after the eights)
// and a transposed one of 9 x 10 a group (whole and ragged blocks), beta 0
// and 1. Copied columns are float32 already and widen nothing.
TEST(Half, WeightGradientGemmWidensItsOperandAChunkAtATime) {
    const Variant variant("wgrad-gemm");
    ConvShapes with_patches;  // 3 images of 7 x 9 outputs: 10 dy and 54 patch floats a pixel
    with_patches.N = 3, with_patches.C = 6, with_patches.H = 13, with_patches.W = 17, with_patches.K = 10;
    with_patches.R = with_patches.S = 3, with_patches.stride_h = with_patches.stride_w = 2, with_patches.groups = 2;
    with_patches.set_padding(1);
    ConvShapes in_place;  // 2 images of 5 x 19 pixels: 20 x and 18 dy floats a pixel
    in_place.N = 2, in_place.C = 20, in_place.H = 5, in_place.W = 19, in_place.K = 18, in_place.R = in_place.S = 1;
    in_place.groups = 2;
    const auto forced = [](double dy_copy_ratio, double chunk_bytes) {
        return context_with_profile([=](DeviceProfile& p) {
            p.tuned["wgrad_gemm_dy_copy_max_ratio"] = dy_copy_ratio;
            p.tuned["wgrad_gemm_columns_min_width"] = 0;
            p.tuned["wgrad_gemm_chunk_bytes"] = chunk_bytes;
            p.tuned["wgrad_gemm_dy_chunk_bytes"] = chunk_bytes;  // x in place
        });
    };
    struct Case {
        ConvShapes shapes;
        std::shared_ptr<Context> context;
        std::string expected;
        std::size_t workspace_bytes;
    };
    const std::vector<Case> cases = {
        {in_half(with_patches.in_direction(ConvDirection::BACKWARD_WEIGHTS)), forced(0, 20 * 64 * sizeof(float)),
         "A widened to float32 a chunk at a time, 4 chunk(s) of 16 pixels an image", (16 * 64 + 270) * sizeof(float)},
        {in_half(in_place.in_direction(ConvDirection::BACKWARD_WEIGHTS)), forced(1e9, 40 * 38 * sizeof(float)),
         "x in place, dy copied transposed, A widened to float32 a chunk at a time, 3 chunk(s) of 32 pixels",
         (32 * 38 + 180) * sizeof(float)}};
    std::uint64_t seed = 9800;
    for (const Case& c : cases) {
        for (const float beta : {0.0f, 1.0f}) {
            const ConvCaseResult r = run_im2col_variant(variant, c.shapes, c.context, seed++, beta);
            EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(c.shapes, r);
            EXPECT_NE(r.plan.config.find(c.expected), std::string::npos) << r.plan.config;
            EXPECT_EQ(r.workspace_bytes, c.workspace_bytes) << r.plan.config;
        }
    }
    const ConvShapes copied = in_half(with_patches.in_direction(ConvDirection::BACKWARD_WEIGHTS));
    const ConvCaseResult r = run_im2col_variant(variant, copied, forced(1e9, 1 << 20), seed++);
    EXPECT_TRUE(r.passed()) << describe(copied, r);
    EXPECT_NE(r.plan.config.find("x's columns"), std::string::npos) << r.plan.config;
    EXPECT_EQ(r.plan.config.find("widened"), std::string::npos) << r.plan.config;
}

// wgrad-clblast in half (NVIDIA's weight gradient: ClblastWeightGradientConfig.hpp):
// CLBlast's SGEMM over float32 copies -- x's columns expanded even for a 1x1
// layer, each batch's dy widened into the workspace -- every image added into
// float32 partials and stored into the half dw once, at beta 0, 1 and 0.5:
// whole images (one slot) with two groups, a bias and passes of two images,
// pieces of an image's pixels (the last one short) in a call an image, two
// images a call with the third adding into their slots, and a 1x1 layer
// whole and in a call a piece over its images.
TEST(Half, ClblastWeightGradientSumsEveryImageInFloat32AndStoresHalfOnce) {
    const Variant variant("wgrad-clblast");
    ConvShapes strided;  // 3 images of 7 x 8 outputs, 2 groups: dW 10 x 27, dy 10 x 56 an image
    strided.N = 3, strided.C = 6, strided.H = 13, strided.W = 17, strided.K = 10, strided.R = strided.S = 3;
    strided.stride_h = strided.stride_w = 2, strided.groups = 2, strided.bias = true;
    strided.set_padding(1, 0, 2, 1);
    ConvShapes pointwise = strided;  // 1x1, stride 1, unpadded (13 x 17 pixels): float32 would read x in place
    pointwise.R = pointwise.S = 1, pointwise.stride_h = pointwise.stride_w = 1;
    pointwise.set_padding(0);
    const std::size_t f = sizeof(float), image_columns = 54 * 56 * f;
    const auto profile = [](double pass_bytes, double split_outputs, double min_chunk) {
        return context_with_profile([=](DeviceProfile& p) {
            p.tuned["im2col_pass_bytes"] = pass_bytes;
            p.tuned["wgrad_clblast_split_outputs"] = split_outputs;
            p.tuned["wgrad_clblast_min_chunk"] = min_chunk;
        });
    };
    struct Case {
        ConvShapes shapes;
        std::shared_ptr<Context> context;
        std::string expected;
        std::size_t workspace_bytes;  // a pass's columns, the partials (slots x dW's size), a batch's dy
    };
    const std::vector<Case> cases = {
        {strided, profile(2.0 * image_columns, 1, 1),
         "2 image(s) of columns a pass; dy widened to float32 a batch at a time; each image whole, CLBlast GEMMs "
         "into 1 float32 partial(s) (every image adding into them)",
         2 * image_columns + (270 + 560) * f},
        {strided, profile(1e9, 1e9, 9),
         "an image's pixels in 6 pieces of 10, CLBlast GEMMs into 18 float32 partial(s) (a call an image, 3 images'",
         3 * image_columns + (18 * 270 + 3 * 560) * f},
        // Two images a call (each its own slot), the third adding into the first's.
        {strided, profile(1e9, 2.5 * 270, 1), "into 2 float32 partial(s) (a call a piece over 2 images",
         3 * image_columns + (2 * 270 + 2 * 560) * f},
        {pointwise, profile(1e9, 1, 1), "3 image(s) of columns a pass", (3 * 6 * 221 + 30 + 10 * 221) * f},
        // A call a piece over the three images, the second piece one pixel short.
        {pointwise, profile(1e9, 1e9, 100),
         "an image's pixels in 2 pieces of 111, CLBlast GEMMs into 6 float32 partial(s) (a call a piece over 3 images",
         (3 * 6 * 221 + 6 * 30 + 3 * 10 * 221) * f}};
    std::uint64_t seed = 9950;
    for (const Case& c : cases) {
        const ConvShapes g = in_half(c.shapes.in_direction(ConvDirection::BACKWARD_WEIGHTS));
        for (const float beta : {0.0f, 1.0f, 0.5f}) {
            const ConvCaseResult r = run_im2col_variant(variant, g, c.context, seed++, beta);
            EXPECT_TRUE(r.passed()) << "beta " << beta << ": " << describe(g, r);
            EXPECT_NE(r.plan.config.find(c.expected), std::string::npos) << r.plan.config;
            EXPECT_NE(r.plan.config.find("summed into the half dw once"),
                      std::string::npos) << r.plan.config;
            EXPECT_EQ(r.workspace_bytes, c.workspace_bytes) << r.plan.config;
        }
    }
}

TEST(Half, TheSelectorPlansEveryHalfProblemAndSaysWhyAnImplementationCannot) {
    const auto context = with_every_implementation(shared_context());
    for (const ConvDirection direction : all_conv_directions()) {
        for (const ConvShapes& edge : edge_case_shapes()) {
            const ConvShapes s = in_half(edge.in_direction(direction));
            const Decision d = KernelSelector::global().explain(selector_op(s), s, context->profile());
            EXPECT_FALSE(d.plan.variant.id.empty()) << s.str();
            EXPECT_NE(d.problem.find("dtype=float16"), std::string::npos) << d.problem;
            for (const ConvImplementation* impl : conv_implementations()) {
                const ProblemKinds kinds = impl->problem_kinds();
                if (std::find(kinds.types.begin(), kinds.types.end(), DataType::FLOAT16) != kinds.types.end()) continue;
                if (std::find(kinds.directions.begin(), kinds.directions.end(), direction) == kinds.directions.end()) {
                    continue;  // refused for its direction first
                }
                const auto reason = problem_kind_why_not(*impl, s);
                ASSERT_TRUE(reason.has_value()) << impl->name();
                EXPECT_NE(reason->find("float16"), std::string::npos) << *reason;
            }
        }
    }
    EXPECT_NE(in_half(edge_case_shapes().front()).str().find("dtype=float16"), std::string::npos);
}

// im2col + CLBlast's SGEMM in half (ops/im2col/Im2colConv.hpp): the weights
// widened once, the columns widened by the expansion (a 1x1 layer's too,
// which float32 reads in place), a pass's output staged in float32 and
// stored into the half y by the output stage with the bias and the post-ops
// (the residual read from y). A 1x1 layer and a strided, grouped, padded one
// in passes of two of three images; and on NVIDIA's profile, whose GEMM
// engine is off, such layers plan it in half, not the direct kernel.
TEST(Half, Im2colOnClblastStagesItsOutputInFloat32AndStoresHalf) {
    const Variant variant("im2col-clblast");
    ConvShapes strided;  // 3 images of 7 x 8 outputs, 2 groups
    strided.N = 3, strided.C = 6, strided.H = 13, strided.W = 17, strided.K = 10, strided.R = strided.S = 3;
    strided.stride_h = strided.stride_w = 2, strided.groups = 2, strided.bias = true;
    strided.set_padding(1, 0, 2, 1);
    ConvShapes pointwise = strided;  // 13 x 17 pixels, 1x1 stride 1 unpadded
    pointwise.R = pointwise.S = 1, pointwise.stride_h = pointwise.stride_w = 1, pointwise.groups = 1;
    pointwise.set_padding(0);
    const std::size_t f = sizeof(float);
    struct Case {
        ConvShapes shapes;
        std::size_t image_columns, image_output;  // floats
    };
    std::uint64_t seed = 9970;
    for (const Case& c : {Case{strided, 54 * 56, 10 * 56}, Case{pointwise, 6 * 221, 10 * 221}}) {
        const auto passes = context_with_profile([&](DeviceProfile& p) {
            p.tuned["im2col_pass_bytes"] = static_cast<double>(2 * c.image_columns * f);
        });
        for (const PostOps& post_ops : {PostOps{}, PostOps::leaky_relu(0.25f).with_sum()}) {
            ConvShapes s = in_half(c.shapes);
            s.post_ops = post_ops;
            const ConvCaseResult r = run_im2col_variant(variant, s, passes, seed++);
            EXPECT_TRUE(r.passed()) << post_ops.str() << ": " << describe(s, r);
            EXPECT_NE(r.plan.config.find("2 image(s) per pass"), std::string::npos) << r.plan.config;
            EXPECT_NE(r.plan.config.find("the output stored into half from float32"), std::string::npos)
                << r.plan.config;
            EXPECT_EQ(r.workspace_bytes, 2 * (c.image_columns + c.image_output) * f) << r.plan.config;
        }
    }
    DeviceProfile nvidia = KernelSelector::resolve_profile(shared_context()->profile());
    nvidia.tuned = load_profile("nvidia-gpu").tuned;
    ConvShapes reduce;  // ResNet's res4.reduce at N = 4
    reduce.N = 4, reduce.C = 1024, reduce.H = reduce.W = 14, reduce.K = 256, reduce.R = reduce.S = 1;
    ConvShapes down = reduce;  // its 3x3 stride 2 from 28x28
    down.C = 256, down.H = down.W = 28, down.R = down.S = 3, down.stride_h = down.stride_w = 2;
    down.set_padding(1);
    for (const ConvShapes& layer : {reduce, down}) {
        const ConvShapes s = in_half(layer);
        const Decision d = KernelSelector::global().explain(selector_op(s), s, nvidia);
        EXPECT_EQ(d.plan.variant, variant) << d.str();
    }
}

TEST(Half, MixedTypesAreAnErrorThatWritesNothing) {
    const auto context = shared_context();
    Conv2dOptions o;
    o.in_channels = 2;
    o.out_channels = 3;
    o.padding = 1;
    o.dtype = DataType::FLOAT16;
    Conv2d conv(context, o);
    conv.set_weights(random_uniform(2 * 3 * 9, 1), random_uniform(3, 2));
    const Tensor x32 = Tensor::from_host(context, random_uniform(2 * 25, 3), {1, 2, 5, 5});
    const Tensor x16 = Tensor::from_host(context, random_uniform(2 * 25, 3), {1, 2, 5, 5}, DataType::FLOAT16);
    Tensor y16 = Tensor::empty(context, {1, 3, 5, 5}, DataType::FLOAT16);
    y16.fill(std::numeric_limits<float>::quiet_NaN());
    expect_error([&] { conv.forward(x32, y16); }, {"Conv2d::forward", "float32 tensor", "float16 layer"});
    for (const float v : y16.to_host()) EXPECT_TRUE(std::isnan(v));
    Tensor y32 = Tensor::empty(context, {1, 3, 5, 5});
    expect_error([&] { conv.forward(x16, y32); }, {"float32 tensor", "expected every tensor in float16"});
    const Tensor w32 = Tensor::from_host(context, random_uniform(2 * 3 * 9, 1), {3, 2, 3, 3});
    const Tensor b16 = Tensor::from_host(context, random_uniform(3, 1), {3}, DataType::FLOAT16);
    expect_error([&] { conv.set_weights(w32, &b16); }, {"set_weights", "float32 tensor for a float16 layer"});
    Tensor workspace16 = Tensor::empty(context, {64}, DataType::FLOAT16);
    expect_error([&] { conv.forward(x16, y16, {}, &workspace16); }, {"workspace", "expected a float32 one"});
    // The layer still works after every refusal, and forward(x) answers in half.
    const Tensor y = conv.forward(x16);
    EXPECT_EQ(y.dtype(), DataType::FLOAT16);
    conv.forward(x16, y16);
    for (const float v : y16.to_host()) EXPECT_TRUE(std::isfinite(v));
}

// Each kernel's half store rounds to nearest even, as the host and
// vstore_half do: y = x0 + x1 on a 1x1 layer of two channels with weights 1,
// at sums that fall between halves (below, above and on a tie, with an odd
// and an even neighbour), in every implementation that takes a 1x1 layer.
TEST(Half, EveryKernelRoundsItsOutputsToNearestEven) {
    const auto context = with_every_implementation(shared_context());
    const std::vector<std::pair<float, float>> sums{
        {1.0f, 0x1.8p-11f},                // 1 + 1.5 * 2^-11: nearer 1 + 2^-10
        {1.0f, 0x1.8p-12f},                // 1 + 0.75 * 2^-11: nearer 1
        {1.0f, 0x1p-11f},                  // a tie: to 1 (even)
        {1.0f + 0x1p-10f, 0x1p-11f},       // a tie: to 1 + 2^-9 (even), not 1 + 2^-10
        {-1.0f - 0x1p-10f, -0x1p-11f},     // the same, negative
        {0x1p-15f, 0x1p-24f},              // subnormal outputs are exact
        {60000.0f, 5508.0f},               // 65508: below the overflow tie, 65504
        {60000.0f, 5520.0f},               // 65520: the tie, Inf
    };
    std::vector<float> x;  // N = sums, C = 2, 1x1; every input a half exactly
    for (const auto& [a, b] : sums) {
        ASSERT_EQ(round_to_half(a), a);
        ASSERT_EQ(round_to_half(b), b);
        x.insert(x.end(), {a, b});
    }
    ConvShapes s;
    s.N = static_cast<std::int64_t>(sums.size()), s.C = 2, s.H = s.W = 1, s.K = 1, s.R = s.S = 1, s.bias = false;
    s.dtype = DataType::FLOAT16;
    int ran = 0;
    for (const ConvImplementation* impl : conv_implementations()) {
        for (const Variant& variant : impl->variants()) {
            if (why_not(variant, s, context->profile())) continue;
            Conv2dOptions o = Conv2dOptions::for_shapes(s);
            o.strategy = impl->kernel();
            o.variant = variant;
            Conv2d conv(context, o);
            conv.set_weights(std::vector<float>{1.0f, 1.0f});
            const auto y = conv.forward(Tensor::from_host(context, x, s.input_shape(), DataType::FLOAT16)).to_host();
            for (std::size_t n = 0; n < sums.size(); ++n) {
                const float exact = sums[n].first + sums[n].second;  // exact in float for every row
                EXPECT_EQ(y[n], round_to_half(exact)) << variant.id << " row " << n;
            }
            ++ran;
        }
    }
    EXPECT_GE(ran, 3) << "naive, the implicit GEMM and the 1x1 GEMM take a 1x1 layer";
    EXPECT_EQ(round_to_half(1.0f + 0x1.8p-11f), 1.0f + 0x1p-10f);
    EXPECT_EQ(round_to_half(1.0f + 0x1.8p-12f), 1.0f);
    EXPECT_EQ(round_to_half(1.0f + 0x1p-10f + 0x1p-11f), 1.0f + 0x1p-9f);
    EXPECT_TRUE(std::isinf(round_to_half(65520.0f)));
}

// Non-finite values behave as in fp32 (README): a NaN or Inf in half input
// reaches the outputs it feeds, and a finite sum past 65504 stores as Inf.
TEST(Half, NonFiniteValuesPropagateAndOverflowIsInfinity) {
    const auto context = shared_context();
    Conv2dOptions o;
    o.in_channels = 1;
    o.out_channels = 1;
    o.kernel = {1, 1};
    o.bias = false;
    o.dtype = DataType::FLOAT16;
    Conv2d conv(context, o);
    conv.set_weights(std::vector<float>{60000.0f});
    const Tensor x = Tensor::from_host(context, {1.0f, std::numeric_limits<float>::quiet_NaN(),
                                                 std::numeric_limits<float>::infinity(), 2.0f},
                                       {1, 1, 2, 2}, DataType::FLOAT16);
    const auto y = conv.forward(x).to_host();
    EXPECT_EQ(y[0], round_to_half(60000.0f));
    EXPECT_TRUE(std::isnan(y[1]));
    EXPECT_TRUE(std::isinf(y[2]) && y[2] > 0);
    EXPECT_TRUE(std::isinf(y[3]) && y[3] > 0);  // 120000 > 65504
}

}  // namespace
}  // namespace netcl::test
