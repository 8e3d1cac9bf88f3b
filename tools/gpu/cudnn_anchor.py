#!/usr/bin/env python3
"""Times cuDNN (through PyTorch) on the layers a netcl-bench run measured, and
prints both side by side with the ratio netcl-selected / cuDNN.

    python3 tools/gpu/cudnn_anchor.py --netcl-json vgg16.json [--json cudnn.json]

The layers and batch sizes come from netcl-bench's JSON, so both tools time
exactly the same problems. fp32 with TF32 off, cudnn.benchmark on; each layer
is timed with CUDA events: warm-up, then the median of --repeat runs.
Effective TFLOPS use the direct-convolution count 2*N*K*(C/groups)*R*S*P*Q.
"""
import argparse
import json
import statistics
import sys


def direct_flops(s):
    return 2.0 * s["N"] * s["K"] * (s["C"] // s["groups"]) * s["R"] * s["S"] * s["P"] * s["Q"]


def netcl_result(layer, candidate):
    for r in layer["results"]:
        if r["candidate"] == candidate and r.get("ran"):
            return r
    return None


def time_cudnn(torch, s, repeat, warmup):
    dev = torch.device("cuda")
    x = torch.rand(s["N"], s["C"], s["H"], s["W"], device=dev) * 2 - 1
    w = torch.rand(s["K"], s["C"] // s["groups"], s["R"], s["S"], device=dev) * 2 - 1
    conv = lambda: torch.nn.functional.conv2d(x, w, stride=s["stride"], padding=s["pad"],
                                               dilation=s["dilation"], groups=s["groups"])
    for _ in range(warmup):  # also lets cudnn.benchmark pick its algorithm
        conv()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        conv()
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
    args = ap.parse_args()

    import torch
    if not torch.cuda.is_available():
        sys.exit("cudnn_anchor.py: PyTorch sees no CUDA device")
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False

    with open(args.netcl_json) as f:
        report = json.load(f)
    print(f"GPU: {torch.cuda.get_device_name(0)}   torch {torch.__version__}   cuDNN {torch.backends.cudnn.version()}")
    print(f"netcl device: {report['device']['name']} (driver {report['driver']}), netcl {report['git_revision']}")
    header = f"{'layer':<10} {'N':>3} {'cuDNN ms':>9} {'TFLOPS':>7} {'netcl ms':>9} {'TFLOPS':>7} {'plan':<34} {'CLBlast TFLOPS':>14} {'netcl/cuDNN':>11}"
    print(header)
    print("-" * len(header))
    rows, totals = [], {}
    for layer in report["layers"]:
        s = layer["shapes"]
        flops = direct_flops(s)
        med, lo, hi = time_cudnn(torch, s, args.repeat, args.warmup)
        sel, clb = netcl_result(layer, "selector"), netcl_result(layer, "clblast")
        ratio = (med / sel["median_ms"]) if sel else None  # throughput ratio netcl / cuDNN
        rows.append({"layer": layer["name"], "shapes": s, "depth": layer["depth"], "cudnn_median_ms": med,
                     "cudnn_min_ms": lo, "cudnn_max_ms": hi, "cudnn_tflops": flops / med * 1e-9,
                     "netcl_selected_ms": sel["median_ms"] if sel else None,
                     "netcl_plan": sel["plan"] if sel else None,
                     "clblast_ms": clb["median_ms"] if clb else None, "netcl_over_cudnn": ratio})
        t = totals.setdefault(s["N"], {"cudnn": 0.0, "netcl": 0.0, "complete": True})
        t["cudnn"] += layer["depth"] * med
        if sel:
            t["netcl"] += layer["depth"] * sel["median_ms"]
        else:
            t["complete"] = False
        fmt = lambda v, w, p: f"{v:>{w}.{p}f}" if v is not None else f"{'-':>{w}}"
        print(f"{layer['name']:<10} {s['N']:>3} {med:>9.3f} {flops / med * 1e-9:>7.2f} "
              f"{fmt(sel and sel['median_ms'], 9, 3)} {fmt(sel and flops / sel['median_ms'] * 1e-9, 7, 2)} "
              f"{(sel['plan'] if sel else '-')[:34]:<34} {fmt(clb and flops / clb['median_ms'] * 1e-9, 14, 2)} "
              f"{fmt(ratio, 11, 3)}")
    print("\nper batch, depth-weighted totals (netcl-selected throughput / cuDNN throughput):")
    for n, t in sorted(totals.items()):
        ratio = t["cudnn"] / t["netcl"] if t["complete"] and t["netcl"] > 0 else None
        print(f"  N={n:<3} cuDNN {t['cudnn']:.2f} ms   netcl {t['netcl']:.2f} ms   ratio "
              + (f"{ratio:.3f}" if ratio is not None else "n/a (a layer did not run)"))
        t["ratio"] = ratio
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                       "cudnn": torch.backends.cudnn.version(), "tf32": False, "repeat": args.repeat,
                       "rows": rows, "totals": {str(k): v for k, v in totals.items()}}, f, indent=2)


if __name__ == "__main__":
    main()
