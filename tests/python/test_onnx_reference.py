"""Random layers, checked against onnx.reference (ONNX's own Python evaluator) as
an oracle independent of netcl and of this suite's reference.py."""
import numpy as np
import onnx
import pytest
from onnx.reference import ReferenceEvaluator

import netcl as nc
import onnx_cases
from reference import tolerance, uniform

AUTO_PADS = ["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]


def random_layer(rng):
    """A valid random Conv: kernel, stride, dilation, asymmetric pads or auto_pad, groups."""
    while True:
        groups = int(rng.choice([1, 1, 2, 3]))
        c, k = groups * int(rng.integers(1, 5)), groups * int(rng.integers(1, 5))
        r, s = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        if rng.random() < 0.35:  # the Winograd shape now and then
            r = s = 3
            stride = dilation = (1, 1)
        h, w = int(rng.integers(1, 14)), int(rng.integers(1, 14))
        auto_pad = str(rng.choice(AUTO_PADS))
        pads = [int(p) for p in rng.integers(0, 3, size=4)] if auto_pad == "NOTSET" else [0, 0, 0, 0]
        p = (h + pads[0] + pads[2] - dilation[0] * (r - 1) - 1) // stride[0] + 1
        q = (w + pads[1] + pads[3] - dilation[1] * (s - 1) - 1) // stride[1] + 1
        if auto_pad == "VALID":
            p = (h - dilation[0] * (r - 1) - 1) // stride[0] + 1
            q = (w - dilation[1] * (s - 1) - 1) // stride[1] + 1
        if p >= 1 and q >= 1:
            return dict(n=int(rng.integers(1, 3)), c=c, k=k, h=h, w=w, kernel=(r, s), stride=stride,
                        dilation=dilation, pads=pads, auto_pad=auto_pad, groups=groups, bias=bool(rng.random() < 0.7))




SEEDS = list(range(24))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_layer_against_onnx_reference(seed):
    rng = np.random.default_rng(1000 + seed)
    L = random_layer(rng)
    x = uniform(rng, (L["n"], L["c"], L["h"], L["w"]))
    w = uniform(rng, (L["k"], L["c"] // L["groups"], *L["kernel"]))
    b = uniform(rng, (L["k"],)) if L["bias"] else None
    feeds = {"X": x, "W": w, **({"B": b} if b is not None else {})}
    expected = ReferenceEvaluator(onnx_cases.conv_model(L)).run(None, feeds)[0]

    kwargs = dict(kernel_size=L["kernel"], stride=L["stride"], dilation=L["dilation"], groups=L["groups"],
                  bias=L["bias"])
    if L["auto_pad"] == "NOTSET":
        kwargs["padding"] = tuple(L["pads"])  # (top, left, bottom, right) = ONNX's pads as listed
    else:
        kwargs["auto_pad"] = L["auto_pad"]
    ran = []
    for strategy in [None, "CONV2D_NAIVE", "IM2COL", "CONV2D_WINOGRAD"]:
        conv = nc.Conv2d(L["c"], L["k"], strategy=strategy, **kwargs)
        conv.set_weights(w, b)
        if strategy == "CONV2D_WINOGRAD" and (L["kernel"] != (3, 3) or L["stride"] != (1, 1) or L["dilation"] != (1, 1)):
            with pytest.raises(nc.Error, match="cannot take"):
                conv.plan_for(x.shape)
            continue
        y = conv(nc.Tensor.from_host(x)).to_host()
        assert y.shape == expected.shape, (L, strategy)
        error = float(np.max(np.abs(y - expected)))
        assert error <= tolerance(x, w, b, L["groups"], conv.last_plan), (L, strategy, error)
        ran.append(conv.last_plan.kernel)
    assert len(ran) >= 3
