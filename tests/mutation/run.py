#!/usr/bin/env python3
"""Mutation harness: puts each bug of catalogue.py into a scratch copy of the
tree, one at a time, runs the CTest suite against it and reports which test
caught it, and the mutation score.

    python3 tests/mutation/run.py                 # every mutation (about an hour on 2 cores)
    python3 tests/mutation/run.py --only gemm-lane,selector-priority
    python3 tests/mutation/run.py --list          # check the catalogue against the sources, run nothing

The suite is every CTest entry but the soak, the install check and the Python
package (those need a build of their own per mutation): the label set of the
test command's first ctest step. Kernel mutations reach the library through
NETCL_KERNEL_DIR (a mutated copy of kernels_cl/, no rebuild); host mutations
are patched into the scratch copy and rebuilt incrementally, then restored.

Caches: netcl's own program cache (the suite's test-cache) is emptied before
every mutation, so a binary built from the unmutated source can never stand
in for the mutated one. PoCL's cache is kept across mutations by default: it
is keyed by a hash of the source and build options, so a mutated kernel
always compiles afresh, and the unmutated kernels need not (a cold PoCL cache
multiplies the run time by about 3). --cold empties it too.

Exit status: 0 when the score meets --min-score and every survivor is marked
equivalent in the catalogue, 1 otherwise, 2 for a catalogue that does not
match the sources or a suite that fails before any mutation.
"""

import argparse
import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from catalogue import MUTATIONS  # noqa: E402

SUITE_EXCLUDE = "^(soak|install)$"


def log(message):
    print(f"mutation: {message}", flush=True)


def check_catalogue(source_root, mutations):
    """Every `find` must occur exactly once in its file; ids must be unique."""
    problems = []
    seen = set()
    for m in mutations:
        if m["id"] in seen:
            problems.append(f"{m['id']}: duplicate id")
        seen.add(m["id"])
        path = source_root / m["file"]
        if not path.is_file():
            problems.append(f"{m['id']}: no file {m['file']}")
            continue
        count = path.read_text().count(m["find"])
        if count != 1:
            problems.append(f"{m['id']}: the text to mutate occurs {count} times in {m['file']}; expected once")
    return problems


def sync_tree(work_src):
    """Copy the tracked and untracked-but-not-ignored files into work_src,
    touching only files whose content changed (the scratch build stays
    incremental across runs)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    files = {f for f in listed if f and (ROOT / f).is_file()}
    for rel in files:
        src, dst = ROOT / rel, work_src / rel
        if dst.is_file() and filecmp.cmp(src, dst, shallow=False):
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    for path in list(work_src.rglob("*")):
        if path.is_file() and str(path.relative_to(work_src)) not in files:
            path.unlink()


def run_logged(cmd, log_path, env=None, timeout=None, cwd=None):
    """Runs cmd with stdout+stderr into log_path; returns (exit code or
    'timeout', seconds)."""
    start = time.monotonic()
    with open(log_path, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = "timeout"
    return code, time.monotonic() - start


def build(work, jobs, log_path):
    build_dir = work / "build"
    if not (build_dir / "CMakeCache.txt").is_file():
        code, _ = run_logged(["cmake", "-S", str(work / "src"), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"],
                             log_path)
        if code != 0:
            return code
    code, _ = run_logged(["cmake", "--build", str(build_dir), "-j", str(jobs)], log_path.with_suffix(".build.log"))
    return code


def run_suite(work, jobs, env, log_path, timeout, cold):
    build_dir = work / "build"
    shutil.rmtree(build_dir / "test-cache", ignore_errors=True)  # netcl's program cache (tests/CMakeLists.txt)
    if cold:
        shutil.rmtree(env["POCL_CACHE_DIR"], ignore_errors=True)
    failed_log = build_dir / "Testing" / "Temporary" / "LastTestsFailed.log"
    failed_log.unlink(missing_ok=True)
    cmd = ["ctest", "--test-dir", str(build_dir), "-j", str(jobs), "-LE", SUITE_EXCLUDE, "--stop-on-failure",
           "--output-on-failure"]
    code, seconds = run_logged(cmd, log_path, env=env, timeout=timeout)
    failed = []
    if failed_log.is_file():
        failed = [line.split(":", 1)[-1].strip() for line in failed_log.read_text().splitlines() if line.strip()]
    return code, seconds, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="check the catalogue against the sources and list it")
    parser.add_argument("--only", default="", help="comma-separated mutation ids")
    parser.add_argument("--work", default=str(ROOT / "build-mutation"), help="scratch copy, build and logs")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per suite run (a hang counts as caught)")
    parser.add_argument("--cold", action="store_true", help="empty PoCL's kernel cache before every run too")
    parser.add_argument("--min-score", type=float, default=95.0)
    parser.add_argument("--report", default="", help="markdown report (default WORK/report.md)")
    args = parser.parse_args()

    problems = check_catalogue(ROOT, MUTATIONS)
    if problems:
        for p in problems:
            print(f"mutation: catalogue: {p}", file=sys.stderr)
        return 2
    selected = MUTATIONS
    if args.only:
        wanted = [w for w in args.only.split(",") if w]
        unknown = sorted(set(wanted) - {m["id"] for m in MUTATIONS})
        if unknown:
            print(f"mutation: unknown ids {', '.join(unknown)}; --list shows them", file=sys.stderr)
            return 2
        selected = [m for m in MUTATIONS if m["id"] in wanted]
    if args.list:
        for m in selected:
            print(f"{m['id']:28} {m['area']:18} {m['file']:40} {m['bug']}")
        print(f"{len(selected)} mutations; every one matches its source exactly once")
        return 0

    work = Path(args.work).resolve()
    (work / "src").mkdir(parents=True, exist_ok=True)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    log(f"scratch copy of the tree in {work / 'src'}")
    sync_tree(work / "src")

    env = dict(os.environ)
    env.setdefault("POCL_CACHE_DIR", str(work / "pocl-cache"))
    env.pop("NETCL_KERNEL_DIR", None)

    log("building the unmutated tree")
    if build(work, args.jobs, logs / "baseline-configure.log") != 0:
        print(f"mutation: the unmutated tree does not build; see {logs}", file=sys.stderr)
        return 2
    log("running the suite on the unmutated tree")
    code, seconds, failed = run_suite(work, args.jobs, env, logs / "baseline.log", args.timeout, args.cold)
    if code != 0:
        print(f"mutation: the suite fails before any mutation ({', '.join(failed) or code}); "
              f"see {logs / 'baseline.log'}", file=sys.stderr)
        return 2
    log(f"baseline suite passed in {seconds:.0f} s")

    results = []
    # A host mutation's source is restored after its run, but its binaries stay
    # built until the next build: a kernel mutation after it would run against
    # the previous host mutation (its "catch" that bug's, not its own).
    host_binaries_mutated = False
    for index, m in enumerate(selected, 1):
        log(f"[{index}/{len(selected)}] {m['id']}: {m['bug']}")
        kernel = m["file"].startswith("kernels_cl/")
        if kernel and host_binaries_mutated:
            if build(work, args.jobs, logs / f"{m['id']}.restore-configure.log") != 0:
                print(f"mutation: the unmutated tree no longer builds; see {logs}", file=sys.stderr)
                return 2
            host_binaries_mutated = False
        run_env = dict(env)
        host_file = work / "src" / m["file"]
        original = host_file.read_text()
        result = dict(id=m["id"], area=m["area"], file=m["file"], bug=m["bug"], equivalent=m.get("equivalent", ""))
        try:
            if kernel:
                kernel_dir = work / "kernels-mutated"
                shutil.rmtree(kernel_dir, ignore_errors=True)
                shutil.copytree(work / "src" / "kernels_cl", kernel_dir)
                target = kernel_dir / Path(m["file"]).name
                target.write_text(target.read_text().replace(m["find"], m["replace"], 1))
                run_env["NETCL_KERNEL_DIR"] = str(kernel_dir)
            else:
                host_file.write_text(original.replace(m["find"], m["replace"], 1))
                if build(work, args.jobs, logs / f"{m['id']}.configure.log") != 0:
                    result.update(status="does not compile", seconds=0, caught_by=[])
                    results.append(result)
                    log("  does not compile (not counted)")
                    continue
            code, seconds, failed = run_suite(work, args.jobs, run_env, logs / f"{m['id']}.log", args.timeout,
                                              args.cold)
        finally:
            if not kernel:
                host_file.write_text(original)
                host_binaries_mutated = True
        if code == 0:
            status = "equivalent" if result["equivalent"] else "survived"
        else:
            status = "caught"
        if code == "timeout":
            failed = failed or ["(suite timed out)"]
        result.update(status=status, seconds=round(seconds, 1), caught_by=failed)
        results.append(result)
        log(f"  {status} in {seconds:.0f} s" + (f" by {', '.join(failed)}" if failed else ""))

    log("rebuilding the unmutated tree")
    build(work, args.jobs, logs / "restore-configure.log")

    counted = [r for r in results if r["status"] in ("caught", "survived")]
    caught = [r for r in counted if r["status"] == "caught"]
    score = 100.0 * len(caught) / len(counted) if counted else 0.0
    summary = dict(mutations=len(results), caught=len(caught), survived=len(counted) - len(caught),
                   equivalent=sum(r["status"] == "equivalent" for r in results),
                   not_compiling=sum(r["status"] == "does not compile" for r in results), score=round(score, 1),
                   revision=subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                           text=True).stdout.strip(),
                   cold_pocl_cache=args.cold)
    (work / "results.json").write_text(json.dumps(dict(summary=summary, results=results), indent=2))

    lines = ["| mutation | area | bug | result | caught by |", "|---|---|---|---|---|"]
    for r in results:
        by = ", ".join(r["caught_by"]) if r["status"] == "caught" else (r["equivalent"] or "")
        lines.append(f"| `{r['id']}` | {r['area']} | {r['bug']} | {r['status']} ({r['seconds']:.0f} s) | {by} |")
    lines.append("")
    lines.append(f"Score: {len(caught)} of {len(counted)} caught ({score:.1f}%); "
                 f"{summary['equivalent']} equivalent, {summary['not_compiling']} not compiling; "
                 f"revision {summary['revision']}.")
    report = Path(args.report) if args.report else work / "report.md"
    report.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    survivors = [r["id"] for r in counted if r["status"] == "survived"]
    if survivors:
        log(f"survivors (each needs a test, or an `equivalent` note in the catalogue): {', '.join(survivors)}")
    return 0 if score >= args.min_score and not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
