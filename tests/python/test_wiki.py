"""The wiki's two examples (netcl-wiki-winograd.md, "Code Example"), verbatim
between the marked lines; around them only the input is made and the results
are checked."""
import re

import numpy as np

import netcl as nc
from reference import conv2d_reference, tolerance, uniform


def make_conv(rng, c=16, k=32):
    conv = nc.Conv2d(c, k, kernel_size=3, padding=1)
    w, b = uniform(rng, (k, c, 3, 3)), uniform(rng, (k,))
    conv.set_weights(w, b)
    return conv, w, b


def test_force_winograd_with_a_rule(rng):
    numpy_x = uniform(rng, (1, 16, 24, 24))  # numel 9216, a multiple of 4
    conv, w, b = make_conv(rng)

    # ---- wiki, verbatim ----
    from netcl.core.kernel_selector import KernelSelector

    selector = KernelSelector()
    # Force Winograd for all 3x3 convs.
    def always_winograd(shapes, profile):
        return shapes[0].numel() % 4 == 0

    selector.register("conv2d", always_winograd, "CONV2D_WINOGRAD")
    # ---- end of the wiki ----

    try:
        # The conv was made before the rule and apart from the selector: it still obeys.
        y = conv(nc.Tensor.from_host(numpy_x)).to_host()
        assert conv.last_plan.kernel == "CONV2D_WINOGRAD"
        assert "rule" in conv.last_plan.reason

        naive = nc.Conv2d(16, 32, kernel_size=3, padding=1, strategy="CONV2D_NAIVE")
        naive.set_weights(w, b)
        y_naive = naive(nc.Tensor.from_host(numpy_x)).to_host()
        assert naive.last_plan.kernel == "CONV2D_NAIVE"
        tol = tolerance(numpy_x, w, b, 1, conv.last_plan)
        assert np.max(np.abs(y - y_naive)) <= 2 * tol
        assert np.max(np.abs(y - conv2d_reference(numpy_x, w, b, pads=(1, 1, 1, 1)))) <= tol

        # numel 3*5*7 = 105: the predicate does not hold, so the rule does not decide.
        odd = nc.Conv2d(3, 8, kernel_size=3, padding=1)
        odd.set_weights(uniform(rng, (8, 3, 3, 3)), uniform(rng, (8,)))
        odd(nc.Tensor.from_host(uniform(rng, (1, 3, 5, 7))))
        assert "rule" not in odd.last_plan.reason
        decision = selector.explain((1, 3, 5, 7), odd)
        rejected = [c for c in decision.candidates if c.source.startswith("rule")]
        assert [c.reason for c in rejected] == ["predicate does not hold"]
    finally:
        assert selector.clear() == 1


class TimedConv:
    """The wiki's `conv`, with each call's output and plan kept for the checks."""

    def __init__(self, conv):
        self.conv, self.calls = conv, []

    def __call__(self, x):
        y = self.conv(x)
        self.calls.append((y.to_host(), self.conv.last_plan))
        return y


def test_speed_up_line(rng, capsys):
    numpy_x = uniform(rng, (1, 16, 32, 32))
    layer, w, b = make_conv(rng)
    conv = TimedConv(layer)

    # ---- wiki, verbatim ----
    import time
    import netcl as nc

    x = nc.Tensor.from_host(numpy_x)

    # Naive
    nc.set_default_conv_strategy("CONV2D_NAIVE")
    t0 = time.time(); y = conv(x); naive_time = time.time() - t0

    # Winograd
    nc.set_default_conv_strategy("CONV2D_WINOGRAD")
    t0 = time.time(); y = conv(x); winograd_time = time.time() - t0

    print(f"Winograd is {naive_time / winograd_time:.1f}x faster")
    # ---- end of the wiki ----

    nc.clear_default_conv_strategy()
    (y_naive, naive_plan), (y_winograd, winograd_plan) = conv.calls
    # The same layer re-plans when the default strategy changes between calls.
    assert naive_plan.kernel == "CONV2D_NAIVE"
    assert winograd_plan.kernel == "CONV2D_WINOGRAD"
    assert np.array_equal(y.to_host(), y_winograd)
    tol = tolerance(numpy_x, w, b, 1, winograd_plan)
    assert np.max(np.abs(y_winograd - y_naive)) <= 2 * tol
    assert np.max(np.abs(y_naive - conv2d_reference(numpy_x, w, b, pads=(1, 1, 1, 1)))) <= tolerance(
        numpy_x, w, b, 1, naive_plan)

    printed = capsys.readouterr().out
    with capsys.disabled():
        print("\n" + printed.strip())
    assert re.fullmatch(r"Winograd is \d+\.\dx faster\n", printed)
