"""The autograd Function: forward, dL/dx and dL/dw, dL/db all in netcl."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import torch

if TYPE_CHECKING:
    from ._modules import _Call


class ConvFunction(torch.autograd.Function):
    """y = conv(x, w) + b in 2-D or 3-D, with backward through netcl's own gradients
    (netcl.Conv2d's or Conv3d's backward_data and backward_weights: the selector's ops
    conv2d_backward_data and conv2d_backward_weights, or conv3d_...)."""

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


Conv2dFunction = ConvFunction  # its name before netcl.torch.Conv3d
