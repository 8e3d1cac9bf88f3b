"""netcl.torch.convert: every nn.Conv2d of a model runs in netcl."""
from __future__ import annotations

import copy
import operator
import warnings
from typing import Dict, Optional

import torch
import torch.nn.functional as F

from ._modules import Conv2d


def _fold_batchnorm(model: torch.nn.Module) -> torch.nn.Module:
    """An eval()-mode model with each BatchNorm2d that directly follows a Conv2d folded into
    that convolution's weights and bias (torch.fx traces the graph, so it finds the pairs
    that attributes alone do not show, e.g. ResNet's conv1/bn1)."""
    from torch.fx.experimental.optimization import fuse
    return fuse(model, inplace=False)


def _activation_of(node: torch.fx.Node, modules: Dict[str, torch.nn.Module]) -> Optional[dict]:
    """netcl's post-op for an activation node, or None where netcl has none for it."""
    if node.op == "call_module":
        m = modules.get(node.target)
        if type(m) is torch.nn.ReLU:
            return {"activation": "relu"}
        if type(m) is torch.nn.ReLU6:
            return {"activation": "relu6"}
        if type(m) is torch.nn.LeakyReLU:
            return {"activation": "leaky_relu", "negative_slope": float(m.negative_slope)}
        if type(m) is torch.nn.Hardtanh:
            return {"activation": "clamp", "clamp": (float(m.min_val), float(m.max_val))}
    if node.op == "call_function" and node.target in (F.relu, torch.relu) and len(node.args) == 1:
        return {"activation": "relu"}
    return None


def _fuse_post_ops(gm: torch.fx.GraphModule, netcl_options: dict) -> int:
    """Each Conv2d (BatchNorm already folded) followed by a residual add and/or an activation
    netcl can apply becomes one netcl.torch.Conv2d with those post-ops, placed where the last
    of them was (the residual may be computed after the convolution, e.g. ResNet's
    downsample). Only where the convolution's output feeds nothing else, and the module is
    called once. Returns how many were fused."""
    modules = dict(gm.named_modules())
    calls: Dict[str, int] = {}
    for node in gm.graph.nodes:
        if node.op == "call_module":
            calls[node.target] = calls.get(node.target, 0) + 1
    fused = 0
    for node in list(gm.graph.nodes):
        conv = modules.get(node.target) if node.op == "call_module" else None
        if type(conv) is not torch.nn.Conv2d or calls[node.target] != 1 or len(node.users) != 1 or len(node.args) != 1:
            continue
        chain = [node]
        residual = None
        user = next(iter(node.users))
        if (user.op == "call_function" and user.target in (operator.add, torch.add) and len(user.args) == 2
                and not user.kwargs):
            other = user.args[1] if user.args[0] is node else user.args[0]
            if isinstance(other, torch.fx.Node) and other is not node:
                residual = other
                chain.append(user)
        post: dict = {}
        last = chain[-1]
        if len(last.users) == 1:
            act = _activation_of(next(iter(last.users)), modules)
            if act is not None:
                post.update(act)
                chain.append(next(iter(last.users)))
        if residual is None and not post:
            continue
        post["residual"] = residual is not None
        name = node.target
        parent, _, child = name.rpartition(".")
        fused_conv = Conv2d.from_torch(conv, name=name, **netcl_options, **post)
        setattr(gm.get_submodule(parent) if parent else gm, child, fused_conv)
        with gm.graph.inserting_before(chain[-1]):
            args = (node.args[0],) + ((residual,) if residual is not None else ())
            replacement = gm.graph.call_module(name, args)
        chain[-1].replace_all_uses_with(replacement)
        for n in reversed(chain):
            gm.graph.erase_node(n)
        fused += 1
    gm.graph.lint()
    gm.recompile()
    return fused


def convert(model: torch.nn.Module, *, inplace: bool = False, fold_batchnorm: bool = True,
            fuse_post_ops: bool = True, **netcl_options) -> torch.nn.Module:
    """A model whose every ``nn.Conv2d`` is a ``netcl.torch.Conv2d`` sharing its parameters
    (a copy unless ``inplace``). In ``eval()`` mode, with ``fold_batchnorm``, a BatchNorm2d
    right after a convolution is folded into it first, and with ``fuse_post_ops`` a residual
    add and a ReLU / ReLU6 / LeakyReLU / Hardtanh after it are applied by netcl as it writes
    the output (the result is a torch.fx GraphModule; a model fx cannot trace is converted
    unfolded and unfused, with a warning saying why). The rest of the model stays in torch.
    ``netcl_options`` (strategy, variant, max_error_factor, context) go to every layer."""
    if (fold_batchnorm or fuse_post_ops) and not model.training:
        try:
            model = _fold_batchnorm(model) if fold_batchnorm else torch.fx.symbolic_trace(copy.deepcopy(model))
            inplace = True  # a copy was made
            if fuse_post_ops:
                _fuse_post_ops(model, netcl_options)
        except Exception as e:  # fx cannot trace data-dependent control flow, among others
            warnings.warn(f"netcl.torch.convert: BatchNorm2d not folded and post-ops not fused "
                          f"({type(e).__name__}: {e}); the model is converted as it is", stacklevel=2)
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
