"""torch CPU tensors as netcl tensors, without copying where OpenCL allows it.

On a CPU device (PoCL) an OpenCL buffer made with CL_MEM_USE_HOST_PTR over a
tensor's own storage is that storage: netcl's kernels read x and write y in
the tensor's memory, and a map of the buffer after the queue finishes is the
OpenCL-conformant way to hand it back (on PoCL it returns the same pointer and
moves nothing). The whole storage is wrapped, from its base, with the tensor's
offset passed to netcl: a view into the middle of a storage would give PoCL a
host pointer off its alignment, and PoCL would then keep a copy of its own.

On a device with memory of its own (a GPU) tensors are copied in and out with
netcl.Tensor.from_host / to_host: `copies_tensors` says which, and the
benchmark (tools/torch/bench_torch.py) reports the time either way.
"""
from __future__ import annotations

import ctypes
from typing import List, Optional, Tuple

import numpy as np
import torch

import netcl as nc

_CPU_DEVICE_TYPE = 2  # CL_DEVICE_TYPE_CPU
_NUMPY_TYPES = {torch.float32: np.float32, torch.float16: np.float16}


class Bridge:
    """One netcl context and, where zero-copy works, the PyOpenCL objects over it."""

    def __init__(self, context: Optional[nc.Context] = None) -> None:
        self.context = context if context is not None else nc.default_context()
        self._cl = None
        self._queue = None
        self._pyopencl_context = None
        self.copies_tensors = True
        try:
            import pyopencl as cl
        except ImportError:  # zero-copy needs PyOpenCL; copying works without it
            return
        device = cl.Device.from_int_ptr(self.context.device_int_ptr)
        if device.type & _CPU_DEVICE_TYPE and device.host_unified_memory:
            self._cl = cl
            self._pyopencl_context = cl.Context.from_int_ptr(self.context.context_int_ptr, retain=True)
            self._queue = cl.CommandQueue.from_int_ptr(self.context.queue_int_ptr, retain=True)
            self.copies_tensors = False

    def view(self, t: torch.Tensor, keep: List[object]) -> nc.Tensor:
        """A netcl tensor over `t` (contiguous float32 or float16 on the CPU); `keep` holds what
        must live until the queue has finished with it."""
        if self.copies_tensors:
            return nc.Tensor.from_host(t.detach().numpy(), context=self.context)
        storage = t.untyped_storage()
        raw = (ctypes.c_uint8 * storage.nbytes()).from_address(storage.data_ptr())
        host = np.frombuffer(raw, np.uint8)
        flags = self._cl.mem_flags.READ_WRITE | self._cl.mem_flags.USE_HOST_PTR
        buffer = self._cl.Buffer(self._pyopencl_context, flags, hostbuf=host)
        keep += [t, buffer]
        return nc.Tensor.from_pyopencl(buffer, tuple(t.shape), offset=t.storage_offset() * t.element_size(),
                                       context=self.context, dtype=_NUMPY_TYPES[t.dtype])

    def output(self, shape: Tuple[int, ...], keep: List[object],
               dtype: torch.dtype = torch.float32) -> Tuple[torch.Tensor, Optional[nc.Tensor]]:
        """A new torch tensor and a netcl view of it to write into (None when copying: netcl
        makes its own and `result` copies it back)."""
        t = torch.empty(shape, dtype=dtype)
        if self.copies_tensors:
            return t, None
        view = self.view(t, keep)
        keep.append(_Written(keep[-1]))  # the buffer view() just made: mapped back in finish()
        return t, view

    def result(self, t: torch.Tensor, written: nc.Tensor, keep: List[object]) -> torch.Tensor:
        """`t` holding what netcl wrote into `written`, once the queue has run it."""
        if self.copies_tensors:
            return torch.from_numpy(written.to_host()).reshape(t.shape)
        return t

    def finish(self, keep: List[object]) -> None:
        """Waits for netcl's commands, then maps and unmaps every buffer netcl wrote so its
        values are the host's (OpenCL's rule for CL_MEM_USE_HOST_PTR; no copy on PoCL).
        Inputs are not mapped: netcl only read them."""
        if self.copies_tensors:
            self.context.finish()
            return
        cl = self._cl
        if self.context.out_of_order:
            self._queue.finish()  # a map on an out-of-order queue would not wait for netcl's commands
        for item in keep:
            if isinstance(item, _Written):
                # A blocking map on an in-order queue waits for netcl's commands before it.
                mapped, _ = cl.enqueue_map_buffer(self._queue, item.buffer, cl.map_flags.READ, 0,
                                                  (item.buffer.size,), np.uint8, is_blocking=True)
                mapped.base.release(self._queue)
        self._queue.finish()
        keep.clear()

    def settle(self, keep: List[object]) -> None:
        """After a failure: whatever was enqueued finishes before its buffers go."""
        try:
            self.context.finish()
        finally:
            keep.clear()


class _Written:
    """A buffer netcl writes: finish() maps it back."""

    def __init__(self, buffer) -> None:
        self.buffer = buffer


_default: Optional[Bridge] = None


def default_bridge() -> Bridge:
    global _default
    context = nc.default_context()
    if _default is None or _default.context.context_int_ptr != context.context_int_ptr:
        _default = Bridge(context)
    return _default
