// IM2COL's descriptor: im2col + CLBlast's batched SGEMM. Its workspace (the
// column buffer of one pass of images) is capped by the profile's limit.
#include "ops/ConvImplementation.hpp"
#include "ops/im2col/Im2colConv.hpp"
#include "ops/im2col/Im2colLayout.hpp"

namespace netcl {

namespace {

class Im2colImplementation final : public ConvImplementation {
public:
    std::string name() const override { return "im2col"; }
    Kernel kernel() const override { return Kernel::IM2COL; }
    const std::vector<Variant>& variants() const override {
        static const std::vector<Variant> list = {Variant("im2col-clblast")};
        return list;
    }
    std::optional<std::string> why_not(const Variant& v, const ConvShapes& s, const DeviceProfile& profile) const override {
        const std::size_t need = workspace_bytes(v, s, profile), limit = im2col_workspace_limit(profile);
        if (need > limit) {
            return "im2col needs a workspace of " + std::to_string(need) + " bytes; the limit is " +
                   std::to_string(limit) + " bytes";
        }
        return std::nullopt;
    }
    std::string config(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        const Im2colLayout layout = im2col_layout(s, im2col_workspace_limit(profile));
        if (layout.direct) return "1x1: the input is the column matrix, no workspace";
        return std::to_string(layout.images_per_pass) + " image(s) per pass, workspace " +
               std::to_string(layout.workspace_bytes) + " bytes";
    }
    std::size_t workspace_bytes(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return im2col_layout(s, im2col_workspace_limit(profile)).workspace_bytes;
    }
    std::vector<ProgramSpec> programs(const Variant&, const ConvShapes& s, const DeviceProfile& profile) const override {
        return im2col_programs(im2col_layout(s, im2col_workspace_limit(profile)), s.bias);
    }
    std::vector<std::string> profile_keys() const override { return {"im2col_workspace_limit_bytes"}; }
    std::unique_ptr<ConvStrategy> create(std::shared_ptr<Context> context, const Variant&, const ConvShapes& shapes,
                                         const DeviceProfile& profile) const override {
        return std::make_unique<Im2colConv>(std::move(context), shapes,
                                            im2col_layout(shapes, im2col_workspace_limit(profile)));
    }
};

}  // namespace

const ConvImplementation& im2col_implementation() {
    static const Im2colImplementation instance;
    return instance;
}

}  // namespace netcl
