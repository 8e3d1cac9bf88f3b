// netcl.ConvShapes and netcl.Plan: the problem a selector predicate is asked
// about, and what the selector decided for it.
#include "bindings.hpp"

#include "netcl/KernelSelector.hpp"

#include <nanobind/operators.h>
#include <nanobind/stl/string.h>

#include "netcl/ConvShapes.hpp"
#include "netcl/Plan.hpp"

namespace netcl::python {

namespace {

// shapes[0], shapes[1], shapes[2]: the wiki's predicates index the problem
// like a framework's list of operand shapes (input, weight, output), each
// with numel() as torch.Size has it; 5-D for a rank-3 problem.
std::vector<std::int64_t> operand(const ConvShapes& s, std::int64_t i) {
    switch (i) {
        case 0: return s.input_shape();
        case 1: return s.weight_shape();
        default: return s.output_shape();
    }
}

}  // namespace

void bind_conv_shapes(nb::module_& m) {
    nb::class_<ConvShapes>(m, "ConvShapes",
                           "One 2-D or 3-D convolution problem, as a selector predicate receives it.\n\n"
                           "Fields N, C, H, W (input), K, R, S (output channels, filter height and width),\n"
                           "stride_h/w, pad_top/left/bottom/right, dilation_h/w, groups, bias; P and Q are the\n"
                           "output height and width. spatial_rank 3 (NCDHW) adds the depth: D (input), T\n"
                           "(filter), stride_d, pad_front/back, dilation_d, and O (output); at rank 2 they\n"
                           "stay 1, 1, 1, 0, 0, 1 and 1. dtype is the storage type (numpy.float32 or\n"
                           "numpy.float16). As a sequence it is (input, weight, output) shapes:\n"
                           "shapes[0].numel() is the input's element count.")
        .def(
            "__init__",
            [](ConvShapes* self, std::int64_t N, std::int64_t C, std::int64_t H, std::int64_t W, std::int64_t K,
               std::int64_t R, std::int64_t S, std::int64_t stride_h, std::int64_t stride_w, std::int64_t pad_top,
               std::int64_t pad_left, std::int64_t pad_bottom, std::int64_t pad_right, std::int64_t dilation_h,
               std::int64_t dilation_w, std::int64_t groups, bool bias, int spatial_rank, std::int64_t D,
               std::int64_t T, std::int64_t stride_d, std::int64_t pad_front, std::int64_t pad_back,
               std::int64_t dilation_d, nb::handle dtype) {
                ConvShapes* s = new (self) ConvShapes();
                s->N = N, s->C = C, s->H = H, s->W = W, s->K = K, s->R = R, s->S = S;
                s->stride_h = stride_h, s->stride_w = stride_w;
                s->set_padding(pad_top, pad_left, pad_bottom, pad_right);
                s->dilation_h = dilation_h, s->dilation_w = dilation_w, s->groups = groups, s->bias = bias;
                s->spatial_rank = spatial_rank;
                s->D = D, s->T = T, s->stride_d = stride_d, s->pad_front = pad_front, s->pad_back = pad_back;
                s->dilation_d = dilation_d;
                if (!dtype.is_none()) s->dtype = dtype_from_python(dtype, "ConvShapes dtype");
            },
            nb::kw_only(), "N"_a = 1, "C"_a = 1, "H"_a = 1, "W"_a = 1, "K"_a = 1, "R"_a = 1, "S"_a = 1,
            "stride_h"_a = 1, "stride_w"_a = 1, "pad_top"_a = 0, "pad_left"_a = 0, "pad_bottom"_a = 0,
            "pad_right"_a = 0, "dilation_h"_a = 1, "dilation_w"_a = 1, "groups"_a = 1, "bias"_a = false,
            "spatial_rank"_a = 2, "D"_a = 1, "T"_a = 1, "stride_d"_a = 1, "pad_front"_a = 0, "pad_back"_a = 0,
            "dilation_d"_a = 1, "dtype"_a = nb::none())
        .def_rw("N", &ConvShapes::N)
        .def_rw("C", &ConvShapes::C)
        .def_rw("H", &ConvShapes::H)
        .def_rw("W", &ConvShapes::W)
        .def_rw("K", &ConvShapes::K)
        .def_rw("R", &ConvShapes::R)
        .def_rw("S", &ConvShapes::S)
        .def_rw("stride_h", &ConvShapes::stride_h)
        .def_rw("stride_w", &ConvShapes::stride_w)
        .def_rw("pad_top", &ConvShapes::pad_top)
        .def_rw("pad_left", &ConvShapes::pad_left)
        .def_rw("pad_bottom", &ConvShapes::pad_bottom)
        .def_rw("pad_right", &ConvShapes::pad_right)
        .def_rw("dilation_h", &ConvShapes::dilation_h)
        .def_rw("dilation_w", &ConvShapes::dilation_w)
        .def_rw("groups", &ConvShapes::groups)
        .def_rw("bias", &ConvShapes::bias)
        .def_rw("training", &ConvShapes::training,
                "Forward only: planned for a training step, the weights new before every run (Conv2d.train()).")
        .def_rw("spatial_rank", &ConvShapes::spatial_rank, "2 (NCHW) or 3 (NCDHW).")
        .def_rw("D", &ConvShapes::D, "Input depth (1 at rank 2).")
        .def_rw("T", &ConvShapes::T, "Filter depth (1 at rank 2).")
        .def_rw("stride_d", &ConvShapes::stride_d)
        .def_rw("pad_front", &ConvShapes::pad_front)
        .def_rw("pad_back", &ConvShapes::pad_back)
        .def_rw("dilation_d", &ConvShapes::dilation_d)
        .def_prop_rw(
            "dtype", [](const ConvShapes& s) { return numpy_dtype(s.dtype); },
            [](ConvShapes& s, nb::handle dtype) { s.dtype = dtype_from_python(dtype, "ConvShapes.dtype"); },
            nb::for_getter(nb::sig("def dtype(self, /) -> numpy.dtype")),
            nb::for_setter(nb::sig("def dtype(self, arg: numpy.typing.DTypeLike, /) -> None")),
            "numpy.float32 or numpy.float16: how x, w, y and the gradients are stored (arithmetic is\n"
            "float32 either way). Compares equal to 'float16' and numpy.float16 alike.")
        .def_prop_rw(
            "direction", [](const ConvShapes& s) { return to_string(s.direction); },
            [](ConvShapes& s, const std::string& name) { s.direction = conv_direction_from_string(name); },
            "'forward', 'backward_data' or 'backward_weights': which gradient a predicate is asked about.")
        .def_prop_ro("op", [](const ConvShapes& s) { return selector_op(s); },
                     "The selector op this problem is planned under ('conv2d', 'conv2d_backward_data', 'conv3d', ...).")
        .def_prop_ro("P", &ConvShapes::P, "Output height.")
        .def_prop_ro("Q", &ConvShapes::Q, "Output width.")
        .def_prop_ro("O", &ConvShapes::O, "Output depth (1 at rank 2).")
        .def("input_shape", [](const ConvShapes& s) { return make_shape(s.input_shape()); },
             nb::sig("def input_shape(self) -> tuple[int, ...]"),
             "(N, C, H, W), or (N, C, D, H, W) at rank 3.")
        .def("weight_shape", [](const ConvShapes& s) { return make_shape(s.weight_shape()); },
             nb::sig("def weight_shape(self) -> tuple[int, ...]"),
             "(K, C/groups, R, S), or (K, C/groups, T, R, S) at rank 3.")
        .def("output_shape", [](const ConvShapes& s) { return make_shape(s.output_shape()); },
             nb::sig("def output_shape(self) -> tuple[int, ...]"),
             "(N, K, P, Q), or (N, K, O, P, Q) at rank 3.")
        .def("input_numel", &ConvShapes::input_numel)
        .def("output_numel", &ConvShapes::output_numel)
        .def("weight_numel", &ConvShapes::weight_numel)
        .def("direct_flops", &ConvShapes::direct_flops, "2*N*K*(C/groups)*T*R*S*O*P*Q (T = O = 1 at rank 2).")
        .def("validate", &ConvShapes::validate, "Raises netcl.Error naming the first field that makes no convolution.")
        .def("__len__", [](const ConvShapes&) { return 3; })
        .def(
            "__getitem__",
            [](const ConvShapes& s, std::int64_t i) {
                if (i < 0) i += 3;
                if (i < 0 || i > 2) throw nb::index_error("ConvShapes index out of range: 0 input, 1 weight, 2 output");
                return make_shape(operand(s, i));
            },
            nb::sig("def __getitem__(self, index: int, /) -> tuple[int, ...]"),
            "0: input (N, C, H, W); 1: weight (K, C/groups, R, S); 2: output (N, K, P, Q);\n"
            "with D, T and O before H, R and P at rank 3.")
        .def("__str__", &ConvShapes::str)
        .def("__repr__", [](const ConvShapes& s) { return "netcl.ConvShapes(" + s.str() + ")"; })
        .def(nb::self == nb::self);

    nb::class_<Plan>(m, "Plan", "What runs one convolution shape, and why the selector chose it.")
        .def_prop_ro("kernel", [](const Plan& p) { return to_string(p.kernel); },
                     "The strategy: 'CONV2D_NAIVE', 'IM2COL' or 'CONV2D_WINOGRAD'.")
        .def_prop_ro("variant", [](const Plan& p) { return p.variant.id; }, "The variant id, e.g. 'wino-f4-fused-global'.")
        .def_ro("implementation", &Plan::implementation)
        .def_ro("error_factor", &Plan::error_factor,
                "The error this variant may make, in multiples of a direct sum's (Conv2d's max_error_factor bounds it).")
        .def_ro("config", &Plan::config, "What the implementation derived for this layer on this device.")
        .def_ro("reason", &Plan::reason)
        .def("__str__", &Plan::str)
        .def("__repr__", [](const Plan& p) { return "netcl.Plan(" + p.str() + ")"; });
}

}  // namespace netcl::python
