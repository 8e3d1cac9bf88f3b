#!/usr/bin/env python3
"""Markdown tables from netcl-bench --json reports (the README's tables).

    python3 tools/bench_table.py vgg16-n1.json [resnet50-n1.json ...]

Per layer: the selector's plan, its time and GFLOPS, oneDNN's two layouts,
CLBlast's Convgemm where it ran, and the selector against the faster oneDNN
layout of the same run. Then the depth-weighted totals of every report given.
Standard library only.
"""
import json
import sys


def result(layer, candidate):
    for r in layer["results"]:
        if r["candidate"] == candidate and r.get("ran"):
            return r
    return None


def ms(r):
    return "-" if r is None else f"{r['median_ms']:.2f}"


def layers_table(report):
    # The CLBlast column: its Convgemm where it ran, else netcl's im2col + CLBlast's GEMM (ResNet-50's runs).
    clblast = "clblast" if "clblast" in report["candidates"] or "im2col-clblast" not in report["candidates"] \
        else "im2col-clblast"
    clblast_title = "CLBlast Convgemm" if clblast == "clblast" else "im2col + CLBlast GEMM"
    lines = [
        "| layer | depth | shape (C×H×W → K, R×S/stride) | selector's plan | selector ms | GFLOPS | oneDNN nchw ms | "
        f"oneDNN blocked ms | {clblast_title} ms | vs oneDNN |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for layer in report["layers"]:
        s = layer["shapes"]
        sel = result(layer, "selector")
        plan = sel["choice"] if sel else "-"
        shape = f"{s['C']}×{s['H']}×{s['W']} → {s['K']}, {s['R']}×{s['S']}/{s['stride']}"
        vs = f"{sel['speedup_vs_onednn']:.2f}×" if sel and sel.get("speedup_vs_onednn") else "-"
        lines.append(
            f"| {layer['name']} | {layer['depth']} | {shape} | {plan} | {ms(sel)} | "
            f"{sel['gflops']:.1f} | {ms(result(layer, 'onednn-nchw'))} | {ms(result(layer, 'onednn-blocked'))} | "
            f"{ms(result(layer, clblast))} | {vs} |" if sel else f"| {layer['name']} | - |")
    return "\n".join(lines)


def totals_rows(report):
    rows = []
    for t in report["totals"]:
        if not t.get("complete", True):
            continue
        vs = f"{t['speedup_vs_onednn']:.2f}×" if t.get("speedup_vs_onednn") else "-"
        pct = f"{t['percent_of_peak']:.0f}%" if t.get("percent_of_peak") else "-"
        rows.append(f"| {report['layer_set']} | {t['N']} | {t['candidate']} | {t['weighted_ms']:.1f} | "
                    f"{t['gflops']:.1f} | {pct} | {vs} |")
    return rows


def main(paths):
    reports = [json.load(open(p)) for p in paths]
    for report in reports:
        d = report["device"]
        print(f"### {report['layer_set']}, N = {report['layers'][0]['shapes']['N']}\n")
        print(f"Device: {d['name']} ({d['platform']} {d['driver_version']}, {d['compute_units']} compute units); "
              f"git {report['git_revision']}; {report['started_utc']}; clock: {report['settings']['clock']}; "
              f"peak (dnnl_sgemm): {report['peak']['gflops']:.1f} GFLOPS.\n" if report.get("peak") else "")
        print(f"`{report['command_line']}`\n")
        print(layers_table(report))
        print()
    print("| layer set | N | candidate | ms (depth-weighted) | GFLOPS | % of SGEMM peak | vs oneDNN |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for report in reports:
        for row in totals_rows(report):
            print(row)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
