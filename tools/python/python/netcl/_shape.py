"""netcl.Shape: a tensor's dimensions, as torch.Size has them."""
from __future__ import annotations

import math


class Shape(tuple):
    """A tuple of ints with ``numel()``: what ``Tensor.shape`` returns and what a
    selector predicate gets as ``shapes[0]`` (input), ``shapes[1]`` (weight) and
    ``shapes[2]`` (output). Compares equal to a plain tuple of the same ints."""

    __slots__ = ()

    def numel(self) -> int:
        """The number of elements: the product of the dimensions."""
        return math.prod(self)

    def __repr__(self) -> str:
        return f"netcl.Shape({tuple.__repr__(self)})"
