// Profile store: shipped profiles, the user cache, layering, bad files, the
// find-database and the order of decision. No OpenCL device is needed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <array>
#include <limits>

#include "netcl/Conv2d.hpp"
#include "netcl/Error.hpp"
#include "netcl/KernelSelector.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "tests/support/TestData.hpp"
#include "selector/ProfileStore.hpp"
#include "selector/Thresholds.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/col2im/Col2imGemmConfig.hpp"
#include "ops/direct_rows/DirectRowsConfig.hpp"
#include "ops/gemm/Gemm1x1Config.hpp"
#include "ops/implicit_gemm/ImplicitGemmConfig.hpp"
#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "tests/selector/SelectorTestSupport.hpp"

namespace netcl::test {
namespace {

// A device no shipped profile names (so only default.json matches it).
DeviceProfile test_device() {
    DeviceProfile d = load_profile("default");
    d.name = "Test Device 9000";
    d.vendor = "Nobody";
    d.platform_name = "Test Platform";
    d.driver_version = "1.0";
    d.type = DeviceType::ACCELERATOR;
    d.tuned.clear();
    return d;
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream file(path);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

const char* const kValidUserProfile = R"({
  "netcl_profile": 1,
  "match": { "name": "Test Device 9000" },
  "tuned": { "winograd_min_channels": 1000, "naive_max_flops": 5 },
  "records": [
    { "shape": "N=1 C=64 H=56 W=56 K=64 R=3 S=3 stride=1 pad=1 dil=1 groups=1", "kernel": "IM2COL", "median_ms": 1.5 }
  ]
})";

TEST(ShippedProfiles, ParseAndHoldTheirFacts) {
    const auto names = shipped_profile_names();
    EXPECT_EQ(names, (std::vector<std::string>{"default", "nvidia-gpu", "pocl-cpu-avx512-intel", "pocl-cpu-avx512",
                                               "pocl-cpu-intel", "pocl-cpu"}));
    for (const auto& name : names) EXPECT_NO_THROW(load_profile(name)) << name;
    const DeviceProfile defaults = load_profile("default");
    for (const auto& key : threshold_keys()) EXPECT_TRUE(defaults.tuned.count(key)) << "default.json lacks " << key;
    const DeviceProfile nv = load_profile("nvidia-gpu");
    EXPECT_EQ(nv.type, DeviceType::GPU);
    EXPECT_EQ(nv.opencl_c_version, "OpenCL C 1.2");
    EXPECT_EQ(nv.local_mem_bytes, 48u * 1024);
    EXPECT_EQ(nv.max_constant_buffer_bytes, 64u * 1024);
    EXPECT_EQ(nv.max_constant_args, 9u);
    EXPECT_EQ(load_profile("pocl-cpu").type, DeviceType::CPU);
    try {
        load_profile("amd-gpu");
        FAIL() << "expected netcl::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        const std::string names_listed =
            "default, nvidia-gpu, pocl-cpu-avx512-intel, pocl-cpu-avx512, pocl-cpu-intel, pocl-cpu";
        EXPECT_NE(message.find(names_listed), std::string::npos) << message;
    }
}

TEST_F(SelectorTest, LookupLayersDefaultThenVendorThenName) {
    DeviceProfile nv = load_profile("nvidia-gpu");
    nv.tuned.clear();
    const auto stored = ProfileStore::global().lookup(nv);
    EXPECT_EQ(stored->sources, (std::vector<std::string>{"embedded:default", "embedded:nvidia-gpu"}));
    EXPECT_EQ(stored->tuned.at(threshold_key::naive_max_flops), 1000000);   // NVIDIA's, over the default's
    EXPECT_EQ(stored->tuned.at(threshold_key::winograd_f4_min_output), 8);  // only in default.json
    // A device nothing names gets the default alone.
    EXPECT_EQ(ProfileStore::global().lookup(test_device())->sources, (std::vector<std::string>{"embedded:default"}));
    // A user file naming the device layers on top.
    const auto path = write_user_file("mine.json", kValidUserProfile);
    const auto mine = ProfileStore::global().lookup(test_device());
    EXPECT_EQ(mine->sources, (std::vector<std::string>{"embedded:default", path.string()}));
    EXPECT_EQ(mine->tuned.at(threshold_key::winograd_min_channels), 1000);
    EXPECT_EQ(mine->tuned.at(threshold_key::im2col_min_flops), load_profile("default").tuned.at("im2col_min_flops"));
    EXPECT_EQ(mine->records.size(), 1u);
}

TEST_F(SelectorTest, PoclOnAvx512LayersItsGemmTilesOverPoclCpu) {
    // PoCL names the LLVM target in the device name; float16 tiles only where it says AVX-512.
    const DeviceProfile avx512 = pocl_avx512_device("AuthenticAMD");
    const auto wide = ProfileStore::global().lookup(avx512);
    EXPECT_EQ(wide->sources,
              (std::vector<std::string>{"embedded:default", "embedded:pocl-cpu", "embedded:pocl-cpu-avx512"}));
    EXPECT_EQ(wide->tuned.at("gemm_vw"), 16);
    EXPECT_EQ(wide->tuned.at(threshold_key::winograd_f4_min_tiles), 16);
    EXPECT_EQ(wide->tuned.at(threshold_key::winograd_min_output), 0);  // the default's: res5's 7x7 stays Winograd
    EXPECT_EQ(wide->tuned.at(threshold_key::winograd_f6_min_output), 28);  // over pocl-cpu's 112 (Zen 1)
    // The implicit GEMM: ResNet-50's res4.3x3.stride2 on 4 x 64, res4.projection (1x1 stride 2) on 8 x 48,
    // res5.3x3.stride2 at N = 1 (49 pixels) on the few-pixel 4 x 64.
    ConvShapes strided;
    strided.N = 1, strided.C = 256, strided.H = strided.W = 28, strided.K = 256, strided.R = strided.S = 3;
    strided.stride_h = strided.stride_w = 2, strided.set_padding(1);
    ConvShapes projection = strided;
    projection.C = 512, projection.K = 1024, projection.R = projection.S = 1, projection.set_padding(0);
    const DeviceProfile layered = pocl_avx512_profile();
    const GemmTile strided_tile = implicit_gemm_config(strided, layered).tile;
    EXPECT_EQ(strided_tile.mr, 4);
    EXPECT_EQ(strided_tile.nr(), 64);
    const GemmTile projection_tile = implicit_gemm_config(projection, layered).tile;
    EXPECT_EQ(projection_tile.prefix, "implicit_gemm_pointwise");
    EXPECT_EQ(projection_tile.mr, 8);
    EXPECT_EQ(projection_tile.nr(), 48);
    ConvShapes few = strided;
    few.C = few.K = 512, few.H = few.W = 14;
    const GemmTile few_tile = implicit_gemm_config(few, layered).tile;
    EXPECT_EQ(few_tile.prefix, "implicit_gemm_few_pixels");
    EXPECT_EQ(few_tile.mr, 4);
    EXPECT_EQ(few_tile.nr(), 64);
    // im2col passes of at most 8 MiB: VGG's conv1.1 (5.4 MB of columns an image) at N = 8 one image a pass.
    ConvShapes stem;
    stem.N = 8, stem.C = 3, stem.H = stem.W = 224, stem.K = 64, stem.R = stem.S = 3, stem.set_padding(1);
    EXPECT_EQ(im2col_layout(stem, layered).images_per_pass, 1);
    EXPECT_EQ(im2col_layout(stem, load_profile("pocl-cpu")).images_per_pass, 1) << "pocl-cpu's own 8 MiB (AVX2 too)";
    EXPECT_EQ(im2col_layout(stem, load_profile("default")).images_per_pass, 6) << "elsewhere the 32 MiB default";
    DeviceProfile avx2 = avx512;
    avx2.name = "pthread-haswell-Intel(R) Xeon(R)";
    const auto narrow = ProfileStore::global().lookup(avx2);
    EXPECT_EQ(narrow->sources, (std::vector<std::string>{"embedded:default", "embedded:pocl-cpu"}));
    EXPECT_EQ(narrow->tuned.count("gemm_vw"), 0u);
    EXPECT_EQ(narrow->tuned.at(threshold_key::winograd_f4_min_tiles), 16);  // pocl-cpu's own (Zen 3, AVX2)
}

// An Intel CPU of either ISA class: pocl-cpu-intel (the vendor's file, no
// device name) layers over pocl-cpu and under the named AVX-512 files. On an
// AVX2 Intel CPU it brings Intel's memory-system choices; on an AVX-512 one
// every key it sets is pocl-cpu-avx512-intel's own value, so it changes
// nothing there. Direct-rows' tile follows the ISA: 6 x 16 (float8) under
// AVX2, the built-in 4 x 64 (float16) under AVX-512, AMD's included.
TEST_F(SelectorTest, PoclOnIntelOfEitherIsaLayersTheVendorsFileBetweenClassAndName) {
    DeviceProfile haswell = pocl_avx512_device("GenuineIntel");
    haswell.name = "pthread-haswell-Intel(R) Xeon(R) Processor";
    const auto stored = ProfileStore::global().lookup(haswell);
    EXPECT_EQ(stored->sources,
              (std::vector<std::string>{"embedded:default", "embedded:pocl-cpu", "embedded:pocl-cpu-intel"}));
    const ProfileData vendor = load_profile_data("pocl-cpu-intel");
    EXPECT_EQ(vendor.specificity(), 2);
    ASSERT_FALSE(vendor.device.tuned.empty());
    const DeviceProfile avx2 = with_stored_tuned(haswell, *stored);
    const DeviceProfile avx512 = pocl_avx512_profile("GenuineIntel");
    for (const auto& [key, value] : vendor.device.tuned) {
        EXPECT_EQ(avx2.tuned.at(key), value) << key << " on the AVX2 Intel CPU";
        EXPECT_EQ(avx512.tuned.at(key), value) << key << ": pocl-cpu-avx512-intel holds another value";
    }
    // Over pocl-cpu's Zen 3 values: the strided projections packed up to 28x28, reductions tall from 28x28.
    EXPECT_EQ(load_profile("pocl-cpu").tuned.at("gemm1x1_pack_strided_max_pixels"), 196);
    EXPECT_EQ(avx2.tuned.at("gemm1x1_pack_strided_max_pixels"), 784);
    EXPECT_EQ(avx2.tuned.at("gemm1x1_tall_reduction_min_pixels"), 784);
    // The stem on direct rows on AVX-512 and on Intel; on AMD's AVX2 (Zen 3) im2col-gemm's panels, measured
    // there. VGG's conv1.1 (27 taps) on direct rows only on Intel, streamed.
    const ConvShapes stem = shape(1, 3, 224, 224, 64, 7, 7, 2, 3), conv11 = shape(1, 3, 224, 224, 64, 3, 3, 1, 1);
    DeviceProfile zen3 = haswell;
    zen3.vendor = "AuthenticAMD", zen3.name = "pthread-haswell-AMD EPYC 7B13";
    const DeviceProfile amd_avx2 = with_stored_tuned(zen3, *ProfileStore::global().lookup(zen3));
    KernelSelector selector;
    for (const DeviceProfile* p : {&avx2, &avx512}) {
        EXPECT_EQ(selector.select("conv2d", stem, *p).variant, Variant("direct-rows")) << p->name;
    }
    EXPECT_EQ(selector.select("conv2d", stem, amd_avx2).variant, Variant("im2col-gemm"));
    const Plan on_intel = selector.select("conv2d", conv11, avx2);
    EXPECT_EQ(on_intel.variant, Variant("direct-rows")) << on_intel.reason;
    EXPECT_NE(on_intel.reason.find("but direct_rows_short_reductions"), std::string::npos) << on_intel.reason;
    EXPECT_TRUE(direct_rows_config(conv11, avx2).stream_output) << "12.8 MB of output, over the 8 MiB";
    const ConvShapes stem8 = shape(8, 3, 224, 224, 64, 7, 7, 2, 3);  // 25.7 MB of output
    EXPECT_TRUE(direct_rows_config(stem8, avx2).stream_output);
    EXPECT_FALSE(direct_rows_config(stem8, amd_avx2).stream_output) << "no streaming outside Intel's file";
    // AVX2's direct-rows tile (pocl-cpu.json), wherever a profile enables the direct rows.
    EXPECT_EQ(selector.select("conv2d", conv11, amd_avx2).variant, Variant("im2col-gemm"));
    // Backward data of res5's 3x3 over 49 and 98 columns on col2im-gemm first on either vendor's AVX2, which
    // reads W in place there: on Intel always (pocl-cpu-intel's col2im_gemm_panels 0), on Zen 3 over at most
    // 98 columns (pocl-cpu's col2im_gemm_in_place_max_columns; pocl-cpu's col2im_gemm_training_max_columns
    // 98); over 147 columns neither. The stem's (12544 columns) keeps W^T and dy in panels on Zen 3.
    for (const std::int64_t n : {1, 2, 3}) {
        const ConvShapes res5 = shape(n, 512, 7, 7, 512, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_DATA);
        for (const DeviceProfile* p : {&avx2, &amd_avx2}) {
            const Plan plan = selector.select("conv2d_backward_data", res5, *p);
            EXPECT_EQ(plan.variant == Variant("col2im-gemm"), n <= 2) << p->name << " " << res5.str() << ": "
                                                                      << plan.str();
        }
        EXPECT_EQ(col2im_gemm_config(res5, amd_avx2).panels, n > 2) << res5.str();
    }
    const ConvShapes stem_dx = stem.in_direction(ConvDirection::BACKWARD_DATA);
    EXPECT_TRUE(col2im_gemm_config(stem_dx, amd_avx2).panels);
    EXPECT_FALSE(col2im_gemm_config(stem_dx, avx2).panels);
    EXPECT_EQ(col2im_gemm_config(shape(1, 512, 7, 7, 512, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_DATA),
                                 amd_avx2)
                  .prefetch_w_steps,
              8);
    // The prefetches pocl-cpu sets for AVX2 (both vendors): the Xeon's AVX-512 keeps its own values
    // (pocl-cpu-avx512-intel), Zen 4 none (pocl-cpu-avx512, measured without them).
    const DeviceProfile zen4 = pocl_avx512_profile();
    for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{
             {"gemm1x1_prefetch_transposed_filters_steps", 16},
             {"col2im_gemm_prefetch_w_steps", 8},
             {"col2im_gemm_prefetch_dy_rows", 8}}) {
        for (const DeviceProfile* p : {&avx2, &amd_avx2, &avx512}) {
            EXPECT_EQ(p->tuned.at(key), value) << key << " " << p->name;
        }
        EXPECT_EQ(zen4.tuned.at(key), 0) << key;
    }
    // A training forward's 1x1 GEMM reads its new weights in place on both vendors' AVX2; inference packs them
    // once (pocl-cpu's gemm1x1_pack_weights).
    ConvShapes reduce = shape(1, 2048, 7, 7, 512, 1, 1);
    EXPECT_TRUE(gemm1x1_config(reduce, amd_avx2).pack_weights);
    reduce.training = true;
    for (const DeviceProfile* p : {&avx2, &amd_avx2}) EXPECT_FALSE(gemm1x1_config(reduce, *p).pack_weights) << p->name;
    for (const DeviceProfile* p : {&avx2, &amd_avx2}) {
        const GemmTile tile = direct_rows_config(stem, *p).tile;
        EXPECT_EQ(tile.mr, 6) << p->name;
        EXPECT_EQ(tile.nr(), 16) << p->name;
        EXPECT_EQ(tile.vw, 8) << p->name;
        const GemmTile rows = direct_rows_config(conv11, *p).tile;
        EXPECT_EQ(rows.prefix, "direct_rows_unstrided") << p->name;
        EXPECT_EQ(rows.mr, 6) << p->name;
        EXPECT_EQ(rows.work_group, (std::array<std::size_t, 2>{4, 2})) << p->name;
    }
    for (const DeviceProfile& p : {pocl_avx512_profile(), avx512}) {
        const GemmTile tile = direct_rows_config(stem, p).tile;
        EXPECT_EQ(tile.mr, 4) << p.name;
        EXPECT_EQ(tile.nr(), 64) << p.name;
        EXPECT_EQ(tile.work_group, (std::array<std::size_t, 2>{1, 8})) << p.name;
    }
    EXPECT_EQ(direct_rows_config(conv11, pocl_avx512_profile()).tile.nr(), 64) << "AMD AVX-512: the built-in tile";
    EXPECT_EQ(direct_rows_config(conv11, avx512).tile.nr(), 48) << "pocl-cpu-avx512-intel's 8 x 48";
}

TEST_F(SelectorTest, PoclOnIntelAvx512LayersItsWorkGroupsOverPoclCpuAvx512) {
    // The vendor's file layers over the device class's: on an Intel CPU the 1x1 GEMM's reductions from
    // 28x28 take tall work-groups, and the 3x3 stride-2 layers' implicit GEMM 1 x 16; not on AMD.
    const DeviceProfile amd = pocl_avx512_profile();
    EXPECT_EQ(ProfileStore::global().lookup(pocl_avx512_device("GenuineIntel"))->sources,
              (std::vector<std::string>{"embedded:default", "embedded:pocl-cpu", "embedded:pocl-cpu-intel",
                                        "embedded:pocl-cpu-avx512", "embedded:pocl-cpu-avx512-intel"}));
    const DeviceProfile intel = pocl_avx512_profile("GenuineIntel");
    const std::array<std::size_t, 2> flat{8, 2};
    // res2.reduce (8 row tiles of 8), res3.reduce (16), res4.reduce.first (32): tall on Intel.
    for (const auto& [reduction, height] : std::vector<std::pair<ConvShapes, std::size_t>>{
             {shape(1, 256, 56, 56, 64, 1, 1), 8}, {shape(8, 512, 28, 28, 128, 1, 1), 16},
             {shape(1, 512, 28, 28, 256, 1, 1), 32}}) {
        EXPECT_EQ(gemm1x1_config(reduction, intel).tile.work_group, (std::array<std::size_t, 2>{1, height}))
            << reduction.str();
        EXPECT_EQ(gemm1x1_config(reduction, amd).tile.work_group, flat) << reduction.str();
    }
    // Under 28x28 (res4.reduce at 14x14), C = K (res2.reduce.first) and an expansion keep the profile's.
    for (const ConvShapes& kept : {shape(1, 1024, 14, 14, 256, 1, 1), shape(8, 64, 56, 56, 64, 1, 1),
                                   shape(1, 128, 28, 28, 512, 1, 1)}) {
        EXPECT_EQ(gemm1x1_config(kept, intel).tile.work_group, flat) << kept.str();
    }
    const ConvShapes strided = shape(8, 128, 56, 56, 128, 3, 3, 2, 1);  // res3's: 295 KB panels
    const GemmTile intel_strided = implicit_gemm_config(strided, intel).tile;
    EXPECT_EQ(intel_strided.work_group, (std::array<std::size_t, 2>{1, 16}));
    EXPECT_EQ(intel_strided.nr(), 64);
    EXPECT_EQ(implicit_gemm_config(strided, intel).tiles_per_item, 1);
    EXPECT_EQ(implicit_gemm_config(strided, amd).tile.work_group, (std::array<std::size_t, 2>{4, 4}));
    // Res4's and res5's (590 KB and 1.2 MB of weights a 64-channel panel) take 8 tiles a work-item over blocks
    // of 32 channels on Intel, in work-groups of one; on AMD a tile.
    for (const ConvShapes& blocked : {shape(8, 256, 28, 28, 256, 3, 3, 2, 1), shape(1, 512, 14, 14, 512, 3, 3, 2, 1)}) {
        const ImplicitGemmConfig on_intel = implicit_gemm_config(blocked, intel);
        EXPECT_EQ(on_intel.tiles_per_item, 8) << blocked.str();
        EXPECT_EQ(on_intel.channel_block, 32) << blocked.str();
        EXPECT_EQ(on_intel.tile.work_group, (std::array<std::size_t, 2>{1, 1})) << blocked.str();
        EXPECT_EQ(implicit_gemm_config(blocked, amd).tiles_per_item, 1) << blocked.str();
    }
    // Res5's 2048 -> 512 1x1 at N = 1 (512 KiB on the few-pixel tile) stays a tile a work-item.
    EXPECT_EQ(implicit_gemm_config(shape(1, 2048, 7, 7, 512, 1, 1), intel).tiles_per_item, 1);
    // The weight gradient's GEMM: 6 x 64 on Intel (a 64-wide dW in one tile), the engine's 8 x 48 on AMD.
    const ConvShapes res2_expand = shape(8, 64, 56, 56, 256, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    const GemmTile intel_wgrad = weight_gradient_gemm_config(res2_expand, intel).tile;
    EXPECT_EQ(intel_wgrad.mr, 6);
    EXPECT_EQ(intel_wgrad.nr(), 64);
    EXPECT_EQ(intel_wgrad.work_group, (std::array<std::size_t, 2>{4, 4}));
    EXPECT_EQ(weight_gradient_gemm_config(res2_expand, amd).tile.nr(), 48);
    // VGG's conv1.1: 27 taps under AMD's 48-wide tile that K = 64 fills take x's columns (dy copied), though
    // dy's rows are over twice the patches'; under a 16-wide tile the patches fill it and the ratio rules. On
    // Intel it runs in dot-product form (dW of 1728 over 50176 pixels), as res2.reduce.first (4096 over 3136).
    const ConvShapes conv1_1 = shape(1, 3, 224, 224, 64, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    EXPECT_TRUE(weight_gradient_gemm_config(conv1_1, intel).dot);
    EXPECT_TRUE(weight_gradient_gemm_config(conv1_1, intel).columns_from_phases);  // item 20: x padded, 0.6 MB
    // Item 21: the stem's dW (9408) in the dot form from x's phases on Intel; a 1x1 layer's of 8192 (x in
    // place, no phases) stays over item 13's 4096; AMD takes no dot form.
    const ConvShapes stem_dw = shape(8, 3, 224, 224, 64, 7, 7, 2, 3).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    EXPECT_TRUE(weight_gradient_gemm_config(stem_dw, intel).dot);
    EXPECT_TRUE(weight_gradient_gemm_config(stem_dw, intel).columns_from_phases);
    EXPECT_FALSE(weight_gradient_gemm_config(stem_dw, amd).dot);
    EXPECT_FALSE(weight_gradient_gemm_config(  // a 3x3 layer's from its phases, but a dW of 36864
                     shape(8, 64, 56, 56, 64, 3, 3, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS), intel)
                     .dot);
    DeviceProfile intel_tight = intel;  // the stem's phases and sum (672432 bytes) past the limit: no dot form
    intel_tight.tuned["wgrad_gemm_workspace_limit_bytes"] = 672432 - 1;
    EXPECT_FALSE(weight_gradient_gemm_config(stem_dw, intel_tight).dot);
    EXPECT_FALSE(weight_gradient_gemm_config(
                     shape(8, 128, 56, 56, 64, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS), intel)
                     .dot);
    EXPECT_TRUE(weight_gradient_gemm_config(conv1_1, amd).columns);
    EXPECT_FALSE(weight_gradient_gemm_config(conv1_1, amd).dot);
    EXPECT_TRUE(weight_gradient_gemm_config(shape(8, 64, 56, 56, 64, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS),
                                            intel).dot);
    EXPECT_FALSE(weight_gradient_gemm_config(res2_expand, intel).dot);  // dW of 16384
    // Res5's 1x1 weight gradients (7x7) take whole images a GEMM on Intel (2 KiB of dy transposed a pixel on
    // res5.reduce: all 8 images in 1 MiB), an image a GEMM on AMD and at 14x14. At N = 1 res5.reduce copies
    // x's planes on Intel, not dy's (item 17: dy's copy would save 0.07 of dW's size, under 0.3), one GEMM
    // writing dw itself; at N = 8 (0.57), res4.reduce (4.6) and res4.reduce.first at N = 1 (1.5) copy dy, as
    // AMD does everywhere.
    const ConvShapes res5_reduce = shape(8, 2048, 7, 7, 512, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    const ConvShapes res4_reduce = shape(8, 1024, 14, 14, 256, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    EXPECT_TRUE(weight_gradient_gemm_config(res5_reduce, intel).columns);
    EXPECT_EQ(weight_gradient_gemm_config(res5_reduce, intel).images_per_launch, 8);
    EXPECT_TRUE(weight_gradient_gemm_config(res5_reduce, amd).columns);
    EXPECT_EQ(weight_gradient_gemm_config(res5_reduce, amd).images_per_launch, 1);
    EXPECT_TRUE(weight_gradient_gemm_config(res4_reduce, intel).columns);
    EXPECT_EQ(weight_gradient_gemm_config(res4_reduce, intel).images_per_launch, 1);
    ConvShapes res5_reduce_one = res5_reduce;
    res5_reduce_one.N = 1;
    EXPECT_FALSE(weight_gradient_gemm_config(res5_reduce_one, intel).columns);
    EXPECT_TRUE(weight_gradient_gemm_config(res5_reduce_one, intel).writes_dw);
    EXPECT_TRUE(weight_gradient_gemm_config(res5_reduce_one, amd).columns);
    EXPECT_TRUE(weight_gradient_gemm_config(
                    shape(1, 512, 28, 28, 256, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS), intel)
                    .columns);
    // Patches shorter than the 64-wide tile that K fills (32 -> 64) take the columns whatever item 17 says.
    EXPECT_TRUE(weight_gradient_gemm_config(
                    shape(1, 32, 7, 7, 64, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS), intel)
                    .columns);
    DeviceProfile narrow = amd;
    set_gemm_tile(narrow, "wgrad_gemm", GemmTile{6, 1, 16, {8, 2}});
    EXPECT_FALSE(weight_gradient_gemm_config(conv1_1, narrow).columns);
    // Res4's 3x3 stride 2 (output rows of 14) copies x's columns on Intel, its patches on AMD; res5's (7) on both.
    const ConvShapes res4_strided = shape(8, 256, 28, 28, 256, 3, 3, 2, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    const ConvShapes res5_strided = shape(8, 512, 14, 14, 512, 3, 3, 2, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    EXPECT_TRUE(weight_gradient_gemm_config(res4_strided, intel).columns);
    EXPECT_FALSE(weight_gradient_gemm_config(res4_strided, amd).columns);
    EXPECT_FALSE(weight_gradient_gemm_config(res5_strided, intel).columns);
    // The stem's dy planes transposed with a prefetch 64 floats ahead on Intel, none on AMD: where it takes
    // the broadcast GEMM (on Intel it takes the dot form, item 21, unless dW's bound says otherwise).
    const ConvShapes stem = shape(8, 3, 224, 224, 64, 7, 7, 2, 3).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    DeviceProfile intel_broadcast = intel;
    intel_broadcast.tuned["wgrad_gemm_dot_phases_max_weights"] = 4096;
    EXPECT_FALSE(weight_gradient_gemm_config(stem, intel_broadcast).dot);
    EXPECT_EQ(weight_gradient_gemm_config(stem, intel_broadcast).transpose_prefetch_floats, 64);
    EXPECT_EQ(weight_gradient_gemm_config(stem, amd).transpose_prefetch_floats, 0);
    // Its backward data on col2im-gemm: dy prefetched 8 channels ahead on Intel, none on AMD.
    const ConvShapes stem_dx = shape(8, 3, 224, 224, 64, 7, 7, 2, 3).in_direction(ConvDirection::BACKWARD_DATA);
    EXPECT_EQ(col2im_gemm_config(stem_dx, intel).prefetch_dy_rows, 8);
    EXPECT_EQ(col2im_gemm_config(stem_dx, amd).prefetch_dy_rows, 0);
    // A weight gradient GEMM of few tiles on smaller work-groups on Intel, 4 for each compute unit (the device
    // here has pocl-cpu.json's 2, so 8): 64 -> 64 (res2.reduce.first's GEMM, at 14x14 where it keeps the
    // broadcast form) 11 x 1 tiles 1 x 1, the stem's 25 x 1 2 x 2; one of many tiles keeps 4 x 4
    // (res4.expand), as AMD every one.
    const ConvShapes res2_first = shape(8, 64, 14, 14, 64, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    EXPECT_EQ(weight_gradient_gemm_config(res2_first, intel).tile.work_group, (std::array<std::size_t, 2>{1, 1}));
    EXPECT_EQ(weight_gradient_gemm_config(stem, intel_broadcast).tile.work_group, (std::array<std::size_t, 2>{2, 2}));
    const ConvShapes res4_expand = shape(8, 256, 14, 14, 1024, 1, 1).in_direction(ConvDirection::BACKWARD_WEIGHTS);
    EXPECT_EQ(weight_gradient_gemm_config(res4_expand, intel).tile.work_group, (std::array<std::size_t, 2>{4, 4}));
    EXPECT_EQ(weight_gradient_gemm_config(res2_first, amd).tile.work_group,
              weight_gradient_gemm_config(res4_expand, amd).tile.work_group);
    // Separate-transform Winograd in passes of about 8 MiB on Intel (VGG's conv1.2: 1444 F(6x6) tiles of
    // 32 KiB in 6 passes), one pass under the 64 MiB limit on AMD; a 512-channel layer stays whole on both.
    const ConvShapes conv1_2 = shape(1, 64, 224, 224, 64, 3, 3, 1, 1);
    EXPECT_EQ(winograd_gemm_config(WinogradTile{6, 3}, conv1_2, intel).passes, 6);
    EXPECT_EQ(winograd_gemm_config(WinogradTile{6, 3}, conv1_2, amd).passes, 1);
    EXPECT_EQ(winograd_gemm_config(WinogradTile{4, 3}, shape(8, 512, 14, 14, 512, 3, 3, 1, 1), intel).passes, 1);
    // The stride-2 projections up to 28x28 outputs: the 1x1 GEMM's on Intel, x packed, 1 x 16 work-groups (res3's
    // 64 row tiles, res4's 128); the implicit GEMM's on AMD (gemm-1x1 declines them unpacked).
    for (const ConvShapes& projection : {shape(8, 256, 56, 56, 512, 1, 1, 2, 0), shape(1, 512, 28, 28, 1024, 1, 1, 2, 0)}) {
        const Gemm1x1Config packed = gemm1x1_config(projection, intel);
        EXPECT_TRUE(packed.pack_x) << projection.str();
        EXPECT_EQ(packed.tile.work_group, (std::array<std::size_t, 2>{1, 16})) << projection.str();
        EXPECT_FALSE(gemm1x1_config(projection, amd).pack_x) << projection.str();
    }
    EXPECT_FALSE(gemm1x1_config(shape(8, 256, 28, 28, 512, 1, 1, 1, 0), intel).pack_x);  // stride 1 keeps x in place
    // ... but not in half from 2 images at 14x14 on Intel (x widened once as it is packed): res4.reduce and
    // res4.expand; one image, 28x28, float32 and AMD keep x in place.
    for (const ConvShapes& layer : {shape(8, 1024, 14, 14, 256, 1, 1), shape(2, 256, 14, 14, 1024, 1, 1)}) {
        ConvShapes half = layer;
        half.dtype = DataType::FLOAT16;
        const Gemm1x1Config packed = gemm1x1_config(half, intel);
        EXPECT_TRUE(packed.pack_x) << half.str();
        EXPECT_EQ(packed.tile.work_group, (std::array<std::size_t, 2>{1, 16})) << half.str();
        EXPECT_FALSE(gemm1x1_config(half, amd).pack_x) << half.str();
        EXPECT_FALSE(gemm1x1_config(layer, intel).pack_x) << layer.str();
        ConvShapes one_image = half;
        one_image.N = 1;
        EXPECT_FALSE(gemm1x1_config(one_image, intel).pack_x) << one_image.str();
    }
    // Float32 at 14x14 from 2 images (9 tiles of 48 for 2 x 5: a tenth saved) folds the images into the GEMM's
    // columns on Intel, x in place, 1 x 16 work-groups (res4.reduce and res4.expand); one image, 28x28 (4% saved)
    // and AMD keep a GEMM per image.
    for (const ConvShapes& layer : {shape(8, 1024, 14, 14, 256, 1, 1), shape(2, 256, 14, 14, 1024, 1, 1)}) {
        const Gemm1x1Config folded = gemm1x1_config(layer, intel);
        EXPECT_TRUE(folded.fold_images) << layer.str();
        EXPECT_EQ(folded.tile.work_group, (std::array<std::size_t, 2>{1, 16})) << layer.str();
        EXPECT_FALSE(gemm1x1_config(layer, amd).fold_images) << layer.str();
        ConvShapes one_image = layer;
        one_image.N = 1;
        EXPECT_FALSE(gemm1x1_config(one_image, intel).fold_images) << one_image.str();
    }
    EXPECT_FALSE(gemm1x1_config(shape(8, 128, 28, 28, 512, 1, 1), intel).fold_images);
    ConvShapes half_28 = shape(8, 128, 28, 28, 512, 1, 1);
    half_28.dtype = DataType::FLOAT16;
    EXPECT_FALSE(gemm1x1_config(half_28, intel).pack_x);
    // x read in place image by image is prefetched 8 channels ahead on Intel (res2.reduce and res3.expand at
    // N = 8, res4.reduce at N = 1), not where the images are folded, nor on AMD.
    for (const ConvShapes& layer : {shape(8, 256, 56, 56, 64, 1, 1), shape(8, 128, 28, 28, 512, 1, 1),
                                    shape(1, 1024, 14, 14, 256, 1, 1)}) {
        EXPECT_EQ(gemm1x1_config(layer, intel).prefetch_x_rows, 8) << layer.str();
        EXPECT_EQ(gemm1x1_config(layer, amd).prefetch_x_rows, 0) << layer.str();
    }
    EXPECT_EQ(gemm1x1_config(shape(8, 1024, 14, 14, 256, 1, 1), intel).prefetch_x_rows, 0);
    // Item 19: VGG's conv1.1 (27 taps, under im2col_gemm_max_reduction's 32) on the direct rows on Intel, on its
    // unstrided tile of 8 x 48, the output streamed from 8 MiB a launch (12.8 MB at N = 1); im2col-gemm on AMD.
    // The stem keeps the 4 x 64 tile, streamed at N = 8 (25.7 MB) but not at N = 1 (3.2 MB).
    KernelSelector selector;
    const ConvShapes vgg_first = shape(1, 3, 224, 224, 64, 3, 3, 1, 1);
    const Plan on_intel = selector.select("conv2d", vgg_first, intel);
    EXPECT_EQ(on_intel.variant, Variant("direct-rows")) << on_intel.reason;
    EXPECT_NE(on_intel.reason.find("but direct_rows_short_reductions"), std::string::npos) << on_intel.reason;
    EXPECT_EQ(selector.select("conv2d", vgg_first, amd).variant, Variant("im2col-gemm"));
    EXPECT_NE(selector.select("conv2d", shape(8, 3, 112, 112, 64, 1, 1), intel).variant, Variant("direct-rows"));  // 1x1
    const DirectRowsConfig vgg_rows = direct_rows_config(vgg_first, intel);
    EXPECT_EQ(vgg_rows.tile.prefix, "direct_rows_unstrided");
    EXPECT_EQ(vgg_rows.tile.mr, 8);
    EXPECT_EQ(vgg_rows.tile.nr(), 48);
    EXPECT_TRUE(vgg_rows.stream_output);
    EXPECT_FALSE(direct_rows_config(vgg_first, amd).stream_output);
    const ConvShapes stem_one = shape(1, 3, 224, 224, 64, 7, 7, 2, 3), stem_eight = shape(8, 3, 224, 224, 64, 7, 7, 2, 3);
    EXPECT_EQ(direct_rows_config(stem_one, intel).tile.prefix, "direct_rows");
    EXPECT_EQ(direct_rows_config(stem_one, intel).tile.nr(), 64);
    EXPECT_FALSE(direct_rows_config(stem_one, intel).stream_output);
    EXPECT_TRUE(direct_rows_config(stem_eight, intel).stream_output);
}

TEST_F(SelectorTest, UserDirectoryFromTheEnvironment) {
    EXPECT_EQ(user_profile_dir(), dir_);
    ::unsetenv("NETCL_PROFILE_DIR");
    ::setenv("XDG_CACHE_HOME", "/tmp/netcl-xdg-test", 1);
    EXPECT_EQ(user_profile_dir(), std::filesystem::path("/tmp/netcl-xdg-test/netcl/profiles"));
    ::unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(user_profile_dir().filename(), "profiles");
    ::setenv("NETCL_PROFILE_DIR", dir_.c_str(), 1);
}

struct BadFile {
    const char* what;
    std::string text;
    const char* complaint;  // the warning must say this
};

class BadProfileFiles : public SelectorTest, public ::testing::WithParamInterface<BadFile> {};

TEST_P(BadProfileFiles, WarnNameTheFileAndFallBackToTheDefault) {
    const BadFile& bad = GetParam();
    const auto path = write_user_file("broken.json", bad.text);
    const DeviceProfile device = test_device();
    std::shared_ptr<const StoredProfile> stored;
    ASSERT_NO_THROW(stored = ProfileStore::global().lookup(device));
    EXPECT_EQ(stored->sources, (std::vector<std::string>{"embedded:default"}));
    EXPECT_EQ(stored->tuned, load_profile("default").tuned);
    EXPECT_TRUE(stored->records.empty());
    const std::string log_text = logged();
    EXPECT_NE(log_text.find(path.string()), std::string::npos) << log_text;
    EXPECT_NE(log_text.find(bad.complaint), std::string::npos) << log_text;
    // The selector still decides, by the built-in default.
    KernelSelector selector;
    EXPECT_EQ(selector.select("conv2d", shape(1, 64, 56, 56, 64, 3, 3, 1, 1), device).kernel, Kernel::CONV2D_WINOGRAD);
    // Asked for by path, the same file is an error naming it.
    try {
        load_profile(path.string());
        FAIL() << "expected netcl::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(bad.complaint), std::string::npos) << e.what();
    }
}

std::vector<BadFile> bad_files() {
    const std::string valid = kValidUserProfile;
    return {
        {"truncated", valid.substr(0, valid.size() / 2), "truncated or malformed"},
        {"empty", "", "truncated or malformed"},
        {"not_json", "winograd_min_channels = 1000\n", "truncated or malformed"},
        {"top_level_array", "[1, 2, 3]", "top level must be an object"},
        {"no_version", R"({"match": {"name": "Test Device 9000"}})", "no \"netcl_profile\""},
        {"future_version", R"({"netcl_profile": 7, "match": {}})", "reads format 1"},
        {"tuned_not_a_number",
         R"({"netcl_profile": 1, "match": {"name": "Test Device 9000"}, "tuned": {"winograd_min_channels": "lots"}})",
         "tuned.winograd_min_channels must be a number"},
        {"unknown_kernel",
         R"({"netcl_profile": 1, "match": {}, "records": [{"shape": "x", "kernel": "WINOGRAD"}]})",
         "CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD"},
        {"bad_tile",
         R"({"netcl_profile": 1, "match": {}, "records": [{"shape": "x", "kernel": "CONV2D_WINOGRAD", "variant": {"winograd_tile": 3}}]})",
         "unknown convolution variant 'wino-f3-fused-global'"},
        {"unknown_variant",
         R"({"netcl_profile": 1, "match": {}, "records": [{"shape": "x", "kernel": "IM2COL", "variant": "im2col-fft"}]})",
         "records[0].variant: unknown convolution variant 'im2col-fft'; expected one of: naive, direct-rows, gemm-1x1"},
        {"variant_of_another_strategy",
         R"({"netcl_profile": 1, "match": {}, "records": [{"shape": "x", "kernel": "IM2COL", "variant": "naive"}]})",
         "records[0].variant naive does not run under IM2COL"},
        {"negative_local_memory", R"({"netcl_profile": 1, "device": {"local_mem_bytes": -5}})",
         "device.local_mem_bytes must be a non-negative integer"},
        {"bad_type", R"({"netcl_profile": 1, "match": {"type": "TPU"}})", "expected CPU, GPU, ACCELERATOR or OTHER"},
        {"unknown_key", R"({"netcl_profile": 1, "tunned": {}})", "unknown top-level key \"tunned\""},
    };
}

INSTANTIATE_TEST_SUITE_P(Files, BadProfileFiles, ::testing::ValuesIn(bad_files()),
                         [](const auto& info) { return std::string(info.param.what); });

TEST_F(SelectorTest, TunedRecordIsConsultedBeforeBuiltInRules) {
    write_user_file("mine.json", kValidUserProfile);
    const DeviceProfile device = test_device();
    KernelSelector selector;
    const ConvShapes recorded = shape(1, 64, 56, 56, 64, 3, 3, 1, 1);
    const Plan plan = selector.select("conv2d", recorded, device);
    EXPECT_EQ(plan.kernel, Kernel::IM2COL) << plan.str();
    EXPECT_NE(plan.reason.find("tuned record"), std::string::npos) << plan.reason;
    // Order of decision: default strategy before the record, framework rule before both.
    set_default_conv_strategy(Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(selector.select("conv2d", recorded, device).kernel, Kernel::CONV2D_WINOGRAD);
    selector.register_rule("conv2d", [](const ConvShapes&, const DeviceProfile&) { return true; }, Kernel::CONV2D_NAIVE);
    EXPECT_EQ(selector.select("conv2d", recorded, device).kernel, Kernel::CONV2D_NAIVE);
    // The stored thresholds apply to other shapes (winograd_min_channels 1000 here).
    clear_default_conv_strategy();
    KernelSelector fresh;
    const Plan other = fresh.select("conv2d", shape(1, 256, 28, 28, 256, 3, 3, 1, 1), device);
    EXPECT_EQ(other.kernel, Kernel::IM2COL) << other.str();
}

TEST_F(SelectorTest, StaleRecordIsRejectedWithItsReason) {
    write_user_file("stale.json", R"({"netcl_profile": 1, "match": {"name": "Test Device 9000"}, "records": [
      {"shape": "N=1 C=32 H=28 W=28 K=64 R=7 S=7 stride=1 pad=3 dil=1 groups=1", "kernel": "CONV2D_WINOGRAD",
       "variant": {"winograd_tile": 4}}]})");
    KernelSelector selector;
    const Decision d = selector.explain("conv2d", shape(1, 32, 28, 28, 64, 7, 7, 1, 3), test_device());
    ASSERT_FALSE(d.candidates.empty());
    EXPECT_EQ(d.candidates[0].source, "tuned record");
    EXPECT_FALSE(d.candidates[0].accepted);
    EXPECT_NE(d.candidates[0].reason.find("3x3"), std::string::npos) << d.candidates[0].reason;
    EXPECT_EQ(d.plan.kernel, Kernel::IM2COL);
}

TEST_F(SelectorTest, WriteUserProfileMergesAndReadsBack) {
    const DeviceProfile device = test_device();
    const ConvShapes a = shape(1, 64, 56, 56, 64, 3, 3, 1, 1), b = shape(1, 256, 14, 14, 256, 3, 3, 1, 1);
    const auto path = write_user_profile(device, {{"winograd_tile", 2}},
                                         {TunedRecord{record_key(a), Kernel::CONV2D_WINOGRAD, winograd_variant_id(2, true, false), 3.5}});
    EXPECT_EQ(path, user_profile_path(device));
    EXPECT_EQ(path.parent_path(), dir_);
    write_user_profile(device, {{"naive_max_flops", 123}}, {TunedRecord{record_key(b), Kernel::IM2COL, Variant("im2col-clblast"), 2.0}});
    const ProfileData data = load_profile_data(path.string());
    EXPECT_EQ(data.match.at("name"), device.name);
    EXPECT_EQ(data.match.at("driver"), device.driver_version);
    EXPECT_EQ(data.specificity(), 5);
    EXPECT_EQ(data.device.tuned.at("winograd_tile"), 2);
    EXPECT_EQ(data.device.tuned.at("naive_max_flops"), 123);
    ASSERT_EQ(data.records.size(), 2u);
    EXPECT_EQ(data.records.at(record_key(a)).variant, winograd_variant_id(2, true, false));
    EXPECT_DOUBLE_EQ(data.records.at(record_key(a)).median_ms, 3.5);
    KernelSelector selector;
    const Plan pa = selector.select("conv2d", a, device);
    EXPECT_EQ(pa.kernel, Kernel::CONV2D_WINOGRAD);
    EXPECT_EQ(pa.variant, winograd_variant_id(2, true, false));
    EXPECT_EQ(selector.select("conv2d", b, device).kernel, Kernel::IM2COL);
    // Another device with the same name but another driver does not match it.
    DeviceProfile other = device;
    other.driver_version = "2.0";
    EXPECT_EQ(selector.select("conv2d", b, other).kernel, Kernel::CONV2D_WINOGRAD);
    // A broken file in its place is replaced, with a warning.
    std::ofstream(path) << "{\"netcl_profile\": 1, \"tuned\": ";
    write_user_profile(device, {}, {});
    EXPECT_NE(logged().find("replacing it"), std::string::npos) << logged();
    EXPECT_NO_THROW(load_profile_data(path.string()));
    EXPECT_NE(read_text(path).find("netcl_profile"), std::string::npos);
}

// A user profile raising the IM2COL workspace limit (and lowering
// im2col_min_flops) used to make the selector plan IM2COL for a 5x5 layer
// whose columns exceed the device's default limit, after which forward threw
// "the limit is ... bytes": the plan was made against the stored profile and
// the strategy checked against the context's. Both now come from one
// resolved profile (KernelSelector::resolve_profile).
TEST_F(SelectorTest, UserProfileLimitReachesTheStrategyBuiltFromThePlan) {
    auto ctx = Context::create();  // its own, so the shared context's profile stays as it is
    DeviceProfile small = ctx->profile();
    small.max_alloc_bytes = 8u << 20;  // the default IM2COL limit is a quarter: 2 MiB
    ctx->set_profile(small);
    write_user_file("limits.json", R"({"netcl_profile": 1, "match": {"name": ")" + small.name +
                                       R"("}, "tuned": {"im2col_workspace_limit_bytes": 1e12, "im2col_min_flops": 1000}})");
    ConvShapes s;  // one image's columns: 16 x 25 x 40 x 40 floats = 2.56 MB, over 2 MiB
    s.N = 1, s.C = 16, s.H = s.W = 40, s.K = 8, s.R = s.S = 5, s.bias = true;
    s.dilation_h = s.dilation_w = 2;  // so that only im2col + CLBlast, with its workspace, takes it under IM2COL
    s.set_padding(4);
    Conv2d conv(ctx, Conv2dOptions::for_shapes(s));
    const auto x = random_uniform(static_cast<std::size_t>(s.input_numel()), 1);
    const auto w = random_uniform(static_cast<std::size_t>(s.weight_numel()), 2);
    const auto b = random_uniform(static_cast<std::size_t>(s.K), 3);
    conv.set_weights(w, b);
    Tensor y = Tensor::empty(ctx, {s.N, s.K, s.P(), s.Q()});
    y.fill(std::numeric_limits<float>::quiet_NaN());
    ASSERT_NO_THROW(conv.forward(Tensor::from_host(ctx, x, {s.N, s.C, s.H, s.W}), y));
    EXPECT_EQ(conv.last_plan().kernel, Kernel::IM2COL) << conv.last_plan().str();
    EXPECT_GT(conv.last_workspace_bytes(), 2u << 20);
    const auto result = compare(y.to_host(), reference_conv(s, x, w, b));
    EXPECT_EQ(result.non_finite, 0u);
    EXPECT_LE(result.max_abs_error, conv_tolerance(s));
    // Without the user file the same layer does not plan IM2COL on this device.
    std::filesystem::remove(dir_ / "limits.json");
    ProfileStore::global().invalidate();
    Conv2d fresh(ctx, Conv2dOptions::for_shapes(s));
    EXPECT_NE(fresh.plan_for({s.N, s.C, s.H, s.W}).kernel, Kernel::IM2COL);
}

// A tuned key netcl does not read is warned about by name (a typo would
// otherwise silently leave the default in force); the file still loads.
TEST_F(SelectorTest, UnknownTunedKeyIsWarnedAboutByName) {
    write_user_file("typo.json", R"({"netcl_profile": 1, "match": {"name": "Test Device 9000"},
                                     "tuned": {"winograd_min_channel": 3, "im2col_workspace_limit_bytes": 1000000}})");
    const auto stored = ProfileStore::global().lookup(test_device());
    EXPECT_EQ(stored->sources.size(), 2u);
    EXPECT_NE(logged().find("tuned.winograd_min_channel is not a key netcl reads"), std::string::npos) << logged();
    EXPECT_NE(logged().find("known keys: "), std::string::npos);
    EXPECT_EQ(logged().find("tuned.im2col_workspace_limit_bytes is not"), std::string::npos)
        << "an implementation's own key (ConvImplementation::profile_keys) is known";
}

}  // namespace
}  // namespace netcl::test
