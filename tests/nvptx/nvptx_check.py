#!/usr/bin/env python3
"""Static NVIDIA (sm_90 / H100) resource and occupancy check for OpenCL C kernels.

No GPU needed. For each program of a JSON manifest:

  1. clang (15) compiles the OpenCL C 1.2 source for nvptx64-nvidia-nvcl (the
     triple of NVIDIA's OpenCL: .ptr .global kernel params, texmode_independent)
     with libclc's nvptx64--nvidiacl.bc linked in for the builtins
     (get_local_id, vload8, fma, clamp, barrier ...), -O3, emitting PTX;
  2. the PTX is fixed up (see FINDINGS.md): .target set to the ptxas arch,
     .version raised to the arch's minimum, and the work-group size of each
     checked kernel injected into its .entry as .reqntid (from
     reqd_work_group_size) or .maxntid (size stated by the caller), because
     clang 15 drops reqd_work_group_size on the floor for NVPTX;
  3. ptxas -arch=sm_90 -v assembles it, twice (with and without the injected
     bound), and its report is parsed (registers, spill stores/loads, stack
     frame, shared memory, barriers; constant banks come from the cubin's
     .nv.constantN sections);
  4. occupancy is computed exactly as cuda_occupancy.h's
     cudaOccMaxActiveBlocksPerMultiprocessor does for compute capability 9.0
     with the default carveout and no opt-in shared memory (OpenCL cannot opt in).

Manifest (file argument, or stdin with '-' / no argument): a JSON list of
  {"name": str, "source_file": path (complete OpenCL source, prelude included;
   relative paths are relative to the manifest's directory),
   "options": "-DBK=64 ...",
   "kernels": [{"name": str, "work_group": [x, y, z]}],   # work_group optional
                                                           # when the kernel has reqd_work_group_size
   "budget": {"min_occupancy": 0.25, "max_spill_bytes": 0, "max_stack_bytes": 0,
              "max_registers": N, "max_shared_bytes": N}}  # all keys optional;
a kernel may carry its own "budget" that overrides the program's key by key.

Exit codes: 0 all within budget; 1 a budget is violated; 2 usage, manifest or
compile error; 77 SKIPPED (clang with NVPTX, libclc nvptx64 bitcode or ptxas
missing) -- map it with CTest's SKIP_RETURN_CODE 77.

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

EXIT_OK, EXIT_BUDGET, EXIT_ERROR, EXIT_SKIP = 0, 1, 2, 77

# ---------------------------------------------------------------------------
# Device model: cudaOccDeviceProp for an H100 (sm_90), as cudaGetDeviceProperties
# reports it, plus the per-architecture constants of cuda_occupancy.h (CUDA 13.0).
# ---------------------------------------------------------------------------
SM90 = {
    "name": "H100 (sm_90)",
    "arch": "sm_90",
    "min_ptx_version": (7, 8),           # PTX ISA 7.8 introduced sm_90
    "warp_size": 32,
    "max_threads_per_block": 1024,
    "max_threads_per_sm": 2048,           # 64 warps
    "max_blocks_per_sm": 32,
    "regs_per_sm": 65536,
    "regs_per_block": 65536,
    "reg_alloc_granularity": 256,         # registers per warp
    "max_regs_per_thread": 255,           # ptxas never assigns more (header says 256)
    "sub_partitions": 4,
    "smem_per_sm": 233472,                # 228 KiB (default carveout = max shared)
    "smem_per_block": 49152,              # 48 KiB without opt-in (OpenCL's CL_DEVICE_LOCAL_MEM_SIZE)
    "smem_per_block_optin": 232448,       # 227 KiB, CUDA-only cudaFuncSetAttribute opt-in
    "smem_reserved_per_block": 1024,      # driver-reserved per block since sm_80
    "smem_alloc_granularity": 128,
    "barriers_per_block_slot": 2,         # sm_90: 2 x max blocks named-barrier sets
}


def occupancy(dev, threads, regs, smem_static, barriers=0, smem_dynamic=0):
    """cudaOccMaxActiveBlocksPerMultiprocessor for one kernel launch shape.

    Returns a dict with the per-resource block limits, the overall blocks/SM,
    the limiting factor(s), active warps and occupancy (active warps / max warps).
    """
    ws = dev["warp_size"]
    max_warps = dev["max_threads_per_sm"] // ws
    warps = -(-threads // ws)
    lim = {}
    # Warps
    lim["warps"] = 0 if threads > dev["max_threads_per_block"] else max_warps // warps
    # Blocks
    lim["blocks"] = dev["max_blocks_per_sm"]
    # Registers: per-warp allocation rounded to 256, allocated per sub-partition.
    regs_per_warp = -(-(regs * ws) // dev["reg_alloc_granularity"]) * dev["reg_alloc_granularity"]
    regs_cta = regs_per_warp * warps
    regs_assumed = regs_per_warp * (-(-warps // dev["sub_partitions"]) * dev["sub_partitions"])
    if dev["regs_per_block"] < regs_assumed or dev["regs_per_block"] < regs_cta or regs > dev["max_regs_per_thread"]:
        lim["registers"] = 0
    elif regs_per_warp == 0:
        lim["registers"] = 1 << 30
    else:
        per_sub = (dev["regs_per_sm"] // dev["sub_partitions"]) // regs_per_warp
        lim["registers"] = (per_sub * dev["sub_partitions"]) // warps
    # Shared memory: static + dynamic + 1 KiB reserved, rounded to 128 B; the
    # default (no opt-in) per-block limit is 48 KiB + the reserved 1 KiB.
    smem_total = smem_static + smem_dynamic + dev["smem_reserved_per_block"]
    smem_alloc = -(-smem_total // dev["smem_alloc_granularity"]) * dev["smem_alloc_granularity"]
    smem_limit_block = dev["smem_per_block"] + dev["smem_reserved_per_block"]
    if smem_alloc > smem_limit_block:
        lim["shared"] = 0
    else:
        lim["shared"] = dev["smem_per_sm"] // smem_alloc if smem_alloc else 1 << 30
    blocks = min(lim.values())
    limiters = [k for k in ("warps", "registers", "shared", "blocks") if lim[k] == blocks]
    # Hopper: named-barrier limit, applied after the others.
    if barriers > 0:
        lim["barriers"] = (lim["blocks"] * dev["barriers_per_block_slot"]) // barriers
        if lim["barriers"] <= blocks:
            blocks = lim["barriers"]
            limiters.append("barriers")
    active_warps = blocks * warps
    return {
        "limits": lim,
        "blocks": blocks,
        "limiters": limiters,
        "warps_per_block": warps,
        "active_warps": active_warps,
        "occupancy": active_warps / max_warps,
        "regs_per_warp_alloc": regs_per_warp,
        "smem_alloc_per_block": smem_alloc,
        "smem_per_block_limit": smem_limit_block,
    }


def max_regs_for_blocks(dev, threads, want_blocks):
    """Largest register count that still lets `want_blocks` blocks fit by the register limit."""
    for r in range(dev["max_regs_per_thread"], 0, -1):
        if occupancy(dev, threads, r, 0)["limits"]["registers"] >= want_blocks:
            return r
    return None


# ---------------------------------------------------------------------------
# Tool discovery
# ---------------------------------------------------------------------------
INSTALL_HINT = {
    "clang": "apt-get install clang-15 (Debian/Ubuntu; any clang >= 15 with the NVPTX target works: "
             "set NVPTX_CLANG=/path/to/clang)",
    "libclc": "apt-get install libclc-15 (provides /usr/lib/clc/nvptx64--nvidiacl.bc; "
              "or set NVPTX_LIBCLC=/path/to/nvptx64--nvidiacl.bc)",
    "ptxas": "install the CUDA toolkit's ptxas (e.g. apt-get install cuda-nvcc-13-0 from NVIDIA's repository, "
             "or Debian's nvidia-cuda-toolkit >= 11.8 for sm_90) and put it on PATH, "
             "or set PTXAS=/path/to/ptxas / CUDA_HOME",
}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def find_clang(explicit):
    given = explicit or os.environ.get("NVPTX_CLANG")
    cands = [given] if given else ["clang-15", "/usr/bin/clang-15", "/usr/lib/llvm-15/bin/clang",
                                   "clang-16", "clang-17", "clang-18", "clang"]
    for c in cands:
        if not c:
            continue
        path = shutil.which(c) or (c if os.path.isfile(c) and os.access(c, os.X_OK) else None)
        if not path:
            continue
        try:
            targets = run([path, "-print-targets"]).stdout
        except OSError:
            continue
        if "nvptx64" in targets:
            return path
    return None


def find_libclc(explicit, clang):
    given = explicit or os.environ.get("NVPTX_LIBCLC")
    if given:
        return given if os.path.isfile(given) else None
    cands = []
    dirs = ["/usr/lib/clc", "/usr/share/clc", "/usr/lib/llvm-15/lib/clc", "/usr/local/lib/clc", "/usr/local/share/clc"]
    if clang:
        base = os.path.dirname(os.path.dirname(os.path.realpath(clang)))
        dirs += [os.path.join(base, "lib", "clc"), os.path.join(base, "share", "clc")]
    for d in dirs:
        cands.append(os.path.join(d, "nvptx64--nvidiacl.bc"))
    for c in cands:
        if c and os.path.isfile(c):
            return c
    return None


def find_ptxas(explicit):
    given = explicit or os.environ.get("PTXAS")
    if given:
        path = shutil.which(given) or given
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    cands = [shutil.which("ptxas")]
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            cands.append(os.path.join(home, "bin", "ptxas"))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


_clang_cpu_cache = {}


def clang_nvptx_cpu(clang, arch, workdir):
    """Highest sm_XX <= arch that this clang knows (clang 15 stops at sm_86)."""
    if clang in _clang_cpu_cache:
        return _clang_cpu_cache[clang]
    probe = os.path.join(workdir, "probe.cl")
    with open(probe, "w") as f:
        f.write("__kernel void k(__global int* p) { p[0] = 1; }\n")
    want = int(arch.split("_")[1])
    chosen = None
    for sm in (90, 89, 87, 86, 80, 75, 70, 61, 60, 52, 50, 35, 30, 20):
        if sm > want:
            continue
        r = run([clang, "-cl-std=CL1.2", "-target", "nvptx64-nvidia-nvcl", "-march=sm_%d" % sm, "-S", "-o",
                 os.devnull, probe])
        if r.returncode == 0:
            chosen = "sm_%d" % sm
            break
    _clang_cpu_cache[clang] = chosen
    return chosen


# ---------------------------------------------------------------------------
# Compilation
# ---------------------------------------------------------------------------
class CheckError(Exception):
    pass


def split_options(options):
    """OpenCL build options -> (clang args, ptxas args). NVIDIA's -cl-nv-* options map to ptxas."""
    clang_args, ptxas_args = [], []
    for opt in shlex.split(options or ""):
        m = re.match(r"-cl-nv-maxrregcount=(\d+)$", opt)
        if m:
            # ptxas ignores --maxrregcount for entries with .reqntid/.maxntid (CUDA's rule:
            # launch bounds beat -maxrregcount) unless told to override the directives.
            ptxas_args += ["--maxrregcount", m.group(1), "--override-directive-values"]
            continue
        m = re.match(r"-cl-nv-opt-level=(\d+)$", opt)
        if m:
            ptxas_args += ["-O", m.group(1)]
            continue
        if opt.startswith("-cl-nv-"):   # -cl-nv-verbose, -cl-nv-arch ...: no clang equivalent
            continue
        clang_args.append(opt)
    return clang_args, ptxas_args


def clang_base(clang, cpu):
    # -D__OPENCL_VERSION__=120: NVIDIA's compiler defines it (device OpenCL C 1.2); clang
    # leaves it to the target and the NVPTX target does not define it.
    return [clang, "-x", "cl", "-cl-std=CL1.2", "-target", "nvptx64-nvidia-nvcl", "-march=" + cpu,
            "-D__OPENCL_VERSION__=120"]


def reqd_work_group_sizes(clang, cpu, source, clang_args):
    """kernel -> (x, y, z) from reqd_work_group_size, read from the -O0 LLVM IR metadata."""
    r = run(clang_base(clang, cpu) + clang_args + ["-O0", "-S", "-emit-llvm", "-o", "-", source])
    if r.returncode != 0:
        raise CheckError("clang failed:\n" + r.stderr.strip())
    md = dict(re.findall(r"^(![0-9]+) = !\{(.*)\}$", r.stdout, re.M))
    out = {}
    for m in re.finditer(r"^define [^@]*@([A-Za-z_][A-Za-z0-9_]*)\(.*?!reqd_work_group_size (![0-9]+)", r.stdout,
                         re.M):
        vals = re.findall(r"i32 (\d+)", md.get(m.group(2), ""))
        if len(vals) == 3:
            out[m.group(1)] = tuple(int(v) for v in vals)
    return out


def compile_ptx(clang, cpu, libclc, source, clang_args, ptx_path):
    cmd = clang_base(clang, cpu) + ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", libclc,
                                    "-Wno-linker-warnings", "-O3"] + clang_args + ["-S", "-o", ptx_path, source]
    r = run(cmd)
    if r.returncode != 0:
        raise CheckError("clang failed (%s):\n%s" % (" ".join(shlex.quote(c) for c in cmd), r.stderr.strip()))
    return cmd, r.stderr.strip()


def unresolved_functions(ptx):
    """Functions declared but never defined in the PTX (unresolved builtins)."""
    declared = set()
    for m in re.finditer(r"^(?:\.extern\s+|\.weak\s+)?\.func\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\s*(\([^)]*\))?\s*;",
                         ptx, re.M):
        declared.add(m.group(1))
    defined = set(re.findall(r"^(?:\.visible\s+|\.weak\s+)?\.func\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\s*(?:\([^)]*\))?\s*\{",
                             ptx, re.M))
    # clang prints declarations with the parameter list on following lines; catch those too.
    for m in re.finditer(r"^(?:\.extern\s+)?\.func\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\s*\(([^)]*)\)\s*;", ptx, re.M | re.S):
        declared.add(m.group(1))
    return sorted(declared - defined)


def entries(ptx):
    return re.findall(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)\s*\(", ptx, re.M)


def fix_ptx(ptx, dev, bounds):
    """Retarget .target/.version to the ptxas arch and inject per-entry ntid bounds.

    bounds: kernel -> (directive, (x, y, z)) with directive '.reqntid' or '.maxntid'.
    Returns (ptx, list of fixups done).
    """
    done = []
    m = re.search(r"^\.target\s+(sm_\d+)(.*)$", ptx, re.M)
    if m and m.group(1) != dev["arch"]:
        ptx = ptx[:m.start()] + ".target %s%s" % (dev["arch"], m.group(2)) + ptx[m.end():]
        done.append(".target %s -> %s" % (m.group(1), dev["arch"]))
    m = re.search(r"^\.version\s+(\d+)\.(\d+)\s*$", ptx, re.M)
    if m and (int(m.group(1)), int(m.group(2))) < dev["min_ptx_version"]:
        new = "%d.%d" % dev["min_ptx_version"]
        ptx = ptx[:m.start()] + ".version " + new + ptx[m.end():]
        done.append(".version %s.%s -> %s" % (m.group(1), m.group(2), new))
    for kernel, (directive, wg) in bounds.items():
        pat = re.compile(r"(^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+%s\s*\([^)]*\))(\s*)((?:\.\w+[^{]*?)?)\{"
                         % re.escape(kernel), re.M | re.S)
        m = pat.search(ptx)
        if not m:
            raise CheckError("kernel %s: no .entry in the PTX" % kernel)
        if re.search(r"\.(maxntid|reqntid)\b", m.group(3)):
            done.append("%s: already has %s" % (kernel, m.group(3).strip()))
            continue
        insert = "\n%s %d, %d, %d\n" % (directive, wg[0], wg[1], wg[2])
        ptx = ptx[:m.end(1)] + insert + m.group(3) + "{" + ptx[m.end():]
        done.append("%s: %s %d, %d, %d" % (kernel, directive, wg[0], wg[1], wg[2]))
    return ptx, done


PTXAS_FN = re.compile(r"Function properties for ([\w$]+)")
PTXAS_ENTRY = re.compile(r"Compiling entry function '([\w$]+)'")
PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
PTXAS_USED = re.compile(r"Used (\d+) registers")


def parse_ptxas(text):
    """ptxas -v output -> {function: {regs, stack, spill_st, spill_ld, smem, barriers, cmem{}, cum_stack}}."""
    funcs, cur_props, cur_entry = {}, None, None
    warnings = []
    for line in text.splitlines():
        if "warning" in line.lower() or "error" in line.lower():
            warnings.append(line.strip())
        m = PTXAS_ENTRY.search(line)
        if m:
            cur_entry = m.group(1)
            funcs.setdefault(cur_entry, {})["entry"] = True
            continue
        m = PTXAS_FN.search(line)
        if m:
            cur_props = m.group(1)
            funcs.setdefault(cur_props, {})
            continue
        m = PTXAS_FRAME.search(line)
        if m and cur_props:
            f = funcs[cur_props]
            f["stack"], f["spill_st"], f["spill_ld"] = (int(m.group(i)) for i in (1, 2, 3))
            continue
        m = PTXAS_USED.search(line)
        if m:
            f = funcs.setdefault(cur_entry or cur_props, {})
            f["regs"] = int(m.group(1))
            mm = re.search(r"used (\d+) barriers", line)
            f["barriers"] = int(mm.group(1)) if mm else 0
            mm = re.search(r"(\d+) bytes smem", line)
            f["smem"] = int(mm.group(1)) if mm else 0
            f["cmem"] = {int(b): int(s) for s, b in re.findall(r"(\d+) bytes cmem\[(\d+)\]", line)}
            mm = re.search(r"(\d+) bytes cumulative stack size", line)
            f["cum_stack"] = int(mm.group(1)) if mm else None
    return funcs, warnings


def cubin_sections(path):
    """Section name -> size of a 64-bit little-endian ELF (the cubin)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return {}
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = []
    for i in range(shnum):
        name, _typ, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        heads.append((name, off, size))
    str_off = heads[shstrndx][1]
    out = {}
    for name, _off, size in heads:
        end = data.index(b"\0", str_off + name)
        out[data[str_off + name:end].decode("ascii", "replace")] = size
    return out


def const_banks(sections, kernel):
    """{bank: bytes} for a kernel: its .nv.constantN.<kernel> plus module-wide .nv.constantN."""
    banks = {}
    for name, size in sections.items():
        m = re.match(r"\.nv\.constant(\d+)(?:\.(.+))?$", name)
        if m and (m.group(2) in (None, kernel)) and size:
            banks[int(m.group(1))] = banks.get(int(m.group(1)), 0) + size
    return banks


def assemble(ptxas, dev, ptx_path, cubin_path, extra):
    cmd = [ptxas, "-arch=" + dev["arch"], "-v"] + extra + [ptx_path, "-o", cubin_path]
    r = run(cmd)
    if r.returncode != 0:
        raise CheckError("ptxas failed (%s):\n%s" % (" ".join(shlex.quote(c) for c in cmd),
                                                     (r.stdout + r.stderr).strip()))
    funcs, warnings = parse_ptxas(r.stdout + "\n" + r.stderr)
    return cmd, funcs, warnings, cubin_sections(cubin_path)


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------
def load_manifest(arg):
    if arg in (None, "-"):
        text, base = sys.stdin.read(), os.getcwd()
    else:
        with open(arg) as f:
            text = f.read()
        base = os.path.dirname(os.path.abspath(arg))
    data = json.loads(text)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise CheckError("manifest must be a JSON list of programs")
    for prog in data:
        for key in ("name", "source_file", "kernels"):
            if key not in prog:
                raise CheckError("manifest entry %r lacks %r" % (prog.get("name"), key))
        if not os.path.isabs(prog["source_file"]):
            prog["source_file"] = os.path.join(base, prog["source_file"])
    return data


def check_budget(res, budget):
    bad = []
    occ = budget.get("min_occupancy")
    if occ is not None and res["occ"]["occupancy"] + 1e-9 < occ:
        bad.append("occupancy %.1f%% < %.1f%%" % (100 * res["occ"]["occupancy"], 100 * occ))
    sp = budget.get("max_spill_bytes")
    if sp is not None and max(res["spill_st"], res["spill_ld"]) > sp:
        bad.append("spill %d/%d B > %d" % (res["spill_st"], res["spill_ld"], sp))
    st = budget.get("max_stack_bytes")
    if st is not None and res["stack"] > st:
        bad.append("stack %d B > %d" % (res["stack"], st))
    rg = budget.get("max_registers")
    if rg is not None and res["regs"] > rg:
        bad.append("regs %d > %d" % (res["regs"], rg))
    sm = budget.get("max_shared_bytes")
    if sm is not None and res["smem"] > sm:
        bad.append("shared %d B > %d" % (res["smem"], sm))
    if res["occ"]["blocks"] == 0:
        bad.append("cannot launch (0 blocks/SM)")
    return bad


def check_program(prog, tools, dev, workdir, keep, verbose):
    clang, libclc, ptxas, cpu = tools
    src = prog["source_file"]
    if not os.path.isfile(src):
        raise CheckError("%s: source_file %s not found" % (prog["name"], src))
    clang_args, ptxas_args = split_options(prog.get("options", ""))
    stem = re.sub(r"[^\w.-]+", "_", prog["name"])
    ptx_raw = os.path.join(workdir, stem + ".raw.ptx")
    clang_cmd, clang_warn = compile_ptx(clang, cpu, libclc, src, clang_args, ptx_raw)
    with open(ptx_raw) as f:
        ptx = f.read()
    unresolved = unresolved_functions(ptx)
    if unresolved:
        raise CheckError("%s: unresolved functions in the PTX (builtins not linked from libclc?): %s"
                         % (prog["name"], ", ".join(unresolved)))
    have = entries(ptx)
    reqd = reqd_work_group_sizes(clang, cpu, src, clang_args)
    bounds, wgs = {}, {}
    for k in prog["kernels"]:
        kname = k["name"]
        if kname not in have:
            raise CheckError("%s: kernel %s not in the PTX (entries: %s)" % (prog["name"], kname, ", ".join(have)))
        wg = k.get("work_group")
        if wg is not None:
            wg = tuple(int(v) for v in (list(wg) + [1, 1])[:3])
        if kname in reqd:
            if wg is not None and wg != reqd[kname]:
                raise CheckError("%s/%s: work_group %s differs from reqd_work_group_size%s (the launch would fail)"
                                 % (prog["name"], kname, list(wg), reqd[kname]))
            wg = reqd[kname]
            bounds[kname] = (".reqntid", wg)
        elif wg is not None:
            bounds[kname] = (".maxntid", wg)
        else:
            raise CheckError("%s/%s: no work_group given and no reqd_work_group_size" % (prog["name"], kname))
        wgs[kname] = wg
    ptx_free, fix_free = fix_ptx(ptx, dev, {})
    ptx_bound, fix_bound = fix_ptx(ptx, dev, bounds)
    p_free = os.path.join(workdir, stem + ".unbounded.ptx")
    p_bound = os.path.join(workdir, stem + ".ptx")
    with open(p_free, "w") as f:
        f.write(ptx_free)
    with open(p_bound, "w") as f:
        f.write(ptx_bound)
    cmd_free, funcs_free, _, _ = assemble(ptxas, dev, p_free, os.path.join(workdir, stem + ".unbounded.cubin"),
                                          ptxas_args)
    cmd_bound, funcs, warns, sections = assemble(ptxas, dev, p_bound, os.path.join(workdir, stem + ".cubin"),
                                                 ptxas_args)
    if verbose:
        print("# %s\n#   clang: %s\n#   fixups: %s\n#   ptxas: %s" % (prog["name"], " ".join(clang_cmd),
                                                                      "; ".join(fix_bound) or "none",
                                                                      " ".join(cmd_bound)), file=sys.stderr)
        for w in warns:
            print("#   ptxas: " + w, file=sys.stderr)
    results = []
    for k in prog["kernels"]:
        kname = k["name"]
        f = funcs.get(kname)
        if not f or "regs" not in f:
            raise CheckError("%s/%s: ptxas reported nothing for the kernel" % (prog["name"], kname))
        wg = wgs[kname]
        threads = wg[0] * wg[1] * wg[2]
        smem = f.get("smem", 0)
        shared_section = sections.get(".nv.shared." + kname)
        res = {
            "program": prog["name"], "kernel": kname, "work_group": list(wg), "threads": threads,
            "bound": bounds[kname][0],
            "regs": f["regs"], "regs_unbounded": funcs_free.get(kname, {}).get("regs"),
            "spill_st": f.get("spill_st", 0), "spill_ld": f.get("spill_ld", 0),
            "stack": f.get("stack", 0), "smem": smem, "smem_section": shared_section,
            "barriers": f.get("barriers", 0),
            "cmem": f.get("cmem") or const_banks(sections, kname),
            "ptx": p_bound,
        }
        res["occ"] = occupancy(dev, threads, res["regs"], smem, res["barriers"])
        nxt = res["occ"]["blocks"] + 1
        # Only meaningful when registers alone hold the block count down.
        res["regs_for_next_block"] = (max_regs_for_blocks(dev, threads, nxt)
                                      if res["occ"]["limiters"] == ["registers"] else None)
        budget = dict(prog.get("budget") or {})
        budget.update(k.get("budget") or {})
        res["violations"] = check_budget(res, budget)
        results.append(res)
    return results


def fmt_table(results):
    head = ["name", "kernel", "regs", "(no bound)", "spill st/ld", "stack", "shared", "cmem", "work-group",
            "blocks/SM", "limiter", "occupancy", "verdict"]
    rows = []
    for r in results:
        o = r["occ"]
        cm = ",".join("c%d=%d" % kv for kv in sorted(r["cmem"].items())) or "-"
        rows.append([r["program"], r["kernel"], str(r["regs"]),
                     str(r["regs_unbounded"]) if r["regs_unbounded"] is not None else "?",
                     "%d/%d" % (r["spill_st"], r["spill_ld"]), str(r["stack"]), str(r["smem"]), cm,
                     "%dx%dx%d" % tuple(r["work_group"]),
                     "%d (%d warps)" % (o["blocks"], o["active_warps"]),
                     "+".join(o["limiters"]), "%.1f%%" % (100 * o["occupancy"]),
                     "OK" if not r["violations"] else "FAIL: " + "; ".join(r["violations"])])
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(head, widths)), "-+-".join("-" * w for w in widths)]
    for row in rows:
        lines.append(" | ".join(c.ljust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def fmt_markdown(results):
    head = ["name", "kernel", "regs", "regs w/o bound", "spill st/ld B", "stack B", "shared B", "cmem B",
            "work-group", "blocks/SM", "limiter", "occupancy", "regs for +1 block", "verdict"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        o = r["occ"]
        cm = ", ".join("c[%d] %d" % kv for kv in sorted(r["cmem"].items())) or "-"
        out.append("| " + " | ".join([
            r["program"], r["kernel"], str(r["regs"]), str(r["regs_unbounded"]),
            "%d / %d" % (r["spill_st"], r["spill_ld"]), str(r["stack"]), str(r["smem"]), cm,
            "%dx%dx%d (%s)" % (tuple(r["work_group"]) + (r["bound"],)),
            "%d (%d warps)" % (o["blocks"], o["active_warps"]), "+".join(o["limiters"]),
            "%.1f%%" % (100 * o["occupancy"]),
            "<= %d" % r["regs_for_next_block"] if r["regs_for_next_block"] else "-",
            "OK" if not r["violations"] else "FAIL: " + "; ".join(r["violations"])]) + " |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Exit codes: 0 ok, 1 budget violated, 2 error, 77 skipped (tools missing).")
    ap.add_argument("manifest", nargs="?", default="-", help="manifest JSON file ('-' or nothing: stdin)")
    ap.add_argument("--clang", help="clang with the NVPTX target (default: clang-15, or $NVPTX_CLANG)")
    ap.add_argument("--libclc", help="libclc nvptx64--nvidiacl.bc (default: /usr/lib/clc/..., or $NVPTX_LIBCLC)")
    ap.add_argument("--ptxas", help="ptxas (default: PATH, $PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin)")
    ap.add_argument("--keep", metavar="DIR", help="keep the PTX/cubin files in DIR")
    ap.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the commands and PTX fixups to stderr")
    args = ap.parse_args(argv)

    dev = SM90
    clang = find_clang(args.clang)
    libclc = find_libclc(args.libclc, clang)
    ptxas = find_ptxas(args.ptxas)
    missing = []
    if not clang:
        missing.append("clang with the NVPTX target (" + INSTALL_HINT["clang"] + ")")
    if not libclc:
        missing.append("libclc nvptx64--nvidiacl.bc (" + INSTALL_HINT["libclc"] + ")")
    if not ptxas:
        missing.append("ptxas (" + INSTALL_HINT["ptxas"] + ")")
    if missing:
        msg = "SKIPPED: nvptx_check needs " + "; ".join(missing)
        print(msg)
        print(msg, file=sys.stderr)
        return EXIT_SKIP

    try:
        manifest = load_manifest(args.manifest)
    except (OSError, ValueError, CheckError) as e:
        print("error: manifest: %s" % e, file=sys.stderr)
        return EXIT_ERROR

    workdir = args.keep or tempfile.mkdtemp(prefix="nvptx_check.")
    os.makedirs(workdir, exist_ok=True)
    try:
        cpu = clang_nvptx_cpu(clang, dev["arch"], workdir)
        if not cpu:
            print("SKIPPED: %s cannot target any nvptx sm_XX (%s)" % (clang, INSTALL_HINT["clang"]))
            return EXIT_SKIP
        tools = (clang, libclc, ptxas, cpu)
        results, errors = [], []
        for prog in manifest:
            try:
                results += check_program(prog, tools, dev, workdir, args.keep, args.verbose)
            except CheckError as e:
                errors.append(str(e))
        if args.json:
            print(json.dumps({"device": dev["name"], "clang": clang, "clang_cpu": cpu, "libclc": libclc,
                              "ptxas": ptxas, "results": results, "errors": errors}, indent=2))
        else:
            print("nvptx_check: %s; clang %s -march=%s, libclc %s, ptxas %s" % (dev["name"], clang, cpu, libclc,
                                                                               ptxas))
            if results:
                print(fmt_markdown(results) if args.markdown else fmt_table(results))
            for e in errors:
                print("ERROR: " + e)
        if errors:
            return EXIT_ERROR
        return EXIT_BUDGET if any(r["violations"] for r in results) else EXIT_OK
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
