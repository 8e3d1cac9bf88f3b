"""NumPy in and out: round trips of every rank, and convolutions in PyTorch's
argument spellings checked against an fp64 reference."""
import numpy as np
import pytest

import netcl as nc
from reference import conv2d_reference, tolerance, uniform

SHAPES = [(7,), (3, 5), (2, 3, 4), (2, 3, 17, 9), (1, 2, 3, 4, 5), (1, 1, 1, 1), (4, 64, 28, 28)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_round_trip(rng, shape):
    a = uniform(rng, shape)
    t = nc.Tensor.from_host(a)
    assert t.shape == shape and isinstance(t.shape, nc.Shape)
    assert t.numel() == a.size == t.shape.numel()
    assert t.ndim == len(shape) and t.dtype == np.float32 and t.nbytes == a.nbytes
    back = t.to_host()
    assert back.dtype == np.float32 and back.shape == shape and back.flags.c_contiguous
    assert np.array_equal(back, a)
    assert np.array_equal(np.asarray(t), a)
    a[...] = 0  # the tensor holds its own copy
    assert np.array_equal(t.to_host(), back)


def test_readonly_and_dlpack_sources(rng):
    a = uniform(rng, (2, 3, 4, 5))
    a.setflags(write=False)
    assert np.array_equal(nc.Tensor.from_host(a).to_host(), a)
    # A slice that is still C-contiguous is taken as it is, offset and all.
    big = uniform(rng, (6, 3, 4, 5))
    assert np.array_equal(nc.Tensor.from_host(big[2:4]).to_host(), big[2:4])
    # Anything speaking DLPack or the buffer protocol on the host goes in.
    assert np.array_equal(nc.Tensor.from_host(memoryview(a)).to_host(), a)


def test_empty_fill_and_array_protocol():
    t = nc.Tensor.empty((2, 3))
    t.fill(2.5)
    assert np.array_equal(t.to_host(), np.full((2, 3), 2.5, np.float32))
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(t, copy=False)


LAYERS = [
    # (N, C, H, W), Conv2d kwargs, pads as (top, left, bottom, right) for the reference
    ((1, 3, 8, 8), dict(out_channels=4, kernel_size=3, padding=1), (1, 1, 1, 1)),
    ((2, 4, 9, 7), dict(out_channels=6, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0)), (1, 0, 1, 0)),
    ((1, 2, 7, 6), dict(out_channels=3, kernel_size=3, padding=(0, 1, 2, 0)), (0, 1, 2, 0)),
    ((1, 4, 10, 10), dict(out_channels=4, kernel_size=3, dilation=2, padding=2, groups=2), (2, 2, 2, 2)),
    ((1, 8, 6, 6), dict(out_channels=8, kernel_size=1, bias=False), (0, 0, 0, 0)),
    ((1, 3, 6, 5), dict(out_channels=2, kernel_size=4, padding="same"), (1, 1, 2, 2)),  # PyTorch: odd pixel at the end
    ((1, 3, 6, 5), dict(out_channels=2, kernel_size=3, padding="valid"), (0, 0, 0, 0)),
    ((1, 3, 7, 7), dict(out_channels=2, kernel_size=3, stride=2, auto_pad="SAME_LOWER"), (1, 1, 1, 1)),
    ((1, 3, 6, 6), dict(out_channels=2, kernel_size=3, stride=2, auto_pad="SAME_UPPER"), (0, 0, 1, 1)),
    ((1, 3, 6, 6), dict(out_channels=2, kernel_size=3, stride=2, auto_pad="SAME_LOWER"), (1, 1, 0, 0)),
]


@pytest.mark.parametrize("strategy", ["CONV2D_NAIVE", "IM2COL", None])
@pytest.mark.parametrize("shape,kwargs,pads", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_conv_matches_reference(rng, shape, kwargs, pads, strategy):
    kwargs = dict(kwargs)
    k, groups = kwargs.pop("out_channels"), kwargs.get("groups", 1)
    conv = nc.Conv2d(shape[1], k, strategy=strategy, **kwargs)
    x = uniform(rng, shape)
    w = uniform(rng, conv.weight_shape)
    b = uniform(rng, (k,)) if conv.bias else None
    conv.set_weights(w, b)
    y = conv(nc.Tensor.from_host(x))
    ref = conv2d_reference(x, w, b, stride=conv.stride, pads=pads, dilation=conv.dilation, groups=groups)
    assert y.shape == ref.shape == conv.output_shape(shape)
    if strategy:
        assert conv.last_plan.kernel == strategy
    assert np.max(np.abs(y.to_host() - ref)) <= tolerance(x, w, b, groups, conv.last_plan)


def test_forward_into_a_given_output_and_events(rng):
    conv = nc.Conv2d(3, 4, 3, padding=1)
    x, w = uniform(rng, (1, 3, 5, 5)), uniform(rng, (4, 3, 3, 3))
    conv.set_weights(w, np.zeros(4, np.float32))
    y = nc.Tensor.empty((1, 4, 5, 5))
    poison = y.fill(float("nan"))
    out = conv.forward(nc.Tensor.from_host(x), y, wait_for=[poison])
    assert out.int_ptr == y.int_ptr  # written in place
    conv.last_event.wait()
    assert np.max(np.abs(y.to_host() - conv2d_reference(x, w, pads=(1, 1, 1, 1)))) <= tolerance(x, w, None, 1)


def test_weights_are_copied_at_set_weights(rng):
    conv = nc.Conv2d(2, 2, 1, bias=False)
    w = uniform(rng, (2, 2, 1, 1))
    x = uniform(rng, (1, 2, 3, 3))
    conv.set_weights(w)
    first = conv(nc.Tensor.from_host(x)).to_host()
    w[...] = 0
    assert np.array_equal(conv(nc.Tensor.from_host(x)).to_host(), first)
    conv.set_weights(w)
    assert not conv(nc.Tensor.from_host(x)).to_host().any()
