"""The autograd Function: forward, dL/dx and dL/dw, dL/db all in netcl."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import torch

if TYPE_CHECKING:
    from ._modules import _Call


class Conv2dFunction(torch.autograd.Function):
    """y = conv(x, w) + b, with backward through netcl's own gradients
    (Conv2d.backward_data and backward_weights: the selector's ops
    conv2d_backward_data and conv2d_backward_weights)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                call: "_Call") -> torch.Tensor:
        ctx.call = call
        ctx.save_for_backward(x, weight, bias)
        return call.module._netcl_forward(call, x, weight, bias)

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        x, weight, bias = ctx.saved_tensors
        call = ctx.call
        need_dx, need_dw, need_db = ctx.needs_input_grad[:3]
        dx, dw, db = call.module._netcl_backward(call, x, weight, bias, dy, need_dx, need_dw,
                                                 need_db and bias is not None)
        return dx, dw, db, None
