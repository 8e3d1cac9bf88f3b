"""fp64 NumPy convolutions (2-D and 3-D), their gradients by definition, and the
tolerances netcl's results are held to (float32, and float16 storage)."""
from __future__ import annotations

import numpy as np

# Per term of the reduction, as the C++ suites use (tests/support/ReferenceConv:
# kConvTolerancePerTerm): about 16 float32 roundings, for data in [-1, 1].
PER_TERM = 1e-6


def conv2d_reference(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """Direct convolution in float64. pads = (top, left, bottom, right)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    top, left, bottom, right = pads
    xp = np.zeros((n, c, h + top + bottom, wd + left + right))
    xp[:, :, top:top + h, left:left + wd] = x
    p = (h + top + bottom - dilation[0] * (r - 1) - 1) // stride[0] + 1
    q = (wd + left + right - dilation[1] * (s - 1) - 1) // stride[1] + 1
    y = np.zeros((n, k, p, q))
    kg = k // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * kg:(g + 1) * kg]
        for i in range(r):
            for j in range(s):
                hi, wj = i * dilation[0], j * dilation[1]
                patch = xs[:, :, hi:hi + stride[0] * (p - 1) + 1:stride[0], wj:wj + stride[1] * (q - 1) + 1:stride[1]]
                y[:, g * kg:(g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch, ws[:, :, i, j])
    if b is not None:
        y += np.asarray(b, dtype=np.float64)[None, :, None, None]
    return y


def conv3d_reference(x, w, b=None, stride=(1, 1, 1), pads=(0, 0, 0, 0, 0, 0), dilation=(1, 1, 1), groups=1):
    """Direct 3-D convolution in float64. pads = (front, top, left, back, bottom, right)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, c, d, h, wd = x.shape
    k, cg, t, r, s = w.shape
    front, top, left, back, bottom, right = pads
    xp = np.zeros((n, c, d + front + back, h + top + bottom, wd + left + right))
    xp[:, :, front:front + d, top:top + h, left:left + wd] = x
    o = (d + front + back - dilation[0] * (t - 1) - 1) // stride[0] + 1
    p = (h + top + bottom - dilation[1] * (r - 1) - 1) // stride[1] + 1
    q = (wd + left + right - dilation[2] * (s - 1) - 1) // stride[2] + 1
    y = np.zeros((n, k, o, p, q))
    kg = k // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * kg:(g + 1) * kg]
        for a in range(t):
            for i in range(r):
                for j in range(s):
                    da, hi, wj = a * dilation[0], i * dilation[1], j * dilation[2]
                    patch = xs[:, :, da:da + stride[0] * (o - 1) + 1:stride[0], hi:hi + stride[1] * (p - 1) + 1:stride[1],
                               wj:wj + stride[2] * (q - 1) + 1:stride[2]]
                    y[:, g * kg:(g + 1) * kg] += np.einsum("ncdhw,kc->nkdhw", patch, ws[:, :, a, i, j])
    if b is not None:
        y += np.asarray(b, dtype=np.float64)[None, :, None, None, None]
    return y


def tolerance(x, w, b, groups: int, plan=None) -> float:
    """Absolute bound: per term of the reduction C/groups*R*S (C/groups*T*R*S for
    3-D weights; +1 for the bias),
    scaled by the largest product the data can make (1 for data in [-1, 1]),
    times the plan's error_factor (what the C++ implementation declares; no
    plan: a direct sum, 1)."""
    k, cg, *kernel = w.shape
    terms = cg * int(np.prod(kernel)) + (0 if b is None else 1)
    scale = max(1.0, float(np.max(np.abs(x))) * float(np.max(np.abs(w))),
                0.0 if b is None else float(np.max(np.abs(b))))
    factor = 1.0 if plan is None else plan.error_factor
    return PER_TERM * factor * terms * scale


# Half's unit roundoff: a float16 output is its float32 result rounded to the
# nearest half, which moves it by at most 2^-11 of its magnitude.
HALF_ROUNDING = 2.0 ** -11


def half_tolerance(bound: float, expected) -> float:
    """The bound for a float16 result: ``bound``, float32's for the exact half inputs
    (tolerance() or a gradient's), plus the output's own rounding to half, 2^-11 of the
    largest expected magnitude."""
    return bound + HALF_ROUNDING * float(np.max(np.abs(expected)))


def unit_responses(shape, f):
    """f(e_i) for every unit vector e_i of `shape`, stacked on a leading axis. For f
    linear, tensordot(unit_responses(shape, f), dy, axes=dy.ndim) is f's adjoint applied
    to dy: a gradient from its definition, with no second reference to trust."""
    out = []
    for i in range(int(np.prod(shape))):
        e = np.zeros(int(np.prod(shape)))
        e[i] = 1.0
        out.append(f(e.reshape(shape)))
    return np.stack(out)


def uniform(rng, shape):
    """Data in [-1, 1), never zeros in bulk, as the C++ suites use."""
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
