"""The gradients from Python: Conv2d.backward_data and backward_weights with
NumPy-made tensors, checked against the gradient's definition on the fp64
forward reference (dL/dx[i] = <conv(e_i, w), dy>, dL/dw[j] = <conv(x, e_j),
dy>, dL/db = dy summed over N, H, W), so no second reference is needed."""
import numpy as np
import pytest

import netcl as nc
from reference import PER_TERM, conv2d_reference, uniform, unit_responses

# (N, C, H, W, K, kernel, stride, pads (top, left, bottom, right), dilation, groups, bias)
LAYERS = [
    (2, 3, 5, 6, 4, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    (1, 4, 7, 5, 6, (3, 2), (2, 1), (0, 1, 2, 0), (1, 1), 2, False),
    (2, 2, 6, 6, 2, (2, 2), (1, 2), (1, 0, 0, 1), (2, 1), 2, True),  # depthwise, dilated
]


def _layer(spec):
    n, c, h, w, k, kernel, stride, pads, dilation, groups, bias = spec
    layer = nc.Conv2d(c, k, kernel, stride=stride, padding=pads, dilation=dilation, groups=groups, bias=bias,
                      strategy="CONV2D_NAIVE")
    return layer, (n, c, h, w), dict(stride=stride, pads=pads, dilation=dilation, groups=groups)


@pytest.mark.parametrize("spec", LAYERS, ids=lambda s: f"C{s[1]}K{s[4]}s{s[6][0]}{s[6][1]}g{s[9]}")
def test_gradients_match_their_definition(rng, spec):
    layer, x_shape, params = _layer(spec)
    x = uniform(rng, x_shape)
    w = uniform(rng, layer.weight_shape)
    b = uniform(rng, (layer.out_channels,)) if layer.bias else None
    layer.set_weights(w, b)
    y_shape = layer.output_shape(x_shape)
    dy = uniform(rng, y_shape)

    dx = layer.backward_data(nc.Tensor.from_host(dy), x_shape).to_host()
    assert layer.last_plan.variant == "naive"
    expected_dx = np.tensordot(unit_responses(x_shape, lambda e: conv2d_reference(e, w, **params)), dy,
                               axes=dy.ndim).reshape(x_shape)
    k_per_group = layer.out_channels // params["groups"]
    assert dx.shape == x_shape
    assert np.max(np.abs(dx - expected_dx)) <= PER_TERM * k_per_group * np.prod(layer.kernel_size)

    dw, db = layer.backward_weights(nc.Tensor.from_host(x), nc.Tensor.from_host(dy))
    expected_dw = np.tensordot(unit_responses(layer.weight_shape, lambda e: conv2d_reference(x, e, **params)), dy,
                               axes=dy.ndim).reshape(layer.weight_shape)
    terms = y_shape[0] * y_shape[2] * y_shape[3]
    assert np.max(np.abs(dw.to_host() - expected_dw)) <= PER_TERM * terms
    if layer.bias:
        assert np.max(np.abs(db.to_host() - dy.astype(np.float64).sum(axis=(0, 2, 3)))) <= PER_TERM * terms
    else:
        assert db is None

    # beta = 1 accumulates into the caller's tensors (micro-batches).
    dw2, db2 = layer.backward_weights(nc.Tensor.from_host(x), nc.Tensor.from_host(dy), dw=dw, db=db, beta=1.0)
    assert dw2.to_host() == pytest.approx(2 * expected_dw, abs=2 * PER_TERM * terms)


def test_gradient_plans_and_errors(rng):
    layer, x_shape, _ = _layer(LAYERS[0])
    assert layer.plan_for(x_shape, "backward_data").variant == "naive"
    assert layer.plan_for(x_shape, "bwd_weights").kernel == "CONV2D_NAIVE"
    assert layer.workspace_bytes(x_shape, "backward_weights") == 0
    with pytest.raises(nc.Error, match="unknown convolution direction 'sideways'"):
        layer.plan_for(x_shape, "sideways")
    shapes = layer.shapes_for(x_shape)
    assert shapes.direction == "forward" and shapes.op == "conv2d"
    shapes.direction = "backward_weights"
    assert shapes.op == "conv2d_backward_weights"
    dy = nc.Tensor.from_host(uniform(rng, layer.output_shape(x_shape)))
    with pytest.raises(nc.Error, match="before set_weights"):
        layer.backward_data(dy, x_shape)
    layer.set_weights(uniform(rng, layer.weight_shape), uniform(rng, (layer.out_channels,)))
    with pytest.raises(nc.Error, match="give dx or input_shape"):
        layer.backward_data(dy)
    with pytest.raises(nc.Error, match="dy tensor is"):
        layer.backward_data(nc.Tensor.from_host(uniform(rng, (2, 4, 5, 5))), x_shape)
    x = nc.Tensor.from_host(uniform(rng, x_shape))
    with pytest.raises(nc.Error, match="dw tensor is"):
        layer.backward_weights(x, dy, dw=nc.Tensor.empty((4, 3, 3, 2)))
    with pytest.raises(nc.Error, match="beta = 1.0+ accumulates into dw and db"):
        layer.backward_weights(x, dy, beta=1.0)
    with pytest.raises(TypeError, match="dy must be a netcl.Tensor"):
        layer.backward_weights(x, np.zeros(3))
