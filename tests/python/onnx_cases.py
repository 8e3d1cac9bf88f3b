"""ONNX's own backend test cases for Conv, as netcl.Conv2d and netcl.Conv3d arguments.

A case is taken when its graph is one Conv node on float32 data of rank 4
(Conv2d), rank 3 (Conv1d, run as a 2-D convolution of height 1, the way
frameworks lower it) or rank 5 (Conv3d). The translation is the one a
framework's ONNX importer makes: pads [x1_begin, x2_begin, x1_end, x2_end] are
(top, left, bottom, right), and the six of a 3-D Conv (front, top, left, back,
bottom, right), as listed; auto_pad is passed through by name.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.loader import load_model_tests

KINDS = ("node", "pytorch-converted", "pytorch-operator")

# Cases the installed onnx must provide, so that a test data set gone missing
# (a renamed case, an onnx without its data) fails instead of shrinking the suite.
REQUIRED = {
    "test_basic_conv_with_padding", "test_basic_conv_without_padding", "test_conv_with_strides_padding",
    "test_conv_with_strides_no_padding", "test_conv_with_strides_and_asymmetric_padding",
    "test_conv_with_autopad_same", "test_Conv2d", "test_Conv2d_depthwise", "test_Conv2d_depthwise_padded",
    "test_Conv2d_depthwise_strided", "test_Conv2d_depthwise_with_multiplier", "test_Conv2d_dilated",
    "test_Conv2d_groups", "test_Conv2d_groups_thnn", "test_Conv2d_no_bias", "test_Conv2d_padding",
    "test_Conv2d_strided", "test_operator_conv",
}
# The same for the 3-D cases (test_conv3d.py runs them).
REQUIRED_3D = {
    "test_Conv3d", "test_Conv3d_dilated", "test_Conv3d_dilated_strided", "test_Conv3d_groups", "test_Conv3d_no_bias",
    "test_Conv3d_stride", "test_Conv3d_stride_padding",
}


@dataclass
class ConvCase:
    name: str
    kind: str
    x: np.ndarray          # N x C x H x W (a Conv1d case lifted to H = 1), or N x C x D x H x W
    w: np.ndarray          # K x C/groups x R x S, or K x C/groups x T x R x S
    b: np.ndarray | None
    expected: np.ndarray   # N x K x P x Q, or N x K x O x P x Q
    kwargs: dict = field(default_factory=dict)  # netcl.Conv2d (netcl.Conv3d) keyword arguments
    lifted_1d: bool = False
    spatial_rank: int = 2  # 3: a netcl.Conv3d case


def _attributes(node) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _data_sets(test) -> list:
    """[(inputs, outputs)] from the case object (node cases) or its folder (model cases)."""
    if test.data_sets:
        return [(list(i), list(o)) for i, o in test.data_sets]
    sets = []
    for folder in sorted(glob.glob(os.path.join(test.model_dir, "test_data_set_*"))):
        def read(prefix):
            arrays = []
            for path in sorted(glob.glob(os.path.join(folder, prefix + "_*.pb")),
                               key=lambda p: int(p.rsplit("_", 1)[1][:-3])):
                tensor = onnx.TensorProto()
                with open(path, "rb") as f:
                    tensor.ParseFromString(f.read())
                arrays.append(numpy_helper.to_array(tensor))
            return arrays
        sets.append((read("input"), read("output")))
    return sets


def _translate(name, kind, model, inputs, outputs) -> ConvCase | str:
    """The case as netcl.Conv2d or netcl.Conv3d arguments, or the reason netcl cannot take it."""
    node = model.graph.node[0]
    initial = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    fed = [i.name for i in model.graph.input if i.name not in initial]
    values = dict(initial, **dict(zip(fed, inputs)))
    x, w = values[node.input[0]], values[node.input[1]]
    b = values[node.input[2]] if len(node.input) > 2 and node.input[2] else None
    if x.dtype != np.float32:
        # onnx ships no float16 Conv case (test_float16.py builds its own models):
        # one that appears lands here, and test_onnx_backend.py's "not PASSED_OVER" says so.
        return f"{x.dtype} data; these suites run float32 cases (float16: test_float16.py)"
    if x.ndim not in (3, 4, 5):
        return f"{x.ndim - 2}-D convolution; netcl takes 1-D (as 2-D), 2-D and 3-D"
    a = _attributes(node)
    spatial = x.ndim - 2
    strides = list(a.get("strides", [1] * spatial))
    dilations = list(a.get("dilations", [1] * spatial))
    pads = list(a.get("pads", [0] * (2 * spatial)))
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    expected = outputs[0]
    lifted = spatial == 1
    if lifted:
        x, w, expected = x[:, :, None, :], w[:, :, None, :], expected[:, :, None, :]
        strides, dilations = [1] + strides, [1] + dilations
        pads = [0, pads[0], 0, pads[1]]
    kwargs = dict(kernel_size=tuple(w.shape[2:]), stride=tuple(strides), dilation=tuple(dilations),
                  groups=int(a.get("group", 1)), bias=b is not None)
    if auto_pad == "NOTSET":
        kwargs["padding"] = tuple(pads)  # (top, left, bottom, right); (front, top, left, back, bottom, right)
    else:
        kwargs["auto_pad"] = auto_pad
    return ConvCase(name, kind, np.ascontiguousarray(x), np.ascontiguousarray(w), b, expected, kwargs, lifted,
                    max(spatial, 2))


@lru_cache(maxsize=None)
def load() -> tuple[list[ConvCase], dict[str, str]]:
    """(the cases netcl runs, {name: why not} for the Conv cases it does not)."""
    cases, passed_over = [], {}
    for kind in KINDS:
        for test in load_model_tests(kind=kind):
            model = test.model if test.model is not None else (
                onnx.load(os.path.join(test.model_dir, "model.onnx")) if test.model_dir else None)
            if model is None or [n.op_type for n in model.graph.node] != ["Conv"]:
                continue
            for index, (inputs, outputs) in enumerate(_data_sets(test)):
                name = test.name if index == 0 else f"{test.name}[{index}]"
                case = _translate(name, kind, model, inputs, outputs)
                if isinstance(case, str):
                    passed_over[name] = case
                else:
                    cases.append(case)
    return cases, passed_over


def conv_model(L, elem_type=TensorProto.FLOAT):
    """A one-node ONNX Conv model (opset 11) for a layer described as the random-layer
    tests draw it: kernel, stride, dilation, groups, bias, and ONNX's pads (begins,
    then ends) or an auto_pad name; 2-D or 3-D alike. ``elem_type`` is every tensor's
    type (TensorProto.FLOAT16 for a half model)."""
    attrs = dict(kernel_shape=list(L["kernel"]), strides=list(L["stride"]), dilations=list(L["dilation"]),
                 group=L["groups"])
    if L["auto_pad"] == "NOTSET":
        attrs["pads"] = L["pads"]
    else:
        attrs["auto_pad"] = L["auto_pad"]
    inputs = ["X", "W"] + (["B"] if L["bias"] else [])
    node = helper.make_node("Conv", inputs, ["Y"], **attrs)
    graph = helper.make_graph(
        [node], "conv",
        [helper.make_tensor_value_info(i, elem_type, None) for i in inputs],
        [helper.make_tensor_value_info("Y", elem_type, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
