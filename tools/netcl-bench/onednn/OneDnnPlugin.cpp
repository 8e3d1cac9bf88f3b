// netcl-bench's plugin for one oneDNN build (OneDnnLibrary.hpp says why a
// plugin): compiled once per oneDNN found at configure time, against that
// build's headers. oneDNN 3.0 rewrote the C++ API (operation descriptors gone:
// a primitive_desc takes the engine and the problem directly; memory::desc no
// longer exposes its C struct), so the few calls that differ sit under
// DNNL_VERSION_MAJOR; everything else is written once.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include "../OneDnnLibrary.hpp"
#include "netcl/Error.hpp"

namespace netcl::bench {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

// One CPU engine and stream for the process: oneDNN's threads are the host's cores.
dnnl::engine& cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}
dnnl::stream& cpu_stream() {
    static dnnl::stream stream(cpu_engine());
    return stream;
}

// The blocking of a memory format, however this oneDNN version exposes it.
struct Blocking {
    bool blocked = false;
    std::string kind;  // oneDNN's name for a format kind that is not blocked ("any", "opaque", ...)
    std::vector<memory::dim> strides, inner_blks, inner_idxs;
};

Blocking blocking_of(const memory::desc& desc) {
    Blocking b;
#if DNNL_VERSION_MAJOR >= 3
    const auto kind = static_cast<dnnl_format_kind_t>(desc.get_format_kind());
    b.blocked = kind == dnnl_blocked;
    if (!b.blocked) {
        b.kind = dnnl_fmt_kind2str(kind);
        return b;
    }
    b.strides = desc.get_strides();
    b.inner_blks = desc.get_inner_blks();
    b.inner_idxs = desc.get_inner_idxs();
#else
    const dnnl_memory_desc_t& md = desc.data;
    b.blocked = md.format_kind == dnnl_blocked;
    if (!b.blocked) {
        b.kind = dnnl_fmt_kind2str(md.format_kind);
        return b;
    }
    const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
    b.strides.assign(blocking.strides, blocking.strides + md.ndims);
    b.inner_blks.assign(blocking.inner_blks, blocking.inner_blks + blocking.inner_nblks);
    b.inner_idxs.assign(blocking.inner_idxs, blocking.inner_idxs + blocking.inner_nblks);
#endif
    return b;
}

// A blocked memory format named oneDNN's way: dimensions from outermost to
// innermost stride as letters (a = N or O, b = C or I, ...), upper case where
// the dimension is also blocked, then the inner blocks: nChw8c is "aBcd8b".
std::string format_name(const memory::desc& desc) {
    const Blocking b = blocking_of(desc);
    if (!b.blocked) return b.kind;
    std::vector<int> order(b.strides.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
    std::string name;
    for (const int d : order) {
        const bool blocked = std::find(b.inner_idxs.begin(), b.inner_idxs.end(), d) != b.inner_idxs.end();
        name += static_cast<char>((blocked ? 'A' : 'a') + d);
    }
    for (std::size_t i = 0; i < b.inner_blks.size(); ++i) {
        name += std::to_string(b.inner_blks[i]) + static_cast<char>('a' + b.inner_idxs[i]);
    }
    return name;
}

memory user_memory(const memory::dims& dims, tag format, const std::vector<float>& values) {
    memory m({dims, memory::data_type::f32, format}, cpu_engine());
    std::memcpy(m.get_data_handle(), values.data(), values.size() * sizeof(float));
    return m;
}

// `user` in the layout `desc` asks for: the user memory itself when they agree, else a reorder (untimed).
memory in_layout(memory user, const memory::desc& desc) {
    if (user.get_desc() == desc) return user;
    memory m(desc, cpu_engine());
    dnnl::reorder(user, m).execute(cpu_stream(), user, m);
    cpu_stream().wait();
    return m;
}

// A convolution problem in oneDNN's terms, and the three primitive
// descriptors made the way this oneDNN version makes them.
struct Problem {
    memory::desc src, weights, bias, dst;
    memory::dims strides, dilates, padding_l, padding_r;
    bool has_bias = false;
};

constexpr auto kDirect = dnnl::algorithm::convolution_direct;

dnnl::convolution_forward::primitive_desc forward_pd(const Problem& p, dnnl::prop_kind kind) {
#if DNNL_VERSION_MAJOR >= 3
    return p.has_bias ? dnnl::convolution_forward::primitive_desc(cpu_engine(), kind, kDirect, p.src, p.weights,
                                                                  p.bias, p.dst, p.strides, p.dilates, p.padding_l,
                                                                  p.padding_r)
                      : dnnl::convolution_forward::primitive_desc(cpu_engine(), kind, kDirect, p.src, p.weights,
                                                                  p.dst, p.strides, p.dilates, p.padding_l,
                                                                  p.padding_r);
#else
    const auto desc = p.has_bias ? dnnl::convolution_forward::desc(kind, kDirect, p.src, p.weights, p.bias, p.dst,
                                                                   p.strides, p.dilates, p.padding_l, p.padding_r)
                                 : dnnl::convolution_forward::desc(kind, kDirect, p.src, p.weights, p.dst, p.strides,
                                                                   p.dilates, p.padding_l, p.padding_r);
    return dnnl::convolution_forward::primitive_desc(desc, cpu_engine());
#endif
}

dnnl::convolution_backward_data::primitive_desc backward_data_pd(const Problem& p) {
    const auto hint = forward_pd(p, dnnl::prop_kind::forward_training);
#if DNNL_VERSION_MAJOR >= 3
    return dnnl::convolution_backward_data::primitive_desc(cpu_engine(), kDirect, p.src, p.weights, p.dst, p.strides,
                                                           p.dilates, p.padding_l, p.padding_r, hint);
#else
    const dnnl::convolution_backward_data::desc desc(kDirect, p.src, p.weights, p.dst, p.strides, p.dilates,
                                                     p.padding_l, p.padding_r);
    return dnnl::convolution_backward_data::primitive_desc(desc, cpu_engine(), hint);
#endif
}

dnnl::convolution_backward_weights::primitive_desc backward_weights_pd(const Problem& p) {
    const auto hint = forward_pd(p, dnnl::prop_kind::forward_training);
#if DNNL_VERSION_MAJOR >= 3
    return p.has_bias ? dnnl::convolution_backward_weights::primitive_desc(
                            cpu_engine(), kDirect, p.src, p.weights, p.bias, p.dst, p.strides, p.dilates,
                            p.padding_l, p.padding_r, hint)
                      : dnnl::convolution_backward_weights::primitive_desc(cpu_engine(), kDirect, p.src, p.weights,
                                                                           p.dst, p.strides, p.dilates, p.padding_l,
                                                                           p.padding_r, hint);
#else
    const auto desc = p.has_bias ? dnnl::convolution_backward_weights::desc(kDirect, p.src, p.weights, p.bias, p.dst,
                                                                            p.strides, p.dilates, p.padding_l,
                                                                            p.padding_r)
                                 : dnnl::convolution_backward_weights::desc(kDirect, p.src, p.weights, p.dst,
                                                                            p.strides, p.dilates, p.padding_l,
                                                                            p.padding_r);
    return dnnl::convolution_backward_weights::primitive_desc(desc, cpu_engine(), hint);
#endif
}

class Primitive final : public OneDnnPrimitive {
public:
    Primitive(const ConvShapes& s, OneDnnLayout layout, const std::vector<float>& x,
              const std::vector<float>& weights, const std::vector<float>& bias, const std::vector<float>& dy,
              bool weights_every_run)
        : weights_every_run_(weights_every_run) {
        try {
            build(s, layout, x, weights, bias, dy);
        } catch (const dnnl::error& error) {
            throw Error(std::string("oneDNN (") + dnnl_status2str(error.status) + "): " + error.what() + " for " +
                        s.str());
        }
    }

    void run() override {
        // New weights (a training step's): plain oihw into the primitive's layout, where they differ.
        if (weights_every_run_ && weights_reorder_) {
            weights_reorder_.execute(cpu_stream(), plain_weights_, args_.at(DNNL_ARG_WEIGHTS));
        }
        primitive_.execute(cpu_stream(), args_);
        // dW back to plain oihw for the optimizer, where the primitive wrote another layout.
        if (weights_every_run_ && out_reorder_) out_reorder_.execute(cpu_stream(), out_, plain_out_);
        cpu_stream().wait();
    }

    void poison_output() override {
        for (memory* m : {&out_, &out_bias_}) {
            if (!*m) continue;
            float* data = static_cast<float*>(m->get_data_handle());
            std::fill_n(data, m->get_desc().get_size() / sizeof(float), std::numeric_limits<float>::quiet_NaN());
        }
    }

    std::vector<float> output_nchw() override {
        std::vector<float> result(user_out_desc_.get_size() / sizeof(float));
        memory user(user_out_desc_, cpu_engine(), result.data());
        dnnl::reorder(out_, user).execute(cpu_stream(), out_, user);  // a plain copy where they agree
        cpu_stream().wait();
        if (out_bias_) {
            const float* db = static_cast<const float*>(out_bias_.get_data_handle());
            result.insert(result.end(), db, db + out_bias_.get_desc().get_size() / sizeof(float));
        }
        return result;
    }

    std::string primitive_name() const override { return name_; }
    std::string impl() const override { return impl_; }
    std::string formats() const override { return formats_; }

private:
    void build(const ConvShapes& s, OneDnnLayout layout, const std::vector<float>& x,
               const std::vector<float>& weights, const std::vector<float>& bias, const std::vector<float>& dy) {
        const memory::dim G = s.groups;
        // NCDHW for a 3-D layer: the same calls with one more dimension each.
        const bool deep = s.spatial_rank == 3;
        const tag plain = deep ? tag::ncdhw : tag::nchw;
        const memory::dims x_dims = deep ? memory::dims{s.N, s.C, s.D, s.H, s.W} : memory::dims{s.N, s.C, s.H, s.W};
        const memory::dims y_dims = deep ? memory::dims{s.N, s.K, s.O(), s.P(), s.Q()}
                                         : memory::dims{s.N, s.K, s.P(), s.Q()};
        // Grouped weights have a leading G for oneDNN: G x K/G x C/G x (T x) R x S, the same bytes as K x C/G x ...
        memory::dims w_dims = deep ? memory::dims{s.K / G, s.C / G, s.T, s.R, s.S}
                                   : memory::dims{s.K / G, s.C / G, s.R, s.S};
        if (G != 1) w_dims.insert(w_dims.begin(), G);
        const tag w_tag = G == 1 ? (deep ? tag::oidhw : tag::oihw) : (deep ? tag::goidhw : tag::goihw);
        const tag io = layout == OneDnnLayout::Nchw ? plain : tag::any;
        const auto f32 = memory::data_type::f32;
        Problem p;
        p.src = memory::desc(x_dims, f32, io);
        p.weights = memory::desc(w_dims, f32, tag::any);
        p.dst = memory::desc(y_dims, f32, io);
        p.bias = memory::desc({s.K}, f32, tag::x);
        p.has_bias = s.bias;
        // oneDNN counts dilation from 0 (0 = dense), netcl from 1.
        p.strides = deep ? memory::dims{s.stride_d, s.stride_h, s.stride_w} : memory::dims{s.stride_h, s.stride_w};
        p.dilates = deep ? memory::dims{s.dilation_d - 1, s.dilation_h - 1, s.dilation_w - 1}
                         : memory::dims{s.dilation_h - 1, s.dilation_w - 1};
        p.padding_l = deep ? memory::dims{s.pad_front, s.pad_top, s.pad_left} : memory::dims{s.pad_top, s.pad_left};
        p.padding_r = deep ? memory::dims{s.pad_back, s.pad_bottom, s.pad_right}
                           : memory::dims{s.pad_bottom, s.pad_right};
        const auto describe = [&](const auto& pd, const memory::desc& a, const char* a_name, const memory::desc& w,
                                  const char* w_name, const memory::desc& b, const char* b_name) {
            impl_ = pd.impl_info_str();
            formats_ = std::string(a_name) + " " + format_name(a) + ", " + w_name + " " + format_name(w) + ", " +
                       b_name + " " + format_name(b);
        };
        switch (s.direction) {
            case ConvDirection::FORWARD: {
                // A training step's forward (new weights every run) is oneDNN's forward_training, which
                // may pick other layouts or kernels than inference.
                const auto kind = weights_every_run_ ? dnnl::prop_kind::forward_training
                                                     : dnnl::prop_kind::forward_inference;
                const auto pd = forward_pd(p, kind);
                describe(pd, pd.src_desc(), "src", pd.weights_desc(), "weights", pd.dst_desc(), "dst");
                name_ = weights_every_run_ ? "convolution_forward (forward_training)"
                                           : "convolution_forward (forward_inference)";
                primitive_ = dnnl::convolution_forward(pd);
                out_ = memory(pd.dst_desc(), cpu_engine());
                user_out_desc_ = memory::desc(y_dims, f32, plain);
                args_ = {{DNNL_ARG_SRC, in_layout(user_memory(x_dims, plain, x), pd.src_desc())},
                         {DNNL_ARG_WEIGHTS, weights_in_layout(user_memory(w_dims, w_tag, weights), pd.weights_desc())},
                         {DNNL_ARG_DST, out_}};
                if (s.bias) args_.emplace(DNNL_ARG_BIAS, user_memory({s.K}, tag::x, bias));
                break;
            }
            case ConvDirection::BACKWARD_DATA: {
                const auto pd = backward_data_pd(p);
                describe(pd, pd.diff_dst_desc(), "diff_dst", pd.weights_desc(), "weights", pd.diff_src_desc(),
                         "diff_src");
                name_ = "convolution_backward_data";
                primitive_ = dnnl::convolution_backward_data(pd);
                out_ = memory(pd.diff_src_desc(), cpu_engine());
                user_out_desc_ = memory::desc(x_dims, f32, plain);
                args_ = {{DNNL_ARG_DIFF_DST, in_layout(user_memory(y_dims, plain, dy), pd.diff_dst_desc())},
                         {DNNL_ARG_WEIGHTS, weights_in_layout(user_memory(w_dims, w_tag, weights), pd.weights_desc())},
                         {DNNL_ARG_DIFF_SRC, out_}};
                break;
            }
            case ConvDirection::BACKWARD_WEIGHTS: {
                const auto pd = backward_weights_pd(p);
                describe(pd, pd.src_desc(), "src", pd.diff_dst_desc(), "diff_dst", pd.diff_weights_desc(),
                         "diff_weights");
                name_ = "convolution_backward_weights";
                primitive_ = dnnl::convolution_backward_weights(pd);
                out_ = memory(pd.diff_weights_desc(), cpu_engine());
                user_out_desc_ = memory::desc(w_dims, f32, w_tag);
                if (out_.get_desc() != user_out_desc_) {
                    plain_out_ = memory(user_out_desc_, cpu_engine());
                    out_reorder_ = dnnl::reorder(out_, plain_out_);
                }
                args_ = {{DNNL_ARG_SRC, in_layout(user_memory(x_dims, plain, x), pd.src_desc())},
                         {DNNL_ARG_DIFF_DST, in_layout(user_memory(y_dims, plain, dy), pd.diff_dst_desc())},
                         {DNNL_ARG_DIFF_WEIGHTS, out_}};
                if (s.bias) {
                    out_bias_ = memory(p.bias, cpu_engine());
                    args_.emplace(DNNL_ARG_DIFF_BIAS, out_bias_);
                }
                break;
            }
        }
    }

    // `user` (plain weights) in the primitive's layout, its reorder kept for runs with new weights.
    memory weights_in_layout(memory user, const memory::desc& desc) {
        memory m = in_layout(user, desc);
        if (m.get_desc() != user.get_desc()) {
            plain_weights_ = user;
            weights_reorder_ = dnnl::reorder(user, m);
        }
        return m;
    }

    bool weights_every_run_ = false;
    dnnl::primitive primitive_;
    memory plain_weights_, plain_out_;  // oihw weights and dW, where the primitive's layouts differ
    dnnl::reorder weights_reorder_, out_reorder_;
    memory out_;       // y, dx or dw, in the primitive's layout
    memory out_bias_;  // db (backward weights with a bias), plain
    memory::desc user_out_desc_;
    std::unordered_map<int, memory> args_;
    std::string impl_, formats_, name_;
};

class Library final : public OneDnnLibrary {
public:
    std::vector<int> version_numbers() const override {
        const dnnl_version_t* v = dnnl_version();
        return {v->major, v->minor, v->patch};
    }

    std::string version() const override {
        const dnnl_version_t* v = dnnl_version();
        std::string text =
            std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
        if (v->hash && *v->hash && std::strcmp(v->hash, "N/A") != 0) {
            text += " (git " + std::string(v->hash).substr(0, 7) + ")";  // the short hash, as git prints it
        }
        return text;
    }

    std::string cpu_isa() const override {
        std::string isa = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());  // "cpu_isa_avx2"
        const std::string prefix = "cpu_isa_";
        return isa.rfind(prefix, 0) == 0 ? isa.substr(prefix.size()) : isa;
    }

    std::unique_ptr<OneDnnPrimitive> make(const ConvShapes& shapes, OneDnnLayout layout, const std::vector<float>& x,
                                          const std::vector<float>& weights, const std::vector<float>& bias,
                                          const std::vector<float>& dy, bool weights_every_run) const override {
        return std::make_unique<Primitive>(shapes, layout, x, weights, bias, dy, weights_every_run);
    }

    void sgemm(std::int64_t n, const float* a, const float* b, float* c) const override {
        const dnnl_status_t status = dnnl_sgemm('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        if (status != dnnl_success) throw Error("dnnl_sgemm failed with status " + std::string(dnnl_status2str(status)));
    }
};

}  // namespace

}  // namespace netcl::bench

extern "C" __attribute__((visibility("default"))) netcl::bench::OneDnnLibrary* NETCL_BENCH_ONEDNN_ENTRY() {
    static netcl::bench::Library library;
    return &library;
}
