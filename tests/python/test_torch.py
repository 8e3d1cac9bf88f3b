"""netcl.torch against torch itself: random layers in every direction against
float64 torch, gradcheck, parameters and state_dict, the zero-copy bridge,
errors that name the layer. Whole networks are in test_torch_models.py."""
import zlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import netcl as nc
import netcl.torch as nt
from netcl.torch._modules import _Call
from reference import PER_TERM

# (N, C, H, W, K, kernel, stride, padding, dilation, groups, bias, padding_mode)
LAYERS = [
    (2, 3, 9, 11, 8, 3, 1, 1, 1, 1, True, "zeros"),
    (3, 8, 13, 10, 16, 3, 2, 1, 1, 1, True, "zeros"),          # stride 2, odd sizes
    (1, 6, 10, 10, 6, 3, 1, 2, 2, 3, False, "zeros"),          # dilation, groups
    (2, 4, 7, 7, 4, 5, 1, 2, 1, 4, True, "zeros"),             # depthwise 5x5
    (2, 5, 1, 1, 7, 1, 1, 0, 1, 1, True, "zeros"),             # 1x1 image
    (1, 5, 11, 8, 9, (3, 1), (3, 2), (1, 0), 1, 1, True, "zeros"),  # stride 3, non-square kernel
    (2, 4, 8, 9, 6, 3, 1, "same", 1, 1, False, "zeros"),
    (1, 3, 6, 7, 5, 3, 1, 1, 1, 1, True, "reflect"),            # padded in torch, convolved in netcl
    (1, 32, 20, 20, 40, 3, 1, 1, 1, 1, True, "zeros"),          # large enough for Winograd's tiles
]


def _ids(spec):
    return f"N{spec[0]}C{spec[1]}H{spec[2]}K{spec[4]}k{spec[5]}s{spec[6]}p{spec[7]}g{spec[9]}{spec[11][0]}"


def _bound(module, x_shape, direction, terms):
    """PER_TERM per term of the reduction, times what the plan for that direction declares."""
    plan = module._netcl_layer.plan_for(x_shape, direction)
    return PER_TERM * plan.error_factor * terms, plan


# 3-D: (N, C, D, H, W, K, kernel, stride, padding, dilation, groups, bias)
LAYERS_3D = [
    (2, 3, 5, 6, 7, 4, 3, 1, 1, 1, 1, True),
    (1, 4, 7, 5, 9, 6, (3, 1, 3), (2, 1, 3), (1, 0, 2), 1, 1, True),   # strides 2 and 3, a non-cubic kernel
    (2, 6, 6, 6, 6, 6, 3, 1, 2, 2, 3, False),                          # dilation, groups
    (1, 4, 5, 5, 5, 4, 3, 1, "same", 1, 4, True),                      # depthwise, padding='same'
    (3, 5, 1, 1, 1, 7, 1, 1, 0, 1, 1, True),                           # a 1x1x1 volume
    (1, 16, 10, 10, 10, 16, 3, 1, 1, 1, 1, True),                      # large enough for 3-D Winograd
]


def _ids_3d(spec):
    return f"N{spec[0]}C{spec[1]}D{spec[2]}K{spec[5]}k{spec[6]}s{spec[7]}p{spec[8]}g{spec[10]}"


def _check_against_float64_torch(m, x_shape, dtype=torch.float32):
    """Forward, dL/dx, dL/dw and dL/db of netcl.torch module `m` (its weights set here) on
    random data in [-1, 1] of `dtype`, against float64 torch on the same values. The bound
    per direction: PER_TERM per term times the plan's error factor, plus, in float16, the
    output's rounding to half (2^-11 of the largest expected value)."""
    torch_class = {nt.Conv2d: torch.nn.Conv2d, nt.Conv3d: torch.nn.Conv3d}[type(m)]
    m.to(dtype)
    with torch.no_grad():
        m.weight.uniform_(-1, 1)
        if m.bias is not None:
            m.bias.uniform_(-1, 1)
    x = torch.empty(x_shape).uniform_(-1, 1).to(dtype).requires_grad_()
    y = m(x)
    assert y.dtype == dtype
    dy = torch.empty(y.shape).uniform_(-1, 1).to(dtype)
    y.backward(dy)
    assert x.grad.dtype == m.weight.grad.dtype == dtype

    ref = torch_class(m.in_channels, m.out_channels, m.kernel_size, stride=m.stride, padding=m.padding,
                      dilation=m.dilation, groups=m.groups, bias=m.bias is not None, padding_mode=m.padding_mode,
                      dtype=torch.float64)
    ref.load_state_dict({name: p.double() for name, p in m.state_dict().items()})
    xd = x.detach().double().requires_grad_()
    yd = ref(xd)
    yd.backward(dy.double())

    zeros = m.padding_mode == "zeros"
    padded = tuple(xd.shape) if zeros else tuple(F.pad(xd, m._reversed_padding_repeated_twice).shape)
    taps = int(np.prod(m.kernel_size))
    cg, kg = m.in_channels // m.groups, m.out_channels // m.groups
    rounding = 2.0 ** -11 if dtype == torch.float16 else 0.0

    def bound(direction, terms, expected):
        return _bound(m, padded, direction, terms)[0] + rounding * expected.abs().max().item()

    assert y.shape == yd.shape
    assert (y.double() - yd).abs().max().item() <= bound("forward", cg * taps + int(m.bias is not None), yd)
    # reflect: torch's F.pad carries dx back through the padding; netcl computes its input's gradient
    dx_bound = bound("backward_data", kg * taps, xd.grad) * (1 if zeros else 2)
    assert (x.grad.double() - xd.grad).abs().max().item() <= dx_bound
    pixels = y.shape[0] * int(np.prod(y.shape[2:]))
    assert (m.weight.grad.double() - ref.weight.grad).abs().max().item() <= bound("backward_weights", pixels,
                                                                                   ref.weight.grad)
    if m.bias is not None:
        assert m.bias.grad.dtype == dtype
        assert (m.bias.grad.double() - ref.bias.grad).abs().max().item() <= bound("backward_weights", pixels,
                                                                                 ref.bias.grad)


@pytest.mark.parametrize("spec", LAYERS, ids=_ids)
def test_layer_and_its_gradients_match_float64_torch(spec):
    n, c, h, w, k, kernel, stride, padding, dilation, groups, bias, mode = spec
    torch.manual_seed(zlib.crc32(repr(spec).encode()))
    m = nt.Conv2d(c, k, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias,
                  padding_mode=mode)
    _check_against_float64_torch(m, (n, c, h, w))


@pytest.mark.parametrize("spec", LAYERS_3D, ids=_ids_3d)
def test_conv3d_and_its_gradients_match_float64_torch(spec):
    n, c, d, h, w, k, kernel, stride, padding, dilation, groups, bias = spec
    torch.manual_seed(zlib.crc32(repr(spec).encode()))
    m = nt.Conv3d(c, k, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
    _check_against_float64_torch(m, (n, c, d, h, w))
    assert isinstance(m._netcl_layer, nc.Conv3d) and m.last_plan is not None


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv3d_padding_modes_pad_in_torch_and_convolve_in_netcl(mode):
    torch.manual_seed(zlib.crc32(mode.encode()))
    m = nt.Conv3d(3, 5, 3, stride=(1, 2, 1), padding=(1, 2, 1), padding_mode=mode)
    _check_against_float64_torch(m, (2, 3, 5, 6, 7))


# float16 storage (float32 arithmetic): a zeros-padded subset of both tables, the
# inputs' values exactly what the half tensors hold.
@pytest.mark.parametrize("spec", [s for s in LAYERS if s[11] == "zeros"][::2] + LAYERS[-1:], ids=_ids)
def test_float16_layer_and_its_gradients_match_float64_torch(spec):
    n, c, h, w, k, kernel, stride, padding, dilation, groups, bias, mode = spec
    torch.manual_seed(zlib.crc32(repr(spec).encode()))
    m = nt.Conv2d(c, k, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
    _check_against_float64_torch(m, (n, c, h, w), torch.float16)
    assert m._netcl_layer.dtype == np.float16


@pytest.mark.parametrize("spec", LAYERS_3D[::2] + LAYERS_3D[-1:], ids=_ids_3d)
def test_float16_conv3d_and_its_gradients_match_float64_torch(spec):
    n, c, d, h, w, k, kernel, stride, padding, dilation, groups, bias = spec
    torch.manual_seed(zlib.crc32(repr(spec).encode()))
    m = nt.Conv3d(c, k, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
    _check_against_float64_torch(m, (n, c, d, h, w), torch.float16)
    assert isinstance(m._netcl_layer, nc.Conv3d) and m._netcl_layer.dtype == np.float16


def test_gradcheck_in_float32():
    """torch.autograd.gradcheck on netcl's backward. In float32 a central difference of a
    linear map is exact but for rounding: |y| ~ 10 over 2 * eps = 2e-2 leaves ~1e-4, so
    atol = rtol = 1e-3 (gradcheck's defaults assume float64)."""
    torch.manual_seed(3)
    m = nt.Conv2d(3, 4, 3, stride=2, padding=1, groups=1)
    x = torch.empty(2, 3, 5, 6).uniform_(-1, 1).requires_grad_()
    w = m.weight.detach().clone().uniform_(-1, 1).requires_grad_()
    b = m.bias.detach().clone().uniform_(-1, 1).requires_grad_()
    call = _Call(m, m.padding)
    with pytest.warns(UserWarning, match="double precision"):
        assert torch.autograd.gradcheck(lambda x, w, b: nt.ConvFunction.apply(x, w, b, call), (x, w, b),
                                        eps=1e-2, atol=1e-3, rtol=1e-3)


def test_a_drop_in_for_nn_conv2d():
    torch.manual_seed(5)
    base = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, dilation=1, groups=2, bias=True)
    layer = nt.Conv2d.from_torch(base, name="features.3")
    assert isinstance(layer, torch.nn.Conv2d)
    assert layer.weight is base.weight and layer.bias is base.bias  # one set of parameters
    assert layer.extra_repr() == base.extra_repr()
    assert list(layer.state_dict()) == list(base.state_dict())
    fresh = nt.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
    fresh.load_state_dict(base.state_dict())
    x = torch.empty(2, 4, 9, 9).uniform_(-1, 1)
    with torch.no_grad():
        expected = base(x)
        assert torch.allclose(layer(x), expected, atol=1e-5)
        assert torch.allclose(fresh(x), expected, atol=1e-5)
        # An optimizer's in-place step reaches netcl: the weights are uploaded again.
        base.weight.mul_(-1)
        assert torch.allclose(layer(x), base(x), atol=1e-5)
    assert layer.last_plan is not None and "forward" not in layer.last_plan.kernel
    # A strided (non-contiguous) input is made contiguous first.
    xt = torch.empty(2, 9, 9, 4).uniform_(-1, 1).permute(0, 3, 1, 2)
    with torch.no_grad():
        assert torch.allclose(layer(xt), base(xt), atol=1e-5)


def test_train_and_eval_plan_netcl_for_training_and_inference():
    # module.train() uploads the weights every call: netcl's layer plans its forward for that
    # (Conv2d.training), eval() for weights set once; the values are the same either way.
    torch.manual_seed(7)
    base = torch.nn.Conv2d(8, 8, 3, padding=1)
    layer = nt.Conv2d.from_torch(base)
    x = torch.empty(1, 8, 7, 7).uniform_(-1, 1)
    with torch.no_grad():
        expected = base(x)
        layer.train()
        assert torch.allclose(layer(x), expected, atol=1e-5)
        assert layer._netcl_layer.training is True
        assert " training" in str(layer._netcl_layer.shapes_for(tuple(x.shape)))
        layer.eval()
        assert torch.allclose(layer(x), expected, atol=1e-5)
        assert layer._netcl_layer.training is False
        assert " training" not in str(layer._netcl_layer.shapes_for(tuple(x.shape)))
    conv = nc.Conv2d(3, 4, 3)
    assert conv.training is False
    assert conv.train() is conv and conv.training is True
    assert conv.shapes_for((1, 3, 9, 9)).training is True
    assert conv.eval() is conv and conv.training is False


def test_the_bridge_hands_netcl_the_tensors_own_memory():
    bridge = nt.default_bridge()
    assert not bridge.copies_tensors, "PoCL with PyOpenCL: netcl.torch should not copy tensors"
    keep = []
    base = torch.arange(40, dtype=torch.float32)
    x = base[8:8 + 2 * 16].view(2, 1, 4, 4)  # a view at an offset into a storage
    view = bridge.view(x, keep)
    conv = nc.Conv2d(1, 1, 1, bias=False, context=bridge.context)
    conv.set_weights(np.full((1, 1, 1, 1), 2.0, np.float32))
    y, yv = bridge.output((2, 1, 4, 4), keep)
    written = conv.forward(view, yv)
    bridge.finish(keep)
    out = bridge.result(y, written, keep)
    assert out is y  # netcl wrote into the tensor torch allocated
    assert torch.equal(y, 2 * x)


def test_errors_name_the_layer_and_what_was_wrong():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Conv2d(4, 2, 3))
    converted = nt.convert(model)
    assert converted[2].netcl_name == "2"
    with pytest.raises(nc.Error, match=r"^0: .*C|channel"):
        converted(torch.zeros(1, 5, 8, 8))  # 5 channels into a 3-channel layer
    with pytest.raises(TypeError, match=r"^0: netcl takes float32 or float16 tensors, .*got input torch.float64"):
        converted(torch.zeros(1, 3, 8, 8, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"^0: .*got input torch.float16, weight torch.float32"):
        converted(torch.zeros(1, 3, 8, 8, dtype=torch.float16))  # a half input into a float32 model
    with pytest.raises(ValueError, match=r"^0: expected a 4-D"):
        converted(torch.zeros(3, 8, 8))
    with pytest.raises(nc.Error, match=r"^2: "):  # the kernel is larger than the padded input
        converted(torch.zeros(1, 3, 4, 4))


class _Block(torch.nn.Module):
    """conv -> add -> ReLU6, conv -> LeakyReLU, the residual computed after the convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(4, 6, 3, padding=1)
        self.b = torch.nn.Conv2d(4, 6, 1)
        self.c = torch.nn.Conv2d(6, 5, 3, padding=(1, 0))
        self.act = torch.nn.ReLU6()
        self.leaky = torch.nn.LeakyReLU(0.2)

    def forward(self, x):
        y = self.a(x)
        shortcut = self.b(x)
        return self.leaky(self.c(self.act(y + shortcut)))


def test_convert_fuses_the_residual_and_the_activation_into_netcl():
    torch.manual_seed(3)
    model = _Block().eval()
    x = torch.empty(2, 4, 9, 7).uniform_(-1, 1)
    converted = nt.convert(model)
    assert converted.a.netcl_post_ops["activation"] == "relu6" and converted.a.netcl_post_ops["residual"]
    assert converted.c.netcl_post_ops["activation"] == "leaky_relu"
    assert converted.c.netcl_post_ops["negative_slope"] == pytest.approx(0.2)
    assert not converted.b.netcl_post_ops["residual"] and converted.b.netcl_post_ops["activation"] is None
    assert "activation='relu6', residual=True" in repr(converted.a)
    with torch.no_grad():
        expected = model(x)
        out = converted(x)
    assert converted.a.last_plan is not None
    assert (out - expected).abs().max().item() <= 1e-5
    # Where autograd records the call, the sum and activation run in torch: the
    # gradient through a fused layer is the unfused one's.
    xg = x.clone().requires_grad_(True)
    converted(xg).sum().backward()
    xr = x.clone().requires_grad_(True)
    model(xr).sum().backward()
    assert (xg.grad - xr.grad).abs().max().item() <= 1e-4


def test_fused_layer_errors():
    conv = nt.Conv2d(3, 4, 3, padding=1, activation="relu", residual=True).eval()
    x = torch.zeros(1, 3, 5, 5)
    with pytest.raises(ValueError, match="expected forward\\(x, residual\\)"):
        conv(x)
    with pytest.raises(nc.Error, match="residual has shape"), torch.no_grad():
        conv(x, torch.zeros(1, 4, 5, 4))
    with pytest.raises(ValueError, match="activation must be None or one of"):
        nt.Conv2d(3, 4, 3, activation="gelu")


class _Block3d(torch.nn.Module):
    """conv3d -> BatchNorm3d -> ReLU, then conv3d + the block's input as a residual."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv3d(4, 4, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm3d(4)
        self.b = torch.nn.Conv3d(4, 4, (1, 3, 3), padding=(0, 1, 1))

    def forward(self, x):
        return self.b(torch.relu(self.bn(self.a(x)))) + x


def test_convert_takes_conv3d_folds_batchnorm3d_and_fuses_post_ops():
    torch.manual_seed(5)
    model = _Block3d().eval()
    with torch.no_grad():  # BatchNorm's statistics away from the identity, so the fold shows
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-0.5, 0.5)
    x = torch.empty(2, 4, 5, 6, 7).uniform_(-1, 1)
    converted = nt.convert(model)
    assert type(converted.a) is nt.Conv3d and type(converted.b) is nt.Conv3d
    assert not any(isinstance(m, torch.nn.BatchNorm3d) for m in converted.modules())
    assert converted.a.netcl_post_ops["activation"] == "relu" and converted.b.netcl_post_ops["residual"]
    with torch.no_grad():
        expected = model(x)
        out = converted(x)
    assert (out - expected).abs().max().item() <= 1e-4 * expected.abs().max().item()
    with pytest.raises(ValueError, match=r"^a: expected a 5-D \(N, C, D, H, W\) input"):
        converted.a(torch.zeros(1, 4, 5, 5))
    # A model that is one convolution becomes that layer, in either mode.
    for mode in (True, False):
        single = nt.convert(torch.nn.Conv3d(2, 3, 1).train(mode))
        assert type(single) is nt.Conv3d and single.netcl_name == "(model)" and single.training == mode


def test_float16_errors_say_what_the_types_must_be():
    conv = nt.Conv2d(3, 4, 3, padding=1, residual=True).half().eval()
    x = torch.zeros(1, 3, 5, 5, dtype=torch.float16)
    with pytest.raises(TypeError, match=r"the residual must be a CPU tensor of the input's type \(torch.float16\)"):
        conv(x, torch.zeros(1, 4, 5, 5))
    mixed = nt.Conv2d(3, 4, 3).half()
    mixed.bias = torch.nn.Parameter(torch.zeros(4))  # float32 bias beside half weights
    with pytest.raises(TypeError, match=r"got input torch.float16, weight torch.float16 and bias torch.float32"):
        mixed(x)
    with torch.no_grad():  # the same layer in half then runs, its output half
        conv.weight.fill_(1.0)
        conv.bias.fill_(0.5)
        y = conv(torch.ones(1, 3, 5, 5, dtype=torch.float16), torch.ones(1, 4, 5, 5, dtype=torch.float16))
    assert y.dtype == torch.float16 and y[0, 0, 2, 2].item() == 27 + 0.5 + 1


class _FoldCases(torch.nn.Module):
    """BatchNorms convert must not fold (and one it must): after a convolution called twice,
    one in train() mode, one without running statistics, one whose convolution's output has
    a second user, one after a convolution left in train() mode, one after a parametrized
    (weight-normed) convolution; and a Linear's BatchNorm1d, which it folds."""

    def __init__(self) -> None:
        super().__init__()
        self.twice = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.bn_twice = torch.nn.BatchNorm2d(3)
        self.a = torch.nn.Conv2d(3, 4, 1)
        self.bn_training = torch.nn.BatchNorm2d(4)
        self.b = torch.nn.Conv2d(4, 4, 1)
        self.bn_no_stats = torch.nn.BatchNorm2d(4, track_running_stats=False)
        self.c = torch.nn.Conv2d(4, 4, 1)
        self.bn_shared = torch.nn.BatchNorm2d(4)
        self.d = torch.nn.Conv2d(4, 4, 1)
        self.bn_after_training_conv = torch.nn.BatchNorm2d(4)
        self.e = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv2d(4, 4, 1))
        self.bn_weight_normed = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4, 6)
        self.bn_fc = torch.nn.BatchNorm1d(6)

    def forward(self, x):
        x = self.bn_twice(self.twice(self.twice(x)))
        x = self.bn_training(self.a(x))
        x = self.bn_no_stats(self.b(x))
        c = self.c(x)
        x = self.bn_shared(c) + c
        x = self.bn_after_training_conv(self.d(x))
        x = self.bn_weight_normed(self.e(x))
        return self.bn_fc(self.fc(x.mean((2, 3))))


def test_convert_folds_only_what_folds_exactly():
    torch.manual_seed(9)
    model = _FoldCases().eval()
    for bn in (model.bn_twice, model.bn_training, model.bn_shared, model.bn_after_training_conv,
               model.bn_weight_normed, model.bn_fc):
        with torch.no_grad():
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
    model.bn_training.train()
    model.d.train()
    x = torch.empty(2, 3, 6, 5).uniform_(-1, 1)
    with torch.no_grad():
        expected = model(x)  # bn_training updates its statistics here: compare on a copy's
    converted = nt.convert(model)
    left = {name for name, m in converted.named_modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)}
    assert left == {"bn_twice", "bn_training", "bn_no_stats", "bn_shared", "bn_after_training_conv",
                    "bn_weight_normed"}, left
    assert type(converted.twice) is nt.Conv2d and type(converted.a) is nt.Conv2d
    assert not isinstance(converted.e, nt.Conv2d)  # its weight is computed: left to torch
    model.bn_training.eval()  # the comparison in eval() statistics on both sides
    converted.bn_training.eval()
    with torch.no_grad():
        expected = model(x)
        out = converted(x)
    assert (out - expected).abs().max().item() <= 1e-4 * expected.abs().max().item()
