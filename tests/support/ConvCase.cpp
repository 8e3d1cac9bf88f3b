#include "tests/support/ConvCase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "netcl/ConvLayer.hpp"
#include "tests/support/LayerFactory.hpp"
#include "netcl/Error.hpp"
#include "netcl/Half.hpp"
#include "tests/support/ReferenceConv.hpp"
#include "netcl/Tensor.hpp"
#include "tests/support/TestData.hpp"

namespace netcl::test {

namespace {

std::unique_ptr<ConvLayer> make_layer(const std::shared_ptr<Context>& context, const ConvShapes& s,
                                      const ConvCaseOptions& options) {
    return make_conv_layer(context, s,
                           {options.strategy, options.variant, options.workspace_limit_bytes, options.max_error_factor,
                            options.selector});
}

// Random values in [-1, 1] as the layer's dtype holds them (float16: rounded
// to half on the host), so the fp64 reference sees exactly what the device reads.
std::vector<float> values(const ConvShapes& s, std::size_t count, std::uint64_t seed) {
    auto v = random_uniform(count, seed);
    if (s.dtype == DataType::FLOAT16) {
        for (float& e : v) e = round_to_half(e);
    }
    return v;
}

// What storing the output in the layer's dtype adds to the arithmetic's
// tolerance: half rounds each output to nearest even, a relative 2^-11 (and
// 2^-25 absolute among subnormals), taken here at the largest expected value.
double storage_rounding(const ConvShapes& s, const std::vector<double>& expected) {
    if (s.dtype != DataType::FLOAT16) return 0.0;
    double largest = 0.0;
    for (const double e : expected) largest = std::max(largest, std::abs(e));
    return largest * 0x1p-11 + 0x1p-25;
}

// Folds one computed tensor's comparison into the result (the worst of all).
void fold(ConvCaseResult& result, const std::vector<float>& actual, const std::vector<double>& expected) {
    const Comparison c = compare(actual, expected);
    const std::size_t base = result.compared;  // db's indices follow dw's
    if (c.non_finite != 0 && result.non_finite == 0) {
        for (std::size_t i = 0; i < actual.size(); ++i) {
            if (!std::isfinite(actual[i])) {
                result.worst_index = base + i;
                break;
            }
        }
    } else if (result.non_finite == 0 && c.max_abs_error > result.max_abs_error) {
        result.worst_index = base + c.worst_index;
    }
    result.max_abs_error = std::max(result.max_abs_error, c.max_abs_error);
    result.non_finite += c.non_finite;
    result.compared += actual.size();
}

// The gradients: dx, or dw (and db), each poisoned with NaN first, or under
// beta != 0 filled with random values the reference then blends in.
ConvCaseResult run_gradient_case(const ConvShapes& s, const ConvCaseOptions& options) {
    NETCL_REQUIRE(options.samples == 0, "run_conv_case: sampled outputs are for forward; the gradients are compared whole");
    const auto context = options.context ? options.context : shared_context();
    const auto x = values(s, static_cast<std::size_t>(s.input_numel()), options.seed * 3 + 0);
    const auto w = values(s, static_cast<std::size_t>(s.weight_numel()), options.seed * 3 + 1);
    const auto dy = values(s, static_cast<std::size_t>(s.output_numel()), options.seed * 3 + 2);
    const auto layer = make_layer(context, s, options);
    ConvLayer& conv = *layer;
    const Tensor dy_tensor = Tensor::from_host(context, dy, s.output_shape(), s.dtype);
    ConvCaseResult result;
    result.tolerance = conv_tolerance(s, options.tolerance_factor);
    if (s.direction == ConvDirection::BACKWARD_DATA) {
        conv.set_weights(w, s.bias ? values(s, static_cast<std::size_t>(s.K), options.seed * 3 + 3)
                                   : std::vector<float>{});
        Tensor dx = Tensor::empty(context, s.input_shape(), s.dtype);
        dx.fill(std::numeric_limits<float>::quiet_NaN());
        conv.backward_data(dy_tensor, dx);
        const auto expected = reference_conv_backward_data(s, dy, w);
        result.tolerance += storage_rounding(s, expected);
        fold(result, dx.to_host(), expected);
    } else {
        const Tensor x_tensor = Tensor::from_host(context, x, s.input_shape(), s.dtype);
        const WeightGradients expected = reference_conv_backward_weights(s, x, dy);
        const auto prior = [&](std::size_t count, std::uint64_t stream) {
            return options.beta == 0 ? std::vector<float>(count, std::numeric_limits<float>::quiet_NaN())
                                     : values(s, count, options.seed * 3 + stream);
        };
        const auto dw_before = prior(expected.dw.size(), 4);
        const auto db_before = prior(expected.db.size(), 5);
        Tensor dw = Tensor::from_host(context, dw_before, s.weight_shape(), s.dtype);
        Tensor db = s.bias ? Tensor::from_host(context, db_before, {s.K}, s.dtype) : Tensor{};
        conv.backward_weights(x_tensor, dy_tensor, dw, s.bias ? &db : nullptr, {}, nullptr, options.beta);
        const auto blended = [&](std::vector<double> gradient, const std::vector<float>& before) {
            if (options.beta != 0) {
                for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] += double{options.beta} * before[i];
            }
            return gradient;
        };
        const auto dw_expected = blended(expected.dw, dw_before);
        const auto db_expected = s.bias ? blended(expected.db, db_before) : std::vector<double>{};
        result.tolerance += std::max(storage_rounding(s, dw_expected), storage_rounding(s, db_expected));
        fold(result, dw.to_host(), dw_expected);
        if (s.bias) fold(result, db.to_host(), db_expected);
    }
    result.plan = conv.last_plan();
    result.workspace_bytes = conv.last_workspace_bytes();
    return result;
}

}  // namespace

ConvCaseResult run_conv_case(const ConvShapes& s, const ConvCaseOptions& options) {
    s.validate();
    if (s.direction != ConvDirection::FORWARD) return run_gradient_case(s, options);
    const auto context = options.context ? options.context : shared_context();
    // Distinct streams for x, w and b so no two tensors share values.
    const auto x = values(s, static_cast<std::size_t>(s.input_numel()), options.seed * 3 + 0);
    const auto w = values(s, static_cast<std::size_t>(s.weight_numel()), options.seed * 3 + 1);
    const auto b = s.bias ? values(s, static_cast<std::size_t>(s.K), options.seed * 3 + 2) : std::vector<float>{};

    const auto layer = make_layer(context, s, options);
    ConvLayer& conv = *layer;
    conv.set_training(s.training);  // a forward of a training step: planned for new weights every run
    conv.set_weights(w, b);

    const Tensor input = Tensor::from_host(context, x, s.input_shape(), s.dtype);
    // The sum post-op adds y's contents on entry: a random residual there
    // (an element left unwritten then keeps it and fails the comparison);
    // else NaN poison.
    const auto residual = s.post_ops.sum ? values(s, static_cast<std::size_t>(s.output_numel()), options.seed * 3 + 1000003)
                                         : std::vector<float>{};
    NETCL_REQUIRE(options.samples == 0 || s.post_ops.empty(),
                  "run_conv_case: sampled outputs are compared without post-ops; expected samples = 0");
    Tensor output = s.post_ops.sum ? Tensor::from_host(context, residual, s.output_shape(), s.dtype)
                                   : Tensor::empty(context, s.output_shape(), s.dtype);
    if (!s.post_ops.sum) output.fill(std::numeric_limits<float>::quiet_NaN());
    conv.forward(input, output);
    const std::vector<float> actual = output.to_host();
    const auto expected = [&](std::vector<double> conv_values) {
        if (s.post_ops.empty()) return conv_values;
        return reference_post_ops(s.post_ops, std::move(conv_values), residual);
    };

    ConvCaseResult result;
    result.plan = conv.last_plan();
    result.workspace_bytes = conv.last_workspace_bytes();
    result.tolerance = conv_tolerance(s, options.tolerance_factor);

    Comparison comparison;
    if (options.samples == 0) {
        const auto wanted = expected(reference_conv(s, x, w, b));
        result.tolerance += storage_rounding(s, wanted);
        comparison = compare(actual, wanted);
        result.compared = actual.size();
    } else {
        const auto indices = sample_output_indices(s, options.samples, options.seed);
        std::vector<float> picked;
        picked.reserve(indices.size());
        for (const std::size_t i : indices) picked.push_back(actual[i]);
        const auto wanted = reference_conv_sampled(s, x, w, b, indices);
        result.tolerance += storage_rounding(s, wanted);
        comparison = compare(picked, wanted);
        comparison.worst_index = indices.empty() ? 0 : indices[comparison.worst_index];
        result.compared = indices.size();
        // Unwritten outputs outside the sample still show as poison.
        for (std::size_t i = 0; i < actual.size(); ++i) {
            if (!std::isfinite(actual[i]) && std::find(indices.begin(), indices.end(), i) == indices.end()) {
                ++comparison.non_finite;
            }
        }
    }
    // Point the report at the first poisoned output when there is one: an
    // unwritten element says more than the largest finite error.
    if (comparison.non_finite != 0) {
        for (std::size_t i = 0; i < actual.size(); ++i) {
            if (!std::isfinite(actual[i])) {
                comparison.worst_index = i;
                break;
            }
        }
    }
    result.max_abs_error = comparison.max_abs_error;
    result.non_finite = comparison.non_finite;
    result.worst_index = comparison.worst_index;
    return result;
}

ConvCaseResult run_conv_case(const ConvShapes& shapes, Kernel strategy, std::optional<Variant> variant,
                             std::uint64_t seed, double tolerance_factor) {
    ConvCaseOptions options;
    options.strategy = strategy;
    options.variant = variant;
    options.seed = seed;
    options.tolerance_factor = tolerance_factor;
    return run_conv_case(shapes, options);
}

ConvCaseResult run_im2col_variant(const Variant& variant, const ConvShapes& shapes,
                                  const std::shared_ptr<Context>& context, std::uint64_t seed, float beta) {
    ConvCaseOptions options;
    options.strategy = Kernel::IM2COL;
    options.variant = variant;
    options.context = context;
    options.beta = beta;
    options.seed = seed;
    return run_conv_case(shapes, options);
}

std::string describe(const ConvShapes& s, const ConvCaseResult& r) {
    if (s.direction != ConvDirection::FORWARD) {
        std::ostringstream text;
        text << s.str() << " bias=" << (s.bias ? 1 : 0) << " [" << r.plan.str() << "]: max error " << r.max_abs_error
             << " (tolerance " << r.tolerance << "), " << r.non_finite << " non-finite of " << r.compared
             << " compared, worst element " << r.worst_index
             << (s.direction == ConvDirection::BACKWARD_DATA ? " of dx" : " of dw (or db, past dw)");
        return text.str();
    }
    const std::size_t Q = static_cast<std::size_t>(s.Q()), P = static_cast<std::size_t>(s.P());
    const std::size_t O = static_cast<std::size_t>(s.O()), K = static_cast<std::size_t>(s.K);
    std::ostringstream text;
    text << s.str() << " bias=" << (s.bias ? 1 : 0) << " [" << r.plan.str() << "]: max error " << r.max_abs_error
         << " (tolerance " << r.tolerance << "), " << r.non_finite << " non-finite of " << r.compared
         << " compared, worst output n=" << r.worst_index / (Q * P * O * K) << " k=" << r.worst_index / (Q * P * O) % K
         << (s.spatial_rank == 3 ? " o=" + std::to_string(r.worst_index / (Q * P) % O) : std::string())
         << " p=" << r.worst_index / Q % P << " q=" << r.worst_index % Q;
    return text.str();
}

namespace {

ConvShapes make(std::int64_t N, std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t K, std::int64_t R,
                std::int64_t S, std::int64_t stride, std::int64_t pad, std::int64_t dilation, std::int64_t groups,
                bool bias) {
    ConvShapes s;
    s.N = N, s.C = C, s.H = H, s.W = W, s.K = K, s.R = R, s.S = S;
    s.stride_h = s.stride_w = stride;
    s.set_padding(pad);
    s.dilation_h = s.dilation_w = dilation;
    s.groups = groups;
    s.bias = bias;
    return s;
}

}  // namespace

std::vector<ConvShapes> edge_case_shapes() {
    //        N  C   H   W   K  R  S str pad dil grp bias
    std::vector<ConvShapes> shapes = {
        make(1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, false),     // 1x1 image, 1x1 filter
        make(1, 3, 1, 1, 5, 3, 3, 1, 1, 1, 1, true),      // 1x1 image, all taps but the centre in padding
        make(3, 1, 7, 7, 5, 3, 3, 1, 1, 1, 1, true),      // C = 1, odd size
        make(1, 3, 13, 13, 7, 3, 3, 1, 1, 1, 1, false),   // C = 3, K = 7
        make(8, 3, 27, 27, 13, 3, 3, 1, 1, 1, 1, true),   // N = 8, 27x27
        make(1, 4, 7, 13, 9, 3, 3, 1, 0, 1, 1, true),     // H != W, no padding
        make(3, 5, 13, 7, 6, 3, 3, 1, 2, 1, 1, false),    // H != W, pad 2
        make(1, 6, 13, 13, 10, 5, 5, 1, 2, 1, 1, true),   // 5x5
        make(3, 4, 13, 27, 11, 3, 3, 2, 1, 1, 1, true),   // stride 2
        make(1, 3, 27, 13, 8, 5, 5, 2, 2, 1, 1, false),   // stride 2, 5x5
        make(1, 4, 13, 13, 6, 3, 3, 1, 2, 2, 1, true),    // dilation 2
        make(3, 3, 27, 27, 5, 3, 3, 2, 0, 2, 1, false),   // stride 2 + dilation 2
        make(1, 4, 13, 13, 6, 3, 3, 1, 1, 1, 2, true),    // groups 2
        make(3, 8, 7, 13, 12, 1, 1, 1, 0, 1, 2, false),   // groups 2, 1x1
        make(1, 8, 13, 13, 8, 3, 3, 1, 1, 1, 8, true),    // depthwise
        make(3, 6, 27, 13, 12, 3, 3, 2, 1, 1, 6, false),  // depthwise, multiplier 2, stride 2
        make(8, 7, 7, 7, 7, 5, 5, 1, 2, 2, 7, true),      // depthwise, dilation 2
        make(1, 16, 7, 7, 17, 1, 1, 1, 0, 1, 1, true),    // 1x1 (IM2COL's direct path), K = 17
        make(3, 16, 13, 7, 9, 1, 1, 2, 0, 1, 1, false),   // 1x1 stride 2 (needs columns)
        make(1, 3, 7, 7, 4, 1, 1, 1, 1, 1, 1, true),      // 1x1 with padding
        make(1, 2, 7, 7, 3, 7, 7, 1, 0, 1, 1, true),      // filter as large as the image
        make(1, 32, 13, 13, 33, 3, 3, 1, 1, 1, 1, true),  // longer reduction (C·R·S = 288)
    };
    ConvShapes rect = make(3, 3, 13, 27, 5, 3, 1, 1, 1, 1, 1, true);  // 3x1 filter, asymmetric stride/pad
    rect.stride_w = 2;
    rect.pad_left = rect.pad_right = 0;
    shapes.push_back(rect);
    // Uneven padding on every side, as ONNX and TensorFlow models carry it
    // (SAME_UPPER on an even size: the extra row and column at the end).
    ConvShapes same_upper = make(2, 5, 8, 10, 7, 3, 3, 1, 0, 1, 1, true);
    same_upper.set_padding(0, 1, 1, 2);
    shapes.push_back(same_upper);
    ConvShapes lopsided = make(1, 4, 9, 7, 6, 3, 3, 1, 0, 1, 1, false);
    lopsided.set_padding(2, 0, 0, 3);  // top only vertically, right only horizontally
    shapes.push_back(lopsided);
    ConvShapes strided = make(3, 6, 11, 12, 8, 3, 3, 2, 0, 1, 2, true);
    strided.set_padding(1, 0, 2, 1);  // stride 2, groups 2
    shapes.push_back(strided);
    ConvShapes one_by_one = make(2, 3, 5, 6, 4, 1, 1, 1, 0, 1, 1, true);
    one_by_one.set_padding(0, 0, 1, 0);  // a 1x1 layer padded only at the bottom
    shapes.push_back(one_by_one);
    return shapes;
}

ConvShapes make3d(std::int64_t N, std::int64_t C, std::int64_t K, Axis d, Axis h, Axis w, std::int64_t groups,
                  bool bias) {
    ConvShapes s;
    s.spatial_rank = 3;
    s.N = N, s.C = C, s.K = K, s.groups = groups, s.bias = bias;
    s.D = d.size, s.T = d.kernel, s.stride_d = d.stride, s.pad_front = d.pad_begin, s.pad_back = d.pad_end;
    s.dilation_d = d.dilation;
    s.H = h.size, s.R = h.kernel, s.stride_h = h.stride, s.pad_top = h.pad_begin, s.pad_bottom = h.pad_end;
    s.dilation_h = h.dilation;
    s.W = w.size, s.S = w.kernel, s.stride_w = w.stride, s.pad_left = w.pad_begin, s.pad_right = w.pad_end;
    s.dilation_w = w.dilation;
    return s;
}

// Depth 1 and 2, odd sizes, a stride of 2 in one axis only, dilation in
// depth, groups and depthwise, six different pads, N > 1, C and K off the
// naive kernel's block of 4, a kernel deeper than it is tall, 1x1x1.
std::vector<ConvShapes> edge_case_shapes_3d() {
    return {
        make3d(2, 3, 5, {5, 3, 1, 1, 1}, {7, 3, 1, 1, 1}, {6, 3, 1, 1, 1}),
        make3d(1, 4, 8, {1, 1}, {9, 3, 1, 1, 1}, {9, 3, 1, 1, 1}),             // depth 1
        make3d(1, 2, 3, {2, 3, 1, 1, 1}, {5, 3, 1, 1, 1}, {5, 3}, 1, false),  // depth 2 under a 3-deep kernel
        make3d(1, 3, 6, {9, 3, 2, 1, 1}, {6, 3, 1, 1, 1}, {7, 3, 1, 1, 1}),   // stride 2 in depth only
        make3d(2, 3, 4, {4, 3, 1, 1, 1}, {9, 3, 2, 1, 1}, {7, 3, 1, 1, 1}),   // stride 2 in height only
        make3d(1, 2, 5, {7, 3, 1, 2, 2, 2}, {6, 3, 1, 1, 1}, {8, 3, 1, 2, 2, 2}),  // dilation 2 in depth and width
        make3d(1, 4, 6, {3, 3, 1, 1, 1}, {5, 3, 1, 1, 1}, {5, 3, 1, 1, 1}, 2),     // groups 2
        make3d(2, 5, 5, {4, 3, 1, 1, 1}, {6, 3, 1, 1, 1}, {5, 3, 1, 1, 1}, 5),     // depthwise
        make3d(1, 3, 7, {5, 3, 2, 2, 0}, {6, 3, 1, 0, 2}, {7, 3, 2, 1, 1}),        // six pads, two strides
        make3d(3, 6, 9, {5, 1, 2}, {5, 1, 2}, {5, 1, 2}),                          // 1x1x1 stride 2, N = 3
        make3d(1, 1, 1, {1, 1}, {1, 1}, {1, 1}),                                   // one voxel
        make3d(1, 2, 3, {6, 5, 1, 2, 2}, {4, 1}, {5, 3, 1, 1, 1}),                 // 5x1x3
    };
}


ConvShapes random_small_shape(std::mt19937_64& rng) {
    auto draw = [&rng](std::int64_t low, std::int64_t high) {
        return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
    };
    ConvShapes s;
    s.N = draw(1, 3);
    s.groups = draw(0, 3) == 0 ? draw(2, 4) : 1;
    const bool depthwise = s.groups > 1 && draw(0, 1) == 0;
    s.C = depthwise ? s.groups : s.groups * draw(1, 4);
    s.K = s.groups * draw(1, 5);
    s.R = draw(1, 5);
    s.S = draw(0, 2) == 0 ? draw(1, 5) : s.R;
    s.stride_h = draw(1, 3);
    s.stride_w = draw(0, 2) == 0 ? draw(1, 3) : s.stride_h;
    s.dilation_h = draw(0, 3) == 0 ? 2 : 1;
    s.dilation_w = draw(0, 3) == 0 ? 2 : s.dilation_h;
    // Symmetric mostly; a quarter of the draws pad each side on its own.
    const std::int64_t ph = draw(0, 2), pw = draw(0, 3) == 0 ? draw(0, 2) : ph;
    if (draw(0, 3) == 0) {
        s.set_padding(draw(0, 2), draw(0, 2), draw(0, 2), draw(0, 2));
    } else {
        s.set_padding(ph, pw);
    }
    s.bias = draw(0, 1) == 1;
    const std::int64_t extent_h = s.dilation_h * (s.R - 1) + 1, extent_w = s.dilation_w * (s.S - 1) + 1;
    s.H = draw(std::max<std::int64_t>(1, extent_h - s.pad_top - s.pad_bottom), extent_h + 14);
    s.W = draw(std::max<std::int64_t>(1, extent_w - s.pad_left - s.pad_right), extent_w + 14);
    return s;
}

ConvShapes sampled_vgg_like_shape() {
    ConvShapes s;
    s.N = 2, s.C = 64, s.H = 28, s.W = 30, s.K = 42, s.R = 3, s.S = 3, s.set_padding(1), s.bias = true;
    return s;
}

ConvCaseResult run_sampled_vgg_like_case(Kernel strategy, std::uint64_t seed, std::optional<Variant> variant) {
    ConvCaseOptions options;
    options.strategy = strategy;
    options.variant = variant;
    options.seed = seed;
    options.samples = 2000;
    return run_conv_case(sampled_vgg_like_shape(), options);
}

}  // namespace netcl::test
