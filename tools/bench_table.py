#!/usr/bin/env python3
"""Markdown tables from netcl-bench --json reports (the README's tables).

    python3 tools/bench_table.py vgg16-n1.json [resnet50-n1.json ...]

Per layer: the selector's plan, its time, GFLOPS and share of the FMA peak,
the fastest oneDNN candidate of the run (any oneDNN build, either layout),
CLBlast's Convgemm where it ran, and the selector against that oneDNN. Then the depth-weighted totals of every report given.
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


def fastest_onednn(layer):
    ran = [r for r in layer["results"] if r["candidate"].startswith("onednn") and r.get("ran")]
    return min(ran, key=lambda r: r["wall_median_ms"]) if ran else None


def percent(value):
    return f"{value:.0f}%" if value else "-"


def layers_table(report):
    # The CLBlast column: its Convgemm where it ran, else netcl's im2col + CLBlast's GEMM (ResNet-50's runs).
    clblast = "clblast" if "clblast" in report["candidates"] or "im2col-clblast" not in report["candidates"] \
        else "im2col-clblast"
    clblast_title = "CLBlast Convgemm" if clblast == "clblast" else "im2col + CLBlast GEMM"
    lines = [
        "| layer | depth | shape (C×H×W → K, R×S/stride) | selector's plan | selector ms | GFLOPS | % FMA | "
        f"fastest oneDNN | its ms | {clblast_title} ms | vs oneDNN |",
        "|---|---:|---|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for layer in report["layers"]:
        s = layer["shapes"]
        sel = result(layer, "selector")
        if not sel:
            lines.append(f"| {layer['name']} | - |")
            continue
        shape = f"{s['C']}×{s['H']}×{s['W']} → {s['K']}, {s['R']}×{s['S']}/{s['stride']}"
        vs = f"{sel['speedup_vs_onednn']:.2f}×" if sel.get("speedup_vs_onednn") else "-"
        peer = fastest_onednn(layer)
        peer_name = f"{peer['candidate']} ({peer.get('impl', '')})" if peer else "-"
        lines.append(
            f"| {layer['name']} | {layer['depth']} | {shape} | {sel['choice']} | {ms(sel)} | "
            f"{sel['gflops']:.1f} | {percent(sel.get('percent_of_fma_peak'))} | {peer_name} | {ms(peer)} | "
            f"{ms(result(layer, clblast))} | {vs} |")
    return "\n".join(lines)


def totals_rows(report):
    rows = []
    for t in report["totals"]:
        if not t.get("complete", True):
            continue
        vs = f"{t['speedup_vs_onednn']:.2f}×" if t.get("speedup_vs_onednn") else "-"
        rows.append(f"| {report['layer_set']} | {t['N']} | {t['candidate']} | {t['weighted_ms']:.1f} | "
                    f"{t['gflops']:.1f} | {percent(t.get('percent_of_peak'))} | "
                    f"{percent(t.get('percent_of_fma_peak'))} | {vs} |")
    return rows


def main(paths):
    reports = [json.load(open(p)) for p in paths]
    for report in reports:
        d = report["device"]
        print(f"### {report['layer_set']}, N = {report['layers'][0]['shapes']['N']}\n")
        print(f"Device: {d['name']} ({d['platform']} {d['driver_version']}, {d['compute_units']} compute units); "
              f"git {report['git_revision']}; {report['started_utc']}; clock: {report['settings']['clock']}; "
              f"peak (dnnl_sgemm): {report['peak']['gflops']:.1f} GFLOPS" if report.get("peak") else "", end="")
        fma = report.get("fma_peak") or {}
        print(f"; FMA peak: {fma['gflops']:.1f} GFLOPS ({fma['what']})" if "gflops" in fma else "", end="")
        onednn = report.get("onednn", {})
        print(f"; oneDNN {onednn['version']} ({onednn.get('cpu_isa', '')})" if onednn.get("ran") else "", end="")
        print(".\n")
        print(f"`{report['command_line']}`\n")
        print(layers_table(report))
        print()
    print("| layer set | N | candidate | ms (depth-weighted) | GFLOPS | % of SGEMM peak | % of FMA peak | vs oneDNN |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for report in reports:
        for row in totals_rows(report):
            print(row)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
