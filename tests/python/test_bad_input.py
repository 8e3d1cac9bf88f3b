"""Bad input from Python: a TypeError or netcl.Error that says what was wrong,
never a crash and never a silently wrong result."""
import numpy as np
import pytest

import netcl as nc
from reference import uniform


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.complex64, np.bool_])
def test_wrong_dtype_is_refused_not_converted(dtype):
    with pytest.raises(TypeError, match=r"expected a float32 or float16 array; got .*astype\(numpy.float32\)"):
        nc.Tensor.from_host(np.ones((1, 2, 3, 3), dtype=dtype))


def test_float16_goes_only_to_a_float16_layer(rng):
    """A float16 array makes a float16 tensor (netcl's other storage type): a float32
    layer refuses it rather than widen it unasked, and a float16 layer takes it."""
    x = nc.Tensor.from_host(uniform(rng, (1, 2, 5, 5)).astype(np.float16))
    assert x.dtype == np.float16
    w = uniform(rng, (3, 2, 3, 3))
    conv = nc.Conv2d(2, 3, 3, bias=False)
    conv.set_weights(w)
    with pytest.raises(nc.Error, match=r"a float16 tensor \[1, 2, 5, 5\] given to a float32 layer; "
                                       r"expected every tensor in float32"):
        conv(x)
    half = nc.Conv2d(2, 3, 3, bias=False, dtype=np.float16)
    half.set_weights(w)
    assert half(x).to_host().dtype == np.float16


@pytest.mark.parametrize("view", [lambda a: a.transpose(0, 1, 3, 2), lambda a: a[:, :, ::2], lambda a: a[..., 1:],
                                  lambda a: np.asfortranarray(a)])
def test_non_contiguous_is_refused(rng, view):
    with pytest.raises(TypeError, match="C-contiguous.*ascontiguousarray"):
        nc.Tensor.from_host(view(uniform(rng, (1, 2, 4, 6))))


def test_not_an_array():
    with pytest.raises(TypeError, match="expected a NumPy float32 or float16 array.*got list"):
        nc.Tensor.from_host([[1.0, 2.0]])
    with pytest.raises(TypeError, match="got str"):
        nc.Tensor.from_host("1 2 3")


@pytest.mark.parametrize("shape,message", [((), "rank 0"), ((1,) * 6, "rank 6"), ((2, 0, 3), "dimension of 0")])
def test_wrong_rank_or_size(shape, message):
    with pytest.raises(nc.Error, match=message):
        nc.Tensor.from_host(np.zeros(shape, np.float32))


def test_shape_arguments():
    with pytest.raises(TypeError, match="every dimension must be an int; got float"):
        nc.Tensor.empty((2, 2.5))
    with pytest.raises(TypeError, match="sequence of ints"):
        nc.Tensor.empty(4)
    with pytest.raises(nc.Error, match="dimension of -1"):
        nc.Tensor.empty((2, -1))
    assert nc.Tensor.empty((np.int64(2), 3)).shape == (2, 3)


def test_conv_arguments():
    with pytest.raises(TypeError, match="kernel_size must be an int; got float"):
        nc.Conv2d(1, 1, 1.5)
    with pytest.raises(TypeError, match="kernel_size must be an int; got bool"):
        nc.Conv2d(1, 1, True)
    with pytest.raises(TypeError, match="padding must be .*3 values"):
        nc.Conv2d(1, 1, 3, padding=(1, 2, 3))
    with pytest.raises(ValueError, match="'same' or 'valid'"):
        nc.Conv2d(1, 1, 3, padding="full")
    with pytest.raises(ValueError, match="strided"):
        nc.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="auto_pad must be one of"):
        nc.Conv2d(1, 1, 3, auto_pad="SAME")
    with pytest.raises(ValueError, match="ONNX allows only one"):
        nc.Conv2d(1, 1, 3, padding=1, auto_pad="SAME_UPPER")
    with pytest.raises(TypeError, match="bias must be True or False"):
        nc.Conv2d(1, 1, 3, bias=np.zeros(1))
    with pytest.raises(nc.Error, match="groups = 3 must divide in_channels = 4"):
        nc.Conv2d(4, 6, 3, groups=3)
    with pytest.raises(nc.Error, match="in_channels = 0"):
        nc.Conv2d(0, 1, 3)
    with pytest.raises(nc.Error, match="unknown convolution strategy 'WINOGRAD'; expected one of"):
        nc.Conv2d(1, 1, 3, strategy="WINOGRAD")


def test_weights(rng):
    conv = nc.Conv2d(3, 4, kernel_size=(3, 2))
    x = nc.Tensor.from_host(uniform(rng, (1, 3, 5, 5)))
    with pytest.raises(nc.Error, match="before set_weights"):
        conv(x)
    # Same element count, wrong layout: refused rather than run with R and S swapped.
    with pytest.raises(nc.Error, match=r"weights has shape \(4, 3, 2, 3\); expected \(4, 3, 3, 2\)"):
        conv.set_weights(uniform(rng, (4, 3, 2, 3)), uniform(rng, (4,)))
    with pytest.raises(TypeError, match="float32"):
        conv.set_weights(np.ones((4, 3, 3, 2)), uniform(rng, (4,)))
    with pytest.raises(nc.Error, match=r"bias has shape \(3,\); expected \(4,\)"):
        conv.set_weights(uniform(rng, (4, 3, 3, 2)), uniform(rng, (3,)))
    with pytest.raises(nc.Error, match="bias"):
        conv.set_weights(uniform(rng, (4, 3, 3, 2)))  # the layer was made with a bias


def test_forward_inputs(rng):
    conv = nc.Conv2d(3, 4, 3)
    conv.set_weights(uniform(rng, (4, 3, 3, 3)), uniform(rng, (4,)))
    with pytest.raises(TypeError, match="expected a netcl.Tensor input; got ndarray"):
        conv(uniform(rng, (1, 3, 5, 5)))
    with pytest.raises(nc.Error, match="rank 3"):
        conv(nc.Tensor.from_host(uniform(rng, (3, 5, 5))))
    with pytest.raises(nc.Error, match="channels|in_channels"):
        conv(nc.Tensor.from_host(uniform(rng, (1, 2, 5, 5))))
    with pytest.raises(nc.Error, match="output tensor is"):
        conv.forward(nc.Tensor.from_host(uniform(rng, (1, 3, 5, 5))), nc.Tensor.empty((1, 4, 5, 5)))
    other = nc.Context()
    with pytest.raises(nc.Error, match="another Context"):
        conv(nc.Tensor.from_host(uniform(rng, (1, 3, 5, 5)), context=other))
    with pytest.raises(TypeError, match="wait_for"):
        conv.forward(nc.Tensor.from_host(uniform(rng, (1, 3, 5, 5))), wait_for=[1.5])


def test_strict_override_that_cannot_run(rng):
    conv = nc.Conv2d(2, 2, kernel_size=7, strategy="CONV2D_WINOGRAD")
    conv.set_weights(uniform(rng, (2, 2, 7, 7)), uniform(rng, (2,)))
    with pytest.raises(nc.Error, match="CONV2D_WINOGRAD cannot take this shape.*5x5 filters; this layer has 7x7") as e:
        conv(nc.Tensor.from_host(uniform(rng, (1, 2, 8, 8))))
    assert isinstance(e.value, RuntimeError) and e.value.cl_status == 0
    assert conv.last_plan is None


def test_selector_misuse():
    sel = nc.KernelSelector()
    with pytest.raises(TypeError, match="predicate must be callable"):
        sel.register("conv2d", True, "IM2COL")
    with pytest.raises(nc.Error, match="unknown op 'matmul'"):
        sel.register("matmul", lambda s, p: True, "IM2COL")
    with pytest.raises(nc.Error, match="unknown convolution strategy"):
        sel.register("conv2d", lambda s, p: True, "GEMM")
    with pytest.raises(TypeError, match="priority must be an int"):
        sel.register("conv2d", lambda s, p: True, "IM2COL", priority="high")
    with pytest.raises(nc.Error, match="unknown convolution strategy 'naive'"):
        nc.set_default_conv_strategy("naive")
    assert sel.rules == []


@pytest.mark.parametrize("result", [None, 1, "yes", [True], np.array([True, False])])
def test_predicate_returning_a_non_bool(rng, result):
    sel = nc.KernelSelector()
    handle = sel.register("conv2d", lambda shapes, profile: result, "IM2COL", priority=10)
    try:
        conv = nc.Conv2d(2, 2, 3)
        conv.set_weights(uniform(rng, (2, 2, 3, 3)), uniform(rng, (2,)))
        with pytest.warns(nc.PredicateWarning, match=rf"TypeError: predicate .* returned {type(result).__name__}; expected a bool"):
            conv(nc.Tensor.from_host(uniform(rng, (1, 2, 6, 6))))
        # Passed over: the layer ran what the selector would choose without the rule.
        assert "rule" not in conv.last_plan.reason
        with pytest.warns(nc.PredicateWarning):
            decision = sel.explain((1, 2, 6, 6), conv)
        mine = [c for c in decision.candidates if c.source.startswith(f"rule #{handle} ")]
        assert len(mine) == 1 and not mine[0].accepted
        assert "predicate threw: TypeError" in mine[0].reason
    finally:
        sel.clear()


def test_device_that_does_not_exist():
    with pytest.raises(nc.Error, match="no-such-device"):
        nc.Context("no-such-device")
    with pytest.raises(TypeError, match="int_ptr"):
        nc.Context.from_pyopencl("not a context", "not a queue")
    with pytest.raises(nc.Error, match="null"):
        nc.Context.from_int_ptr(0, 0, 0)
