#pragma once
#include <optional>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/Context.hpp"
#include "netcl/Tensor.hpp"

namespace netcl::bench {

// CLBlast's Convgemm (clblast::Convgemm<float>, cross-correlation) on the
// bench's own tensors: x is N x C x H x W, weights K x C x R x S, y
// N x K x P x Q -- the layouts Convgemm reads and writes (checked against the
// fp64 reference on every benched layer). It has no groups and no bias.

// Why Convgemm cannot run `shapes`; nothing when it can.
std::optional<std::string> clblast_convgemm_why_not(const ConvShapes& shapes);

// Enqueues one Convgemm on the context's queue; returns its event. Throws
// netcl::Error with CLBlast's status name when it fails.
cl::Event enqueue_clblast_convgemm(Context& context, const ConvShapes& shapes, const Tensor& x,
                                   const Tensor& weights, Tensor& y);

}  // namespace netcl::bench
