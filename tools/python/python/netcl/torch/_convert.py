"""netcl.torch.convert: every nn.Conv2d of a model runs in netcl."""
from __future__ import annotations

import copy
import warnings

import torch

from ._modules import Conv2d


def _fold_batchnorm(model: torch.nn.Module) -> torch.nn.Module:
    """An eval()-mode model with each BatchNorm2d that directly follows a Conv2d folded into
    that convolution's weights and bias (torch.fx traces the graph, so it finds the pairs
    that attributes alone do not show, e.g. ResNet's conv1/bn1)."""
    from torch.fx.experimental.optimization import fuse
    return fuse(model, inplace=False)


def convert(model: torch.nn.Module, *, inplace: bool = False, fold_batchnorm: bool = True,
            **netcl_options) -> torch.nn.Module:
    """A model whose every ``nn.Conv2d`` is a ``netcl.torch.Conv2d`` sharing its parameters
    (a copy unless ``inplace``). In ``eval()`` mode, with ``fold_batchnorm``, a BatchNorm2d
    right after a convolution is folded into it first (the result is a torch.fx GraphModule;
    a model fx cannot trace is converted unfolded, with a warning saying why). ReLU and the
    rest of the model stay in torch. ``netcl_options`` (strategy, variant, max_error_factor,
    context) go to every layer."""
    if fold_batchnorm and not model.training:
        try:
            model = _fold_batchnorm(model)
            inplace = True  # fuse() already made a copy
        except Exception as e:  # fx cannot trace data-dependent control flow, among others
            warnings.warn(f"netcl.torch.convert: BatchNorm2d not folded ({type(e).__name__}: {e}); "
                          "the model is converted as it is", stacklevel=2)
    if not inplace:
        model = copy.deepcopy(model)
    if type(model) is torch.nn.Conv2d:
        return Conv2d.from_torch(model, name="(model)", **netcl_options)
    for path, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if type(child) is torch.nn.Conv2d:  # subclasses may change forward: left alone
                name = f"{path}.{child_name}" if path else child_name
                setattr(module, child_name, Conv2d.from_torch(child, name=name, **netcl_options))
    return model
