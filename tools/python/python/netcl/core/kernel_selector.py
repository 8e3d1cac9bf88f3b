"""KernelSelector: register rules that pick a convolution strategy, and ask why.

Every ``KernelSelector()`` is a view of netcl's one global selector, the one every
``Conv2d`` asks: the wiki registers on a fresh ``KernelSelector()`` and expects a
``Conv2d`` made elsewhere to honour the rule, which only a shared registry gives.
A rule lasts until ``remove(handle)`` (or ``clear()`` on the instance that registered
it, or the end of a ``with`` block) and, at the latest, until the interpreter exits;
an instance being garbage-collected removes nothing, since which kernel a layer runs
should not depend on when the collector happens to run.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Union

from .. import _netcl

Predicate = Callable[[_netcl.ConvShapes, _netcl.DeviceProfile], bool]


class KernelSelector:
    """A view of the global selector, keeping the handles of the rules it registered."""

    def __init__(self) -> None:
        self._handles: List[int] = []

    def register(self, op: str, predicate: Predicate, kernel: str, priority: int = 0, *,
                 variant: Optional[str] = None) -> int:
        """Runs strategy ``kernel`` for every ``op`` ('conv2d') shape where
        ``predicate(shapes, profile)`` returns True; returns the rule's handle.

        ``shapes`` is a netcl.ConvShapes (fields N, C, H, W, K, R, S, ...; as a sequence,
        (input, weight, output) shapes, so ``shapes[0].numel()`` counts the input), and
        ``profile`` the device's netcl.DeviceProfile. Rules are tried by priority (higher
        first; ties, the latest first) before the default strategy and the built-in rules.
        A rule whose strategy cannot take a shape is passed over. A predicate that raises,
        or returns anything but a bool, is passed over too: the failure is logged, issued
        as a netcl.PredicateWarning and shown by explain(). ``variant`` pins one variant.
        Predicates may be called from any thread, with the GIL taken for the call.
        """
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"KernelSelector.register: priority must be an int; got {type(priority).__name__}")
        handle = _netcl._register_rule(op, predicate, kernel, priority, variant)
        self._handles.append(handle)
        return handle

    def remove(self, handle: int) -> bool:
        """Removes a rule (any instance's); False when no rule has that handle."""
        if handle in self._handles:
            self._handles.remove(handle)
        return _netcl._remove_rule(handle)

    def clear(self) -> int:
        """Removes every rule this instance registered; returns how many were still there."""
        handles, self._handles = self._handles, []
        return sum(_netcl._remove_rule(h) for h in handles)

    @property
    def rules(self) -> List[int]:
        """Handles of the rules this instance registered that are still in place."""
        live = set(_netcl._python_rules())
        return [h for h in self._handles if h in live]

    @staticmethod
    def rule_count() -> int:
        """Rules in the global selector, from every instance (and C++)."""
        return _netcl._rule_count()

    def explain(self, shapes_or_input: Union[_netcl.ConvShapes, _netcl.Tensor, Sequence[int], object],
                conv: Optional[object] = None, *, profile: Optional[_netcl.DeviceProfile] = None,
                op: Optional[str] = None) -> _netcl.Decision:
        """The whole decision for one problem: ``str(decision)`` lists every candidate with
        its reason, ``decision.plan`` is what would run.

        Give a netcl.ConvShapes, or an input (a Tensor, an array or a shape) with the
        ``conv`` (netcl.Conv2d or netcl.Conv3d) that would compute it. ``profile`` defaults to
        the conv's device, else the default context's. ``op`` defaults to the problem's own
        (``shapes.op``: 'conv2d', 'conv2d_backward_data', 'conv3d', ...); naming another is an
        error.
        A layer's strict ``strategy=`` override is not a selector decision and does not show here.
        """
        if isinstance(shapes_or_input, _netcl.ConvShapes):
            shapes = shapes_or_input
        else:
            if conv is None:
                raise TypeError("KernelSelector.explain: give a netcl.ConvShapes, or an input with "
                                "conv=<netcl.Conv2d or netcl.Conv3d>")
            shape = getattr(shapes_or_input, "shape", shapes_or_input)
            shapes = conv.shapes_for(tuple(shape))
        if profile is None:
            context = getattr(conv, "context", None) or _netcl.default_context()
            profile = context.profile
        return _netcl._explain(shapes.op if op is None else op, shapes, profile)

    def select(self, *args: object, **kwargs: object) -> _netcl.Plan:
        """explain(...).plan."""
        return self.explain(*args, **kwargs).plan  # type: ignore[arg-type]

    def __enter__(self) -> "KernelSelector":
        return self

    def __exit__(self, *exc: object) -> None:
        self.clear()

    def __repr__(self) -> str:
        return f"netcl KernelSelector(view of the global selector; {len(self._handles)} rule(s) registered here)"
