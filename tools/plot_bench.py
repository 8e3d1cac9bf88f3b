#!/usr/bin/env python3
"""Bar chart of a netcl-bench JSON report: effective GFLOPS per layer, one bar
per strategy/variant that ran, CLBlast's Convgemm beside them.

usage: plot_bench.py REPORT.json OUT.png   (netcl-bench --plot calls it)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print("usage: plot_bench.py REPORT.json OUT.png", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        report = json.load(f)

    layers = report["layers"]
    labels = [f"{l['name']}\nN={l['shapes']['N']}" for l in layers]
    # Candidates in report order, CLBlast last so it sits beside the others.
    ids = [c for c in report["candidates"] if c != "clblast"] + (["clblast"] if "clblast" in report["candidates"] else [])
    ran = {c: [None] * len(layers) for c in ids}
    for i, layer in enumerate(layers):
        for r in layer["results"]:
            if r["ran"] and r["candidate"] in ran:
                ran[r["candidate"]][i] = r["gflops"]
    ids = [c for c in ids if any(v is not None for v in ran[c])]
    if not ids:
        print("plot_bench.py: no candidate ran; nothing to plot", file=sys.stderr)
        return 1

    width = 0.8 / len(ids)
    fig, ax = plt.subplots(figsize=(min(18.0, max(9.0, 3.0 + 1.4 * len(layers))), 6.5))
    cmap = plt.get_cmap("tab20")
    for j, cid in enumerate(ids):
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(layers))]
        heights = [v if v is not None else 0.0 for v in ran[cid]]
        style = {"color": "black", "hatch": "//", "edgecolor": "white"} if cid == "clblast" else {"color": cmap(j % 20)}
        label = {"clblast": "CLBlast Convgemm", "selector": "selector's plan"}.get(cid, cid)
        ax.bar(xs, heights, width, label=label, **style)
    ax.set_xticks(range(len(layers)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_xlabel("layer")
    ax.set_ylabel("effective GFLOPS (direct-convolution FLOPs / time)")
    device = report["device"]
    ax.set_title(f"netcl-bench {report['layer_set']}: effective GFLOPS per layer (median of "
                 f"{report['settings']['repeat']} runs)\ndevice: {device['name']}\n{device['platform']}, driver "
                 f"{device['driver_version']}; netcl {report['netcl_version']} git {report['git_revision']}",
                 fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="strategy / variant", title_fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
