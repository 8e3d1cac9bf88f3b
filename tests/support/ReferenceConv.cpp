#include "tests/support/ReferenceConv.hpp"

#include <random>

#include "netcl/Error.hpp"
#include "ops/Implementations.hpp"

namespace netcl {

namespace {

void check_lengths(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& w,
                   const std::vector<float>& bias) {
    s.validate();
    if (x.size() != static_cast<std::size_t>(s.input_numel())) {
        throw Error("reference_conv: input has " + std::to_string(x.size()) + " floats; " + s.str() + " expects " +
                    std::to_string(s.input_numel()));
    }
    if (w.size() != static_cast<std::size_t>(s.weight_numel())) {
        throw Error("reference_conv: weights have " + std::to_string(w.size()) + " floats; " + s.str() +
                    " expects K x C/groups x (T x) R x S = " + std::to_string(s.weight_numel()));
    }
    if (s.bias && bias.size() != static_cast<std::size_t>(s.K)) {
        throw Error("reference_conv: bias has " + std::to_string(bias.size()) + " floats; expected K = " +
                    std::to_string(s.K));
    }
}

// The (input, weight) index pairs of one output element's sum (flat N x K x
// O x P x Q index; O = 1 at rank 2), in the order a direct loop takes them:
// the one place the convolution's indexing is written, read by every
// direction and both ranks (a 2-D problem is a 3-D one of depth 1).
template <typename Visit>
void for_each_term_of(const ConvShapes& s, std::size_t index, Visit&& visit) {
    const std::int64_t O = s.O(), P = s.P(), Q = s.Q();
    const auto i = static_cast<std::int64_t>(index);
    const std::int64_t q = i % Q, p = i / Q % P, o = i / (Q * P) % O, k = i / (Q * P * O) % s.K;
    const std::int64_t n = i / (Q * P * O * s.K);
    const std::int64_t Cg = s.C / s.groups, Kg = s.K / s.groups, g = k / Kg;
    for (std::int64_t c = 0; c < Cg; ++c) {
        const std::int64_t x_channel = (n * s.C + g * Cg + c) * s.D;
        const std::int64_t w_channel = (k * Cg + c) * s.T;
        for (std::int64_t u = 0; u < s.T; ++u) {
            const std::int64_t d = o * s.stride_d - s.pad_front + u * s.dilation_d;
            if (d < 0 || d >= s.D) continue;
            for (std::int64_t r = 0; r < s.R; ++r) {
                const std::int64_t h = p * s.stride_h - s.pad_top + r * s.dilation_h;
                if (h < 0 || h >= s.H) continue;
                for (std::int64_t t = 0; t < s.S; ++t) {
                    const std::int64_t col = q * s.stride_w - s.pad_left + t * s.dilation_w;
                    if (col < 0 || col >= s.W) continue;
                    visit(static_cast<std::size_t>(((x_channel + d) * s.H + h) * s.W + col),
                          static_cast<std::size_t>(((w_channel + u) * s.R + r) * s.S + t));
                }
            }
        }
    }
}

// One output element; lengths already checked.
double output_at(const ConvShapes& s, const float* x, const float* w, const float* bias, std::size_t index) {
    const auto k = static_cast<std::int64_t>(index / static_cast<std::size_t>(s.O() * s.P() * s.Q()) %
                                             static_cast<std::size_t>(s.K));
    double sum = s.bias ? static_cast<double>(bias[k]) : 0.0;
    for_each_term_of(s, index, [&](std::size_t xi, std::size_t wi) {
        sum += static_cast<double>(x[xi]) * static_cast<double>(w[wi]);
    });
    return sum;
}

// Every (output, input, weight) index triple of the forward sum, so the
// gradients are the same sum reordered.
template <typename Visit>
void for_each_term(const ConvShapes& s, Visit&& visit) {
    const auto outputs = static_cast<std::size_t>(s.output_numel());
    for (std::size_t y = 0; y < outputs; ++y) {
        for_each_term_of(s, y, [&](std::size_t xi, std::size_t wi) { visit(y, xi, wi); });
    }
}

void check_length(const char* what, const std::vector<float>& v, std::int64_t expected, const ConvShapes& s) {
    if (v.size() != static_cast<std::size_t>(expected)) {
        throw Error(std::string("reference gradient: ") + what + " has " + std::to_string(v.size()) + " floats; " +
                    s.str() + " expects " + std::to_string(expected));
    }
}

}  // namespace

std::vector<double> reference_conv_backward_data(const ConvShapes& s, const std::vector<float>& dy,
                                                 const std::vector<float>& w) {
    s.validate();
    check_length("dy", dy, s.output_numel(), s);
    check_length("weights", w, s.weight_numel(), s);
    std::vector<double> dx(static_cast<std::size_t>(s.input_numel()), 0.0);
    for_each_term(s, [&](std::size_t y, std::size_t x, std::size_t wi) {
        dx[x] += static_cast<double>(dy[y]) * static_cast<double>(w[wi]);
    });
    return dx;
}

WeightGradients reference_conv_backward_weights(const ConvShapes& s, const std::vector<float>& x,
                                                const std::vector<float>& dy) {
    s.validate();
    check_length("x", x, s.input_numel(), s);
    check_length("dy", dy, s.output_numel(), s);
    WeightGradients g;
    g.dw.assign(static_cast<std::size_t>(s.weight_numel()), 0.0);
    for_each_term(s, [&](std::size_t y, std::size_t xi, std::size_t w) {
        g.dw[w] += static_cast<double>(dy[y]) * static_cast<double>(x[xi]);
    });
    if (s.bias) {
        g.db.assign(static_cast<std::size_t>(s.K), 0.0);
        const auto OPQ = static_cast<std::size_t>(s.O() * s.P() * s.Q());
        for (std::size_t i = 0; i < dy.size(); ++i) g.db[i / OPQ % static_cast<std::size_t>(s.K)] += dy[i];
    }
    return g;
}

double reference_conv_backward_data_at(const ConvShapes& s, const std::vector<float>& dy,
                                       const std::vector<float>& w, std::size_t index) {
    check_length("dy", dy, s.output_numel(), s);
    check_length("weights", w, s.weight_numel(), s);
    if (index >= static_cast<std::size_t>(s.input_numel())) {
        throw Error("reference_conv_backward_data_at: index " + std::to_string(index) + " is outside dx of " + s.str());
    }
    const auto i = static_cast<std::int64_t>(index);
    const std::int64_t col = i % s.W, h = i / s.W % s.H, d = i / (s.W * s.H) % s.D;
    const std::int64_t c = i / (s.W * s.H * s.D) % s.C, n = i / (s.W * s.H * s.D * s.C);
    const std::int64_t O = s.O(), P = s.P(), Q = s.Q(), Cg = s.C / s.groups, Kg = s.K / s.groups, g = c / Cg;
    // The forward sum's terms that read x[n][c][d][h][col]: h = p*stride - pad + r*dil, the same for d and col.
    double sum = 0;
    for (std::int64_t kk = 0; kk < Kg; ++kk) {
        const std::int64_t k = g * Kg + kk;
        for (std::int64_t u = 0; u < s.T; ++u) {
            const std::int64_t dz = d + s.pad_front - u * s.dilation_d;
            if (dz < 0 || dz % s.stride_d != 0 || dz / s.stride_d >= O) continue;
            for (std::int64_t r = 0; r < s.R; ++r) {
                const std::int64_t hp = h + s.pad_top - r * s.dilation_h;
                if (hp < 0 || hp % s.stride_h != 0 || hp / s.stride_h >= P) continue;
                for (std::int64_t t = 0; t < s.S; ++t) {
                    const std::int64_t wq = col + s.pad_left - t * s.dilation_w;
                    if (wq < 0 || wq % s.stride_w != 0 || wq / s.stride_w >= Q) continue;
                    const auto y = static_cast<std::size_t>(
                        (((n * s.K + k) * O + dz / s.stride_d) * P + hp / s.stride_h) * Q + wq / s.stride_w);
                    const auto wi = static_cast<std::size_t>((((k * Cg + (c - g * Cg)) * s.T + u) * s.R + r) * s.S + t);
                    sum += static_cast<double>(dy[y]) * static_cast<double>(w[wi]);
                }
            }
        }
    }
    return sum;
}

double reference_conv_backward_weights_at(const ConvShapes& s, const std::vector<float>& x,
                                          const std::vector<float>& dy, std::size_t index) {
    check_length("x", x, s.input_numel(), s);
    check_length("dy", dy, s.output_numel(), s);
    const auto weights = static_cast<std::size_t>(s.weight_numel());
    const std::int64_t O = s.O(), P = s.P(), Q = s.Q(), Cg = s.C / s.groups, Kg = s.K / s.groups;
    if (index >= weights) {  // db
        const auto k = static_cast<std::int64_t>(index - weights);
        if (!s.bias || k >= s.K) {
            throw Error("reference_conv_backward_weights_at: index " + std::to_string(index) + " is outside dw" +
                        (s.bias ? " and db" : "") + " of " + s.str());
        }
        double sum = 0;
        for (std::int64_t n = 0; n < s.N; ++n) {
            for (std::int64_t j = 0; j < O * P * Q; ++j) {
                sum += dy[static_cast<std::size_t>((n * s.K + k) * O * P * Q + j)];
            }
        }
        return sum;
    }
    const auto i = static_cast<std::int64_t>(index);
    const std::int64_t t = i % s.S, r = i / s.S % s.R, u = i / (s.S * s.R) % s.T;
    const std::int64_t c = i / (s.S * s.R * s.T) % Cg, k = i / (s.S * s.R * s.T * Cg);
    const std::int64_t g = k / Kg;
    double sum = 0;
    for (std::int64_t n = 0; n < s.N; ++n) {
        for (std::int64_t o = 0; o < O; ++o) {
            const std::int64_t d = o * s.stride_d - s.pad_front + u * s.dilation_d;
            if (d < 0 || d >= s.D) continue;
            for (std::int64_t p = 0; p < P; ++p) {
                const std::int64_t h = p * s.stride_h - s.pad_top + r * s.dilation_h;
                if (h < 0 || h >= s.H) continue;
                for (std::int64_t q = 0; q < Q; ++q) {
                    const std::int64_t col = q * s.stride_w - s.pad_left + t * s.dilation_w;
                    if (col < 0 || col >= s.W) continue;
                    const auto y = static_cast<std::size_t>((((n * s.K + k) * O + o) * P + p) * Q + q);
                    const auto x_at = static_cast<std::size_t>((((n * s.C + g * Cg + c) * s.D + d) * s.H + h) * s.W + col);
                    sum += static_cast<double>(dy[y]) * static_cast<double>(x[x_at]);
                }
            }
        }
    }
    return sum;
}

std::vector<double> reference_post_ops(const PostOps& post_ops, std::vector<double> conv,
                                       const std::vector<float>& residual) {
    NETCL_REQUIRE(!post_ops.sum || residual.size() == conv.size(),
                  "reference_post_ops: the residual has " + std::to_string(residual.size()) + " values; expected " +
                      std::to_string(conv.size()));
    for (std::size_t i = 0; i < conv.size(); ++i) {
        double v = conv[i] + (post_ops.sum ? double{residual[i]} : 0.0);
        switch (post_ops.activation) {
            case Activation::NONE: break;
            case Activation::RELU: v = v < 0 ? 0.0 : v; break;
            case Activation::CLAMP: v = v < post_ops.lower ? post_ops.lower : v > post_ops.upper ? post_ops.upper : v; break;
            case Activation::LEAKY_RELU: v = v < 0 ? double{post_ops.alpha} * v : v; break;
        }
        conv[i] = v;
    }
    return conv;
}

std::vector<double> reference_conv(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& w,
                                   const std::vector<float>& bias) {
    check_lengths(s, x, w, bias);
    std::vector<double> y(static_cast<std::size_t>(s.output_numel()));
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = output_at(s, x.data(), w.data(), bias.data(), i);
    return y;
}

double reference_conv_at(const ConvShapes& s, const std::vector<float>& x, const std::vector<float>& w,
                         const std::vector<float>& bias, std::size_t index) {
    return reference_conv_sampled(s, x, w, bias, {index}).front();
}

std::vector<double> reference_conv_sampled(const ConvShapes& s, const std::vector<float>& x,
                                           const std::vector<float>& w, const std::vector<float>& bias,
                                           const std::vector<std::size_t>& indices) {
    check_lengths(s, x, w, bias);
    const auto numel = static_cast<std::size_t>(s.output_numel());
    std::vector<double> y;
    y.reserve(indices.size());
    for (const std::size_t i : indices) {
        if (i >= numel) {
            throw Error("reference_conv_sampled: output index " + std::to_string(i) + " is outside " + s.str() +
                        "'s " + std::to_string(numel) + " outputs");
        }
        y.push_back(output_at(s, x.data(), w.data(), bias.data(), i));
    }
    return y;
}

std::vector<std::size_t> sample_output_indices(const ConvShapes& s, std::size_t count, std::uint64_t seed) {
    const auto numel = static_cast<std::size_t>(s.output_numel());
    if (count >= numel) {
        std::vector<std::size_t> all(numel);
        for (std::size_t i = 0; i < numel; ++i) all[i] = i;
        return all;
    }
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, numel - 1);
    if (count == 0) return {};
    std::vector<std::size_t> indices{0};
    if (count > 1) indices.push_back(numel - 1);
    while (indices.size() < count) indices.push_back(pick(rng));
    return indices;
}

std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low, float high) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> values(count);
    for (auto& v : values) v = dist(rng);
    return values;
}

double tolerance_factor(const Variant& variant) { return implementation_of(variant).error_factor(variant); }

double conv_tolerance(const ConvShapes& s, double factor) {
    double terms = 0;
    switch (s.direction) {
        case ConvDirection::FORWARD:
            terms = static_cast<double>(s.C / s.groups) * s.T * s.R * s.S + (s.bias ? 1.0 : 0.0);
            break;
        case ConvDirection::BACKWARD_DATA: terms = static_cast<double>(s.K / s.groups) * s.T * s.R * s.S; break;
        case ConvDirection::BACKWARD_WEIGHTS: terms = static_cast<double>(s.N) * s.O() * s.P() * s.Q(); break;
    }
    return factor * kConvTolerancePerTerm * terms;
}

}  // namespace netcl
