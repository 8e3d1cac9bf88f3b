#!/usr/bin/env python3
"""Times cuDNN (through PyTorch) on the layers a netcl-bench run measured, and
prints both side by side with the ratio netcl-selected / cuDNN.

    python3 tools/gpu/cudnn_anchor.py --netcl-json vgg16.json [--json cudnn.json]

The layers, batch sizes and directions come from netcl-bench's JSON, so both
tools time exactly the same problems: a forward layer as conv2d, a
"/bwd_data" layer as the input gradient and a "/bwd_weights" layer as the
weight gradient (aten.convolution_backward with one output asked for, as
autograd asks for it; no bias). fp32 with TF32 off, cudnn.benchmark on; each
layer is timed with CUDA events: warm-up, then the median of --repeat runs.
Effective TFLOPS use the direct-convolution count 2*N*K*(C/groups)*R*S*P*Q,
the same in every direction. --cpu times PyTorch's CPU convolution on wall
time instead (a dry run of this script on a machine without CUDA).
"""
import argparse
import json
import statistics
import sys
import time


def direct_flops(s):
    return 2.0 * s["N"] * s["K"] * (s["C"] // s["groups"]) * s["R"] * s["S"] * s["P"] * s["Q"]


def netcl_result(layer, candidate):
    for r in layer["results"]:
        if r["candidate"] == candidate and r.get("ran"):
            return r
    return None


def make_run(torch, s, dev):
    x = torch.rand(s["N"], s["C"], s["H"], s["W"], device=dev) * 2 - 1
    w = torch.rand(s["K"], s["C"] // s["groups"], s["R"], s["S"], device=dev) * 2 - 1
    geometry = dict(stride=[s["stride"]] * 2, padding=[s["pad"]] * 2, dilation=[s["dilation"]] * 2,
                    groups=s["groups"])
    direction = s.get("direction", "forward")
    if direction == "forward":
        return lambda: torch.nn.functional.conv2d(x, w, **geometry)
    if direction not in ("backward_data", "backward_weights"):
        sys.exit(f"cudnn_anchor.py: layer direction {direction!r} is not one this script times")
    dy = torch.rand(s["N"], s["K"], s["P"], s["Q"], device=dev) * 2 - 1
    mask = [direction == "backward_data", direction == "backward_weights", False]
    return lambda: torch.ops.aten.convolution_backward(
        dy, x, w, None, geometry["stride"], geometry["padding"], geometry["dilation"], False, [0, 0],
        geometry["groups"], mask)


def time_layer(torch, s, repeat, warmup, on_cpu):
    run = make_run(torch, s, torch.device("cpu" if on_cpu else "cuda"))
    for _ in range(warmup):  # also lets cudnn.benchmark pick its algorithm
        run()
    samples = []
    if on_cpu:
        for _ in range(repeat):
            t0 = time.perf_counter()
            run()
            samples.append((time.perf_counter() - t0) * 1e3)
    else:
        torch.cuda.synchronize()
        for _ in range(repeat):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
    return statistics.median(samples), min(samples), max(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netcl-json", required=True, help="netcl-bench --json output")
    ap.add_argument("--json", help="write the cuDNN timings and ratios here")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="PyTorch's CPU convolution on wall time (a dry run)")
    args = ap.parse_args()

    import torch
    if not args.cpu and not torch.cuda.is_available():
        sys.exit("cudnn_anchor.py: PyTorch sees no CUDA device")
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False

    with open(args.netcl_json) as f:
        report = json.load(f)
    peer = "PyTorch CPU (dry run)" if args.cpu else torch.cuda.get_device_name(0)
    print(f"GPU: {peer}   torch {torch.__version__}   cuDNN {torch.backends.cudnn.version()}")
    print(f"netcl device: {report['device']['name']} (driver {report['driver']}), netcl {report['git_revision']}")
    header = f"{'layer':<22} {'N':>3} {'cuDNN ms':>9} {'TFLOPS':>7} {'netcl ms':>9} {'TFLOPS':>7} {'plan':<34} {'CLBlast TFLOPS':>14} {'netcl/cuDNN':>11}"
    print(header)
    print("-" * len(header))
    rows, totals = [], {}
    for layer in report["layers"]:
        s = layer["shapes"]
        flops = direct_flops(s)
        med, lo, hi = time_layer(torch, s, args.repeat, args.warmup, args.cpu)
        sel, clb = netcl_result(layer, "selector"), netcl_result(layer, "clblast")
        ratio = (med / sel["median_ms"]) if sel else None  # throughput ratio netcl / cuDNN
        rows.append({"layer": layer["name"], "shapes": s, "depth": layer["depth"], "cudnn_median_ms": med,
                     "cudnn_min_ms": lo, "cudnn_max_ms": hi, "cudnn_tflops": flops / med * 1e-9,
                     "netcl_selected_ms": sel["median_ms"] if sel else None,
                     "netcl_plan": sel["plan"] if sel else None,
                     "clblast_ms": clb["median_ms"] if clb else None, "netcl_over_cudnn": ratio})
        # One total per batch over every direction (a training step where all three ran) and one per
        # batch and direction.
        for key in (str(s["N"]), f'{s["N"]}/{s.get("direction", "forward")}'):
            t = totals.setdefault(key, {"cudnn": 0.0, "netcl": 0.0, "complete": True})
            t["cudnn"] += layer["depth"] * med
            if sel:
                t["netcl"] += layer["depth"] * sel["median_ms"]
            else:
                t["complete"] = False
        fmt = lambda v, w, p: f"{v:>{w}.{p}f}" if v is not None else f"{'-':>{w}}"
        print(f"{layer['name']:<22} {s['N']:>3} {med:>9.3f} {flops / med * 1e-9:>7.2f} "
              f"{fmt(sel and sel['median_ms'], 9, 3)} {fmt(sel and flops / sel['median_ms'] * 1e-9, 7, 2)} "
              f"{(sel['plan'] if sel else '-')[:34]:<34} {fmt(clb and flops / clb['median_ms'] * 1e-9, 14, 2)} "
              f"{fmt(ratio, 11, 3)}")
    print("\nper batch (and direction), depth-weighted totals (netcl-selected throughput / cuDNN throughput):")
    for n, t in totals.items():
        ratio = t["cudnn"] / t["netcl"] if t["complete"] and t["netcl"] > 0 else None
        print(f"  N={n:<20} cuDNN {t['cudnn']:.2f} ms   netcl {t['netcl']:.2f} ms   ratio "
              + (f"{ratio:.3f}" if ratio is not None else "n/a (a layer did not run)"))
        t["ratio"] = ratio
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": peer, "torch": torch.__version__,
                       "cudnn": torch.backends.cudnn.version(), "tf32": False, "repeat": args.repeat,
                       "rows": rows, "totals": totals}, f, indent=2)


if __name__ == "__main__":
    main()
