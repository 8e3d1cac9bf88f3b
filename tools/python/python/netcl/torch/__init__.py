"""netcl inside PyTorch.

    import netcl.torch
    layer = netcl.torch.Conv2d(16, 32, 3, padding=1)      # an nn.Conv2d; forward and backward in netcl
    model = netcl.torch.convert(torchvision.models.resnet50().eval())
    video = netcl.torch.convert(torchvision.models.video.r3d_18().eval())   # its nn.Conv3d too

Float32 or float16 CPU tensors (a layer's input, weights and bias in one of them; the
arithmetic float32 either way). On a CPU OpenCL device (PoCL) with PyOpenCL installed, netcl
reads and writes the tensors' own memory (no copies); elsewhere tensors are
copied to and from the device (``Bridge.copies_tensors``).
"""
from ._bridge import Bridge, default_bridge
from ._convert import convert
from ._function import Conv2dFunction, ConvFunction
from ._modules import Conv2d, Conv3d

__all__ = ["Bridge", "Conv2d", "Conv2dFunction", "Conv3d", "ConvFunction", "convert", "default_bridge"]
