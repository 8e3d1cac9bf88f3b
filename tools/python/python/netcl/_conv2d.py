"""netcl.Conv2d: PyTorch's nn.Conv2d arguments over netcl's C++ layer."""
from __future__ import annotations

import operator
from typing import Optional, Sequence, Tuple, Union

from . import _netcl

IntPair = Union[int, Tuple[int, int]]
PaddingArg = Union[int, Tuple[int, int], Tuple[int, int, int, int], str]

# ONNX's auto_pad names; PyTorch's padding strings map onto two of them.
_AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def _int(value: object, what: str) -> int:
    # operator.index: ints and NumPy integers; floats and bools would hide a mistake.
    if isinstance(value, bool):
        raise TypeError(f"Conv2d: {what} must be an int; got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"Conv2d: {what} must be an int; got {type(value).__name__} {value!r}") from None


def _pair(value: object, what: str) -> Tuple[int, int]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise TypeError(f"Conv2d: {what} must be an int or a pair of ints; got {len(value)} values")
        return _int(value[0], what), _int(value[1], what)
    v = _int(value, what)
    return v, v


def _padding(padding: object, auto_pad: Optional[str], stride: Tuple[int, int]) -> Tuple[Tuple[int, int, int, int], str]:
    """(top, left, bottom, right) and an ONNX auto_pad name, from PyTorch's or ONNX's spelling."""
    if isinstance(padding, str):
        if auto_pad is not None:
            raise ValueError("Conv2d: give padding='same'/'valid' or auto_pad=, not both")
        mode = padding.lower()
        if mode == "valid":
            return (0, 0, 0, 0), "VALID"
        if mode == "same":
            # PyTorch's rule: 'same' keeps H x W only at stride 1, and puts an
            # odd pixel of padding at the end, which is ONNX's SAME_UPPER.
            if stride != (1, 1):
                raise ValueError("Conv2d: padding='same' is not supported for strided convolutions "
                                 "(as in PyTorch); use auto_pad='SAME_UPPER' for ONNX's rule")
            return (0, 0, 0, 0), "SAME_UPPER"
        raise ValueError(f"Conv2d: padding string must be 'same' or 'valid'; got {padding!r}")
    if isinstance(padding, (tuple, list)):
        if len(padding) == 2:
            h, w = _int(padding[0], "padding"), _int(padding[1], "padding")
            pads = (h, w, h, w)
        elif len(padding) == 4:
            # (top, left, bottom, right): ONNX's pads [x1_begin, x2_begin, x1_end, x2_end] as they are.
            pads = tuple(_int(p, "padding") for p in padding)  # type: ignore[assignment]
        else:
            raise TypeError("Conv2d: padding must be an int, (h, w), (top, left, bottom, right), "
                            f"'same' or 'valid'; got {len(padding)} values")
    else:
        p = _int(padding, "padding")
        pads = (p, p, p, p)
    if auto_pad is None or auto_pad == "NOTSET":
        return pads, "NOTSET"  # type: ignore[return-value]
    if auto_pad not in _AUTO_PADS:
        raise ValueError(f"Conv2d: auto_pad must be one of {', '.join(_AUTO_PADS)}; got {auto_pad!r}")
    if any(pads):
        raise ValueError("Conv2d: explicit padding and auto_pad were both given; ONNX allows only one")
    return (0, 0, 0, 0), auto_pad


_ACTIVATIONS = ("relu", "relu6", "leaky_relu", "clamp")


def _activation(activation: Optional[str], negative_slope: float,
                clamp: Optional[Tuple[float, float]]) -> Tuple[str, float, float, float]:
    """(name the binding takes, alpha, lower, upper)."""
    if activation is not None and activation not in _ACTIVATIONS:
        raise ValueError(f"Conv2d: activation must be None or one of {', '.join(_ACTIVATIONS)}; got {activation!r}")
    if (clamp is not None) != (activation == "clamp"):
        raise ValueError("Conv2d: clamp=(min, max) goes with activation='clamp', and only with it")
    if activation == "relu6":
        return "clamp", 0.0, 0.0, 6.0
    if activation == "clamp":
        assert clamp is not None
        if len(clamp) != 2:
            raise ValueError(f"Conv2d: clamp must be (min, max); got {clamp!r}")
        return "clamp", 0.0, float(clamp[0]), float(clamp[1])
    if activation == "leaky_relu":
        return "leaky_relu", float(negative_slope), 0.0, 0.0
    return activation or "none", 0.0, 0.0, 0.0


def _require_tensor(value: object, what: str) -> None:
    if not isinstance(value, _netcl.Tensor):
        raise TypeError(f"Conv2d: {what} must be a netcl.Tensor; got {type(value).__name__}"
                        " (make one with netcl.Tensor.from_host(array))")


class Conv2d:
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
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntPair, stride: IntPair = 1,
                 padding: PaddingArg = 0, dilation: IntPair = 1, groups: int = 1, bias: bool = True, *,
                 auto_pad: Optional[str] = None, strategy: Optional[str] = None, variant: Optional[str] = None,
                 workspace_limit_bytes: Optional[int] = None, max_error_factor: Optional[float] = None,
                 activation: Optional[str] = None, negative_slope: float = 0.01,
                 clamp: Optional[Tuple[float, float]] = None, residual: bool = False,
                 context: Optional[_netcl.Context] = None) -> None:
        self.in_channels = _int(in_channels, "in_channels")
        self.out_channels = _int(out_channels, "out_channels")
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride = _pair(stride, "stride")
        self.dilation = _pair(dilation, "dilation")
        self.groups = _int(groups, "groups")
        if not isinstance(bias, bool):
            raise TypeError(f"Conv2d: bias must be True or False; got {type(bias).__name__}")
        self.bias = bias
        pads, self.auto_pad = _padding(padding, auto_pad, self.stride)
        self.padding: Union[Tuple[int, int, int, int], str] = padding if isinstance(padding, str) else pads
        if not isinstance(residual, bool):
            raise TypeError(f"Conv2d: residual must be True or False; got {type(residual).__name__}")
        self.activation = activation
        self.residual = residual
        act, alpha, lower, upper = _activation(activation, negative_slope, clamp)
        self.context = context if context is not None else _netcl.default_context()
        self._impl = _netcl.Conv2d(self.context, self.in_channels, self.out_channels, self.kernel_size,
                                   self.stride, pads, self.auto_pad, self.dilation, self.groups, bias,
                                   strategy, variant, workspace_limit_bytes, max_error_factor,
                                   act, alpha, lower, upper, residual)

    @property
    def weight_shape(self) -> Tuple[int, int, int, int]:
        """(out_channels, in_channels // groups, kh, kw): the shape set_weights takes."""
        return (self.out_channels, self.in_channels // self.groups, *self.kernel_size)

    def set_weights(self, weights: object, bias: object = None, *, wait_for: Optional[Sequence[object]] = None) -> None:
        """Weights of ``weight_shape`` and a bias of (out_channels,): float32 NumPy arrays
        (copied to the device; blocks until copied), or netcl Tensors (copied on the device
        after ``wait_for``). Later changes to the arrays do not reach the layer."""
        self._impl.set_weights(weights, bias, wait_for)

    def forward(self, x: _netcl.Tensor, y: Optional[_netcl.Tensor] = None, *,
                residual: Optional[_netcl.Tensor] = None,
                wait_for: Optional[Sequence[object]] = None) -> _netcl.Tensor:
        """Enqueues y = conv(x) (through the layer's post-ops) and returns y without waiting
        for it to run (to_host waits). ``y``, when given, is written in place (e.g. a view of a
        PyOpenCL buffer); else a new tensor. ``residual`` (a layer made with residual=True):
        the tensor added, copied into y first unless it is y. ``wait_for``: events
        (netcl.Event, pyopencl.Event) to run after."""
        if not isinstance(x, _netcl.Tensor):
            raise TypeError(f"Conv2d: expected a netcl.Tensor input; got {type(x).__name__}"
                            " (make one with netcl.Tensor.from_host(array))")
        if y is not None and not isinstance(y, _netcl.Tensor):
            raise TypeError(f"Conv2d: y must be a netcl.Tensor or None; got {type(y).__name__}")
        if residual is not None:
            _require_tensor(residual, "residual")
        elif self.residual and y is None:
            raise ValueError("Conv2d: this layer adds a residual (residual=True); give forward the residual "
                             "tensor, or y holding it")
        return self._impl.forward(x, y, residual, wait_for)

    __call__ = forward

    def backward_data(self, dy: _netcl.Tensor, input_shape: Optional[Sequence[int]] = None, *,
                      dx: Optional[_netcl.Tensor] = None,
                      wait_for: Optional[Sequence[object]] = None) -> _netcl.Tensor:
        """Enqueues dx = dL/dx from dy = dL/dy (``torch.nn.grad.conv2d_input``) with the layer's
        weights and returns dx without waiting. ``input_shape`` is the forward input's
        (N, C, H, W), which dy alone does not determine under a stride; or give ``dx`` to write
        in place. Planned under the selector op 'conv2d_backward_data'."""
        _require_tensor(dy, "dy")
        if dx is not None:
            _require_tensor(dx, "dx")
        return self._impl.backward_data(dy, dx, input_shape, wait_for)

    def backward_weights(self, x: _netcl.Tensor, dy: _netcl.Tensor, *, dw: Optional[_netcl.Tensor] = None,
                         db: Optional[_netcl.Tensor] = None, beta: float = 0.0,
                         wait_for: Optional[Sequence[object]] = None
                         ) -> Tuple[_netcl.Tensor, Optional[_netcl.Tensor]]:
        """Enqueues (dw, db): dL/dw of ``weight_shape`` from the forward input x and dy
        (``torch.nn.grad.conv2d_weight``), and dL/db = dy summed over N, H, W (None without a
        bias). Each is written as beta * old + gradient: beta=0 overwrites (new tensors when
        ``dw``/``db`` are not given), beta=1 accumulates as PyTorch's ``.grad`` does.
        Planned under the selector op 'conv2d_backward_weights'."""
        _require_tensor(x, "x")
        _require_tensor(dy, "dy")
        for name, t in (("dw", dw), ("db", db)):
            if t is not None:
                _require_tensor(t, name)
        return self._impl.backward_weights(x, dy, dw, db, float(beta), wait_for)

    @property
    def last_plan(self) -> Optional[_netcl.Plan]:
        """What the last run (forward or backward) ran (kernel, variant, implementation, config, reason); None before one."""
        return self._impl.last_plan

    @property
    def last_event(self) -> Optional[_netcl.Event]:
        """The event of the last forward's last command; None before one."""
        return self._impl.last_event

    def plan_for(self, input_shape: Sequence[int], direction: str = "forward") -> _netcl.Plan:
        """What a run in ``direction`` ('forward', 'backward_data', 'backward_weights') would run
        for a forward input of ``input_shape`` (planned and prepared now)."""
        return self._impl.plan_for(input_shape, direction)

    def shapes_for(self, input_shape: Sequence[int]) -> _netcl.ConvShapes:
        """The problem this layer computes for an input of ``input_shape`` (validated)."""
        return self._impl.shapes_for(input_shape)

    def output_shape(self, input_shape: Sequence[int]) -> Tuple[int, int, int, int]:
        s = self.shapes_for(input_shape)
        return (s.N, s.K, s.P, s.Q)

    def workspace_bytes(self, input_shape: Sequence[int], direction: str = "forward") -> int:
        """Scratch memory a run in ``direction`` needs for ``input_shape`` (0: none)."""
        return self._impl.workspace_bytes(input_shape, direction)

    def __repr__(self) -> str:
        text = f"netcl.Conv2d({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.auto_pad != "NOTSET" and not isinstance(self.padding, str):
            text += f", auto_pad={self.auto_pad!r}"
        else:
            text += f", padding={self.padding!r}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.activation is not None:
            text += f", activation={self.activation!r}"
        if self.residual:
            text += ", residual=True"
        return text + ("" if self.bias else ", bias=False") + ")"
