"""ONNX's own 2-D (and 1-D) Conv backend test cases through every strategy that takes
each one; test_conv3d.py runs the 3-D ones."""
import numpy as np
import pytest

import netcl as nc
import onnx_cases
from reference import tolerance

ALL_CASES, PASSED_OVER = onnx_cases.load()
CASES = [c for c in ALL_CASES if c.spatial_rank == 2]
STRATEGIES = ["CONV2D_NAIVE", "IM2COL", "CONV2D_WINOGRAD"]


def takes(strategy, case):
    """Which strategies can run a case, by the design card: naive and im2col any
    layer; Winograd 3x3 filters at stride 1 and dilation 1."""
    if strategy != "CONV2D_WINOGRAD":
        return True
    k = case.kwargs
    return k["kernel_size"] == (3, 3) and k["stride"] == (1, 1) and k["dilation"] == (1, 1)


def layer(case, strategy):
    n, c = case.x.shape[:2]
    conv = nc.Conv2d(c, case.w.shape[0], strategy=strategy, **case.kwargs)
    conv.set_weights(case.w, case.b)
    return conv


def test_the_cases_are_there():
    names = {c.name for c in CASES}
    assert onnx_cases.REQUIRED <= names, f"missing ONNX Conv cases: {sorted(onnx_cases.REQUIRED - names)}"
    # Every float32 Conv of rank 1 to 3 is taken: 2-D here, 3-D in test_conv3d.py.
    assert not PASSED_OVER, PASSED_OVER
    counts = {s: sum(takes(s, c) for c in CASES) for s in STRATEGIES}
    print(f"\nONNX Conv cases: {len(CASES)} run ({sum(c.lifted_1d for c in CASES)} of them Conv1d as height 1), "
          f"{len(ALL_CASES) - len(CASES)} 3-D left to test_conv3d.py; per strategy: {counts}")
    assert counts["CONV2D_WINOGRAD"] >= 4  # the 3x3 stride-1 cases: padded, unpadded, depthwise, operator


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case, strategy):
    conv = layer(case, strategy)
    if not takes(strategy, case):
        # The strict override says why it cannot, and nothing runs.
        with pytest.raises(nc.Error, match=f"{strategy}.*cannot take"):
            conv.plan_for(case.x.shape)
        return
    y = conv(nc.Tensor.from_host(case.x)).to_host()
    plan = conv.last_plan
    assert plan.kernel == strategy
    assert y.shape == case.expected.shape
    error = float(np.max(np.abs(y - case.expected)))
    assert error <= tolerance(case.x, case.w, case.b, case.kwargs["groups"], plan), (plan.variant, error)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_as_the_selector_plans_it(case):
    conv = layer(case, None)
    y = conv(nc.Tensor.from_host(case.x)).to_host()
    assert np.max(np.abs(y - case.expected)) <= tolerance(case.x, case.w, case.b, case.kwargs["groups"],
                                                          conv.last_plan)
