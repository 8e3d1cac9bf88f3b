"""netcl.Conv3d from Python: PyTorch's nn.Conv3d arguments, every direction checked
against two fp64 oracles (reference.py's NumPy convolution, and torch's conv3d with its
autograd gradients), ONNX's own 3-D Conv cases and onnx.reference, the errors a user
meets, plans, and a PyOpenCL program's buffers."""
import numpy as np
import pyopencl as cl
import pytest
import torch
import torch.nn.functional as F
from onnx.reference import ReferenceEvaluator

import netcl as nc
import onnx_cases
from reference import PER_TERM, conv3d_reference, tolerance, uniform

LAYERS = [
    # (N, C, D, H, W), Conv3d kwargs, pads as (front, top, left, back, bottom, right) for the references
    ((2, 3, 5, 7, 6), dict(out_channels=5, kernel_size=3, padding=1), (1, 1, 1, 1, 1, 1)),
    ((1, 4, 1, 9, 9), dict(out_channels=8, kernel_size=(1, 3, 3), padding=(0, 1, 1)), (0, 1, 1, 0, 1, 1)),  # depth 1
    ((1, 2, 2, 5, 5), dict(out_channels=3, kernel_size=3, padding=(1, 1, 0), bias=False), (1, 1, 0, 1, 1, 0)),
    ((1, 3, 9, 6, 7), dict(out_channels=6, kernel_size=3, stride=(2, 1, 1), padding=1), (1, 1, 1, 1, 1, 1)),
    ((1, 2, 7, 6, 8), dict(out_channels=5, kernel_size=3, dilation=(2, 1, 2), padding=(2, 1, 2)), (2, 1, 2, 2, 1, 2)),
    ((1, 4, 3, 5, 5), dict(out_channels=6, kernel_size=3, padding=1, groups=2), (1, 1, 1, 1, 1, 1)),
    ((2, 5, 4, 6, 5), dict(out_channels=5, kernel_size=3, padding=1, groups=5), (1, 1, 1, 1, 1, 1)),  # depthwise
    ((1, 3, 5, 6, 7), dict(out_channels=7, kernel_size=3, stride=(2, 1, 2), padding=(2, 0, 1, 0, 2, 1)),
     (2, 0, 1, 0, 2, 1)),  # six different pads, as ONNX lists them
    # PyTorch's 'same': the odd voxel of padding at the end of each axis (kernel 2 x 4 x 3).
    ((1, 3, 5, 6, 5), dict(out_channels=2, kernel_size=(2, 4, 3), padding="same"), (0, 1, 1, 1, 2, 1)),
    ((1, 2, 4, 5, 6), dict(out_channels=3, kernel_size=(2, 3, 3), padding="valid"), (0, 0, 0, 0, 0, 0)),
    ((1, 2, 7, 6, 5), dict(out_channels=3, kernel_size=3, stride=2, auto_pad="SAME_LOWER"), (1, 1, 1, 1, 0, 1)),
    ((3, 6, 5, 5, 5), dict(out_channels=9, kernel_size=1, stride=2, bias=False), (0, 0, 0, 0, 0, 0)),
]
IDS = ["N2", "depth1", "depth2", "stride-d", "dilation-d", "groups2", "depthwise", "six-pads", "same", "valid",
       "same-lower", "1x1x1"]


def make_layer(shape, kwargs, **extra):
    kwargs = dict(kwargs)
    return nc.Conv3d(shape[1], kwargs.pop("out_channels"), **kwargs, **extra)


def torch_reference(x, w, b, dy, conv, pads):
    """y, dx, dw, db in float64 by torch's conv3d and autograd, the padding applied by
    F.pad first (conv3d pads each axis symmetrically; the layers here need not)."""
    x64 = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    w64 = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b64 = None if b is None else torch.tensor(b, dtype=torch.float64, requires_grad=True)
    front, top, left, back, bottom, right = pads
    y = F.conv3d(F.pad(x64, (left, right, top, bottom, front, back)), w64, b64, stride=conv.stride,
                 dilation=conv.dilation, groups=conv.groups)
    y.backward(torch.tensor(dy, dtype=torch.float64))
    return (y.detach().numpy(), x64.grad.numpy(), w64.grad.numpy(), None if b64 is None else b64.grad.numpy())


@pytest.mark.parametrize("shape,kwargs,pads", LAYERS, ids=IDS)
def test_every_direction_matches_numpy_and_torch(rng, shape, kwargs, pads):
    conv = make_layer(shape, kwargs)
    x = uniform(rng, shape)
    w = uniform(rng, conv.weight_shape)
    b = uniform(rng, (conv.out_channels,)) if conv.bias else None
    conv.set_weights(w, b)
    assert conv.last_plan is None

    y = conv(nc.Tensor.from_host(x))
    reference = conv3d_reference(x, w, b, stride=conv.stride, pads=pads, dilation=conv.dilation, groups=conv.groups)
    dy = uniform(rng, reference.shape)
    y_torch, dx_torch, dw_torch, db_torch = torch_reference(x, w, b, dy, conv, pads)
    assert y.shape == reference.shape == y_torch.shape == conv.output_shape(shape)
    assert len(y.shape) == 5
    plan = conv.last_plan
    assert plan.variant and plan.kernel in nc.strategies()
    bound = tolerance(x, w, b, conv.groups, plan)
    assert np.max(np.abs(y.to_host() - reference)) <= bound
    assert np.max(np.abs(y.to_host() - y_torch)) <= bound
    assert np.max(np.abs(reference - y_torch)) <= 1e-12  # the two oracles agree with each other

    # dx: each input voxel gathers from up to (K/groups) * T * R * S outputs.
    dx = conv.backward_data(nc.Tensor.from_host(dy), shape)
    assert dx.shape == shape
    terms = conv.out_channels // conv.groups * int(np.prod(conv.kernel_size))
    assert np.max(np.abs(dx.to_host() - dx_torch)) <= PER_TERM * terms * conv.last_plan.error_factor

    # dw and db: sums over N * O * P * Q outputs each.
    x_t, dy_t = nc.Tensor.from_host(x), nc.Tensor.from_host(dy)
    dw, db = conv.backward_weights(x_t, dy_t)
    assert dw.shape == conv.weight_shape
    terms = int(np.prod(dy.shape)) // conv.out_channels
    terms *= conv.last_plan.error_factor
    assert np.max(np.abs(dw.to_host() - dw_torch)) <= PER_TERM * terms
    if conv.bias:
        assert db.shape == (conv.out_channels,)
        assert np.max(np.abs(db.to_host() - db_torch)) <= PER_TERM * terms
    else:
        assert db is None

    # beta = 1 accumulates into the caller's tensors (a second micro-batch), in place.
    dw2, db2 = conv.backward_weights(x_t, dy_t, dw=dw, db=db, beta=1.0)
    assert dw2.int_ptr == dw.int_ptr
    assert np.max(np.abs(dw2.to_host() - 2 * dw_torch)) <= 2 * PER_TERM * terms
    if conv.bias:
        assert np.max(np.abs(db2.to_host() - 2 * db_torch)) <= 2 * PER_TERM * terms


def test_depth_one_is_the_two_dimensional_layer_bit_for_bit(rng):
    """The naive kernel is one source for both ranks: the same sums in the same order."""
    x = uniform(rng, (2, 3, 9, 11))
    w, b = uniform(rng, (6, 3, 3, 3)), uniform(rng, (6,))
    conv2 = nc.Conv2d(3, 6, 3, stride=(1, 2), padding=(1, 2, 0, 1), strategy="CONV2D_NAIVE")
    conv3 = nc.Conv3d(3, 6, (1, 3, 3), stride=(1, 1, 2), padding=(0, 1, 2, 0, 0, 1), strategy="CONV2D_NAIVE")
    conv2.set_weights(w, b)
    conv3.set_weights(w[:, :, None], b)
    y2 = conv2(nc.Tensor.from_host(x)).to_host()
    y3 = conv3(nc.Tensor.from_host(x[:, :, None])).to_host()
    assert y3.shape == (2, 6, 1) + y2.shape[2:]
    assert np.array_equal(y3[:, :, 0], y2)


def test_post_ops_apply_as_the_output_is_written(rng):
    shape, kwargs, pads = LAYERS[0]
    conv = make_layer(shape, kwargs, activation="leaky_relu", negative_slope=0.25, residual=True)
    x = uniform(rng, shape)
    w, b = uniform(rng, conv.weight_shape), uniform(rng, (conv.out_channels,))
    conv.set_weights(w, b)
    residual = uniform(rng, conv.output_shape(shape))
    y = conv(nc.Tensor.from_host(x), residual=nc.Tensor.from_host(residual)).to_host()
    z = conv3d_reference(x, w, b, pads=pads) + residual
    expected = np.where(z > 0, z, 0.25 * z)
    assert np.max(np.abs(y - expected)) <= tolerance(x, w, b, 1, conv.last_plan) + PER_TERM


def test_arguments_are_normalised_as_pytorch_and_onnx_spell_them():
    conv = nc.Conv3d(4, 8, 3, stride=(1, 2, 2), padding=(1, 2, 3), dilation=np.int64(2), groups=2)
    assert conv.kernel_size == (3, 3, 3) and conv.stride == (1, 2, 2) and conv.dilation == (2, 2, 2)
    assert conv.padding == (1, 2, 3, 1, 2, 3) and conv.auto_pad == "NOTSET"
    assert conv.weight_shape == (8, 2, 3, 3, 3)
    assert repr(conv) == ("netcl.Conv3d(4, 8, kernel_size=(3, 3, 3), stride=(1, 2, 2), padding=(1, 2, 3, 1, 2, 3), "
                          "dilation=(2, 2, 2), groups=2)")
    same = nc.Conv3d(2, 2, (3, 1, 2), padding="same", bias=False)
    assert same.padding == "same" and same.auto_pad == "SAME_UPPER"
    assert repr(same) == "netcl.Conv3d(2, 2, kernel_size=(3, 1, 2), stride=(1, 1, 1), padding='same', bias=False)"
    assert same.output_shape((1, 2, 4, 5, 6)) == (1, 2, 4, 5, 6)
    lower = nc.Conv3d(2, 2, 3, stride=2, auto_pad="SAME_LOWER")
    assert repr(lower).endswith("auto_pad='SAME_LOWER')")
    s = lower.shapes_for((1, 2, 7, 6, 5))
    assert (s.O, s.P, s.Q) == (4, 3, 3)
    assert (s.pad_front, s.pad_top, s.pad_left, s.pad_back, s.pad_bottom, s.pad_right) == (1, 1, 1, 1, 0, 1)


def test_conv_shapes_carry_the_depth(rng):
    conv = nc.Conv3d(2, 6, (3, 2, 1), stride=(2, 1, 1), padding=(1, 0, 0, 2, 1, 0), dilation=(2, 1, 1), groups=2)
    s = conv.shapes_for((2, 2, 9, 5, 4))
    assert s.spatial_rank == 3 and s.op == "conv3d" and s.direction == "forward"
    assert (s.N, s.C, s.D, s.H, s.W, s.K, s.T, s.R, s.S) == (2, 2, 9, 5, 4, 6, 3, 2, 1)
    assert (s.stride_d, s.pad_front, s.pad_back, s.dilation_d) == (2, 1, 2, 2)
    assert s.O == (9 + 1 + 2 - 2 * 2 - 1) // 2 + 1 == 4 and (s.P, s.Q) == (5, 4)
    # As a sequence: the 5-D operand shapes a predicate indexes.
    assert s[0] == s.input_shape() == (2, 2, 9, 5, 4)
    assert s[1] == s.weight_shape() == conv.weight_shape == (6, 1, 3, 2, 1)
    assert s[2] == s.output_shape() == conv.output_shape((2, 2, 9, 5, 4)) == (2, 6, 4, 5, 4)
    assert s[0].numel() == s.input_numel() and s[2].numel() == s.output_numel()
    assert s.direct_flops() == 2 * 2 * 6 * 1 * 3 * 2 * 1 * 4 * 5 * 4
    assert "depth=9,3,2,1,2,2" in str(s)
    built = nc.ConvShapes(N=2, C=2, H=5, W=4, K=6, R=2, S=1, pad_bottom=1, groups=2, bias=True, spatial_rank=3, D=9,
                          T=3, stride_d=2, pad_front=1, pad_back=2, dilation_d=2)
    assert built == s
    s.direction = "backward_weights"
    assert s.op == "conv3d_backward_weights"
    # A 2-D problem keeps the depth at its neutral values, and says so when it does not.
    flat = nc.ConvShapes(N=1, C=1, H=3, W=3, K=1, R=3, S=3)
    assert (flat.spatial_rank, flat.D, flat.T, flat.O) == (2, 1, 1, 1) and flat[0] == (1, 1, 3, 3)
    flat.D = 4
    with pytest.raises(nc.Error, match="spatial_rank = 3"):
        flat.validate()


DIRECTIONS = ["forward", "backward_data", "backward_weights"]


def test_plans_name_their_variant_in_every_direction(rng):
    shape = (1, 3, 4, 6, 6)
    conv = nc.Conv3d(3, 4, 3, padding=1)
    for direction in DIRECTIONS:
        plan = conv.plan_for(shape, direction)
        assert plan.kernel in nc.strategies() and plan.variant and plan.implementation, (direction, plan)
        assert plan.variant in str(plan) and plan.reason and plan.error_factor >= 1
        assert conv.workspace_bytes(shape, direction) >= 0
    assert conv.last_plan is None and conv.last_event is None  # planning runs nothing
    conv.set_weights(uniform(rng, conv.weight_shape), uniform(rng, (4,)))
    y = conv(nc.Tensor.from_host(uniform(rng, shape)))
    assert y.shape == (1, 4, 4, 6, 6)
    conv.last_event.wait()
    assert conv.last_plan.variant == conv.plan_for(shape).variant

    # A strict override is what runs, in every direction.
    naive = nc.Conv3d(3, 4, 3, padding=1, strategy="CONV2D_NAIVE")
    for direction in DIRECTIONS:
        plan = naive.plan_for(shape, direction)
        assert (plan.kernel, plan.variant, plan.error_factor) == ("CONV2D_NAIVE", "naive", 1)
        assert "strict override" in plan.reason
        assert naive.workspace_bytes(shape, direction) == 0


def test_a_selector_rule_for_conv3d_sees_five_dimensional_operands(rng):
    seen = []

    def predicate(shapes, profile):
        seen.append((shapes.op, tuple(shapes[0]), tuple(shapes[1]), tuple(shapes[2])))
        return True

    with nc.KernelSelector() as selector:
        selector.register("conv3d", predicate, "CONV2D_NAIVE", priority=50)
        conv = nc.Conv3d(2, 3, (3, 1, 3), stride=(2, 1, 1))
        conv.set_weights(uniform(rng, conv.weight_shape), uniform(rng, (3,)))
        conv(nc.Tensor.from_host(uniform(rng, (1, 2, 7, 4, 5))))
        assert "rule" in conv.last_plan.reason
        decision = selector.explain((1, 2, 7, 4, 5), conv)
        assert decision.plan.variant == "naive"
    assert seen[0] == ("conv3d", (1, 2, 7, 4, 5), (3, 2, 3, 1, 3), (1, 3, 3, 4, 3))


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(TypeError, match=r"Conv3d: kernel_size must be an int or 3 ints \(depth, height, width\); "
                                        r"got 2 values"):
        nc.Conv3d(1, 1, (3, 3))
    with pytest.raises(TypeError, match=r"Conv3d: stride must be an int or 3 ints .*got 4 values"):
        nc.Conv3d(1, 1, 3, stride=(1, 1, 1, 1))
    with pytest.raises(TypeError, match=r"Conv3d: padding must be an int, \(d, h, w\), "
                                        r"\(front, top, left, back, bottom, right\), 'same' or 'valid'; got 5 values"):
        nc.Conv3d(1, 1, 3, padding=(1, 1, 1, 1, 1))
    with pytest.raises(TypeError, match=r"Conv3d: padding must be .*got 4 values"):
        nc.Conv3d(1, 1, 3, padding=(1, 1, 1, 1))  # a 2-D layer's (top, left, bottom, right)
    with pytest.raises(TypeError, match="Conv3d: dilation must be an int; got float"):
        nc.Conv3d(1, 1, 3, dilation=(1, 1.5, 1))
    with pytest.raises(ValueError, match="Conv3d: padding='same' is not supported for strided convolutions"):
        nc.Conv3d(1, 1, 3, stride=(2, 1, 1), padding="same")
    with pytest.raises(ValueError, match="Conv3d: explicit padding and auto_pad were both given"):
        nc.Conv3d(1, 1, 3, padding=(0, 0, 1), auto_pad="SAME_UPPER")
    with pytest.raises(ValueError, match="Conv3d: activation must be None or one of"):
        nc.Conv3d(1, 1, 3, activation="gelu")
    with pytest.raises(nc.Error, match="Conv3d: groups = 2 must divide in_channels = 3"):
        nc.Conv3d(3, 4, 3, groups=2)
    with pytest.raises(nc.Error, match=r"Conv3d: .*padding \(back\) = -1"):
        nc.Conv3d(1, 1, 3, padding=(0, 0, 0, -1, 0, 0))


def test_bad_tensors_say_what_was_expected(rng):
    conv = nc.Conv3d(3, 4, (3, 3, 2), padding=1)
    x_shape = (1, 3, 4, 5, 5)
    x = nc.Tensor.from_host(uniform(rng, x_shape))
    with pytest.raises(nc.Error, match="before set_weights"):
        conv(x)
    # A 2-D layer's weights, and a 3-D layer's with T and S swapped: refused, not run.
    with pytest.raises(nc.Error, match=r"Conv3d.set_weights: weights has shape \(4, 3, 3, 3\); "
                                       r"expected \(4, 3, 3, 3, 2\)"):
        conv.set_weights(uniform(rng, (4, 3, 3, 3)), uniform(rng, (4,)))
    with pytest.raises(nc.Error, match=r"weights has shape \(4, 3, 2, 3, 3\); expected \(4, 3, 3, 3, 2\)"):
        conv.set_weights(uniform(rng, (4, 3, 2, 3, 3)), uniform(rng, (4,)))
    with pytest.raises(nc.Error, match=r"Conv3d.set_weights: bias has shape \(3,\); expected \(4,\)"):
        conv.set_weights(uniform(rng, (4, 3, 3, 3, 2)), uniform(rng, (3,)))
    with pytest.raises(nc.Error, match=r"out_channels x in_channels/groups x T x R x S"):
        conv.set_weights(nc.Tensor.from_host(uniform(rng, (4, 3, 3, 3))), nc.Tensor.from_host(uniform(rng, (4,))))
    conv.set_weights(uniform(rng, (4, 3, 3, 3, 2)), uniform(rng, (4,)))

    with pytest.raises(nc.Error, match=r"Conv3d: input has rank 4 \(.*\); expected rank 5, N x C x D x H x W"):
        conv(nc.Tensor.from_host(uniform(rng, (1, 3, 5, 5))))
    with pytest.raises(nc.Error, match="expected rank 5"):
        conv.plan_for((1, 3, 5, 5))
    with pytest.raises(nc.Error, match="in_channels = 3"):
        conv(nc.Tensor.from_host(uniform(rng, (1, 2, 4, 5, 5))))
    with pytest.raises(TypeError, match="Conv3d: expected a netcl.Tensor input; got ndarray"):
        conv(uniform(rng, x_shape))
    wrong = nc.Tensor.empty((1, 4, 5, 5, 6))
    wrong.fill(float("nan"))
    with pytest.raises(nc.Error, match=r"Conv3d::forward: the output tensor is \[1, 4, 5, 5, 6\]; "
                                       r"expected \[1, 4, 4, 5, 6\]"):
        conv.forward(x, wrong)
    assert np.isnan(wrong.to_host()).all()  # an error writes nothing

    dy = nc.Tensor.from_host(uniform(rng, conv.output_shape(x_shape)))
    with pytest.raises(nc.Error, match=r"Conv3d.backward_data: give dx or input_shape \(the forward input's "
                                       r"N x C x D x H x W\)"):
        conv.backward_data(dy)
    with pytest.raises(nc.Error, match=r"Conv3d.backward_data: input_shape \(1, 3, 4, 5, 5\) differs from dx's"):
        conv.backward_data(dy, x_shape, dx=nc.Tensor.empty((1, 3, 4, 5, 4)))
    with pytest.raises(nc.Error, match=r"Conv3d.backward_weights: beta = 1.0+ accumulates into dw and db"):
        conv.backward_weights(x, dy, beta=1.0)
    with pytest.raises(TypeError, match="Conv3d: dy must be a netcl.Tensor"):
        conv.backward_weights(x, np.zeros(3))


def test_a_strict_strategy_that_cannot_take_the_layer_says_so(rng):
    # Winograd's transforms need stride 1 on every axis, the depth's included; its 2-D
    # variants say they take no 3-D layer, and 3-D backward data (as forward convolutions) is
    # taken at stride 1 only.
    conv = nc.Conv3d(2, 2, 3, stride=(2, 1, 1), padding=1, strategy="CONV2D_WINOGRAD")
    conv.set_weights(uniform(rng, conv.weight_shape), uniform(rng, (2,)))
    shape = (1, 2, 5, 4, 4)
    for direction in ["forward", "backward_data"]:
        with pytest.raises(nc.Error, match="CONV2D_WINOGRAD cannot take this shape: .*3-D"):
            conv.plan_for(shape, direction)
    with pytest.raises(nc.Error, match="CONV2D_WINOGRAD cannot take this shape: .*3-D"):
        conv(nc.Tensor.from_host(uniform(rng, shape)))
    assert conv.last_plan is None


def test_pyopencl_buffers_in_place(rng):
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    nctx = nc.Context.from_pyopencl(ctx, queue)
    shape, kwargs, pads = LAYERS[7]
    x_host = uniform(rng, shape)
    conv = make_layer(shape, kwargs, context=nctx)
    w, b = uniform(rng, conv.weight_shape), uniform(rng, (conv.out_channels,))
    conv.set_weights(w, b)
    y_shape = conv.output_shape(shape)
    mf = cl.mem_flags
    x_offset = 32 * 4  # the input starts 32 floats into the program's buffer
    x_buf = cl.Buffer(ctx, mf.READ_WRITE, size=x_offset + x_host.nbytes)
    cl.enqueue_copy(queue, x_buf, x_host, dst_offset=x_offset)
    y_buf = cl.Buffer(ctx, mf.READ_WRITE, size=int(np.prod(y_shape)) * 4)
    poisoned = cl.enqueue_fill_buffer(queue, y_buf, np.float32(np.nan), 0, y_buf.size)

    x = nc.Tensor.from_pyopencl(x_buf, shape, offset=x_offset, context=nctx)
    y = nc.Tensor.from_pyopencl(y_buf, y_shape, context=nctx)
    out = conv.forward(x, y, wait_for=[poisoned])
    assert out.int_ptr == y_buf.int_ptr
    done = cl.Event.from_int_ptr(conv.last_event.int_ptr, retain=True)
    result = np.empty(y_shape, np.float32)
    cl.enqueue_copy(queue, result, y_buf, wait_for=[done])
    queue.finish()
    reference = conv3d_reference(x_host, w, b, stride=conv.stride, pads=pads)
    assert not np.isnan(result).any()
    assert np.max(np.abs(result - reference)) <= tolerance(x_host, w, b, 1, conv.last_plan)


# ---- ONNX: its own 3-D Conv cases, and random layers against onnx.reference --------------

ONNX_CASES = [c for c in onnx_cases.load()[0] if c.spatial_rank == 3]


def test_the_onnx_3d_cases_are_there():
    names = {c.name for c in ONNX_CASES}
    assert onnx_cases.REQUIRED_3D <= names, f"missing ONNX Conv3d cases: {sorted(onnx_cases.REQUIRED_3D - names)}"


@pytest.mark.parametrize("case", ONNX_CASES, ids=[c.name for c in ONNX_CASES])
def test_onnx_backend_case(case):
    conv = nc.Conv3d(case.x.shape[1], case.w.shape[0], **case.kwargs)
    conv.set_weights(case.w, case.b)
    y = conv(nc.Tensor.from_host(case.x)).to_host()
    assert y.shape == case.expected.shape
    error = float(np.max(np.abs(y - case.expected)))
    assert error <= tolerance(case.x, case.w, case.b, case.kwargs["groups"], conv.last_plan), error


AUTO_PADS = ["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]


def random_layer(rng):
    """A valid random 3-D Conv: kernel, stride, dilation, six pads or auto_pad, groups."""
    while True:
        groups = int(rng.choice([1, 1, 2, 3]))
        c, k = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
        kernel = tuple(int(v) for v in rng.integers(1, 4, size=3))
        stride = tuple(int(v) for v in rng.integers(1, 3, size=3))
        dilation = tuple(int(v) for v in rng.integers(1, 3, size=3))
        size = tuple(int(v) for v in rng.integers(1, 8, size=3))
        auto_pad = str(rng.choice(AUTO_PADS))
        pads = [int(p) for p in rng.integers(0, 3, size=6)] if auto_pad == "NOTSET" else [0] * 6
        out = [(size[i] + pads[i] + pads[i + 3] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
               for i in range(3)]
        if min(out) >= 1:
            return dict(n=int(rng.integers(1, 3)), c=c, k=k, size=size, kernel=kernel, stride=stride,
                        dilation=dilation, pads=pads, auto_pad=auto_pad, groups=groups,
                        bias=bool(rng.random() < 0.7))




@pytest.mark.parametrize("seed", range(12))
def test_random_layer_against_onnx_reference(seed):
    rng = np.random.default_rng(3000 + seed)
    L = random_layer(rng)
    x = uniform(rng, (L["n"], L["c"], *L["size"]))
    w = uniform(rng, (L["k"], L["c"] // L["groups"], *L["kernel"]))
    b = uniform(rng, (L["k"],)) if L["bias"] else None
    feeds = {"X": x, "W": w, **({"B": b} if b is not None else {})}
    expected = ReferenceEvaluator(onnx_cases.conv_model(L)).run(None, feeds)[0]

    kwargs = dict(kernel_size=L["kernel"], stride=L["stride"], dilation=L["dilation"], groups=L["groups"],
                  bias=L["bias"])
    if L["auto_pad"] == "NOTSET":
        kwargs["padding"] = tuple(L["pads"])  # (front, top, left, back, bottom, right) = ONNX's pads as listed
    else:
        kwargs["auto_pad"] = L["auto_pad"]
    ran = []
    for strategy in [None, *nc.strategies()]:
        conv = nc.Conv3d(L["c"], L["k"], strategy=strategy, **kwargs)
        conv.set_weights(w, b)
        if strategy not in (None, "CONV2D_NAIVE"):
            # Strategies take 3-D layers as their implementations gain rank 3; one that
            # cannot must say why, and runs nothing.
            try:
                conv.plan_for(x.shape)
            except nc.Error as e:
                assert f"{strategy} cannot take this shape" in str(e), str(e)
                continue
        y = conv(nc.Tensor.from_host(x)).to_host()
        assert y.shape == expected.shape, (L, strategy)
        error = float(np.max(np.abs(y - expected)))
        assert error <= tolerance(x, w, b, L["groups"], conv.last_plan), (L, strategy, error)
        ran.append(conv.last_plan.kernel)
    assert "CONV2D_NAIVE" in ran and len(ran) >= 2
