"""netcl: OpenCL 2-D convolution (direct, im2col + GEMM, Winograd) and 3-D convolution
(direct, implicit GEMM, Winograd), chosen by a kernel selector, with NumPy and PyOpenCL interop.
Tensors and layers store float32 or float16 (``dtype=``); arithmetic is float32 either way.

    import numpy as np, netcl as nc
    conv = nc.Conv2d(3, 16, kernel_size=3, padding=1)
    conv.set_weights(np.random.rand(16, 3, 3, 3).astype(np.float32))
    y = conv(nc.Tensor.from_host(np.random.rand(1, 3, 32, 32).astype(np.float32))).to_host()
"""
import atexit as _atexit

from . import _netcl
from ._conv2d import Conv2d
from ._conv3d import Conv3d
from ._netcl import (
    Candidate,
    Context,
    ConvShapes,
    Decision,
    DeviceProfile,
    Error,
    Event,
    Plan,
    PredicateWarning,
    Tensor,
    clear_default_conv_strategy,
    default_context,
    default_conv_strategy,
    set_default_context,
    set_default_conv_strategy,
    strategies,
    version,
)
from ._shape import Shape
from .core.kernel_selector import KernelSelector

__version__ = version()

# Python rules leave the C++ selector before the interpreter goes, so C++ never
# calls (or drops) a Python predicate after finalization.
_atexit.register(_netcl._shutdown)

__all__ = [
    "Candidate", "Context", "Conv2d", "Conv3d", "ConvShapes", "Decision", "DeviceProfile", "Error", "Event",
    "KernelSelector", "Plan", "PredicateWarning", "Shape", "Tensor", "clear_default_conv_strategy",
    "default_context", "default_conv_strategy", "set_default_context", "set_default_conv_strategy",
    "strategies", "version",
]
