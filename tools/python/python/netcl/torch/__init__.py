"""netcl inside PyTorch.

    import netcl.torch
    layer = netcl.torch.Conv2d(16, 32, 3, padding=1)      # an nn.Conv2d; forward and backward in netcl
    model = netcl.torch.convert(torchvision.models.resnet50().eval())

Float32 CPU tensors. On a CPU OpenCL device (PoCL) with PyOpenCL installed, netcl
reads and writes the tensors' own memory (no copies); elsewhere tensors are
copied to and from the device (``Bridge.copies_tensors``).
"""
from ._bridge import Bridge, default_bridge
from ._convert import convert
from ._function import Conv2dFunction
from ._modules import Conv2d

__all__ = ["Bridge", "Conv2d", "Conv2dFunction", "convert", "default_bridge"]
