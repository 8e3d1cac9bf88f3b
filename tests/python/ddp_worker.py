"""One process of test_torch_distributed: a netcl.torch model under
DistributedDataParallel (gloo, localhost), its own PoCL context, one step on
its half of the batch; rank 0 saves the averaged gradients."""
import os
import sys

import torch
import torch.distributed as dist

import netcl.torch as nt
from test_torch_models import SmallCnn


def main(out_path: str) -> None:
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        torch.manual_seed(0)
        model = nt.convert(SmallCnn(), inplace=True)
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        data = torch.Generator().manual_seed(21)
        x = torch.rand(8, 3, 16, 16, generator=data) * 2 - 1
        target = torch.randint(0, 4, (8,), generator=data)
        half = slice(4 * rank, 4 * rank + 4)
        torch.nn.functional.cross_entropy(ddp(x[half]), target[half]).backward()
        if rank == 0:
            torch.save({n: p.grad for n, p in model.named_parameters()}, out_path)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
