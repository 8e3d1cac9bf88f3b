#include "ops/gemm/GemmTile.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/OutputStage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

std::string GemmTile::build_options() const {
    return "-DMR=" + std::to_string(mr) + " -DNV=" + std::to_string(nv) + " -DVW=" + std::to_string(vw);
}

std::string GemmTile::str() const {
    return std::to_string(mr) + "x" + std::to_string(nr()) + " tile (float" + std::to_string(vw) + "), work-group " +
           std::to_string(work_group[0]) + "x" + std::to_string(work_group[1]);
}

ProgramSpec gemm_program(const GemmTile& tile, bool edge_m, bool edge_n, bool bias, std::int64_t k_slice,
                         bool b_panels, bool prefetch_panels, const PostOps& post_ops, GemmOperandTypes types,
                         GemmPacking packing) {
    NETCL_REQUIRE(!packing.b_images_in_place || (!packing.b_across_images && !b_panels && !edge_n),
                  "GEMM engine: B's images read in place are not packed, and fill whole tiles; expected no panels or "
                  "edge_n with them");
    NETCL_REQUIRE(!packing.b_across_images || (!b_panels && !edge_n),
                  "GEMM engine: B packed across images is whole panels stored by image; expected no edge_n or "
                  "Winograd panels with it");
    NETCL_REQUIRE(packing.prefetch_b_rows <= 0 || (!b_panels && !packing.b_across_images &&
                                                   !packing.b_images_in_place && !edge_n),
                  "GEMM engine: B prefetched rows ahead is row-major B where it lies; expected no panels, no "
                  "images in place and no edge_n with it");
    NETCL_REQUIRE(!packing.a_images || (!packing.a_panels && k_slice <= 0 && !b_panels && !packing.b_across_images &&
                                        !packing.b_images_in_place),
                  "GEMM engine: A's images read in place run B's rows on across them; expected no panels, k slices or "
                  "B images with them");
    NETCL_REQUIRE(!packing.a_transposed || (!packing.a_panels && !packing.a_images),
                  "GEMM engine: A read transposed where it lies; expected no panels or images with it");
    NETCL_REQUIRE(packing.prefetch_a_rows <= 0 || packing.a_transposed,
                  "GEMM engine: A prefetched steps ahead is A read transposed where it lies; expected a_transposed");
    NETCL_REQUIRE(!packing.a_phases || packing.a_images,
                  "GEMM engine: A read from x's stride phases runs an output row at a time; expected a_images with it");
    std::string options = tile.build_options() + " -DEDGE_M=" + std::to_string(edge_m ? 1 : 0) +
                          " -DEDGE_N=" + std::to_string(edge_n ? 1 : 0);
    if (k_slice > 0) options += " -DK_SLICE=" + std::to_string(k_slice);
    if (bias) options += " -DBIAS";
    if (b_panels) options += " -DB_PANEL -DC_GROUP";
    if (b_panels && prefetch_panels) options += " -DPREFETCH_PANEL";
    if (packing.a_panels) options += " -DA_PANEL";
    if (packing.b_across_images) options += " -DB_PANEL -DC_IMAGES";
    if (packing.b_images_in_place) options += " -DB_IMAGES -DC_IMAGES";
    if (packing.prefetch_b_rows > 0) options += " -DPREFETCH_B=" + std::to_string(packing.prefetch_b_rows);
    if (packing.a_images) options += " -DA_IMAGES";
    if (packing.a_phases) options += " -DA_PHASES";
    if (packing.a_transposed) options += " -DA_TRANSPOSED";
    if (packing.prefetch_a_rows > 0) options += " -DPREFETCH_A=" + std::to_string(packing.prefetch_a_rows);
    if (packing.stream_c) options += " -DSTREAM_OUTPUT";
    options += internal::post_ops_options(post_ops);
    // Float operands need no option (the kernel's default), so float32 programs are the ones built before.
    if (types.a == DataType::FLOAT16) options += " -DA_TYPE=half";
    if (types.b == DataType::FLOAT16) options += " -DB_TYPE=half";
    if (types.c == DataType::FLOAT16) options += " -DC_TYPE=half";
    return {"gemm",
            internal::post_ops_source() + embedded_source("vector_lane") + embedded_source("gemm_tile") +
                (packing.a_phases ? embedded_source("phase_taps") : std::string()) + embedded_source("gemm"),
            options,
            {{"gemm", {tile.work_group[0], tile.work_group[1], 1}}}};
}

void set_gemm_tile(DeviceProfile& profile, const std::string& prefix, const GemmTile& tile) {
    profile.tuned[prefix + "_mr"] = tile.mr;
    profile.tuned[prefix + "_nv"] = tile.nv;
    profile.tuned[prefix + "_vw"] = tile.vw;
    profile.tuned[prefix + "_wg0"] = static_cast<double>(tile.work_group[0]);
    profile.tuned[prefix + "_wg1"] = static_cast<double>(tile.work_group[1]);
}

std::vector<std::string> gemm_tile_keys(const std::string& prefix) {
    return {prefix + "_mr", prefix + "_nv", prefix + "_vw", prefix + "_wg0", prefix + "_wg1"};
}

GemmTile gemm_tile(const DeviceProfile& profile, const std::string& prefix, const GemmTile& fallback) {
    GemmTile tile;
    tile.prefix = prefix;
    tile.mr = static_cast<int>(profile.tuned_or(prefix + "_mr", fallback.mr));
    tile.nv = static_cast<int>(profile.tuned_or(prefix + "_nv", fallback.nv));
    tile.vw = static_cast<int>(profile.tuned_or(prefix + "_vw", fallback.vw));
    tile.work_group = {static_cast<std::size_t>(profile.tuned_or(prefix + "_wg0", static_cast<double>(fallback.work_group[0]))),
                       static_cast<std::size_t>(profile.tuned_or(prefix + "_wg1", static_cast<double>(fallback.work_group[1])))};
    if (tile.mr < 1 || tile.mr > 16 || tile.nv < 1 || tile.nv > 4 || (tile.vw != 4 && tile.vw != 8 && tile.vw != 16) ||
        tile.work_group[0] < 1 || tile.work_group[1] < 1) {
        throw Error("profile " + profile.tuned_source + ": the " + prefix + " tile " + tile.str() +
                    " is not one the GEMM engine builds; expected mr 1..16, nv 1..4, vw 4, 8 or 16, work-group >= 1");
    }
    return tile;
}

}  // namespace netcl
