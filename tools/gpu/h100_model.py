#!/usr/bin/env python3
"""A performance model (not a measurement) of netcl's VGG-16 layers on an H100.

    python3 tools/gpu/h100_model.py [--netcl-info build/netcl-info]
        [--checker tests/nvptx/nvptx_check.py] [--manifest DIR/manifest.json --ptxas-json FILE]
        [--batches 1,8,32] [--device sxm|pcie] [--l2-tbps X]

For every VGG-16 layer (tests/support/LayerSets.cpp, depth-weighted) and batch:
the plan the selector makes on the shipped nvidia-gpu profile (netcl-info
--explain), the kernel's registers and blocks per SM from ptxas (the nvptx
check: clang's NVPTX path standing in for NVIDIA's OpenCL compiler), the
NDRange the plan launches (WinogradConfig.cpp's formulas), then three lower
bounds on the time -- instruction issue, L2 traffic, DRAM traffic -- and the
larger one as the layer's modelled time. Effective TFLOPS = the direct
convolution's 2*N*K*C*R*S*P*Q / modelled time, the figure tools/gpu/check.sh
(netcl-bench + cudnn_anchor.py) measures on a real GPU.

Inputs: by default the script runs netcl-info --programs and the nvptx checker
itself (needs clang-15 with NVPTX, libclc and ptxas, as CTest nvptx_sm90_budget
does); --manifest and --ptxas-json (nvptx_check.py MANIFEST --json > FILE) take
saved ones. Python 3 standard library only; no GPU.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------------------
# The machine. Peaks are NVIDIA's datasheet figures (boost clock x 128 FP32
# lanes per SM x 2 flops per FMA: 66.9 and 51.2 TFLOPS). NVIDIA publishes no
# L2 bandwidth for H100: the L2 figures are assumptions of the order that
# public microbenchmarks report (override with --l2-tbps).
# ---------------------------------------------------------------------------
DEVICES = {
    "sxm": {"name": "H100 SXM5", "sms": 132, "clock_ghz": 1.98, "dram_tbps": 3.35, "l2_tbps": 7.0},
    "pcie": {"name": "H100 PCIe", "sms": 114, "clock_ghz": 1.755, "dram_tbps": 2.0, "l2_tbps": 5.5},
}
FP32_LANES_PER_SM = 128        # 4 sub-partitions x 32 lanes: one warp FFMA per scheduler per clock
SCHEDULERS_PER_SM = 4          # each issues at most one warp instruction per clock
WARPS_TO_HIDE_LATENCY = 4      # per scheduler; fewer and the issue rate scales down in proportion
L2_RESIDENT_BYTES = 25 << 20   # half the 50 MB L2: a buffer up to this size is re-read from L2, not DRAM
FLOAT = 4


def peak_tflops(dev):
    return dev["sms"] * FP32_LANES_PER_SM * 2 * dev["clock_ghz"] * 1e-3


ASSUMPTIONS = """\
- **A model, not a measurement.** Registers and blocks/SM come from ptxas -arch=sm_90 on the PTX that
  clang-15 (NVPTX, libclc) makes of netcl's OpenCL C: NVIDIA's own OpenCL compiler may allocate differently.
- **Device** {name}: {sms} SMs at {clock_ghz} GHz boost, FP32 peak {peak:.1f} TFLOPS, HBM {dram_tbps} TB/s,
  L2->SM {l2_tbps} TB/s (assumed: NVIDIA publishes no H100 L2 bandwidth). No clock throttling.
- **Issue bound**: an SM issues 4 warp instructions per clock (one per scheduler; one warp FFMA fills the
  32 FP32 lanes of a scheduler). Counted per work-group from the kernel as written: the multiply loop's
  8*BT FFMA, 2 U loads (float8 = 2 x 128-bit) and BT V loads (local memory) per channel; the input and
  output transforms' loads, stores and +/- terms (from the generated WINO_BT / WINO_AT macros). Integer
  and address instructions are not counted (so this bound is optimistic).
- **Occupancy derate**: a scheduler needs >= {hide} resident warps to hide latency; with fewer, the
  issue rate scales down in proportion. Resident warps = min(ptxas blocks/SM, work-groups per SM) x warps
  per work-group.
- **Waves**: work-groups spread evenly over the SMs; the busiest SM gets ceil(work-groups / SMs) of
  them and sets the time (a layer with fewer work-groups than SMs leaves SMs idle).
- **L2 bound**: every work-group reads its K block's U for its C slice and its input tiles (6x6 per tile
  per channel, as loaded) from L2, no reuse in L1 between work-groups; an SM draws 1/SMs of the L2
  bandwidth. Output (or split-C partial sums) written once.
- **DRAM bound**: U read once (work-groups launched together share a K block); the input read once, or
  once per K block when it exceeds {resident} MiB (half the L2); output written once; split-C partial sums
  written and read back through DRAM only when they exceed {resident} MiB.
- **Split C**: the reduce kernel's traffic ((splits + 1) x output) is added as its own memory-bound time.
- **conv1.1** runs im2col + CLBlast SGEMM, whose kernels CLBlast builds itself (not in the ptxas check):
  modelled as the im2col columns written and read plus the output, with the GEMM at full FP32 peak
  (optimistic).
- Not modelled: kernel launch gaps, the once-per-weights U transform, TF32 (netcl is fp32 throughout).
"""


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def vgg16_layers(path):
    """(name, C, HW, K, RS, stride, pad, depth) from tests/support/LayerSets.cpp, so the model follows
    the layer set netcl-bench --net vgg16 times instead of a copy of it."""
    text = open(path).read()
    body = re.search(r"vgg16_layers\(\)\s*\{(.*?)\n\}", text, re.S).group(1)
    rows = re.findall(r'\{"([^"]+)",\s*conv\((\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\),\s*(\d+)\}', body)
    if not rows:
        sys.exit("h100_model.py: no vgg16 layers found in " + path)
    return [(r[0],) + tuple(int(v) for v in r[1:]) for r in rows]


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def make_inputs(args, work):
    """The program manifest and the ptxas figures, made here unless given."""
    manifest = args.manifest
    if not manifest:
        rc, out, err = run([args.netcl_info, "--programs", work, "--profile", "nvidia-gpu", "--net", "vgg16"])
        if rc:
            sys.exit("h100_model.py: netcl-info --programs failed:\n" + out + err)
        manifest = os.path.join(work, "manifest.json")
    if args.ptxas_json:
        ptxas = json.load(open(args.ptxas_json))
    else:
        # Exit 1 means a budget is violated: the figures are still there and still what we model.
        rc, out, err = run([sys.executable, args.checker, manifest, "--json"])
        if rc == 77 or rc not in (0, 1):
            sys.exit("h100_model.py: the nvptx checker gave no figures (exit %d):\n%s%s" % (rc, out, err))
        ptxas = json.loads(out)
    return manifest, ptxas


def selector_plan(netcl_info, n, c, hw, k, rs, stride, pad):
    """The selector's plan on the nvidia-gpu profile, from netcl-info --explain's 'plan:' line."""
    spec = ",".join(str(v) for v in (n, c, hw, hw, k, rs, rs, stride, pad))
    rc, out, err = run([netcl_info, "--explain", spec, "--profile", "nvidia-gpu"])
    line = next((l for l in out.splitlines() if l.startswith("plan: ")), None)
    if rc or not line:
        sys.exit("h100_model.py: netcl-info --explain %s gave no plan:\n%s%s" % (spec, out, err))
    plan = {"text": line[6:].split("]:")[0] + "]", "variant": line.split()[2]}
    m = re.search(r"F\((\d)x\d,(\d)x\d\) BK=(\d+) BT=(\d+) BC=(\d+)", line)
    if m:
        plan.update(m=int(m.group(1)), r=int(m.group(2)), bk=int(m.group(3)), bt=int(m.group(4)), bc=int(m.group(5)))
        s = re.search(r"C split in (\d+) slices of (\d+)", line)
        plan["splits"], plan["c_slice"] = (int(s.group(1)), int(s.group(2))) if s else (1, None)
        plan["c_tail"] = "exact C" in line
    return plan


def kernel_figures(manifest_path, ptxas, variant, kernel):
    """ptxas registers / occupancy of `kernel` in the program the variant builds, and that program's
    source (for the transform macros)."""
    manifest = json.load(open(manifest_path))
    prog = next((p for p in manifest if variant in p["variants"]), None)
    if prog is None:
        sys.exit("h100_model.py: variant %s is in no program of the manifest" % variant)
    res = next((r for r in ptxas["results"] if r["program"] == prog["name"] and r["kernel"] == kernel), None)
    if res is None:
        sys.exit("h100_model.py: no ptxas figures for %s / %s" % (prog["name"], kernel))
    source = open(os.path.join(os.path.dirname(manifest_path), prog["source_file"])).read()
    return res, prog["options"], source


def macro_terms(source, macro):
    """Terms (X(i) operands) of a generated transform macro: about one FP add/FMA each."""
    m = re.search(r"#define %s\(X, Y\)((?:.*\\\n)*.*)" % macro, source)
    return m.group(1).count("X(")


# ---------------------------------------------------------------------------
# The fused Winograd kernel: launch geometry and per-work-group counts,
# mirroring WinogradConfig.cpp and kernels_cl/winograd_fused.cl.
# ---------------------------------------------------------------------------
def up(v, m):
    return -(-v // m) * m


def winograd_launch(n, c, hw, k, plan, c_chunk):
    """Work-groups and the channels each walks (WinogradConfig::global, the kernel's C loop)."""
    m, bk, bt, bc = plan["m"], plan["bk"], plan["bt"], plan["bc"]
    p = hw  # Winograd is 3x3 stride 1; VGG pads by 1, so P = Q = H (checked in main)
    tiles = n * (-(-p // m)) ** 2
    tile_blocks = -(-tiles // bt)
    kp = up(k, bk)
    cp = up(c, c_chunk) if plan["c_tail"] else up(c, bc)
    c_slice = plan["c_slice"] or up(c, bc)
    slices = []  # per C slice: (C steps, channels the multiply loop walks)
    for s in range(plan["splits"]):
        begin, end = s * c_slice, min(c, (s + 1) * c_slice)
        steps = list(range(begin, end, bc))
        slices.append((len(steps), sum(min(bc, cp - c0) for c0 in steps)))
    return {"tiles": tiles, "tile_blocks": tile_blocks, "kp": kp, "cp": cp, "slices": slices,
            "work_groups": (kp // bk) * tile_blocks * plan["splits"]}


def winograd_work_group(plan, launch, warps, bt_terms, at_terms):
    """Mean per work-group: warp instructions issued, FFMA warp instructions, L2 bytes."""
    m, bk, bt, bc = plan["m"], plan["bk"], plan["bt"], plan["bc"]
    a = m + plan["r"] - 1
    steps = sum(s for s, _ in launch["slices"]) / len(launch["slices"])
    walked = sum(w for _, w in launch["slices"]) / len(launch["slices"])
    # Phase 2, per channel and work-item: 8*BT FFMA, U as two 128-bit loads, BT scalar V loads.
    ffma = warps * walked * 8 * bt
    multiply = warps * walked * (8 * bt + 2 + bt)
    # Phase 1, per step: BT*BC input tiles, each a^2 loads, 2a 1-D transforms, a^2 local stores.
    inputs = steps * math.ceil(bt * bc / 32) * (2 * a * a + 2 * a * bt_terms)
    # Phase 3: accumulators to local memory, then BT*BK outputs: a^2 local loads, (a + m) 1-D
    # transforms, m^2 stores.
    outputs = warps * 2 * bt + math.ceil(bt * bk / 32) * (a * a + (a + m) * at_terms + m * m)
    l2 = FLOAT * (walked * a * a * bk                 # U for this K block and C slice
                  + steps * bt * bc * a * a          # input tiles as loaded
                  + bt * bk * m * m)                 # output (or this slice's partial sums)
    return {"issue": multiply + inputs + outputs, "ffma": ffma, "l2": l2}


def winograd_dram(n, c, hw, k, plan, launch):
    """Bytes to and from DRAM for the fused kernel, and for the split-C reduce."""
    a = plan["m"] + plan["r"] - 1
    x, y = FLOAT * n * c * hw * hw, FLOAT * n * k * hw * hw
    u = FLOAT * a * a * launch["cp"] * launch["kp"]
    x_passes = launch["kp"] // plan["bk"] if x > L2_RESIDENT_BYTES else 1
    partials = plan["splits"] * y if plan["splits"] > 1 else 0
    spilled = partials if partials > L2_RESIDENT_BYTES else 0
    fused = u + x * x_passes + (spilled if partials else y)
    reduce = (spilled + y) if partials else 0
    return fused, reduce, partials


# ---------------------------------------------------------------------------
# Times
# ---------------------------------------------------------------------------
def issue_rate(dev, res, groups_per_sm):
    """Warp instructions per clock per SM at the occupancy the layer reaches."""
    resident = min(res["occ"]["blocks"], groups_per_sm) * res["occ"]["warps_per_block"]
    hide = min(1.0, resident / SCHEDULERS_PER_SM / WARPS_TO_HIDE_LATENCY)
    return SCHEDULERS_PER_SM * hide, resident


def winograd_layer(dev, n, layer, plan, res, c_chunk, bt_terms, at_terms):
    _, c, hw, k, _, _, _, _ = layer
    launch = winograd_launch(n, c, hw, k, plan, c_chunk)
    wg = winograd_work_group(plan, launch, res["occ"]["warps_per_block"], bt_terms, at_terms)
    groups = launch["work_groups"]
    per_sm = -(-groups // dev["sms"])
    rate, resident = issue_rate(dev, res, per_sm)
    clock = dev["clock_ghz"] * 1e9
    t_issue = per_sm * wg["issue"] / (rate * clock)
    t_l2 = per_sm * wg["l2"] / (dev["l2_tbps"] * 1e12 / dev["sms"])
    dram_fused, dram_reduce, partials = winograd_dram(n, c, hw, k, plan, launch)
    t_dram = dram_fused / (dev["dram_tbps"] * 1e12)
    bounds = {"issue": t_issue, "L2": t_l2, "DRAM": t_dram}
    bound = max(bounds, key=bounds.get)
    t_reduce = 0.0
    if partials:  # winograd_reduce: reads every slice, writes the output
        y = FLOAT * n * k * hw * hw
        t_reduce = max((partials + y) / (dev["l2_tbps"] * 1e12), dram_reduce / (dev["dram_tbps"] * 1e12))
    transformed = groups * wg["ffma"] * 32  # thread-level multiply-adds
    return {"groups": groups, "per_sm": per_sm, "sm_use": groups / (per_sm * dev["sms"]), "resident": resident,
            "t_issue": t_issue, "t_l2": t_l2, "t_dram": t_dram, "t_reduce": t_reduce, "bound": bound,
            "time": bounds[bound] + t_reduce, "transformed": transformed}


def im2col_layer(dev, n, layer):
    """im2col + CLBlast SGEMM: columns written then read, output written; GEMM at FP32 peak."""
    _, c, hw, k, rs, _, _, _ = layer
    x, y = FLOAT * n * c * hw * hw, FLOAT * n * k * hw * hw
    cols = FLOAT * n * c * rs * rs * hw * hw
    bw = (dev["l2_tbps"] if cols <= L2_RESIDENT_BYTES else dev["dram_tbps"]) * 1e12
    t_mem = (x + y) / (dev["dram_tbps"] * 1e12) + 2 * cols / bw
    t_flop = direct_flops(n, layer) / (peak_tflops(dev) * 1e12)
    bound = "DRAM" if t_mem > t_flop else "issue"
    return {"groups": None, "per_sm": None, "sm_use": None, "resident": None, "t_issue": t_flop, "t_l2": None,
            "t_dram": t_mem, "t_reduce": 0.0, "bound": bound, "time": max(t_mem, t_flop), "transformed": None}


def direct_flops(n, layer):
    _, c, hw, k, rs, _, _, _ = layer
    return 2.0 * n * k * c * rs * rs * hw * hw  # 3x3, stride 1, pad 1: P = Q = H


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------
def us(t):
    return "%.1f" % (t * 1e6) if t is not None else "-"


def short_plan(plan):
    if "bk" not in plan:
        return plan["variant"]
    text = "F(%dx%d) BK=%d BT=%d BC=%d" % (plan["m"], plan["m"], plan["bk"], plan["bt"], plan["bc"])
    return text + (", C/%d" % plan["splits"] if plan["splits"] > 1 else "")


def layer_table(dev, n, rows):
    head = ["layer", "x", "plan", "regs", "warps/SM", "work-groups", "waves (SM use)", "issue us", "L2 us",
            "DRAM us", "reduce us", "bound", "time us", "mult. saved", "eff. TFLOPS", "% of peak"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for layer, plan, res, r in rows:
        flops = direct_flops(n, layer)
        saved = "%.2fx" % (flops / 2 / r["transformed"]) if r["transformed"] else "-"
        eff = flops / r["time"] * 1e-12
        # Sanity: no faster than the FP32 peak times the multiplies Winograd saves (the issue bound's floor).
        assert not r["transformed"] or eff <= peak_tflops(dev) * flops / 2 / r["transformed"] * 1.0001
        out.append("| " + " | ".join([
            layer[0], str(layer[7]), short_plan(plan), str(res["regs"]) if res else "(CLBlast)",
            "%d (%.0f%%)" % (r["resident"], 100 * r["resident"] / 64) if r["resident"] else "-",
            str(r["groups"]) if r["groups"] else "-",
            "%.2f (%.0f%%)" % (r["groups"] / (dev["sms"] * res["occ"]["blocks"]), 100 * r["sm_use"])
            if r["groups"] else "-",
            us(r["t_issue"]), us(r["t_l2"]), us(r["t_dram"]), us(r["t_reduce"]) if r["t_reduce"] else "-",
            r["bound"], us(r["time"]), saved, "%.1f" % eff, "%.0f%%" % (100 * eff / peak_tflops(dev))]) + " |")
    return "\n".join(out)


def totals(n, rows):
    flops = sum(direct_flops(n, layer) * layer[7] for layer, _, _, _ in rows)
    time = sum(r["time"] * layer[7] for layer, _, _, r in rows)
    return flops, time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netcl-info", default=os.path.join(REPO, "build", "netcl-info"))
    ap.add_argument("--checker", default=os.path.join(REPO, "tests", "nvptx", "nvptx_check.py"))
    ap.add_argument("--layers", default=os.path.join(REPO, "tests", "support", "LayerSets.cpp"))
    ap.add_argument("--manifest", help="a saved netcl-info --programs manifest.json (with its .cl files)")
    ap.add_argument("--ptxas-json", help="saved nvptx_check.py --json output for that manifest")
    ap.add_argument("--batches", default="1,8,32")
    ap.add_argument("--device", choices=sorted(DEVICES), default="sxm", help="the per-layer tables' H100")
    ap.add_argument("--l2-tbps", type=float, help="override the assumed L2 bandwidth of --device")
    args = ap.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if args.l2_tbps:
        DEVICES[args.device]["l2_tbps"] = args.l2_tbps

    layers = vgg16_layers(args.layers)
    # The formulas below take P = Q = H (3x3, stride 1, pad 1), as every VGG-16 layer is.
    if any(layer[4:7] != (3, 1, 1) for layer in layers):
        sys.exit("h100_model.py: a vgg16 layer is not 3x3 stride 1 pad 1; the model assumes it is")
    with tempfile.TemporaryDirectory(prefix="h100_model.") as work:
        manifest, ptxas = make_inputs(args, work)
        # One plan per (layer, N); one set of kernel figures per variant.
        figures, results = {}, {d: {} for d in DEVICES}
        for n in batches:
            for layer in layers:
                plan = selector_plan(args.netcl_info, n, *layer[1:7])
                if "bk" in plan and plan["variant"] not in figures:
                    res, options, source = kernel_figures(manifest, ptxas, plan["variant"], "winograd_fused")
                    chunk = re.search(r"-DC_CHUNK=(\d+)", options)
                    figures[plan["variant"]] = (res, int(chunk.group(1)) if chunk else 1,
                                                macro_terms(source, "WINO_BT"), macro_terms(source, "WINO_AT"))
                for name, dev in DEVICES.items():
                    if "bk" in plan:
                        res, chunk, bt_terms, at_terms = figures[plan["variant"]]
                        r = winograd_layer(dev, n, layer, plan, res, chunk, bt_terms, at_terms)
                    else:
                        res, r = None, im2col_layer(dev, n, layer)
                    results[name].setdefault(n, []).append((layer, plan, res, r))

    dev = DEVICES[args.device]
    print("# netcl VGG-16 on an %s: a model from ptxas figures\n" % dev["name"])
    print("Assumptions:\n")
    print(ASSUMPTIONS.format(peak=peak_tflops(dev), hide=WARPS_TO_HIDE_LATENCY, resident=L2_RESIDENT_BYTES >> 20,
                             **dev))
    print("Kernels (ptxas -arch=sm_90 -v via clang-15 NVPTX; %s):\n" % ptxas.get("ptxas"))
    for variant, (res, chunk, bt_terms, at_terms) in sorted(figures.items()):
        o = res["occ"]
        print("- %s `winograd_fused` [%s]: %d registers, %d B shared, %d threads (%d warps), %d blocks/SM "
              "(limit: %s), %d warps/SM = %.1f%% occupancy" % (
                  variant, res["program"].split("[")[1].rstrip("]"), res["regs"], res["smem"], res["threads"],
                  o["warps_per_block"], o["blocks"], "+".join(o["limiters"]), o["active_warps"],
                  100 * o["occupancy"]))
    print("\nColumns: x = depth (times the layer occurs); warps/SM = resident warps (occupancy); waves = work-groups / "
          "(SMs x blocks/SM), SM use = work-groups / (SMs x the busiest SM's work-groups); mult. saved = direct multiplies / the kernel's "
          "multiplies (4 for F(4x4) without padding); time = max(issue, L2, DRAM) + reduce.\n")
    for n in batches:
        print("## N = %d, %s (peak %.1f TFLOPS)\n" % (n, dev["name"], peak_tflops(dev)))
        print(layer_table(dev, n, results[args.device][n]))
        print()
    print("## Totals (depth-weighted: %d conv layers)\n" % sum(layer[7] for layer in layers))
    print("| N | device | direct GFLOP | modelled ms | effective TFLOPS | peak TFLOPS | % of peak |")
    print("|---|---|---|---|---|---|---|")
    for n in batches:
        for name, d in DEVICES.items():
            flops, time = totals(n, results[name][n])
            print("| %d | %s (L2 %.1f TB/s, HBM %.2f TB/s) | %.1f | %.3f | %.1f | %.1f | %.0f%% |" % (
                n, d["name"], d["l2_tbps"], d["dram_tbps"], flops * 1e-9, time * 1e3, flops / time * 1e-12,
                peak_tflops(d), 100 * flops / time * 1e-12 / peak_tflops(d)))


if __name__ == "__main__":
    main()
