"""float16 storage from Python (arithmetic stays float32): NumPy float16 arrays in and
out of netcl.Conv2d and netcl.Conv3d made with dtype='float16', in every direction;
PyOpenCL buffers and arrays of halves viewed at byte offsets; float16 ONNX Conv models;
and the errors a user meets mixing the two types.

Every result is held to an fp64 reference of the exact half inputs (the values the
device holds, so the inputs' own rounding is no error of netcl's) with the float32
tolerance the rest of the suite uses plus the output's rounding to half
(reference.half_tolerance). onnx's backend data has no float16 Conv case, so the ONNX
tests build float16 models with onnx_cases.conv_model."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import netcl as nc
import onnx_cases
from reference import (PER_TERM, conv2d_reference, conv3d_reference, half_tolerance, tolerance, uniform,
                       unit_responses)

# None: the layer as the selector plans it; CONV2D_NAIVE: the one implementation
# that takes every float16 problem, whatever else the device has.
STRATEGIES = [None, "CONV2D_NAIVE"]


def halves(rng, shape):
    """Data in [-1, 1) as float16: the exact values a float16 tensor holds."""
    return uniform(rng, shape).astype(np.float16)


def layer_inputs(rng, conv, x_shape):
    """x, w, b as float16 arrays for `conv` (b None without a bias)."""
    x = halves(rng, x_shape)
    w = halves(rng, conv.weight_shape)
    b = halves(rng, (conv.out_channels,)) if conv.bias else None
    return x, w, b


def assert_close(result, expected, bound):
    """`result` is a float16 array of `expected`'s shape within `bound` of it."""
    assert result.dtype == np.float16 and result.shape == expected.shape
    error = float(np.max(np.abs(result.astype(np.float64) - expected)))
    assert error <= bound, (error, bound)


# --- Host arrays --------------------------------------------------------------------


def test_float16_arrays_round_trip_bit_for_bit(rng):
    specials = np.array([0.0, -0.0, 1.0, 65504.0, -65504.0, 2.0 ** -24, -(2.0 ** -14), np.inf, -np.inf, np.nan],
                        np.float16)
    a = np.concatenate([halves(rng, (54,)), specials]).reshape(4, 2, 8)
    t = nc.Tensor.from_host(a)
    assert t.dtype == np.float16 and t.nbytes == 2 * a.size and "dtype=float16" in repr(t)
    back = t.to_host()
    assert back.dtype == np.float16 and back.shape == a.shape
    assert np.array_equal(back.view(np.uint16), a.view(np.uint16))  # signed zeros and the NaN too
    assert np.asarray(t).dtype == np.float16
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    # Anything speaking DLPack or the buffer protocol goes in as well.
    assert np.array_equal(nc.Tensor.from_host(memoryview(a)).to_host().view(np.uint16), a.view(np.uint16))


def test_dtype_converts_only_when_asked(rng):
    # Ties and near-ties: netcl rounds to nearest even, as numpy's astype does.
    x = np.concatenate([uniform(rng, (60,)), np.float32([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 65519.0, 65520.0])])
    with np.errstate(over="ignore"):  # 65520 rounds to Inf, as it should
        as_numpy_rounds = x.astype(np.float16)
    rounded = nc.Tensor.from_host(x, dtype="float16")
    assert rounded.dtype == np.float16 and np.isinf(as_numpy_rounds[-1])
    assert np.array_equal(rounded.to_host().view(np.uint16), as_numpy_rounds.view(np.uint16))
    widened = nc.Tensor.from_host(as_numpy_rounds, dtype=np.float32)
    assert widened.dtype == np.float32 and np.array_equal(widened.to_host(), as_numpy_rounds.astype(np.float32))
    empty = nc.Tensor.empty((2, 3), dtype=np.dtype("float16"))
    empty.fill(0.1)
    assert empty.dtype == np.float16 and np.array_equal(empty.to_host(), np.full((2, 3), np.float16(0.1)))
    assert nc.Tensor.empty((2, 3)).dtype == np.float32  # the default
    with pytest.raises(TypeError, match=r"expected a float32 or float16 array; got float64"):
        nc.Tensor.from_host(np.ones(3), dtype="float16")  # float64 is refused even when a dtype is named


# --- Conv2d --------------------------------------------------------------------------

LAYERS = [
    # (N, C, H, W), Conv2d kwargs, pads as (top, left, bottom, right) for the reference
    ((2, 3, 9, 8), dict(out_channels=5, kernel_size=3, padding=1), (1, 1, 1, 1)),
    ((1, 4, 7, 5), dict(out_channels=6, kernel_size=(3, 2), stride=(2, 1), padding=(0, 1, 2, 0), groups=2),
     (0, 1, 2, 0)),
    ((1, 4, 10, 9), dict(out_channels=4, kernel_size=3, dilation=2, padding=2, groups=4, bias=False), (2, 2, 2, 2)),
    # Past the selector's tiny-layer rule, so it may choose other than the direct sum.
    ((2, 32, 16, 16), dict(out_channels=32, kernel_size=3, padding=1), (1, 1, 1, 1)),
    ((4, 64, 16, 16), dict(out_channels=64, kernel_size=1, bias=False), (0, 0, 0, 0)),
]
LAYER_IDS = ["3x3", "strided-groups", "depthwise-dilated", "32ch-3x3", "64ch-1x1"]


def make_conv2d(shape, kwargs, **extra):
    kwargs = dict(kwargs)
    return nc.Conv2d(shape[1], kwargs.pop("out_channels"), **kwargs, **extra)


@pytest.mark.parametrize("strategy", STRATEGIES, ids=["selector", "naive"])
@pytest.mark.parametrize("shape,kwargs,pads", LAYERS, ids=LAYER_IDS)
def test_conv2d_forward(rng, shape, kwargs, pads, strategy):
    conv = make_conv2d(shape, kwargs, dtype=np.float16, strategy=strategy)
    assert conv.dtype == np.float16 and "dtype='float16'" in repr(conv)
    x, w, b = layer_inputs(rng, conv, shape)
    conv.set_weights(w, b)
    y = conv(nc.Tensor.from_host(x))
    assert y.dtype == np.float16
    plan = conv.last_plan
    assert strategy is None or plan.kernel == strategy
    expected = conv2d_reference(x, w, b, stride=conv.stride, pads=pads, dilation=conv.dilation, groups=conv.groups)
    assert_close(y.to_host(), expected, half_tolerance(tolerance(x, w, b, conv.groups, plan), expected))


def test_set_weights_rounds_float32_arrays_to_the_layers_type(rng):
    shape, kwargs, _ = LAYERS[0]
    conv = make_conv2d(shape, kwargs, dtype="float16")
    x = nc.Tensor.from_host(halves(rng, shape))
    w32, b32 = uniform(rng, conv.weight_shape), uniform(rng, (conv.out_channels,))
    conv.set_weights(w32, b32)  # rounded by netcl...
    from_float32 = conv(x).to_host()
    conv.set_weights(w32.astype(np.float16), b32.astype(np.float16))  # ...exactly as numpy rounds them
    assert np.array_equal(conv(x).to_host().view(np.uint16), from_float32.view(np.uint16))
    # Device tensors of the layer's type are copied as they are.
    conv.set_weights(nc.Tensor.from_host(w32, dtype="float16"), nc.Tensor.from_host(b32, dtype="float16"))
    assert np.array_equal(conv(x).to_host().view(np.uint16), from_float32.view(np.uint16))
    # And a float32 layer takes float16 arrays, widened exactly.
    wide = make_conv2d(shape, kwargs)
    wide.set_weights(w32.astype(np.float16), b32.astype(np.float16))
    expected = conv2d_reference(x.to_host(), w32.astype(np.float16), b32.astype(np.float16), pads=(1, 1, 1, 1))
    y = wide(nc.Tensor.from_host(x.to_host().astype(np.float32))).to_host()
    assert y.dtype == np.float32
    assert np.max(np.abs(y - expected)) <= tolerance(x.to_host(), w32, b32, 1, wide.last_plan)


GRADIENT_LAYERS = [
    ((2, 3, 5, 6), dict(out_channels=4, kernel_size=3, padding=1)),
    ((1, 4, 7, 5), dict(out_channels=6, kernel_size=(3, 2), stride=(2, 1), padding=(0, 1, 2, 0), groups=2,
                        bias=False)),
]


def check_gradients(conv, x, w, b, forward64, rng):
    """dx, dw, db of a float16 `conv` against their definitions on `forward64`, the fp64
    forward of the exact half values (the bounds of test_gradients.py, plus half's rounding)."""
    x_shape = x.shape
    y_shape = conv.output_shape(x_shape)
    dy = halves(rng, y_shape)
    dy64 = dy.astype(np.float64)

    dx = conv.backward_data(nc.Tensor.from_host(dy), x_shape)
    assert dx.dtype == np.float16
    expected_dx = np.tensordot(unit_responses(x_shape, lambda e: forward64(e, w)), dy64,
                               axes=dy.ndim).reshape(x_shape)
    dx_terms = conv.out_channels // conv.groups * int(np.prod(conv.kernel_size))
    factor = conv.last_plan.error_factor
    assert_close(dx.to_host(), expected_dx, half_tolerance(PER_TERM * factor * dx_terms, expected_dx))

    dw, db = conv.backward_weights(nc.Tensor.from_host(x), nc.Tensor.from_host(dy))
    assert dw.dtype == np.float16
    expected_dw = np.tensordot(unit_responses(conv.weight_shape, lambda e: forward64(x, e)), dy64,
                               axes=dy.ndim).reshape(conv.weight_shape)
    terms = int(np.prod(y_shape)) // conv.out_channels  # N x (O x) P x Q products per weight
    bound = PER_TERM * conv.last_plan.error_factor * terms
    assert_close(dw.to_host(), expected_dw, half_tolerance(bound, expected_dw))
    if conv.bias:
        expected_db = dy64.sum(axis=tuple(a for a in range(dy.ndim) if a != 1))
        assert db.dtype == np.float16
        assert_close(db.to_host(), expected_db, half_tolerance(PER_TERM * terms, expected_db))
    else:
        assert db is None

    # beta = 1 adds a second gradient to the half dw: both terms carry their own
    # rounding, and the sum is rounded again (2 x the bound of twice the gradient covers it).
    dw2, _ = conv.backward_weights(nc.Tensor.from_host(x), nc.Tensor.from_host(dy), dw=dw, db=db, beta=1.0)
    assert_close(dw2.to_host(), 2 * expected_dw, 2 * half_tolerance(bound, 2 * expected_dw))


@pytest.mark.parametrize("strategy", STRATEGIES, ids=["selector", "naive"])
@pytest.mark.parametrize("shape,kwargs", GRADIENT_LAYERS, ids=["3x3", "strided-groups"])
def test_conv2d_gradients(rng, shape, kwargs, strategy):
    conv = make_conv2d(shape, kwargs, dtype="float16", strategy=strategy)
    x, w, b = layer_inputs(rng, conv, shape)
    conv.set_weights(w, b)
    pads = conv.padding

    def forward64(x_, w_):
        return conv2d_reference(x_, w_, None, stride=conv.stride, pads=pads, dilation=conv.dilation,
                                groups=conv.groups)

    check_gradients(conv, x, w, b, forward64, rng)


# --- Conv3d --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES, ids=["selector", "naive"])
def test_conv3d_every_direction(rng, strategy):
    shape = (2, 3, 4, 5, 4)
    conv = nc.Conv3d(3, 4, 3, stride=(2, 1, 1), padding=(1, 1, 0, 0, 1, 1), dtype=np.float16, strategy=strategy)
    x, w, b = layer_inputs(rng, conv, shape)
    conv.set_weights(w, b)
    y = conv(nc.Tensor.from_host(x))
    assert y.dtype == np.float16 and y.shape == conv.output_shape(shape)
    pads = conv.padding

    def forward64(x_, w_):
        return conv3d_reference(x_, w_, None, stride=conv.stride, pads=pads, dilation=conv.dilation,
                                groups=conv.groups)

    expected = conv3d_reference(x, w, b, stride=conv.stride, pads=pads)
    assert_close(y.to_host(), expected, half_tolerance(tolerance(x, w, b, 1, conv.last_plan), expected))
    check_gradients(conv, x, w, b, forward64, rng)


# --- PyOpenCL ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pyopencl_env():
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    return ctx, queue, nc.Context.from_pyopencl(ctx, queue)


def test_pyopencl_half_buffers_at_byte_offsets(pyopencl_env, rng):
    ctx, queue, nctx = pyopencl_env
    mf = cl.mem_flags
    x_host = halves(rng, (2, 3, 9, 8))
    conv = nc.Conv2d(3, 5, 3, padding=1, dtype="float16", context=nctx)
    w, b = halves(rng, conv.weight_shape), halves(rng, (5,))
    conv.set_weights(w, b)
    # Offsets of 3 and 5 halves: whole elements of float16, though not of float32.
    x_offset, y_offset = 3 * 2, 5 * 2
    x_buf = cl.Buffer(ctx, mf.READ_WRITE, size=x_offset + x_host.nbytes)
    cl.enqueue_copy(queue, x_buf, x_host, dst_offset=x_offset)
    y_shape = (2, 5, 9, 8)
    y_buf = cl.Buffer(ctx, mf.READ_WRITE, size=y_offset + int(np.prod(y_shape)) * 2)
    poisoned = cl.enqueue_fill_buffer(queue, y_buf, np.float16(np.nan), 0, y_buf.size)

    x = nc.Tensor.from_pyopencl(x_buf, x_host.shape, offset=x_offset, context=nctx, dtype="float16")
    y = nc.Tensor.from_pyopencl(y_buf, y_shape, offset=y_offset, context=nctx, dtype=np.float16)
    assert x.dtype == y.dtype == np.float16 and y.offset_bytes == y_offset and y.nbytes == y_buf.size - y_offset
    out = conv.forward(x, y, wait_for=[poisoned])
    assert out.int_ptr == y_buf.int_ptr  # written in the program's own buffer

    done = cl.Event.from_int_ptr(conv.last_event.int_ptr, retain=True)
    whole = np.empty(y_buf.size // 2, np.float16)
    cl.enqueue_copy(queue, whole, y_buf, wait_for=[done])
    queue.finish()
    assert np.isnan(whole[:5]).all()  # the halves before the view are untouched
    expected = conv2d_reference(x_host, w, b, pads=(1, 1, 1, 1))
    assert_close(whole[5:].reshape(y_shape), expected,
                 half_tolerance(tolerance(x_host, w, b, 1, conv.last_plan), expected))


def test_pyopencl_arrays_of_halves(pyopencl_env, rng):
    ctx, queue, nctx = pyopencl_env
    # An odd number of elements per image: the second image starts 2 bytes past a float32 boundary.
    batch = halves(rng, (3, 3, 5, 5))
    x_arr = cla.to_device(queue, batch)[1:2]
    assert x_arr.offset == 3 * 5 * 5 * 2
    x = nc.Tensor.from_pyopencl(x_arr, context=nctx)  # shape, offset and dtype from the Array
    assert x.dtype == np.float16 and x.offset_bytes == x_arr.offset and x.shape == (1, 3, 5, 5)
    assert np.array_equal(x.to_host(), batch[1:2])

    conv = nc.Conv2d(3, 2, 3, bias=False, dtype="float16", context=nctx)
    w = halves(rng, conv.weight_shape)
    conv.set_weights(w)
    y_arr = cla.empty(queue, (1, 2, 3, 3), np.float16)
    conv.forward(x, nc.Tensor.from_pyopencl(y_arr, context=nctx, dtype="float16"))  # naming its own type is fine
    expected = conv2d_reference(batch[1:2], w)
    assert_close(y_arr.get(), expected, half_tolerance(tolerance(batch[1:2], w, None, 1, conv.last_plan), expected))


def test_pyopencl_mistakes_with_halves(pyopencl_env, rng):
    ctx, queue, nctx = pyopencl_env
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=64)
    # An odd byte offset splits a half: the C++ view refuses it, given directly or by an Array.
    with pytest.raises(nc.Error, match="byte offset 3 is not a multiple of 2.*float16"):
        nc.Tensor.from_pyopencl(buf, (2,), offset=3, context=nctx, dtype="float16")
    with pytest.raises(nc.Error, match="byte offset 1 is not a multiple of 2"):
        nc.Tensor.from_pyopencl(cla.Array(queue, (2,), np.float16, data=buf, offset=1), context=nctx)
    with pytest.raises(nc.Error, match="runs past"):
        nc.Tensor.from_pyopencl(buf, (33,), context=nctx, dtype="float16")
    # An Array's dtype is what its bytes are: dtype= may not reinterpret them.
    with pytest.raises(TypeError, match="dtype float32 for a float16 pyopencl.array.Array"):
        nc.Tensor.from_pyopencl(cla.empty(queue, (4,), np.float16), context=nctx, dtype="float32")
    with pytest.raises(TypeError, match="float32 or float16.*got float64"):
        nc.Tensor.from_pyopencl(cla.empty(queue, (4,), np.float64), context=nctx)
    # A bare buffer is float32 unless told: a float16 layer then says what it expected.
    conv = nc.Conv2d(1, 1, 1, bias=False, dtype="float16", context=nctx)
    conv.set_weights(np.ones((1, 1, 1, 1), np.float16))
    with pytest.raises(nc.Error, match=r"a float32 tensor \[1, 1, 2, 2\] given to a float16 layer"):
        conv(nc.Tensor.from_pyopencl(buf, (1, 1, 2, 2), context=nctx))


# --- ONNX ----------------------------------------------------------------------------

# Layers as onnx_cases.conv_model describes them (pads begin, then end, or an auto_pad).
ONNX_LAYERS = [
    dict(x=(2, 4, 9, 7), k=6, kernel=(3, 3), stride=(1, 1), dilation=(1, 1), groups=2, bias=True,
         pads=[1, 0, 2, 1], auto_pad="NOTSET"),
    dict(x=(1, 3, 8, 8), k=4, kernel=(3, 2), stride=(2, 2), dilation=(1, 1), groups=1, bias=False,
         pads=[0, 0, 0, 0], auto_pad="SAME_LOWER"),
    dict(x=(1, 2, 7, 6), k=3, kernel=(2, 3), stride=(1, 2), dilation=(2, 1), groups=1, bias=True,
         pads=[0, 0, 0, 0], auto_pad="VALID"),
    dict(x=(1, 2, 5, 6, 4), k=3, kernel=(3, 3, 2), stride=(2, 1, 1), dilation=(1, 1, 1), groups=1, bias=True,
         pads=[1, 1, 0, 1, 0, 1], auto_pad="NOTSET"),
    dict(x=(1, 4, 4, 5, 5), k=4, kernel=(3, 3, 3), stride=(1, 1, 1), dilation=(1, 1, 1), groups=4, bias=False,
         pads=[0] * 6, auto_pad="SAME_UPPER"),
]


def netcl_layer_from_onnx(model):
    """netcl's layer for a one-Conv model, as an importer makes it: the attributes as
    arguments, and the storage type from the model's input type."""
    node = model.graph.node[0]
    a = {attr.name: helper.get_attribute_value(attr) for attr in node.attribute}
    dtype = helper.tensor_dtype_to_np_dtype(model.graph.input[0].type.tensor_type.elem_type)
    kernel = tuple(a["kernel_shape"])
    kwargs = dict(kernel_size=kernel, stride=tuple(a["strides"]), dilation=tuple(a["dilations"]),
                  groups=a["group"], bias=len(node.input) > 2, dtype=dtype)
    if "auto_pad" in a:
        kwargs["auto_pad"] = a["auto_pad"].decode()
    else:
        kwargs["padding"] = tuple(a["pads"])
    return (nc.Conv3d if len(kernel) == 3 else nc.Conv2d), kwargs


@pytest.mark.parametrize("L", ONNX_LAYERS, ids=["2d-groups-pads", "2d-same-lower", "2d-valid-dilated",
                                                "3d-pads", "3d-depthwise-same-upper"])
def test_float16_onnx_model(rng, L):
    c, rank = L["x"][1], len(L["kernel"])
    x = halves(rng, L["x"])
    w = halves(rng, (L["k"], c // L["groups"], *L["kernel"]))
    b = halves(rng, (L["k"],)) if L["bias"] else None
    feeds = {"X": x, "W": w, **({"B": b} if b is not None else {})}
    model = onnx_cases.conv_model(L, elem_type=TensorProto.FLOAT16)

    layer_class, kwargs = netcl_layer_from_onnx(model)
    conv = layer_class(c, L["k"], **kwargs)
    assert conv.dtype == np.float16 and isinstance(conv, nc.Conv3d) == (rank == 3)
    conv.set_weights(w, b)
    y = conv(nc.Tensor.from_host(x)).to_host()

    # onnx.reference computes a float16 model in half arithmetic (each partial sum
    # rounded): the model's own output gives the type and shape, and the oracle for
    # the values is the same Conv in float32 on the same half inputs.
    onnx_half = ReferenceEvaluator(model).run(None, feeds)[0]
    assert y.dtype == onnx_half.dtype == np.float16 and y.shape == onnx_half.shape
    exact_inputs = {name: v.astype(np.float32) for name, v in feeds.items()}
    expected = ReferenceEvaluator(onnx_cases.conv_model(L)).run(None, exact_inputs)[0]
    assert_close(y, expected, half_tolerance(tolerance(x, w, b, L["groups"], conv.last_plan), expected))


# --- Errors --------------------------------------------------------------------------


def test_mixed_types_are_refused_and_write_nothing(rng):
    shape = (1, 2, 5, 5)
    conv = nc.Conv2d(2, 3, 3, padding=1, dtype="float16")
    conv.set_weights(uniform(rng, conv.weight_shape), uniform(rng, (3,)))
    x16 = nc.Tensor.from_host(halves(rng, shape))
    x32 = nc.Tensor.from_host(uniform(rng, shape))
    expected_type = r"given to a float16 layer; expected every tensor in float16"
    with pytest.raises(nc.Error, match=r"Conv2d::forward: a float32 tensor \[1, 2, 5, 5\] " + expected_type):
        conv(x32)
    y32 = nc.Tensor.empty((1, 3, 5, 5))
    y32.fill(np.nan)
    with pytest.raises(nc.Error, match="a float32 tensor .*" + expected_type):
        conv.forward(x16, y32)
    assert np.isnan(y32.to_host()).all()  # refused before anything ran
    dy32 = nc.Tensor.from_host(uniform(rng, (1, 3, 5, 5)))
    with pytest.raises(nc.Error, match="backward_data: a float32 tensor"):
        conv.backward_data(dy32, shape)
    with pytest.raises(nc.Error, match="backward_weights: a float32 tensor"):
        conv.backward_weights(x16, dy32)
    with pytest.raises(nc.Error, match="backward_weights: a float32 tensor"):
        conv.backward_weights(x16, nc.Tensor.from_host(halves(rng, (1, 3, 5, 5))), dw=nc.Tensor.empty((3, 2, 3, 3)),
                              db=nc.Tensor.empty((3,), dtype="float16"))
    with pytest.raises(nc.Error, match="set_weights: a float32 tensor for a float16 layer"):
        conv.set_weights(nc.Tensor.from_host(uniform(rng, conv.weight_shape)),
                         nc.Tensor.from_host(halves(rng, (3,))))
    # The other way round as well: a float32 layer takes no float16 tensor.
    wide = nc.Conv2d(2, 3, 3, padding=1)
    wide.set_weights(uniform(rng, wide.weight_shape), uniform(rng, (3,)))
    with pytest.raises(nc.Error, match="a float16 tensor .* given to a float32 layer"):
        wide(x16)
    # Every refusal left the layer working.
    assert conv(x16).to_host().dtype == np.float16


def test_dtype_spellings():
    for spelling in ("float16", "half", "f2", np.float16, np.dtype(np.float16)):
        assert nc.Conv3d(1, 1, 1, dtype=spelling).dtype == np.float16
    for spelling in (None, "float32", np.float32):
        assert nc.Conv2d(1, 1, 1, dtype=spelling).dtype == np.float32
    with pytest.raises(TypeError, match=r"Conv2d: dtype: expected float32 or float16 .*; got float64"):
        nc.Conv2d(1, 1, 1, dtype=np.float64)
    with pytest.raises(TypeError, match=r"Conv3d: dtype: expected float32 or float16 .*; got 'float-ish'"):
        nc.Conv3d(1, 1, 1, dtype="float-ish")
    with pytest.raises(TypeError, match="Tensor.empty dtype: expected float32 or float16"):
        nc.Tensor.empty((2,), dtype=np.int8)


def test_conv_shapes_carry_the_dtype(rng):
    conv = nc.Conv2d(2, 2, 3, padding=1, dtype="float16")
    shapes = conv.shapes_for((1, 2, 6, 6))
    assert shapes.dtype == np.float16 and shapes.dtype == "float16" and "dtype=float16" in str(shapes)
    built = nc.ConvShapes(N=1, C=2, H=6, W=6, K=2, R=3, S=3, pad_top=1, pad_left=1, pad_bottom=1, pad_right=1,
                          bias=True, dtype=np.float16)
    assert built == shapes
    built.dtype = "float32"
    assert built.dtype == np.float32 and built != shapes and "dtype" not in str(built)
    with pytest.raises(TypeError, match="ConvShapes.dtype: expected float32 or float16"):
        built.dtype = "int8"

    # A selector predicate sees it, and can route half layers by it.
    with nc.KernelSelector() as selector:
        selector.register("conv2d", lambda s, p: s.dtype == np.float16, "CONV2D_NAIVE", priority=50)
        conv.set_weights(halves(rng, conv.weight_shape), halves(rng, (2,)))
        conv(nc.Tensor.from_host(halves(rng, (1, 2, 6, 6))))
        assert "rule" in conv.last_plan.reason and conv.last_plan.kernel == "CONV2D_NAIVE"
        assert "rule" not in nc.Conv2d(2, 2, 3, padding=1).plan_for((1, 2, 6, 6)).reason
