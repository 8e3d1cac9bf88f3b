// CONV2D_WINOGRAD's descriptor: the fused three-phase kernel, F(2x2,3x3),
// F(4x4,3x3) and F(6x6,3x3), fused or low-local-memory blocks, U in __global
// or __constant.
#include "ops/ConvImplementation.hpp"
#include "ops/winograd/WinogradConfig.hpp"
#include "ops/winograd/WinogradConv.hpp"
#include "ops/winograd/WinogradVariants.hpp"

namespace netcl {

namespace {

WinogradVariant parse(const Variant& v) { return *winograd_variant(v); }  // only called with its own variants

class WinogradImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "winograd-fused"; }
    Kernel kernel() const override { return Kernel::CONV2D_WINOGRAD; }
    // Backward data through its forward kernels, a stride phase at a time (ops/as_forward/). float16:
    // x, w, bias and y read and written as half (kernels_cl/storage.cl), U and the sums float32.
    ProblemKinds problem_kinds() const override {
        ProblemKinds kinds = ProblemKinds::forward_and_backward_data_as_forward_2d_float32();
        kinds.types = {DataType::FLOAT32, DataType::FLOAT16};
        return kinds;
    }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = [] {
            std::vector<Variant> ids;
            for (const auto& v : winograd_variants()) ids.push_back(v.variant());
            return ids;
        }();
        return list;
    }

    std::optional<std::string> do_why_not(const Variant& id, const ConvShapes& s, const DeviceProfile& profile) const override {
        const WinogradVariant v = parse(id);
        if (s.R != v.r || s.S != v.r) {
            return "F(" + std::to_string(v.m) + "x" + std::to_string(v.m) + "," + std::to_string(v.r) + "x" +
                   std::to_string(v.r) + ") takes " + std::to_string(v.r) + "x" + std::to_string(v.r) +
                   " filters; this layer has " + std::to_string(s.R) + "x" + std::to_string(s.S);
        }
        if (s.stride_h != 1 || s.stride_w != 1) {
            return "Winograd takes stride 1; this layer has stride " + std::to_string(s.stride_h) + "x" +
                   std::to_string(s.stride_w);
        }
        if (s.dilation_h != 1 || s.dilation_w != 1) {
            return "Winograd takes dilation 1; this layer has dilation " + std::to_string(s.dilation_h) + "x" +
                   std::to_string(s.dilation_w);
        }
        const WinogradConfig c = winograd_config(v, profile);
        if (profile.local_mem_bytes != 0 && c.local_bytes() > profile.local_mem_bytes) {
            return std::string(v.low_local_memory ? "the low-local-memory" : "the fused") + " Winograd variant needs " +
                   std::to_string(c.local_bytes()) + " bytes of local memory; the device offers " +
                   std::to_string(profile.local_mem_bytes);
        }
        // Split C (min_work_groups, F(6x6)'s 128-channel slices) needs a workspace for the partial sums.
        const double limit = profile.tuned_or(workspace_limit_key(), 0);
        if (limit > 0 && static_cast<double>(c.workspace_bytes(s)) > limit) {
            return "C split in " + std::to_string(c.splits(s)) + " slices needs " + std::to_string(c.workspace_bytes(s)) +
                   " bytes of workspace; the limit is " + std::to_string(static_cast<std::size_t>(limit));
        }
        if (profile.max_work_group_size != 0 && c.work_group_size() > profile.max_work_group_size) {
            return "the Winograd variant needs work-groups of " + std::to_string(c.work_group_size()) +
                   " work-items; the device allows " + std::to_string(profile.max_work_group_size);
        }
        if (v.constant_weights && c.weight_bytes(s) > profile.max_constant_buffer_bytes) {
            return "the transformed weights (" + std::to_string(c.weight_bytes(s)) +
                   " bytes) exceed the device's constant buffer (" + std::to_string(profile.max_constant_buffer_bytes) +
                   " bytes)";
        }
        // 32-bit index arithmetic in the kernel: U is padded beyond the weights.
        if (c.weight_bytes(s) / sizeof(float) >= 2147483647u) {
            return "the Winograd kernel indexes with 32-bit ints; the transformed weights would have 2^31 elements "
                   "or more";
        }
        return std::nullopt;
    }

    std::string do_config(const Variant& id, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_config(parse(id), profile).str(s);
    }
    std::size_t do_workspace_bytes(const Variant& id, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_config(parse(id), profile).workspace_bytes(s);
    }
    std::vector<ProgramSpec> do_programs(const Variant& id, const ConvShapes& s, const DeviceProfile& profile) const override {
        return {winograd_config(parse(id), profile).program(s)};
    }
    std::size_t do_persistent_bytes(const Variant& id, const ConvShapes& s, const DeviceProfile& profile) const override {
        return winograd_config(parse(id), profile).weight_bytes(s);
    }
    std::vector<std::string> profile_keys() const override { return winograd_profile_keys(); }
    // Measured on the VGG layers (netcl-bench --accuracy): F(2x2) at most
    // direct's error, F(4x4) 2.2-3.7x it, F(6x6) 4-9x; 4, 16 and 64 leave room
    // for unlucky draws without hiding a bug (a wrong tap or coefficient is
    // off by O(0.1)).
    double error_factor(const Variant& id) const override {
        const int m = parse(id).m;
        return m == 2 ? 4.0 : m == 4 ? 16.0 : 64.0;
    }

    std::unique_ptr<ConvStrategy> do_create(std::shared_ptr<Context> context, const Variant& id, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        return std::make_unique<WinogradConv>(std::move(context), winograd_config(parse(id), profile), shapes);
    }
};

}  // namespace

const ConvImplementation& winograd_implementation() {
    static const WinogradImplementation instance;
    return instance;
}

}  // namespace netcl
