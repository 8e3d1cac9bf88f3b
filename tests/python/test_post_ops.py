"""Post-ops from Python: activation and residual applied as netcl writes y,
checked against the fp64 reference with the same post-ops applied in NumPy."""
import numpy as np
import pytest

import netcl as nc
from reference import conv2d_reference, tolerance, uniform


def _activate(y, activation, negative_slope=0.01, clamp=None):
    if activation == "relu":
        return np.maximum(y, 0.0)
    if activation == "relu6":
        return np.clip(y, 0.0, 6.0)
    if activation == "clamp":
        return np.clip(y, *clamp)
    if activation == "leaky_relu":
        return np.where(y < 0, negative_slope * y, y)
    return y


CASES = [
    dict(activation="relu"),
    dict(activation="relu6", residual=True),
    dict(activation="leaky_relu", negative_slope=0.2, residual=True),
    dict(activation="clamp", clamp=(-0.3, 0.4)),
    dict(residual=True),
]


# A residual either apart from y or y itself (oneDNN's sum post-op).
PARAMS = [(post, in_place) for post in CASES for in_place in ((False, True) if post.get("residual") else (False,))]


@pytest.mark.parametrize("post,in_place", PARAMS,
                         ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict)
                         else ("in-y" if v else "apart"))
def test_post_ops_match_the_reference(rng, post, in_place):
    x, w, b = uniform(rng, (2, 5, 9, 11)), uniform(rng, (6, 5, 3, 3)), uniform(rng, (6,))
    conv = nc.Conv2d(5, 6, 3, padding=(1, 0, 1, 2), **post)
    conv.set_weights(w, b)
    conv_only = conv2d_reference(x, w, b, pads=(1, 0, 1, 2))
    r = uniform(rng, conv_only.shape)
    xt = nc.Tensor.from_host(x)
    if post.get("residual"):
        if in_place:
            y = nc.Tensor.from_host(r)
            conv.forward(xt, y, residual=y)
        else:
            rt = nc.Tensor.from_host(r)
            y = conv.forward(xt, nc.Tensor.empty(conv_only.shape), residual=rt)
            assert np.array_equal(rt.to_host(), r), "the residual was written"
        expected = conv_only + r
    else:
        y = conv.forward(xt)
        expected = conv_only
    expected = _activate(expected, post.get("activation"), post.get("negative_slope", 0.01), post.get("clamp"))
    got = y.to_host()
    assert np.all(np.isfinite(got))
    assert np.max(np.abs(got - expected)) <= tolerance(x, w, b, 1, conv.last_plan)


def test_post_ops_bad_arguments():
    with pytest.raises(ValueError, match="activation must be None or one of"):
        nc.Conv2d(3, 4, 3, activation="gelu")
    with pytest.raises(ValueError, match="clamp=\\(min, max\\) goes with activation='clamp'"):
        nc.Conv2d(3, 4, 3, activation="clamp")
    with pytest.raises(nc.Error, match="lower <= upper"):
        nc.Conv2d(3, 4, 3, activation="clamp", clamp=(1.0, -1.0))
    conv = nc.Conv2d(3, 4, 3, activation="relu")
    conv.set_weights(np.zeros((4, 3, 3, 3), np.float32), np.zeros(4, np.float32))
    x = nc.Tensor.from_host(np.zeros((1, 3, 5, 5), np.float32))
    with pytest.raises(nc.Error, match="without the sum post-op"):
        conv.forward(x, nc.Tensor.empty((1, 4, 3, 3)), residual=nc.Tensor.empty((1, 4, 3, 3)))
    summing = nc.Conv2d(3, 4, 3, residual=True)
    summing.set_weights(np.zeros((4, 3, 3, 3), np.float32), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="adds a residual"):
        summing.forward(x)
    assert "activation='relu'" in repr(conv) and "residual=True" in repr(summing)
