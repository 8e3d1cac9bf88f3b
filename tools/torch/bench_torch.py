#!/usr/bin/env python3
"""Whole torchvision networks: torch's own CPU run against netcl.torch.convert(model),
and ONNX Runtime (CPU execution provider) where it is installed, in one process.

    build/python-venv/bin/python tools/torch/bench_torch.py --models resnet50,vgg16 --batch 1,8
    build/python-venv/bin/python tools/torch/bench_torch.py --models video.r3d_18 --batch 1   # nn.Conv3d

Inference in eval() (BatchNorm folded by convert), random weights, input uniform in
[-1, 1]. Each round runs every engine once, in turn, after an untimed run of its own
(as netcl-bench interleaves); a figure is the median over the rounds, a ratio the
median of the per-round ratios. Also measured: what netcl.torch adds around its
kernels per call (a 1x1x1x1 convolution: hand-over, enqueue, finish), and the first
call of a converted model with a warm and with a cold program cache.
Accuracy is checked on every model before it is timed. Never a test: numbers only.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("POCL_AFFINITY", "1")  # pinned PoCL workers, as netcl-bench sets (README: Environment)
os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # torch's and ORT's OpenMP threads do not spin on PoCL's cores

import torch  # noqa: E402
import torchvision  # noqa: E402

import netcl as nc  # noqa: E402
import netcl.torch as nt  # noqa: E402


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
        field = {l.split(":", 1)[0].strip(): l.split(":", 1)[1].strip() for l in info.split("\n\n")[0].splitlines()
                 if ":" in l}
        flags = field.get("flags", "").split()
        isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
        return (f"{field.get('model name', '?')}, family {field.get('cpu family', '?')} model "
                f"{field.get('model', '?')} ({isa}, {os.cpu_count()} cores)")
    except (OSError, StopIteration):
        return platform.processor()


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def interleaved(engines, rounds: int):
    """Each round runs every engine once, in turn, after an untimed run of its own:
    the median time per engine and the median of the rounds' torch / netcl ratios."""
    times = {k: [] for k in engines}
    ratios = []
    for _ in range(rounds):
        for k, fn in engines.items():
            fn()  # settling run of its own
            times[k].append(timed(fn))
        ratios.append(times["torch"][-1] / times["netcl"][-1])
    return {k: statistics.median(v) for k, v in times.items()}, statistics.median(ratios)


def model_path(name: str) -> str:
    """torchvision's module path of a model: 'resnet50' -> 'torchvision.models.resnet50',
    'video.r3d_18' -> 'torchvision.models.video.r3d_18'."""
    return f"torchvision.models.{name}"


def input_shape(name: str, batch: int) -> tuple:
    """What the model takes: a video network a clip of 16 frames of 112x112 (torchvision's
    training size), an image network 224x224."""
    return (batch, 3, 16, 112, 112) if name.startswith("video.") else (batch, 3, 224, 224)


def make_model(name: str) -> torch.nn.Module:
    module = torchvision.models
    *packages, function = name.split(".")
    for package in packages:
        module = getattr(module, package)
    return getattr(module, function)(weights=None)


def onnxruntime_session(model, x, threads, workdir):
    try:
        import onnxruntime as ort
    except ImportError:
        print("  ONNX Runtime: not installed (pip install onnxruntime onnxscript): column left out", flush=True)
        return None
    path = os.path.join(workdir, "model.onnx")
    torch.onnx.export(model, (x,), path, dynamo=True, external_data=False)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    feed = {name: x.numpy()}
    return lambda: session.run(None, feed)


def first_call_ms(model_name: str, batch: int, cache: str) -> float:
    """A converted model's first call in a fresh process with the given cache folder."""
    code = (f"import torch, torchvision, time, netcl.torch as nt\n"
            f"m = nt.convert({model_path(model_name)}(weights=None).eval())\n"
            f"x = torch.rand{input_shape(model_name, batch)}\n"
            f"t = time.perf_counter()\n"
            f"with torch.no_grad(): m(x)\n"
            f"print((time.perf_counter() - t) * 1e3)\n")
    env = dict(os.environ, NETCL_CACHE_DIR=os.path.join(cache, "netcl"), POCL_CACHE_DIR=os.path.join(cache, "pocl"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def train_step(spec: str, rounds: int) -> None:
    """One training step (train() mode: BatchNorm on batch statistics; cross-entropy,
    backward, SGD) of torch's model against the same model converted, in interleaved rounds."""
    import copy
    name, batch = spec.split(":")
    torch.manual_seed(0)
    model = make_model(name).train()
    ours = nt.convert(copy.deepcopy(model))
    x = torch.empty(input_shape(name, int(batch))).uniform_(-1, 1)
    with torch.no_grad():
        classes = model.eval()(x).shape[1]  # 1000 for ImageNet's networks, 400 for the video ones
    model.train()
    target = torch.randint(0, classes, (int(batch),))

    def stepper(m):
        opt = torch.optim.SGD(m.parameters(), lr=1e-3)

        def step():
            opt.zero_grad()
            torch.nn.functional.cross_entropy(m(x), target).backward()
            opt.step()
        return step

    med, ratio = interleaved({"torch": stepper(model), "netcl": stepper(ours)}, rounds)
    print(f"{name} training step N={batch}: torch {med['torch']:.0f} ms, netcl {med['netcl']:.0f} ms; "
          f"netcl / torch {ratio:.2f}x", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet50,vgg16",
                    help="torchvision model names; video ones as video.NAME (e.g. video.r3d_18: nn.Conv3d)")
    ap.add_argument("--batch", default="1,8")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2, help="torch's and ONNX Runtime's threads")
    ap.add_argument("--no-onnxruntime", action="store_true")
    ap.add_argument("--first-call", action="store_true", help="also time a first call, warm and cold cache")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16"],
                    help="netcl's model and input: float16 runs convert(model).half() (half storage, float32 "
                         "arithmetic in netcl; the layers left to torch in half too) beside torch in float32")
    ap.add_argument("--unfused", action="store_true",
                    help="also time convert(model, fuse_post_ops=False): ReLU and the residual adds in torch")
    ap.add_argument("--train", default="", metavar="MODEL:N",
                    help="also time training steps (forward, backward, SGD step) of MODEL at batch N, e.g. resnet18:8")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    ctx = nc.default_context()
    print(f"CPU: {cpu_name()}; netcl {nc.version()} on {ctx.device_name}; torch {torch.__version__} "
          f"({args.threads} threads); POCL_AFFINITY={os.environ['POCL_AFFINITY']}; netcl's model in {args.dtype}, "
          f"torch's in float32", flush=True)

    # What netcl.torch adds around a kernel: a 1x1 convolution of one value.
    tiny = nt.Conv2d(1, 1, 1).eval()
    one = torch.ones(1, 1, 1, 1)
    with torch.no_grad():
        for _ in range(20):
            tiny(one)
        per_call = statistics.median(timed(lambda: tiny(one)) for _ in range(200))
    print(f"netcl.torch per call, around the kernel (1x1x1x1 convolution, eval, median of 200): {per_call:.3f} ms",
          flush=True)

    rows = []
    with tempfile.TemporaryDirectory() as workdir, torch.no_grad():
        for name in args.models.split(","):
            for batch in map(int, args.batch.split(",")):
                model = make_model(name).eval()
                x = torch.empty(input_shape(name, batch)).uniform_(-1, 1)
                converted = nt.convert(model)
                x_netcl = x
                if args.dtype == "float16":
                    converted, x_netcl = converted.half(), x.half()
                expected, got = model(x), converted(x_netcl).float()
                err = (got - expected).abs().max().item() / expected.abs().max().item()
                engines = {"torch": lambda: model(x), "netcl": lambda: converted(x_netcl)}
                if args.unfused:
                    unfused = nt.convert(model, fuse_post_ops=False).to(x_netcl.dtype)
                    engines["netcl-unfused"] = lambda: unfused(x_netcl)
                if not args.no_onnxruntime:
                    ort_run = onnxruntime_session(model, x, args.threads, workdir)
                    if ort_run is not None:
                        engines["onnxruntime"] = ort_run
                med, ratio = interleaved(engines, args.rounds)
                row = (name, batch, med, ratio, err)
                rows.append(row)
                extra = f", onnxruntime {med['onnxruntime']:.1f} ms" if "onnxruntime" in med else ""
                if "netcl-unfused" in med:
                    extra += f", netcl without post-ops {med['netcl-unfused']:.1f} ms"
                print(f"{name} N={batch}: torch {med['torch']:.1f} ms, netcl {med['netcl']:.1f} ms{extra}; "
                      f"netcl / torch {row[3]:.2f}x; max error {err:.1e} of the largest output", flush=True)
                if args.first_call:
                    with tempfile.TemporaryDirectory() as cold:
                        cold_ms = first_call_ms(name, batch, cold)
                        warm_ms = first_call_ms(name, batch, cold)
                    print(f"  first call in a new process: cold cache {cold_ms:.0f} ms, warm {warm_ms:.0f} ms",
                          flush=True)

    if args.train:
        train_step(args.train, args.rounds)

    print("\n| model | N | torch ms | netcl.torch ms | speed-up over torch | ONNX Runtime ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, batch, med, ratio, _ in rows:
        ort_ms = f"{med['onnxruntime']:.1f}" if "onnxruntime" in med else "-"
        print(f"| {name} | {batch} | {med['torch']:.1f} | {med['netcl']:.1f} | {ratio:.2f}× | {ort_ms} |")


if __name__ == "__main__":
    main()
