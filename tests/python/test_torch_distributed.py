"""Data-parallel training through an existing engine: two processes under
torch.distributed (gloo, localhost) with DistributedDataParallel over netcl.torch
layers, each with its own PoCL context. Their averaged gradients equal one
process's on the combined batch. Started, bounded and stopped by the test."""
import os
import socket
import subprocess
import sys
from pathlib import Path

import torch

import netcl.torch as nt
from test_torch_models import SmallCnn

HERE = Path(__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_process_ddp_gradients_equal_one_process_on_the_whole_batch(tmp_path):
    out = tmp_path / "grads.pt"
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), WORLD_SIZE="2",
               PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, str(HERE / "ddp_worker.py"), str(out)], env=dict(env, RANK=str(r)),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(2)]
    logs = []
    try:
        for p in procs:
            logs.append(p.communicate(timeout=180)[0])
    finally:
        for p in procs:  # a hung rank never outlives the test
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert all(p.returncode == 0 for p in procs), "\n".join(logs)
    distributed = torch.load(out)

    torch.manual_seed(0)
    model = nt.convert(SmallCnn(), inplace=True)
    data = torch.Generator().manual_seed(21)
    x = torch.rand(8, 3, 16, 16, generator=data) * 2 - 1
    target = torch.randint(0, 4, (8,), generator=data)
    # DDP averages the ranks' gradients of their mean losses: with equal halves that is the
    # gradient of the mean loss over the whole batch.
    torch.nn.functional.cross_entropy(model(x), target).backward()
    for name, p in model.named_parameters():
        assert name in distributed
        assert torch.allclose(distributed[name], p.grad, rtol=1e-4, atol=1e-6), name
