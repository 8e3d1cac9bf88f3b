"""netcl.torch.convert: every nn.Conv2d and nn.Conv3d of a model runs in netcl."""
from __future__ import annotations

import copy
import operator
import warnings
from typing import Dict, Optional

import torch
import torch.nn.functional as F

from ._modules import Conv2d, Conv3d

# torch's class -> netcl's.
_REPLACEMENTS = {torch.nn.Conv2d: Conv2d, torch.nn.Conv3d: Conv3d}
# The BatchNorm folded into each module before it (as torch.fx's fuse() folds them: Conv1d and Linear
# too, which stay in torch).
_BATCHNORMS = {torch.nn.Conv1d: torch.nn.BatchNorm1d, torch.nn.Conv2d: torch.nn.BatchNorm2d,
               torch.nn.Conv3d: torch.nn.BatchNorm3d, torch.nn.Linear: torch.nn.BatchNorm1d}


def _torch_class(module: torch.nn.Module) -> Optional[type]:
    """nn.Conv2d or nn.Conv3d where `module` is one, or a subclass that keeps its forward
    (torchvision's video networks' Conv3DSimple and Conv3DNoTemporal change only __init__)
    and holds its weight as a plain Parameter; None otherwise. Left to torch: a subclass with
    a forward of its own (netcl's among them), a parametrized weight (weight_norm,
    spectral_norm: torch.nn.utils.parametrize swaps the class for one that inherits forward
    and computes the weight), a lazy module not yet shaped."""
    weight = module._parameters.get("weight") if isinstance(module, torch.nn.Module) else None
    if not isinstance(weight, torch.nn.Parameter) or isinstance(weight, torch.nn.parameter.UninitializedParameter):
        return None
    for base in _REPLACEMENTS:
        if (isinstance(module, base) and type(module).forward is base.forward
                and type(module)._conv_forward is base._conv_forward):
            return base
    return None


def _netcl_class(module: torch.nn.Module) -> Optional[type]:
    """The netcl.torch class that replaces `module`, or None (see _torch_class)."""
    base = _torch_class(module)
    return None if base is None else _REPLACEMENTS[base]


def _folding_class(module: torch.nn.Module) -> Optional[type]:
    """The key of _BATCHNORMS `module` folds under: a convolution convert replaces, or exactly
    nn.Conv1d or nn.Linear."""
    if type(module) in (torch.nn.Conv1d, torch.nn.Linear):
        return type(module)
    return _torch_class(module)


class _Tracer(torch.fx.Tracer):
    """fx's tracer, with every convolution convert replaces a leaf: fx keeps only torch.nn's
    own classes whole and would trace a subclass from another package (torchvision's
    Conv3DSimple) into a bare F.conv3d call that convert cannot see."""

    def is_leaf_module(self, m: torch.nn.Module, qualname: str) -> bool:
        return _torch_class(m) is not None or super().is_leaf_module(m, qualname)


def _trace(model: torch.nn.Module) -> torch.fx.GraphModule:
    """A traced copy of `model`."""
    model = copy.deepcopy(model)
    tracer = _Tracer()
    graph = tracer.trace(model)
    return torch.fx.GraphModule(tracer.root, graph, type(model).__name__)


def _calls(gm: torch.fx.GraphModule) -> Dict[str, int]:
    """How many times the graph calls each module."""
    calls: Dict[str, int] = {}
    for node in gm.graph.nodes:
        if node.op == "call_module":
            calls[node.target] = calls.get(node.target, 0) + 1
    return calls


def _replace_module(gm: torch.fx.GraphModule, name: str, module: torch.nn.Module) -> None:
    parent, _, child = name.rpartition(".")
    setattr(gm.get_submodule(parent) if parent else gm, child, module)


def _fold_batchnorm(gm: torch.fx.GraphModule) -> None:
    """Each BatchNorm1d/2d/3d in eval() mode that is the only user of a Conv1d/2d/3d's (or a
    Linear's) output, that module in eval() mode too, folded into its weights and bias
    (torch.nn.utils.fusion): the graph finds the pairs that attributes alone do not show
    (ResNet's conv1/bn1). Not where either module is called more than once."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
    modules = dict(gm.named_modules())
    calls = _calls(gm)
    for node in list(gm.graph.nodes):
        if node.op != "call_module" or len(node.args) != 1 or not isinstance(node.args[0], torch.fx.Node):
            continue
        first_node = node.args[0]
        first = modules.get(first_node.target) if first_node.op == "call_module" else None
        kind = None if first is None else _folding_class(first)
        bn = modules[node.target]
        if (kind is None or type(bn) is not _BATCHNORMS[kind] or bn.training or first.training
                or not bn.track_running_stats or len(first_node.users) != 1 or calls[first_node.target] != 1
                or calls[node.target] != 1):
            continue
        fuse = fuse_linear_bn_eval if kind is torch.nn.Linear else fuse_conv_bn_eval
        _replace_module(gm, first_node.target, fuse(first, bn))
        node.replace_all_uses_with(first_node)
        gm.graph.erase_node(node)
    gm.graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()


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
    """Each Conv2d or Conv3d (BatchNorm already folded) followed by a residual add and/or an activation
    netcl can apply becomes one netcl.torch.Conv2d (Conv3d) with those post-ops, placed where the last
    of them was (the residual may be computed after the convolution, e.g. ResNet's
    downsample). Only where the convolution's output feeds nothing else, and the module is
    called once. Returns how many were fused."""
    modules = dict(gm.named_modules())
    calls = _calls(gm)
    fused = 0
    for node in list(gm.graph.nodes):
        conv = modules.get(node.target) if node.op == "call_module" else None
        netcl_class = None if conv is None else _netcl_class(conv)
        if netcl_class is None or calls[node.target] != 1 or len(node.users) != 1 or len(node.args) != 1:
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
        _replace_module(gm, name, netcl_class.from_torch(conv, name=name, **netcl_options, **post))
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
    """A model whose every ``nn.Conv2d`` is a ``netcl.torch.Conv2d`` and every ``nn.Conv3d`` a
    ``netcl.torch.Conv3d``, sharing its parameters (a copy unless ``inplace``). In ``eval()``
    mode, with ``fold_batchnorm``, a BatchNorm2d (3d) right after a convolution is folded into
    it first, and with ``fuse_post_ops`` a residual
    add and a ReLU / ReLU6 / LeakyReLU / Hardtanh after it are applied by netcl as it writes
    the output (the result is a torch.fx GraphModule; a model fx cannot trace is converted
    unfolded and unfused, with a warning saying why). The rest of the model stays in torch.
    ``netcl_options`` (strategy, variant, max_error_factor, context) go to every layer."""
    single = _netcl_class(model)
    if single is not None:  # the model is one convolution: that layer, nothing to fold or fuse
        return single.from_torch(model if inplace else copy.deepcopy(model), name="(model)", **netcl_options)
    if (fold_batchnorm or fuse_post_ops) and not model.training:
        try:
            traced = _trace(model)  # a copy: the model stays as it was unless both steps succeed
            if fold_batchnorm:
                _fold_batchnorm(traced)
            if fuse_post_ops:
                _fuse_post_ops(traced, netcl_options)
            model, inplace = traced, True
        except Exception as e:  # fx cannot trace data-dependent control flow, among others
            warnings.warn(f"netcl.torch.convert: BatchNorm not folded and post-ops not fused "
                          f"({type(e).__name__}: {e}); the model is converted as it is", stacklevel=2)
    if not inplace:
        model = copy.deepcopy(model)
    for path, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            replacement = _netcl_class(child)
            if replacement is not None:
                name = f"{path}.{child_name}" if path else child_name
                setattr(module, child_name, replacement.from_torch(child, name=name, **netcl_options))
    return model
