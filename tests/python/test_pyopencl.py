"""A PyOpenCL program's own context, queue and buffers: netcl computes into
them in place, with no host copy, and PyOpenCL reads the result back itself."""
import gc

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import netcl as nc
from reference import conv2d_reference, tolerance, uniform


@pytest.fixture(scope="module")
def pyopencl_env():
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    return ctx, queue, nc.Context.from_pyopencl(ctx, queue)


def test_wrapped_context_shares_handles(pyopencl_env):
    ctx, queue, nctx = pyopencl_env
    assert nctx.wrapped
    assert nctx.context_int_ptr == ctx.int_ptr
    assert nctx.queue_int_ptr == queue.int_ptr
    assert nctx.device_int_ptr == queue.device.int_ptr
    same = nc.Context.from_int_ptr(ctx.int_ptr, queue.device.int_ptr, queue.int_ptr)
    assert same.queue_int_ptr == queue.int_ptr


def test_conv_in_place_on_pyopencl_buffers(pyopencl_env, rng):
    ctx, queue, nctx = pyopencl_env
    mf = cl.mem_flags
    x_host = uniform(rng, (2, 3, 9, 8))
    w, b = uniform(rng, (5, 3, 3, 3)), uniform(rng, (5,))
    x_offset = 64 * 4  # the input starts 64 floats into the program's buffer
    x_buf = cl.Buffer(ctx, mf.READ_WRITE, size=x_offset + x_host.nbytes)
    cl.enqueue_copy(queue, x_buf, x_host, dst_offset=x_offset)
    y_shape = (2, 5, 9, 8)
    y_buf = cl.Buffer(ctx, mf.READ_WRITE, size=int(np.prod(y_shape)) * 4)
    poisoned = cl.enqueue_fill_buffer(queue, y_buf, np.float32(np.nan), 0, y_buf.size)

    x = nc.Tensor.from_pyopencl(x_buf, x_host.shape, offset=x_offset, context=nctx)
    y = nc.Tensor.from_pyopencl(y_buf, y_shape, context=nctx)
    assert x.is_view and x.int_ptr == x_buf.int_ptr and x.offset_bytes == x_offset
    conv = nc.Conv2d(3, 5, 3, padding=1, context=nctx)
    conv.set_weights(w, b)
    out = conv.forward(x, y, wait_for=[poisoned])
    assert out.int_ptr == y_buf.int_ptr  # netcl wrote into the program's buffer

    # PyOpenCL orders its read after netcl's last command, through the event netcl returns.
    done = cl.Event.from_int_ptr(conv.last_event.int_ptr, retain=True)
    result = np.empty(y_shape, np.float32)
    cl.enqueue_copy(queue, result, y_buf, wait_for=[done])
    queue.finish()
    ref = conv2d_reference(x_host, w, b, pads=(1, 1, 1, 1))
    assert not np.isnan(result).any()
    assert np.max(np.abs(result - ref)) <= tolerance(x_host, w, b, 1, conv.last_plan)


def test_pyopencl_array_and_buffer_lifetime(pyopencl_env, rng):
    ctx, queue, nctx = pyopencl_env
    x_host = uniform(rng, (1, 2, 6, 6))
    x_arr = cla.to_device(queue, x_host)
    x = nc.Tensor.from_pyopencl(x_arr, context=nctx)  # shape and offset from the Array
    assert x.shape == x_host.shape
    del x_arr
    gc.collect()
    # The view keeps PyOpenCL's buffer (and its memory) alive.
    assert np.array_equal(x.to_host(), x_host)

    w = uniform(rng, (3, 2, 3, 3))
    conv = nc.Conv2d(2, 3, 3, bias=False, context=nctx)
    conv.set_weights(w)
    y_arr = cla.empty(queue, (1, 3, 4, 4), np.float32)
    conv.forward(x, nc.Tensor.from_pyopencl(y_arr, context=nctx))
    ref = conv2d_reference(x_host, w)
    assert np.max(np.abs(y_arr.get() - ref)) <= tolerance(x_host, w, None, 1, conv.last_plan)


def test_pyopencl_mistakes_are_clear(pyopencl_env):
    ctx, queue, nctx = pyopencl_env
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=64)
    with pytest.raises(TypeError, match="needs shape="):
        nc.Tensor.from_pyopencl(buf, context=nctx)
    with pytest.raises(nc.Error, match="runs past|past the buffer|bytes"):
        nc.Tensor.from_pyopencl(buf, (1, 1, 4, 5), context=nctx)
    with pytest.raises(nc.Error, match="multiple of 4"):
        nc.Tensor.from_pyopencl(buf, (2,), offset=2, context=nctx)
    with pytest.raises(TypeError, match="float32"):
        nc.Tensor.from_pyopencl(cla.empty(queue, (4,), np.float64), context=nctx)
    # A buffer of this context viewed on netcl's own (another cl_context).
    with pytest.raises(nc.Error, match="another cl_context"):
        nc.Tensor.from_pyopencl(buf, (4,), context=nc.Context())


def test_no_opencl_references_left_behind(pyopencl_env, rng):
    """Every reference netcl takes on PyOpenCL's objects (context, queue, buffers
    viewed, events waited on) is released when the Python objects go: the counts
    after one round are the counts after six. (One round first, since the driver
    itself may keep a reference or two from the first commands on a queue.)"""
    ctx, queue, _ = pyopencl_env
    x_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=4 * 2 * 6 * 6)
    y_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=4 * 3 * 6 * 6)
    event = cl.enqueue_fill_buffer(queue, x_buf, np.float32(1), 0, x_buf.size)

    def counts():
        queue.finish()
        gc.collect()
        return (ctx.get_info(cl.context_info.REFERENCE_COUNT), queue.get_info(cl.command_queue_info.REFERENCE_COUNT),
                x_buf.get_info(cl.mem_info.REFERENCE_COUNT), y_buf.get_info(cl.mem_info.REFERENCE_COUNT),
                event.get_info(cl.event_info.REFERENCE_COUNT))

    def one_round():
        nctx = nc.Context.from_pyopencl(ctx, queue)
        conv = nc.Conv2d(2, 3, 3, padding=1, context=nctx)
        conv.set_weights(uniform(rng, (3, 2, 3, 3)), uniform(rng, (3,)))
        x = nc.Tensor.from_pyopencl(x_buf, (1, 2, 6, 6), context=nctx)
        y = nc.Tensor.from_pyopencl(y_buf, (1, 3, 6, 6), context=nctx)
        conv.forward(x, y, wait_for=[event])
        y.to_host()

    baseline = counts()
    one_round()
    after_one = counts()
    assert after_one[0] == baseline[0] and after_one[2:4] == baseline[2:4]  # context and buffers: exactly back
    for _ in range(5):
        one_round()
    assert counts() == after_one


def test_borrowed_weights_are_read_from_the_programs_buffer(pyopencl_env, rng):
    # borrow_weights: netcl reads the program's weight buffer itself in each run (no copy); the
    # program writes the next step's weights into it once netcl's run is over and borrows again.
    ctx, queue, nctx = pyopencl_env
    mf = cl.mem_flags
    x_host = uniform(rng, (1, 4, 7, 7))
    x = nc.Tensor.from_host(x_host, context=nctx)
    w_buf = cl.Buffer(ctx, mf.READ_WRITE, size=6 * 4 * 9 * 4)
    b_buf = cl.Buffer(ctx, mf.READ_WRITE, size=6 * 4)
    conv = nc.Conv2d(4, 6, 3, padding=1, context=nctx).train()
    w_view = nc.Tensor.from_pyopencl(w_buf, (6, 4, 3, 3), context=nctx)
    b_view = nc.Tensor.from_pyopencl(b_buf, (6,), context=nctx)
    for step in range(3):
        w, b = uniform(rng, (6, 4, 3, 3)), uniform(rng, (6,))
        cl.enqueue_copy(queue, w_buf, w)
        cl.enqueue_copy(queue, b_buf, b)
        queue.finish()
        conv.borrow_weights(w_view, b_view)
        y = conv.forward(x).to_host()
        ref = conv2d_reference(x_host, w, b, pads=(1, 1, 1, 1))
        assert np.max(np.abs(y - ref)) <= tolerance(x_host, w, b, 1, conv.last_plan), f"step {step}"
    # set_weights copies: from Tensors it returns the copy's event (the program waits for it before
    # changing its buffers), from arrays None (copied before it returns).
    copied = conv.set_weights(w_view, b_view)
    assert isinstance(copied, nc.Event)
    cl.Event.from_int_ptr(copied.int_ptr, retain=True).wait()
    cl.enqueue_copy(queue, w_buf, np.full((6, 4, 3, 3), np.nan, np.float32))
    cl.enqueue_copy(queue, b_buf, np.full((6,), np.nan, np.float32))
    queue.finish()
    y = conv.forward(x).to_host()
    assert np.max(np.abs(y - ref)) <= tolerance(x_host, w, b, 1, conv.last_plan), "set_weights kept no copy"
    assert conv.set_weights(w, b) is None
    with pytest.raises(TypeError, match="must be a netcl.Tensor"):
        conv.borrow_weights(np.zeros((6, 4, 3, 3), np.float32))
    with pytest.raises(nc.Error, match="borrow_weights: the weight tensor holds 6 floats"):
        conv.borrow_weights(nc.Tensor.from_pyopencl(b_buf, (6,), context=nctx), b_view)
