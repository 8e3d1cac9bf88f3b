"""netcl.Conv3d: PyTorch's nn.Conv3d arguments over netcl's C++ layer."""
from __future__ import annotations

from typing import Tuple

from . import _netcl
from ._conv_layer import _ConvLayer


class Conv3d(_ConvLayer):
    """A 3-D convolution layer (video, volumes) on an OpenCL device, with
    ``torch.nn.Conv3d``'s arguments: input N x C x D x H x W, output N x K x O x P x Q,
    weights K x C/groups x T x R x S.

    ``kernel_size``, ``stride`` and ``dilation`` take an int or a (d, h, w) triple;
    ``padding`` an int, (d, h, w) (each axis on both sides, as PyTorch), six values
    (front, top, left, back, bottom, right: ONNX's pads [d_begin, h_begin, w_begin, d_end,
    h_end, w_end] as they are), or the strings ``'same'`` (stride 1 only, as in PyTorch)
    and ``'valid'``. ``auto_pad`` takes ONNX's names instead (``'SAME_UPPER'``,
    ``'SAME_LOWER'``, ``'VALID'``).

    Every other argument and method is netcl.Conv2d's, ``dtype='float16'`` among them. The
    selector plans the layer under its own ops ('conv3d', 'conv3d_backward_data',
    'conv3d_backward_weights'); a strict ``strategy`` that cannot take 3-D convolutions
    raises netcl.Error saying so.
    """

    _NAME = "Conv3d"
    _RANK = 3
    _BINDING = _netcl.Conv3d

    kernel_size: Tuple[int, int, int]
    stride: Tuple[int, int, int]
    dilation: Tuple[int, int, int]
