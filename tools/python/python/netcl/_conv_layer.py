"""What netcl.Conv2d and netcl.Conv3d share: PyTorch's (and ONNX's) argument spellings
turned into the binding's normalised options, and every method after the constructor.

A subclass names its layer ("Conv2d"), its spatial rank and its binding class; errors
start with the layer's name, as the C++ library's do."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, ClassVar, Optional, Sequence, Tuple, Union

from . import _netcl

if TYPE_CHECKING:
    import numpy
    from numpy.typing import DTypeLike

IntOrTuple = Union[int, Tuple[int, ...]]
PaddingArg = Union[int, Tuple[int, ...], str]

# ONNX's auto_pad names; PyTorch's padding strings map onto two of them.
_AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")

_ACTIVATIONS = ("relu", "relu6", "leaky_relu", "clamp")


def _int(name: str, value: object, what: str) -> int:
    # operator.index: ints and NumPy integers; floats and bools would hide a mistake.
    if isinstance(value, bool):
        raise TypeError(f"{name}: {what} must be an int; got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: {what} must be an int; got {type(value).__name__} {value!r}") from None


def _spatial(name: str, rank: int, value: object, what: str) -> Tuple[int, ...]:
    """An int for every spatial axis, or one per axis (depth, height, width order)."""
    if isinstance(value, (tuple, list)):
        if len(value) != rank:
            expected = "a pair of ints" if rank == 2 else f"{rank} ints (depth, height, width)"
            raise TypeError(f"{name}: {what} must be an int or {expected}; got {len(value)} values")
        return tuple(_int(name, v, what) for v in value)
    return (_int(name, value, what),) * rank


def _padding(name: str, rank: int, padding: object, auto_pad: Optional[str],
             stride: Tuple[int, ...]) -> Tuple[Tuple[int, ...], str]:
    """The begins then the ends of every spatial axis ((top, left, bottom, right); (front,
    top, left, back, bottom, right)) and an ONNX auto_pad name, from PyTorch's or ONNX's
    spelling."""
    zeros = (0,) * (2 * rank)
    if isinstance(padding, str):
        if auto_pad is not None:
            raise ValueError(f"{name}: give padding='same'/'valid' or auto_pad=, not both")
        mode = padding.lower()
        if mode == "valid":
            return zeros, "VALID"
        if mode == "same":
            # PyTorch's rule: 'same' keeps the size only at stride 1, and puts an
            # odd pixel of padding at the end, which is ONNX's SAME_UPPER.
            if any(s != 1 for s in stride):
                raise ValueError(f"{name}: padding='same' is not supported for strided convolutions "
                                 "(as in PyTorch); use auto_pad='SAME_UPPER' for ONNX's rule")
            return zeros, "SAME_UPPER"
        raise ValueError(f"{name}: padding string must be 'same' or 'valid'; got {padding!r}")
    if isinstance(padding, (tuple, list)):
        if len(padding) == rank:
            per_axis = tuple(_int(name, p, "padding") for p in padding)
            pads = per_axis + per_axis
        elif len(padding) == 2 * rank:
            # ONNX's pads [x1_begin, x2_begin, ..., x1_end, x2_end, ...] as they are.
            pads = tuple(_int(name, p, "padding") for p in padding)
        else:
            forms = ("(h, w), (top, left, bottom, right)" if rank == 2
                     else "(d, h, w), (front, top, left, back, bottom, right)")
            raise TypeError(f"{name}: padding must be an int, {forms}, 'same' or 'valid'; "
                            f"got {len(padding)} values")
    else:
        pads = (_int(name, padding, "padding"),) * (2 * rank)
    if auto_pad is None or auto_pad == "NOTSET":
        return pads, "NOTSET"
    if auto_pad not in _AUTO_PADS:
        raise ValueError(f"{name}: auto_pad must be one of {', '.join(_AUTO_PADS)}; got {auto_pad!r}")
    if any(pads):
        raise ValueError(f"{name}: explicit padding and auto_pad were both given; ONNX allows only one")
    return zeros, auto_pad


def _activation(activation: Optional[str], negative_slope: float, clamp: Optional[Tuple[float, float]],
                name: str = "Conv2d") -> Tuple[str, float, float, float]:
    """(name the binding takes, alpha, lower, upper)."""
    if activation is not None and activation not in _ACTIVATIONS:
        raise ValueError(f"{name}: activation must be None or one of {', '.join(_ACTIVATIONS)}; got {activation!r}")
    if (clamp is not None) != (activation == "clamp"):
        raise ValueError(f"{name}: clamp=(min, max) goes with activation='clamp', and only with it")
    if activation == "relu6":
        return "clamp", 0.0, 0.0, 6.0
    if activation == "clamp":
        assert clamp is not None
        if len(clamp) != 2:
            raise ValueError(f"{name}: clamp must be (min, max); got {clamp!r}")
        return "clamp", 0.0, float(clamp[0]), float(clamp[1])
    if activation == "leaky_relu":
        return "leaky_relu", float(negative_slope), 0.0, 0.0
    return activation or "none", 0.0, 0.0, 0.0


class _ConvLayer:
    """The base of netcl.Conv2d and netcl.Conv3d (see those for the arguments)."""

    _NAME: ClassVar[str]   # "Conv2d": the prefix of every error
    _RANK: ClassVar[int]   # spatial rank: 2 (NCHW) or 3 (NCDHW)
    _BINDING: ClassVar[type]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple = 1,
                 padding: PaddingArg = 0, dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True, *,
                 auto_pad: Optional[str] = None, strategy: Optional[str] = None, variant: Optional[str] = None,
                 workspace_limit_bytes: Optional[int] = None, max_error_factor: Optional[float] = None,
                 activation: Optional[str] = None, negative_slope: float = 0.01,
                 clamp: Optional[Tuple[float, float]] = None, residual: bool = False,
                 dtype: DTypeLike = None, context: Optional[_netcl.Context] = None) -> None:
        name, rank = self._NAME, self._RANK
        self.in_channels = _int(name, in_channels, "in_channels")
        self.out_channels = _int(name, out_channels, "out_channels")
        self.kernel_size = _spatial(name, rank, kernel_size, "kernel_size")
        self.stride = _spatial(name, rank, stride, "stride")
        self.dilation = _spatial(name, rank, dilation, "dilation")
        self.groups = _int(name, groups, "groups")
        if not isinstance(bias, bool):
            raise TypeError(f"{name}: bias must be True or False; got {type(bias).__name__}")
        self.bias = bias
        pads, self.auto_pad = _padding(name, rank, padding, auto_pad, self.stride)
        self.padding: Union[Tuple[int, ...], str] = padding if isinstance(padding, str) else pads
        if not isinstance(residual, bool):
            raise TypeError(f"{name}: residual must be True or False; got {type(residual).__name__}")
        self.activation = activation
        self.residual = residual
        act, alpha, lower, upper = _activation(activation, negative_slope, clamp, name)
        self.context = context if context is not None else _netcl.default_context()
        self._impl = self._BINDING(self.context, self.in_channels, self.out_channels, self.kernel_size,
                                   self.stride, pads, self.auto_pad, self.dilation, self.groups, bias,
                                   strategy, variant, workspace_limit_bytes, max_error_factor,
                                   act, alpha, lower, upper, residual, dtype)

    def _require_tensor(self, value: object, what: str) -> None:
        if not isinstance(value, _netcl.Tensor):
            raise TypeError(f"{self._NAME}: {what} must be a netcl.Tensor; got {type(value).__name__}"
                            " (make one with netcl.Tensor.from_host(array))")

    @property
    def dtype(self) -> numpy.dtype:
        """numpy.float32 (the default) or numpy.float16, as a numpy.dtype: the storage type of
        every tensor the layer takes and returns (arithmetic is float32 either way)."""
        return self._impl.dtype

    @property
    def weight_shape(self) -> Tuple[int, ...]:
        """(out_channels, in_channels // groups, *kernel_size): the shape set_weights takes."""
        return tuple(self._impl.weight_shape)

    def set_weights(self, weights: object, bias: object = None, *,
                    wait_for: Optional[Sequence[object]] = None) -> Optional[_netcl.Event]:
        """Weights of ``weight_shape`` and a bias of (out_channels,): NumPy arrays (copied to the
        device; blocks until copied), or netcl Tensors (copied on the device after
        ``wait_for``). Later changes to the arrays do not reach the layer.

        Host arrays may be float32 or float16 whatever the layer's dtype, and are converted to
        it, as ``load_state_dict`` copies float32 weights into a half PyTorch module: a float16
        layer rounds float32 values to the nearest half (ties to even, as
        ``x.astype(numpy.float16)``). Tensors are already on the device and must be in the
        layer's dtype (netcl.Error otherwise), as the inputs of forward must.

        Returns the device copy's event for Tensors (a change to their buffers waits for it; on
        an out-of-order queue nothing else orders it), None for arrays (copied before returning)."""
        return self._impl.set_weights(weights, bias, wait_for)

    def borrow_weights(self, weights: _netcl.Tensor, bias: Optional[_netcl.Tensor] = None, *,
                       wait_for: Optional[Sequence[object]] = None) -> None:
        """set_weights without the copy, as cuDNN takes the weights of each call: the layer reads
        these netcl Tensors (views of a framework's parameters) in its later runs, so they must
        keep these values, unchanged, until the next set_weights or borrow_weights and the end of
        every run before it (a training step's parameters, which change between steps: borrow
        them again each step). Each borrow makes the plans rebuild what they derive from the
        weights at their next run."""
        self._require_tensor(weights, "weights")
        if bias is not None:
            self._require_tensor(bias, "bias")
        self._impl.borrow_weights(weights, bias, wait_for)

    def forward(self, x: _netcl.Tensor, y: Optional[_netcl.Tensor] = None, *,
                residual: Optional[_netcl.Tensor] = None,
                wait_for: Optional[Sequence[object]] = None) -> _netcl.Tensor:
        """Enqueues y = conv(x) (through the layer's post-ops) and returns y without waiting
        for it to run (to_host waits). ``y``, when given, is written in place (e.g. a view of a
        PyOpenCL buffer); else a new tensor. ``residual`` (a layer made with residual=True):
        the tensor added, copied into y first unless it is y. ``wait_for``: events
        (netcl.Event, pyopencl.Event) to run after."""
        if not isinstance(x, _netcl.Tensor):
            raise TypeError(f"{self._NAME}: expected a netcl.Tensor input; got {type(x).__name__}"
                            " (make one with netcl.Tensor.from_host(array))")
        if y is not None and not isinstance(y, _netcl.Tensor):
            raise TypeError(f"{self._NAME}: y must be a netcl.Tensor or None; got {type(y).__name__}")
        if residual is not None:
            self._require_tensor(residual, "residual")
        elif self.residual and y is None:
            raise ValueError(f"{self._NAME}: this layer adds a residual (residual=True); give forward the residual "
                             "tensor, or y holding it")
        return self._impl.forward(x, y, residual, wait_for)

    __call__ = forward

    def backward_data(self, dy: _netcl.Tensor, input_shape: Optional[Sequence[int]] = None, *,
                      dx: Optional[_netcl.Tensor] = None,
                      wait_for: Optional[Sequence[object]] = None) -> _netcl.Tensor:
        """Enqueues dx = dL/dx from dy = dL/dy (``torch.nn.grad.conv2d_input`` /
        ``conv3d_input``) with the layer's weights and returns dx without waiting.
        ``input_shape`` is the forward input's ((N, C, H, W); (N, C, D, H, W) for Conv3d),
        which dy alone does not determine under a stride; or give ``dx`` to write in place.
        Planned under the selector op 'conv2d_backward_data' ('conv3d_backward_data')."""
        self._require_tensor(dy, "dy")
        if dx is not None:
            self._require_tensor(dx, "dx")
        return self._impl.backward_data(dy, dx, input_shape, wait_for)

    def backward_weights(self, x: _netcl.Tensor, dy: _netcl.Tensor, *, dw: Optional[_netcl.Tensor] = None,
                         db: Optional[_netcl.Tensor] = None, beta: float = 0.0,
                         wait_for: Optional[Sequence[object]] = None
                         ) -> Tuple[_netcl.Tensor, Optional[_netcl.Tensor]]:
        """Enqueues (dw, db): dL/dw of ``weight_shape`` from the forward input x and dy
        (``torch.nn.grad.conv2d_weight`` / ``conv3d_weight``), and dL/db = dy summed over
        every axis but K (None without a bias). Each is written as beta * old + gradient:
        beta=0 overwrites (new tensors when ``dw``/``db`` are not given), beta=1 accumulates
        as PyTorch's ``.grad`` does. Planned under the selector op 'conv2d_backward_weights'
        ('conv3d_backward_weights')."""
        self._require_tensor(x, "x")
        self._require_tensor(dy, "dy")
        for what, t in (("dw", dw), ("db", db)):
            if t is not None:
                self._require_tensor(t, what)
        return self._impl.backward_weights(x, dy, dw, db, float(beta), wait_for)

    @property
    def training(self) -> bool:
        """Whether the forward is planned for a training step (as PyTorch's ``module.training``):
        the weights are new before every forward, so what a plan builds from them (Winograd's
        transformed weights, packed panels) is paid every run, and the selector weighs that.
        False (inference, the default) plans for weights set once. The values are the same either
        way; backward_data is always planned for training."""
        return self._impl.training

    @training.setter
    def training(self, mode: bool) -> None:
        self._impl.training = bool(mode)

    def train(self, mode: bool = True) -> "_ConvLayer":
        """Plans the forward for training (``mode``) or inference, as ``torch.nn.Module.train``; returns self."""
        self.training = mode
        return self

    def eval(self) -> "_ConvLayer":
        """Plans the forward for inference (weights set once), as ``torch.nn.Module.eval``; returns self."""
        return self.train(False)

    @property
    def last_plan(self) -> Optional[_netcl.Plan]:
        """What the last run (forward or backward) ran (kernel, variant, implementation, config, reason); None before one."""
        return self._impl.last_plan

    @property
    def last_event(self) -> Optional[_netcl.Event]:
        """The event of the last run's last command; None before one."""
        return self._impl.last_event

    def plan_for(self, input_shape: Sequence[int], direction: str = "forward") -> _netcl.Plan:
        """What a run in ``direction`` ('forward', 'backward_data', 'backward_weights') would run
        for a forward input of ``input_shape`` (planned and prepared now)."""
        return self._impl.plan_for(input_shape, direction)

    def shapes_for(self, input_shape: Sequence[int]) -> _netcl.ConvShapes:
        """The problem this layer computes for an input of ``input_shape`` (validated)."""
        return self._impl.shapes_for(input_shape)

    def output_shape(self, input_shape: Sequence[int]) -> Tuple[int, ...]:
        """(N, K, P, Q); (N, K, O, P, Q) for Conv3d."""
        return tuple(self.shapes_for(input_shape).output_shape())

    def workspace_bytes(self, input_shape: Sequence[int], direction: str = "forward") -> int:
        """Scratch memory a run in ``direction`` needs for ``input_shape`` (0: none)."""
        return self._impl.workspace_bytes(input_shape, direction)

    def __repr__(self) -> str:
        text = (f"netcl.{self._NAME}({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.auto_pad != "NOTSET" and not isinstance(self.padding, str):
            text += f", auto_pad={self.auto_pad!r}"
        else:
            text += f", padding={self.padding!r}"
        if any(d != 1 for d in self.dilation):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.activation is not None:
            text += f", activation={self.activation!r}"
        if self.residual:
            text += ", residual=True"
        if self.dtype != "float32":
            text += f", dtype={self.dtype.name!r}"
        return text + ("" if self.bias else ", bias=False") + ")"
