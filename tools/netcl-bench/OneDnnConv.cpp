#include "OneDnnConv.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "netcl/Error.hpp"

#ifdef NETCL_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>
#endif

namespace netcl::bench {

std::string to_string(OneDnnLayout layout) { return layout == OneDnnLayout::Nchw ? "nchw" : "blocked"; }

std::optional<std::string> onednn_why_not(const ConvShapes&, const DeviceProfile& profile) {
    if (!onednn_built_in()) {
        return std::string("oneDNN not built in (netcl-bench was configured without oneDNN: install libdnnl-dev and "
                           "re-run cmake)");
    }
    if (profile.type != DeviceType::CPU) {
        return "oneDNN runs on the host CPU and the device is a " + netcl::to_string(profile.type) +
               ": no like-for-like peer (CLBlast's Convgemm is the OpenCL one)";
    }
    return std::nullopt;
}

#ifdef NETCL_BENCH_ONEDNN

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

// A blocked memory format named oneDNN's way: dimensions from outermost to
// innermost stride as letters (a = N or O, b = C or I, ...), upper case where
// the dimension is also blocked, then the inner blocks: nChw8c is "aBcd8b".
std::string format_name(const memory::desc& desc) {
    const dnnl_memory_desc_t& md = desc.data;
    if (md.format_kind != dnnl_blocked) return dnnl_fmt_kind2str(md.format_kind);
    const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
    std::vector<int> order(static_cast<std::size_t>(md.ndims));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return blocking.strides[a] > blocking.strides[b]; });
    std::string name;
    for (const int d : order) {
        const bool blocked =
            std::find(blocking.inner_idxs, blocking.inner_idxs + blocking.inner_nblks, d) !=
            blocking.inner_idxs + blocking.inner_nblks;
        name += static_cast<char>((blocked ? 'A' : 'a') + d);
    }
    for (int i = 0; i < blocking.inner_nblks; ++i) {
        name += std::to_string(blocking.inner_blks[i]) + static_cast<char>('a' + blocking.inner_idxs[i]);
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

}  // namespace

bool onednn_built_in() { return true; }

std::string onednn_version() {
    const dnnl_version_t* v = dnnl_version();
    std::string text = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
    if (v->hash && *v->hash && std::strcmp(v->hash, "N/A") != 0) text += std::string(" (git ") + v->hash + ")";
    return text;
}

std::string onednn_cpu_isa() {
    std::string isa = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());  // "cpu_isa_avx2"
    const std::string prefix = "cpu_isa_";
    return isa.rfind(prefix, 0) == 0 ? isa.substr(prefix.size()) : isa;
}

struct OneDnnConv::State {
    dnnl::primitive primitive;
    memory out;            // y, dx or dw, in the primitive's layout
    memory out_bias;       // db (backward weights with a bias), plain
    memory::desc user_out_desc;
    std::unordered_map<int, memory> args;
    std::string impl, formats, name;
};

OneDnnConv::OneDnnConv(const ConvShapes& s, OneDnnLayout layout, const std::vector<float>& x,
                       const std::vector<float>& weights, const std::vector<float>& bias, const std::vector<float>& dy)
    : state_(std::make_unique<State>()) {
    try {
        const memory::dim G = s.groups;
        // NCDHW for a 3-D layer: the same calls with one more dimension each.
        const bool deep = s.spatial_rank == 3;
        const tag plain = deep ? tag::ncdhw : tag::nchw;
        const memory::dims x_dims = deep ? memory::dims{s.N, s.C, s.D, s.H, s.W} : memory::dims{s.N, s.C, s.H, s.W};
        const memory::dims y_dims = deep ? memory::dims{s.N, s.K, s.O(), s.P(), s.Q()}
                                         : memory::dims{s.N, s.K, s.P(), s.Q()};
        // Grouped weights have a leading G for oneDNN: G x K/G x C/G x (T x) R x S, the same bytes as K x C/G x ...
        memory::dims w_dims = deep ? memory::dims{s.K / G, s.C / G, s.T, s.R, s.S} : memory::dims{s.K / G, s.C / G, s.R, s.S};
        if (G != 1) w_dims.insert(w_dims.begin(), G);
        const tag w_tag = G == 1 ? (deep ? tag::oidhw : tag::oihw) : (deep ? tag::goidhw : tag::goihw);
        const tag io = layout == OneDnnLayout::Nchw ? plain : tag::any;
        const auto f32 = memory::data_type::f32;
        const memory::desc src_md(x_dims, f32, io), weights_md(w_dims, f32, tag::any), dst_md(y_dims, f32, io);
        const memory::desc bias_md({s.K}, f32, tag::x);
        // oneDNN counts dilation from 0 (0 = dense), netcl from 1.
        const memory::dims strides = deep ? memory::dims{s.stride_d, s.stride_h, s.stride_w}
                                          : memory::dims{s.stride_h, s.stride_w};
        const memory::dims dilates = deep ? memory::dims{s.dilation_d - 1, s.dilation_h - 1, s.dilation_w - 1}
                                          : memory::dims{s.dilation_h - 1, s.dilation_w - 1};
        const memory::dims padding_l = deep ? memory::dims{s.pad_front, s.pad_top, s.pad_left}
                                            : memory::dims{s.pad_top, s.pad_left};
        const memory::dims padding_r = deep ? memory::dims{s.pad_back, s.pad_bottom, s.pad_right}
                                            : memory::dims{s.pad_bottom, s.pad_right};
        const auto direct = dnnl::algorithm::convolution_direct;
        const auto forward_desc = [&](dnnl::prop_kind kind) {
            return s.bias ? dnnl::convolution_forward::desc(kind, direct, src_md, weights_md, bias_md, dst_md,
                                                            strides, dilates, padding_l, padding_r)
                          : dnnl::convolution_forward::desc(kind, direct, src_md, weights_md, dst_md, strides,
                                                            dilates, padding_l, padding_r);
        };
        State& st = *state_;
        const auto describe = [&](const auto& pd, const memory::desc& a, const char* a_name, const memory::desc& w,
                                  const char* w_name, const memory::desc& b, const char* b_name) {
            st.impl = pd.impl_info_str();
            st.formats = std::string(a_name) + " " + format_name(a) + ", " + w_name + " " + format_name(w) + ", " +
                         b_name + " " + format_name(b);
        };
        switch (s.direction) {
            case ConvDirection::FORWARD: {
                const dnnl::convolution_forward::primitive_desc pd(
                    forward_desc(dnnl::prop_kind::forward_inference), cpu_engine());
                describe(pd, pd.src_desc(), "src", pd.weights_desc(), "weights", pd.dst_desc(), "dst");
                st.name = "convolution_forward (forward_inference)";
                st.primitive = dnnl::convolution_forward(pd);
                st.out = memory(pd.dst_desc(), cpu_engine());
                st.user_out_desc = memory::desc(y_dims, f32, plain);
                st.args = {{DNNL_ARG_SRC, in_layout(user_memory(x_dims, plain, x), pd.src_desc())},
                           {DNNL_ARG_WEIGHTS, in_layout(user_memory(w_dims, w_tag, weights), pd.weights_desc())},
                           {DNNL_ARG_DST, st.out}};
                if (s.bias) st.args.emplace(DNNL_ARG_BIAS, user_memory({s.K}, tag::x, bias));
                break;
            }
            case ConvDirection::BACKWARD_DATA: {
                const dnnl::convolution_forward::primitive_desc hint(
                    forward_desc(dnnl::prop_kind::forward_training), cpu_engine());
                const dnnl::convolution_backward_data::desc desc(direct, src_md, weights_md, dst_md, strides, dilates,
                                                                 padding_l, padding_r);
                const dnnl::convolution_backward_data::primitive_desc pd(desc, cpu_engine(), hint);
                describe(pd, pd.diff_dst_desc(), "diff_dst", pd.weights_desc(), "weights", pd.diff_src_desc(),
                         "diff_src");
                st.name = "convolution_backward_data";
                st.primitive = dnnl::convolution_backward_data(pd);
                st.out = memory(pd.diff_src_desc(), cpu_engine());
                st.user_out_desc = memory::desc(x_dims, f32, plain);
                st.args = {{DNNL_ARG_DIFF_DST, in_layout(user_memory(y_dims, plain, dy), pd.diff_dst_desc())},
                           {DNNL_ARG_WEIGHTS, in_layout(user_memory(w_dims, w_tag, weights), pd.weights_desc())},
                           {DNNL_ARG_DIFF_SRC, st.out}};
                break;
            }
            case ConvDirection::BACKWARD_WEIGHTS: {
                const dnnl::convolution_forward::primitive_desc hint(
                    forward_desc(dnnl::prop_kind::forward_training), cpu_engine());
                const auto desc = s.bias ? dnnl::convolution_backward_weights::desc(direct, src_md, weights_md,
                                                                                     bias_md, dst_md, strides, dilates,
                                                                                     padding_l, padding_r)
                                         : dnnl::convolution_backward_weights::desc(direct, src_md, weights_md,
                                                                                     dst_md, strides, dilates,
                                                                                     padding_l, padding_r);
                const dnnl::convolution_backward_weights::primitive_desc pd(desc, cpu_engine(), hint);
                describe(pd, pd.src_desc(), "src", pd.diff_dst_desc(), "diff_dst", pd.diff_weights_desc(),
                         "diff_weights");
                st.name = "convolution_backward_weights";
                st.primitive = dnnl::convolution_backward_weights(pd);
                st.out = memory(pd.diff_weights_desc(), cpu_engine());
                st.user_out_desc = memory::desc(w_dims, f32, w_tag);
                st.args = {{DNNL_ARG_SRC, in_layout(user_memory(x_dims, plain, x), pd.src_desc())},
                           {DNNL_ARG_DIFF_DST, in_layout(user_memory(y_dims, plain, dy), pd.diff_dst_desc())},
                           {DNNL_ARG_DIFF_WEIGHTS, st.out}};
                if (s.bias) {
                    st.out_bias = memory(bias_md, cpu_engine());
                    st.args.emplace(DNNL_ARG_DIFF_BIAS, st.out_bias);
                }
                break;
            }
        }
    } catch (const dnnl::error& error) {
        throw Error(std::string("oneDNN (") + dnnl_status2str(error.status) + "): " + error.what() + " for " +
                    s.str());
    }
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::run() {
    state_->primitive.execute(cpu_stream(), state_->args);
    cpu_stream().wait();
}

void OneDnnConv::poison_output() {
    for (memory* m : {&state_->out, &state_->out_bias}) {
        if (!*m) continue;
        float* data = static_cast<float*>(m->get_data_handle());
        std::fill_n(data, m->get_desc().get_size() / sizeof(float), std::numeric_limits<float>::quiet_NaN());
    }
}

std::vector<float> OneDnnConv::output_nchw() {
    const memory::desc& desc = state_->user_out_desc;
    std::vector<float> result(desc.get_size() / sizeof(float));
    memory user(desc, cpu_engine(), result.data());
    dnnl::reorder(state_->out, user).execute(cpu_stream(), state_->out, user);  // a plain copy where they agree
    cpu_stream().wait();
    if (state_->out_bias) {
        const float* db = static_cast<const float*>(state_->out_bias.get_data_handle());
        result.insert(result.end(), db, db + state_->out_bias.get_desc().get_size() / sizeof(float));
    }
    return result;
}

std::string OneDnnConv::primitive_name() const { return state_->name; }

const std::string& OneDnnConv::impl() const { return state_->impl; }
const std::string& OneDnnConv::formats() const { return state_->formats; }

#else  // oneDNN not built in: onednn_why_not stops every caller before these.

struct OneDnnConv::State {
    std::string empty;
};

bool onednn_built_in() { return false; }
std::string onednn_version() { return {}; }
std::string onednn_cpu_isa() { return {}; }

OneDnnConv::OneDnnConv(const ConvShapes&, OneDnnLayout, const std::vector<float>&, const std::vector<float>&,
                       const std::vector<float>&, const std::vector<float>&) {
    throw Error("oneDNN not built in");
}
std::string OneDnnConv::primitive_name() const { return {}; }
OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::run() {}
void OneDnnConv::poison_output() {}
std::vector<float> OneDnnConv::output_nchw() { return {}; }
const std::string& OneDnnConv::impl() const { return state_->empty; }
const std::string& OneDnnConv::formats() const { return state_->empty; }

#endif

}  // namespace netcl::bench
