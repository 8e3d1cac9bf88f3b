"""netcl.Conv2d: PyTorch's nn.Conv2d arguments over netcl's C++ layer."""
from __future__ import annotations

from typing import Tuple

from . import _netcl
from ._conv_layer import _ConvLayer


class Conv2d(_ConvLayer):
    """A 2-D convolution layer on an OpenCL device, with ``torch.nn.Conv2d``'s arguments.

    ``kernel_size``, ``stride`` and ``dilation`` take an int or an (h, w) pair; ``padding``
    an int, (h, w), (top, left, bottom, right) (ONNX's pads: begins, then ends), or the
    strings ``'same'`` (stride 1 only, as in PyTorch) and ``'valid'``. ``auto_pad`` takes
    ONNX's names instead (``'SAME_UPPER'``, ``'SAME_LOWER'``, ``'VALID'``).

    ``strategy`` ('CONV2D_NAIVE', 'IM2COL', 'CONV2D_WINOGRAD') and ``variant`` are a strict
    override: that strategy runs, or forward raises netcl.Error saying why it cannot. Without
    them the KernelSelector decides (its rules, then the default strategy, then built-ins).
    ``max_error_factor`` bounds the error the selector accepts, in multiples of a direct
    sum's (``plan.error_factor``: 16 is "no tile worse than F(4x4,3x3)").

    Post-ops, applied as each output is written (no pass of their own):
    ``y = activation(conv(x) + bias [+ residual])``. ``activation``: None, ``'relu'``,
    ``'relu6'``, ``'leaky_relu'`` (slope ``negative_slope`` below 0) or ``'clamp'`` (to
    ``clamp=(min, max)``, as ``torch.nn.Hardtanh``). ``residual=True`` adds a residual:
    the ``residual`` tensor given to forward, or y's own contents on entry.

    ``dtype``: how x, y, the weights, bias and gradients are stored, ``'float32'`` (the
    default) or ``'float16'`` (``numpy.float16``, any spelling ``numpy.dtype`` takes);
    arithmetic is float32 either way. A float16 layer takes float16 tensors
    (``Tensor.from_host`` of a float16 array, or ``dtype=``) and makes float16 ones, whose
    ``to_host()`` is a float16 array. A tensor of the other type raises netcl.Error, as
    PyTorch refuses an input whose type is not the weights': netcl does not convert
    activations behind your back. ``set_weights`` takes float32 or float16 arrays and rounds
    them to the layer's dtype.
    """

    _NAME = "Conv2d"
    _RANK = 2
    _BINDING = _netcl.Conv2d

    kernel_size: Tuple[int, int]
    stride: Tuple[int, int]
    dilation: Tuple[int, int]
