// _netcl.Conv2d and _netcl.Conv3d: the C++ layers with their options already
// normalised (the PyTorch-style argument parsing lives in netcl/_conv2d.py,
// netcl/_conv3d.py and their base netcl/_conv_layer.py), NumPy weights, and
// forward with the GIL released while netcl plans, builds and enqueues. The
// two classes differ only in __init__; every other method is ConvLayer's and
// is bound once, for both, by def_layer_methods.
#include "bindings.hpp"

#include <mutex>

#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "host_array.hpp"
#include "netcl/Conv2d.hpp"
#include "netcl/Conv3d.hpp"
#include "netcl/Error.hpp"

namespace netcl::python {

namespace {

struct PyConvLayer {
    explicit PyConvLayer(std::unique_ptr<ConvLayer> layer) : conv(std::move(layer)) {}

    // "Conv2d" or "Conv3d", the C++ layer's own, so Python's errors name the
    // layer the way the C++ ones do.
    const std::string& name() const { return conv->layer_options().name; }

    std::unique_ptr<ConvLayer> conv;
    // A layer serves one thread at a time; with the GIL released, two Python
    // threads could otherwise be inside one layer at once.
    std::mutex mutex;
};

// Distinct types so that nanobind binds two Python classes; all they hold is the base's.
struct PyConv2d : PyConvLayer {
    using PyConvLayer::PyConvLayer;
};
struct PyConv3d : PyConvLayer {
    using PyConvLayer::PyConvLayer;
};

AutoPad auto_pad_from(const std::string& name) {
    if (name == "NOTSET") return AutoPad::NOTSET;
    if (name == "SAME_UPPER") return AutoPad::SAME_UPPER;
    if (name == "SAME_LOWER") return AutoPad::SAME_LOWER;
    if (name == "VALID") return AutoPad::VALID;
    throw nb::value_error(("auto_pad: expected 'NOTSET', 'SAME_UPPER', 'SAME_LOWER' or 'VALID'; got '" + name + "'").c_str());
}

std::string shape_text(const Tensor::Shape& s) {
    std::string text = "(";
    for (std::size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
    return text + (s.size() == 1 ? ",)" : ")");
}

// Host weights must have the layer's exact shape: a flat buffer of the right
// size but the wrong layout (R and S swapped, say) would run and be wrong.
// Their type need not be the layer's: float32 or float16 values become floats
// here, and the C++ layer rounds them to its dtype, as PyTorch's
// load_state_dict copies float32 weights into a half module.
std::vector<float> host_values(const PyConvLayer& layer, nb::handle array, const Tensor::Shape& expected,
                               const char* what) {
    const HostArray h = host_array(array, what);
    if (h.shape != expected) {
        throw Error(layer.name() + ".set_weights: " + what + " has shape " + shape_text(h.shape) + "; expected " +
                    shape_text(expected));
    }
    std::vector<float> widened;
    const float* values = host_floats(h, widened);
    return {values, values + h.count};
}

// netcl/_conv_layer.py's normalised post-ops: (activation, alpha, lower, upper, sum).
PostOps post_ops_from(const std::string& activation, float alpha, float lower, float upper, bool sum) {
    PostOps p;
    if (activation == "relu") {
        p = PostOps::relu();
    } else if (activation == "clamp") {
        p = PostOps::clamp(lower, upper);
    } else if (activation == "leaky_relu") {
        p = PostOps::leaky_relu(alpha);
    } else if (activation != "none") {
        throw nb::value_error(("activation: expected 'none', 'relu', 'clamp' or 'leaky_relu'; got '" + activation + "'").c_str());
    }
    p.sum = sum;
    return p;
}

// The options Conv2dOptions and Conv3dOptions share, under the same names,
// from the arguments both __init__s take after the spatial ones.
struct SharedArgs {
    std::int64_t in_channels, out_channels;
    std::string auto_pad;
    std::int64_t groups;
    bool bias;
    std::optional<std::string> strategy, variant;
    std::optional<std::size_t> workspace_limit_bytes;
    std::optional<double> max_error_factor;
    std::string activation;
    float alpha, lower, upper;
    bool residual;
    DataType dtype;
};

template <typename Options>
void set_shared(Options& o, const SharedArgs& a) {
    o.in_channels = a.in_channels;
    o.out_channels = a.out_channels;
    o.auto_pad = auto_pad_from(a.auto_pad);
    o.groups = a.groups;
    o.bias = a.bias;
    if (a.strategy) o.strategy = kernel_from_string(*a.strategy);
    if (a.variant) o.variant = Variant(*a.variant);
    o.workspace_limit_bytes = a.workspace_limit_bytes;
    o.max_error_factor = a.max_error_factor;
    o.post_ops = post_ops_from(a.activation, a.alpha, a.lower, a.upper, a.residual);
    o.dtype = a.dtype;
}

// The layer's dtype= (None: float32), parsed here rather than in
// netcl/_conv_layer.py so that layers and tensors take the same spellings.
DataType layer_dtype(nb::handle dtype, const char* layer) {
    return dtype.is_none() ? DataType::FLOAT32 : dtype_from_python(dtype, std::string(layer) + ": dtype");
}

// The forward input's dimensions as the layer's errors spell them.
const char* input_dims(const PyConvLayer& layer) {
    return layer.conv->layer_options().spatial_rank == 3 ? "N x C x D x H x W" : "N x C x H x W";
}

template <typename Layer>
void def_layer_methods(nb::class_<Layer>& cls) {
    cls.def(
           "set_weights",
           [](Layer& self, nb::handle weights, nb::handle bias, nb::handle wait_for) -> std::optional<cl::Event> {
               if (nb::isinstance<Tensor>(weights)) {
                   // Device tensors: copied on the device after `wait_for`, no host round trip; the copy's event.
                   const Tensor& w = nb::cast<const Tensor&>(weights);
                   const Tensor* b = bias.is_none() ? nullptr : &nb::cast<const Tensor&>(bias);
                   std::vector<cl::Event> wait = events_from_python(wait_for);
                   nb::gil_scoped_release release;
                   std::lock_guard lock(self.mutex);
                   return self.conv->set_weights(w, b, wait);
               }
               std::vector<float> w = host_values(self, weights, self.conv->weight_shape(), "weights");
               std::vector<float> b;
               if (!bias.is_none()) {
                   b = host_values(self, bias, {self.conv->layer_options().out_channels}, "bias");
               }
               nb::gil_scoped_release release;
               std::lock_guard lock(self.mutex);
               self.conv->set_weights(w, b);
               return std::nullopt;  // copied before returning
           },
           "weights"_a, "bias"_a = nb::none(), "wait_for"_a = nb::none())
        .def(
            "borrow_weights",
            [](Layer& self, const Tensor& weights, std::optional<Tensor> bias, nb::handle wait_for) {
                std::vector<cl::Event> wait = events_from_python(wait_for);
                nb::gil_scoped_release release;
                std::lock_guard lock(self.mutex);
                self.conv->borrow_weights(weights, bias ? &*bias : nullptr, wait);
            },
            "weights"_a, "bias"_a.none() = nb::none(), "wait_for"_a = nb::none())
        .def(
            "forward",
            [](Layer& self, const Tensor& x, std::optional<Tensor> y, std::optional<Tensor> residual,
               nb::handle wait_for) {
                std::vector<cl::Event> wait = events_from_python(wait_for);
                nb::gil_scoped_release release;  // planning may run Python predicates: they take the GIL themselves
                std::lock_guard lock(self.mutex);
                if (!y) {
                    NETCL_REQUIRE(x.defined(), self.name() + "::forward: the input tensor is undefined");
                    y = Tensor::empty(x.context(), self.conv->shapes_for(x.shape()).output_shape(),
                                      self.conv->layer_options().dtype);
                }
                if (residual) {
                    self.conv->forward(x, *residual, *y, wait);
                } else {
                    self.conv->forward(x, *y, wait);
                }
                return *y;
            },
            "x"_a, "y"_a.none() = nb::none(), "residual"_a.none() = nb::none(), "wait_for"_a = nb::none())
        .def(
            "backward_data",
            [](Layer& self, const Tensor& dy, std::optional<Tensor> dx, nb::handle input_shape, nb::handle wait_for) {
                const std::string op = self.name() + ".backward_data";
                std::optional<Tensor::Shape> shape;
                if (!input_shape.is_none()) shape = shape_from_python(input_shape, (op + " input_shape").c_str());
                std::vector<cl::Event> wait = events_from_python(wait_for);
                nb::gil_scoped_release release;
                std::lock_guard lock(self.mutex);
                if (!dx) {
                    // dy alone does not say the input's size (a stride drops rows): the caller does.
                    NETCL_REQUIRE(shape.has_value(), op + ": give dx or input_shape (the forward input's " +
                                                         input_dims(self) + "); dy alone does not determine it");
                    NETCL_REQUIRE(dy.defined(), op + ": the dy tensor is undefined");
                    (void)self.conv->shapes_for(*shape, ConvDirection::BACKWARD_DATA);  // validates the shape
                    dx = Tensor::empty(dy.context(), *shape, self.conv->layer_options().dtype);
                } else if (shape && *shape != dx->shape()) {
                    throw Error(op + ": input_shape " + shape_text(*shape) + " differs from dx's " +
                                shape_text(dx->shape()) + "; expected one or the other");
                }
                self.conv->backward_data(dy, *dx, wait);
                return *dx;
            },
            "dy"_a, "dx"_a.none() = nb::none(), "input_shape"_a = nb::none(), "wait_for"_a = nb::none())
        .def(
            "backward_weights",
            [](Layer& self, const Tensor& x, const Tensor& dy, std::optional<Tensor> dw, std::optional<Tensor> db,
               float beta, nb::handle wait_for) {
                std::vector<cl::Event> wait = events_from_python(wait_for);
                nb::gil_scoped_release release;
                std::lock_guard lock(self.mutex);
                const ConvLayerOptions& o = self.conv->layer_options();
                const std::string op = self.name() + ".backward_weights";
                NETCL_REQUIRE(x.defined(), op + ": the x tensor is undefined");
                // New tensors hold nothing to accumulate into: beta != 0 needs the caller's dw (and db).
                if (beta != 0.0f && (!dw || (o.bias && !db))) {
                    throw Error(op + ": beta = " + std::to_string(beta) + " accumulates into dw" +
                                std::string(o.bias ? " and db" : "") +
                                "; expected them given (dw=, db=), or beta = 0 for new tensors");
                }
                if (!dw) dw = Tensor::empty(x.context(), self.conv->weight_shape(), o.dtype);
                if (!db && o.bias) db = Tensor::empty(x.context(), {o.out_channels}, o.dtype);
                self.conv->backward_weights(x, dy, *dw, db ? &*db : nullptr, wait, nullptr, beta);
                return std::make_pair(*dw, db);
            },
            "x"_a, "dy"_a, "dw"_a.none() = nb::none(), "db"_a.none() = nb::none(), "beta"_a = 0.0f,
            "wait_for"_a = nb::none())
        .def_prop_ro("last_event",
                     [](Layer& self) -> std::optional<cl::Event> {
                         std::lock_guard lock(self.mutex);
                         const auto& events = self.conv->last_events();
                         if (events.empty()) return std::nullopt;
                         return events.back();
                     })
        .def_prop_rw(
            "training",
            [](Layer& self) {
                std::lock_guard lock(self.mutex);
                return self.conv->training();
            },
            [](Layer& self, bool training) {
                std::lock_guard lock(self.mutex);
                self.conv->set_training(training);
            },
            "The forward planned for a training step (new weights before every run) or for inference.")
        .def_prop_ro("last_plan",
                     [](Layer& self) -> std::optional<Plan> {
                         std::lock_guard lock(self.mutex);
                         if (self.conv->last_events().empty()) return std::nullopt;
                         return self.conv->last_plan();
                     })
        .def(
            "plan_for",
            [](Layer& self, nb::handle input_shape, const std::string& direction) {
                const Tensor::Shape s = shape_from_python(input_shape, (self.name() + ".plan_for input_shape").c_str());
                const ConvDirection d = conv_direction_from_string(direction);
                nb::gil_scoped_release release;
                std::lock_guard lock(self.mutex);
                return self.conv->plan_for(s, d);
            },
            "input_shape"_a, "direction"_a = "forward")
        .def(
            "shapes_for",
            [](Layer& self, nb::handle input_shape) {
                return self.conv->shapes_for(
                    shape_from_python(input_shape, (self.name() + ".shapes_for input_shape").c_str()));
            },
            "input_shape"_a)
        .def(
            "workspace_bytes",
            [](Layer& self, nb::handle input_shape, const std::string& direction) {
                const Tensor::Shape s =
                    shape_from_python(input_shape, (self.name() + ".workspace_bytes input_shape").c_str());
                const ConvDirection d = conv_direction_from_string(direction);
                nb::gil_scoped_release release;
                std::lock_guard lock(self.mutex);
                return self.conv->workspace_bytes(s, d);
            },
            "input_shape"_a, "direction"_a = "forward")
        .def_prop_ro(
            "weight_shape", [](Layer& self) { return make_shape(self.conv->weight_shape()); },
            nb::for_getter(nb::sig("def weight_shape(self, /) -> tuple[int, ...]")),
            "out_channels x in_channels/groups x (T x) R x S: the shape set_weights takes.")
        .def_prop_ro(
            "dtype", [](Layer& self) { return numpy_dtype(self.conv->layer_options().dtype); },
            nb::for_getter(nb::sig("def dtype(self, /) -> numpy.dtype")),
            "numpy.float32 or numpy.float16: the type of every tensor the layer takes and makes.");
}

}  // namespace

void bind_conv_layers(nb::module_& m) {
    nb::class_<PyConv2d> conv2d(m, "Conv2d", "The C++ Conv2d with normalised options; use netcl.Conv2d.");
    conv2d.def(
        "__init__",
        [](PyConv2d* self, std::shared_ptr<Context> context, std::int64_t in_channels, std::int64_t out_channels,
           std::array<std::int64_t, 2> kernel, std::array<std::int64_t, 2> stride, std::array<std::int64_t, 4> padding,
           const std::string& auto_pad, std::array<std::int64_t, 2> dilation, std::int64_t groups, bool bias,
           std::optional<std::string> strategy, std::optional<std::string> variant,
           std::optional<std::size_t> workspace_limit_bytes, std::optional<double> max_error_factor,
           const std::string& activation, float alpha, float lower, float upper, bool residual, nb::handle dtype) {
            Conv2dOptions o;
            set_shared(o, {in_channels, out_channels, auto_pad, groups, bias, strategy, variant, workspace_limit_bytes,
                           max_error_factor, activation, alpha, lower, upper, residual,
                           layer_dtype(dtype, "Conv2d")});
            o.kernel = kernel;
            o.stride = stride;
            o.padding = Padding(padding[0], padding[1], padding[2], padding[3]);
            o.dilation = dilation;
            new (self) PyConv2d(std::make_unique<Conv2d>(context_or_default(context), std::move(o)));
        },
        "context"_a.none(), "in_channels"_a, "out_channels"_a, "kernel"_a, "stride"_a, "padding"_a, "auto_pad"_a,
        "dilation"_a, "groups"_a, "bias"_a, "strategy"_a.none(), "variant"_a.none(), "workspace_limit_bytes"_a.none(),
        "max_error_factor"_a.none(), "activation"_a = "none", "alpha"_a = 0.0f, "lower"_a = 0.0f, "upper"_a = 0.0f,
        "residual"_a = false, "dtype"_a = nb::none(),
        "kernel, stride, dilation: (height, width); padding: (top, left, bottom, right).");
    def_layer_methods(conv2d);

    nb::class_<PyConv3d> conv3d(m, "Conv3d", "The C++ Conv3d with normalised options; use netcl.Conv3d.");
    conv3d.def(
        "__init__",
        [](PyConv3d* self, std::shared_ptr<Context> context, std::int64_t in_channels, std::int64_t out_channels,
           std::array<std::int64_t, 3> kernel, std::array<std::int64_t, 3> stride, std::array<std::int64_t, 6> padding,
           const std::string& auto_pad, std::array<std::int64_t, 3> dilation, std::int64_t groups, bool bias,
           std::optional<std::string> strategy, std::optional<std::string> variant,
           std::optional<std::size_t> workspace_limit_bytes, std::optional<double> max_error_factor,
           const std::string& activation, float alpha, float lower, float upper, bool residual, nb::handle dtype) {
            Conv3dOptions o;
            set_shared(o, {in_channels, out_channels, auto_pad, groups, bias, strategy, variant, workspace_limit_bytes,
                           max_error_factor, activation, alpha, lower, upper, residual,
                           layer_dtype(dtype, "Conv3d")});
            o.kernel = kernel;
            o.stride = stride;
            o.padding = Padding3d(padding[0], padding[1], padding[2], padding[3], padding[4], padding[5]);
            o.dilation = dilation;
            new (self) PyConv3d(std::make_unique<Conv3d>(context_or_default(context), std::move(o)));
        },
        "context"_a.none(), "in_channels"_a, "out_channels"_a, "kernel"_a, "stride"_a, "padding"_a, "auto_pad"_a,
        "dilation"_a, "groups"_a, "bias"_a, "strategy"_a.none(), "variant"_a.none(), "workspace_limit_bytes"_a.none(),
        "max_error_factor"_a.none(), "activation"_a = "none", "alpha"_a = 0.0f, "lower"_a = 0.0f, "upper"_a = 0.0f,
        "residual"_a = false, "dtype"_a = nb::none(),
        "kernel, stride, dilation: (depth, height, width); padding: (front, top, left, back, bottom, right), "
        "ONNX's pads as listed.");
    def_layer_methods(conv3d);
}

}  // namespace netcl::python
