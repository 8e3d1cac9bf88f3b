"""netcl.torch.Conv2d and Conv3d: an nn.Conv2d / nn.Conv3d whose forward and backward run in netcl."""
from __future__ import annotations

from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F

import netcl as nc

from .._conv_layer import _activation
from ._bridge import Bridge, default_bridge
from ._function import ConvFunction

# torch's types netcl stores, and netcl's name for each: the input, the weights, the bias and a residual in
# one of them (the layer's), the arithmetic float32 either way.
_DTYPES = {torch.float32: "float32", torch.float16: "float16"}


_SHARED_DOC = """
    Torch's constructor, parameters and ``state_dict``; float32 or float16 CPU tensors (the
    input, weights, bias and residual all in one of them; float32 arithmetic either way; the
    selector plans each direction). ``strategy``, ``variant`` and ``max_error_factor`` are
    ``netcl.Conv2d``'s; ``context`` a ``netcl.Context`` (default: ``netcl.default_context()``).

    Padding modes other than 'zeros' pad in torch (``F.pad``, as ``nn.Conv2d`` does) and
    convolve unpadded in netcl. In ``eval()`` the weights are transformed once and kept while
    the parameters' storage and ``_version`` stay (in-place ops update it; writes through
    ``.data`` do not: call ``train()`` or assign the parameter); in ``train()`` every call
    uploads them. A netcl failure is a ``netcl.Error`` naming the layer (its
    path in the model after ``convert``) and what was wrong.

    Post-ops (what ``convert`` fuses in ``eval()``): ``activation`` ('relu', 'relu6',
    'leaky_relu' with ``negative_slope``, 'clamp' with ``clamp=(min, max)``) and ``residual``
    (forward then takes ``forward(x, residual)``): ``y = activation(conv(x) + bias [+
    residual])``, applied by netcl as it writes y. Where autograd records the call (grad
    enabled and a tensor requiring it), the convolution runs alone through netcl and the sum
    and activation in torch, so gradients stay exact."""


class _NetclConv:
    """What netcl.torch.Conv2d and Conv3d share, before torch's own class in their bases."""

    def __init__(self, *args, strategy: Optional[str] = None, variant: Optional[str] = None,
                 max_error_factor: Optional[float] = None, context: Optional[nc.Context] = None,
                 activation: Optional[str] = None, negative_slope: float = 0.01,
                 clamp: Optional[Tuple[float, float]] = None, residual: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.netcl_options = {"strategy": strategy, "variant": variant, "max_error_factor": max_error_factor}
        self.netcl_post_ops = {"activation": activation, "negative_slope": negative_slope, "clamp": clamp,
                               "residual": residual}
        _activation(activation, negative_slope, clamp)  # raises for a name or bounds netcl does not take
        self.netcl_context = context
        self.netcl_name = type(self).__name__  # convert() writes the module's path in its model here
        self._netcl_layer = None  # the netcl.Conv2d or Conv3d, made at the first call
        self._netcl_layer_key: Optional[tuple] = None
        self._netcl_weights_key: Optional[tuple] = None

    @classmethod
    def from_torch(cls, conv: torch.nn.Module, name: Optional[str] = None, **netcl_options):
        """A netcl.torch module sharing `conv`'s parameters (the same Parameter objects: an
        optimizer over the old module's parameters trains the new one); `conv` is the torch
        class this one stands in for (nn.Conv2d for netcl.torch.Conv2d)."""
        if conv.weight.device.type != "cpu":
            raise TypeError(f"{name or cls.__name__}: netcl.torch takes CPU modules; this one is on {conv.weight.device}")
        new = cls(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, padding=conv.padding,
                  dilation=conv.dilation, groups=conv.groups, bias=conv.bias is not None,
                  padding_mode=conv.padding_mode, device="meta", **netcl_options)
        new.weight = conv.weight
        new.bias = conv.bias
        new.train(conv.training)
        if name:
            new.netcl_name = name
        return new

    # ---- torch's side -------------------------------------------------------

    def forward(self, x: torch.Tensor, residual: Optional[torch.Tensor] = None) -> torch.Tensor:
        self._check_input(x)
        post = self.netcl_post_ops
        if (residual is not None) != post["residual"]:
            raise ValueError(f"{self.netcl_name}: " + ("this layer adds a residual: expected forward(x, residual)"
                                                       if post["residual"] else
                                                       "a residual was given to a layer made without residual=True"))
        if residual is not None and (residual.dtype != x.dtype or residual.device.type != "cpu"):
            raise TypeError(f"{self.netcl_name}: the residual must be a CPU tensor of the input's type ({x.dtype}); "
                            f"got {residual.dtype} on {residual.device}")
        padding = self.padding
        if self.padding_mode != "zeros":
            x = F.pad(x, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding = 0
        fused = post["activation"] is not None or post["residual"]
        recorded = torch.is_grad_enabled() and any(
            t is not None and t.requires_grad for t in (x, self.weight, self.bias, residual))
        if fused and not recorded:
            with torch.no_grad():
                return self._netcl_forward(_Call(self, padding, post_ops=True), x.contiguous(), self.weight,
                                           self.bias, None if residual is None else residual.contiguous())
        y = ConvFunction.apply(x.contiguous(), self.weight, self.bias, _Call(self, padding))
        if residual is not None:
            y = y + residual
        return self._activation_in_torch(y)

    def extra_repr(self) -> str:
        post = self.netcl_post_ops
        text = super().extra_repr()
        if post["activation"] is not None:
            text += f", activation={post['activation']!r}"
        if post["residual"]:
            text += ", residual=True"
        return text

    def _activation_in_torch(self, y: torch.Tensor) -> torch.Tensor:
        post = self.netcl_post_ops
        if post["activation"] == "relu":
            return F.relu(y)
        if post["activation"] == "relu6":
            return F.relu6(y)
        if post["activation"] == "leaky_relu":
            return F.leaky_relu(y, post["negative_slope"])
        if post["activation"] == "clamp":
            return F.hardtanh(y, *post["clamp"])
        return y

    def _check_input(self, x: torch.Tensor) -> None:
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{self.netcl_name}: expected a torch.Tensor; got {type(x).__name__}")
        if x.device.type != "cpu":
            raise TypeError(f"{self.netcl_name}: netcl.torch takes CPU tensors (netcl runs them on its OpenCL "
                            f"device); got one on {x.device}")
        bias_dtype = self.weight.dtype if self.bias is None else self.bias.dtype
        if x.dtype not in _DTYPES or x.dtype != self.weight.dtype or bias_dtype != self.weight.dtype:
            raise TypeError(f"{self.netcl_name}: netcl takes float32 or float16 tensors, the input, weight and bias "
                            f"in one type; got input {x.dtype}, weight {self.weight.dtype} and bias {bias_dtype} "
                            f"(convert the model and the input with .float() or .half())")
        if x.dim() != self._NETCL_RANK + 2:
            raise ValueError(f"{self.netcl_name}: expected a {self._NETCL_RANK + 2}-D {self._NETCL_INPUT} input; "
                             f"got shape {tuple(x.shape)}")

    # ---- netcl's side (called by ConvFunction) -------------------------------

    def _bridge(self) -> Bridge:
        return Bridge(self.netcl_context) if self.netcl_context is not None else default_bridge()

    def _layer(self, padding, bridge: Bridge, post_ops: bool = False):
        dtype = _DTYPES[self.weight.dtype]
        key = (self.in_channels, self.out_channels, self.kernel_size, self.stride, padding, self.dilation,
               self.groups, self.bias is not None, bridge.context.context_int_ptr, post_ops, dtype)
        if self._netcl_layer is None or self._netcl_layer_key != key:
            self._netcl_layer = self._NETCL_LAYER(self.in_channels, self.out_channels, self.kernel_size, self.stride,
                                                  padding, self.dilation, self.groups, self.bias is not None,
                                                  context=bridge.context, dtype=dtype, **self.netcl_options,
                                                  **(self.netcl_post_ops if post_ops else {}))
            self._netcl_layer_key = key
            self._netcl_weights_key = None
        return self._netcl_layer

    def _upload_weights(self, layer, weight: torch.Tensor, bias: Optional[torch.Tensor],
                        bridge: Bridge, keep: List[object]) -> None:
        # In eval() the weights are transformed once and kept while the parameters'
        # storage and _version stay (in-place ops bump _version). A change through
        # .data does not bump it, and training code does that (gradcheck does), so
        # in train() every call uploads them again.
        key = (weight.data_ptr(), weight._version,
               None if bias is None else (bias.data_ptr(), bias._version))
        if key == self._netcl_weights_key and not self.training:
            return
        w = weight.detach().contiguous()
        b = None if bias is None else bias.detach().contiguous()
        if bridge.copies_tensors:
            layer.set_weights(w.numpy(), None if b is None else b.numpy())
        elif self.training:
            # A training step's parameters change only between steps (the optimizer's), and each
            # call uploads them again: netcl reads them where they lie, no copy (borrow_weights),
            # the views kept alive until the next upload.
            borrowed: List[object] = []
            layer.borrow_weights(bridge.view(w, borrowed), None if b is None else bridge.view(b, borrowed))
            self._netcl_borrowed = borrowed
            key = None  # eval() next copies them, whatever their version: a borrow reads the parameters' memory
        else:
            layer.set_weights(bridge.view(w, keep), None if b is None else bridge.view(b, keep))
            self._netcl_borrowed = None
        self._netcl_weights_key = key

    def _netcl_forward(self, call: "_Call", x: torch.Tensor, weight: torch.Tensor,
                       bias: Optional[torch.Tensor], residual: Optional[torch.Tensor] = None) -> torch.Tensor:
        bridge = self._bridge()
        keep: List[object] = []
        try:
            layer = self._layer(call.padding, bridge, call.post_ops)
            # train(): the weights are uploaded every call (_upload_weights), so netcl plans for that.
            layer.training = self.training
            self._upload_weights(layer, weight, bias, bridge, keep)
            xv = bridge.view(x.detach(), keep)
            shape = layer.output_shape(tuple(x.shape))
            if residual is not None and tuple(residual.shape) != shape:
                raise nc.Error(f"the residual has shape {tuple(residual.shape)}; expected the output's {shape}")
            y, yv = bridge.output(shape, keep, x.dtype)
            rv = None if residual is None else bridge.view(residual.detach(), keep)
            written = layer.forward(xv, yv, residual=rv)
            bridge.finish(keep)
            return bridge.result(y, written, keep)
        except nc.Error as e:
            bridge.settle(keep)
            raise nc.Error(f"{self.netcl_name}: {e}") from None

    def _netcl_backward(self, call: "_Call", x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                        dy: torch.Tensor, need_dx: bool, need_dw: bool, need_db: bool
                        ) -> Tuple[Optional[torch.Tensor], Optional[torch.Tensor], Optional[torch.Tensor]]:
        bridge = self._bridge()
        keep: List[object] = []
        dx = dw = db = None
        try:
            layer = self._layer(call.padding, bridge)
            self._upload_weights(layer, weight, bias, bridge, keep)
            dyv = bridge.view(dy.detach().contiguous().to(x.dtype), keep)
            if need_dx:
                dx, dxv = bridge.output(tuple(x.shape), keep, x.dtype)
                dx_written = layer.backward_data(dyv, tuple(x.shape), dx=dxv)
            if need_dw or need_db:
                xv = bridge.view(x.detach(), keep)
                dw, dwv = bridge.output(tuple(weight.shape), keep, weight.dtype)
                db, dbv = bridge.output((self.out_channels,), keep, bias.dtype) if bias is not None else (None, None)
                dw_written, db_written = layer.backward_weights(xv, dyv, dw=dwv, db=dbv)
            bridge.finish(keep)
            if need_dx:
                dx = bridge.result(dx, dx_written, keep)
            if need_dw or need_db:
                dw = bridge.result(dw, dw_written, keep)
                if db is not None:
                    db = bridge.result(db, db_written, keep)
            return dx, (dw if need_dw else None), (db if need_db else None)
        except nc.Error as e:
            bridge.settle(keep)
            raise nc.Error(f"{self.netcl_name} (backward): {e}") from None

    @property
    def last_plan(self) -> Optional[nc.Plan]:
        """What netcl ran last for this layer (forward or backward), and why."""
        return None if self._netcl_layer is None else self._netcl_layer.last_plan


class Conv2d(_NetclConv, torch.nn.Conv2d):
    """``torch.nn.Conv2d`` whose forward, dL/dx, dL/dw and dL/db run in netcl (netcl.Conv2d)."""

    _NETCL_RANK = 2
    _NETCL_INPUT = "(N, C, H, W)"
    _NETCL_LAYER = nc.Conv2d


class Conv3d(_NetclConv, torch.nn.Conv3d):
    """``torch.nn.Conv3d`` whose forward, dL/dx, dL/dw and dL/db run in netcl (netcl.Conv3d: the
    selector's ops conv3d, conv3d_backward_data and conv3d_backward_weights)."""

    _NETCL_RANK = 3
    _NETCL_INPUT = "(N, C, D, H, W)"
    _NETCL_LAYER = nc.Conv3d


for _module in (Conv2d, Conv3d):  # one text for both (a class body's docstring cannot be built)
    _module.__doc__ = (_module.__doc__ or "") + "\n" + _SHARED_DOC


class _Call:
    """What one forward hands its backward: the module and the padding netcl used."""

    def __init__(self, module: _NetclConv, padding, post_ops: bool = False) -> None:
        self.module = module
        self.padding = padding
        self.post_ops = post_ops  # netcl applies the module's post-ops (no autograd recording)
