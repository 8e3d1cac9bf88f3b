"""Accuracy in the choice: every plan's error_factor, and Conv2d's
max_error_factor keeping the selector off tiles that may err more."""
import numpy as np
import pytest

import netcl as nc
from reference import conv2d_reference, tolerance, uniform


def run(rng, **options):
    x, w, b = uniform(rng, (2, 24, 19, 21)), uniform(rng, (40, 24, 5, 5)), uniform(rng, (40,))
    conv = nc.Conv2d(24, 40, 5, padding=2, **options)
    conv.set_weights(w, b)
    y = conv(nc.Tensor.from_host(x)).to_host()
    error = float(np.max(np.abs(y - conv2d_reference(x, w, b, pads=(2, 2, 2, 2)))))
    return conv.last_plan, error, tolerance(x, w, b, 1, conv.last_plan)


def test_a_5x5_layer_takes_winograd_and_says_how_much_it_may_err(rng):
    plan, error, tol = run(rng)
    assert plan.kernel == "CONV2D_WINOGRAD" and plan.variant == "wino-f4r5-gemm", str(plan)
    assert plan.error_factor == 16
    assert error <= tol


def test_a_bound_below_the_tile_keeps_the_selector_off_it(rng):
    plan, error, tol = run(rng, max_error_factor=4)
    assert plan.kernel != "CONV2D_WINOGRAD", str(plan)
    assert plan.error_factor == 1
    assert error <= tol


def test_a_strict_variant_names_its_factor(rng):
    plan, error, tol = run(rng, strategy="CONV2D_WINOGRAD", variant="wino-f9r5-gemm")
    assert plan.variant == "wino-f9r5-gemm" and plan.error_factor == 8
    assert error <= tol


def test_the_bound_must_be_a_number():
    with pytest.raises(TypeError):
        nc.Conv2d(4, 4, 3, max_error_factor="tight")
