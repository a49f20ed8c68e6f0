# SPDX-License-Identifier: BSD-3-Clause
"""The LLVM bitcode of gshmem's device API for Triton: device.cu (C wrappers over
<gshmem/gshmem.h>) compiled by clang >= 19 for sm_90, then made linkable by Triton:
  - the device state (`static __constant__ gshmemi_tu_state`, which clang names
    `_ZL16gshmemi_tu_state`) renamed to its plain name, which gshmemx_cumodule_init looks up
    in the loaded module;
  - the `nvvm-reflect-ftz` module flag dropped (Triton's linker refuses a library whose value
    differs from its module's: "Failed to link library");
  - no function left taking a struct by value (`byval`): the LLVM inside Triton 3.6 aborts the
    whole process compiling a kernel that calls one ("Cannot use this version of
    ReplaceAllUsesWith!" in its DAG combiner; Triton 3.9's does not). The only one is the team
    barrier's `__noinline__` sync_members_mixed(const gshmemi_team, ...), reached from
    barrier_all_block: such functions are made `alwaysinline` and the module is optimised again
    (clang -O2 on the bitcode), so their bodies land in the wrappers.
clang's CUDA headers need two shims with CUDA 13: an empty texture_fetch_functions.h (gone
from CUDA 13) and __ldcg for plain integer types (clang_shim.h).

Where it comes from, in order: $GSHMEM_TRITON_BITCODE; gshmem/lib/gshmem_triton.bc in an
installed package; a cached build (~/.cache/gshmem/triton) made with clang-19 or newer
($GSHMEM_CLANG picks one) and the matching llvm-as/llvm-dis."""
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import gshmem
from ..errors import UnsupportedError

_HERE = pathlib.Path(__file__).resolve().parent
CALL = "gshmem.triton.bitcode_path"


def _tools():
    names = [os.environ["GSHMEM_CLANG"]] if os.environ.get("GSHMEM_CLANG") else \
        [f"clang-{v}" for v in range(22, 18, -1)]
    for clang in names:
        path = shutil.which(clang)
        if not path:
            continue
        suffix = re.sub(r"^clang", "", pathlib.Path(clang).name)
        dis, asm = shutil.which(f"llvm-dis{suffix}"), shutil.which(f"llvm-as{suffix}")
        if dis and asm:
            return path, dis, asm
    return None


def _cuda_path():
    for c in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if c and (pathlib.Path(c) / "include" / "cuda_runtime.h").exists():
            return pathlib.Path(c)
    return None


def build(out, *, arch="sm_90"):
    """Compile device.cu into `out` (a .bc path). Raises UnsupportedError naming what is missing."""
    tools, cuda = _tools(), _cuda_path()
    if tools is None:
        raise UnsupportedError(CALL, "no clang >= 19 with llvm-as/llvm-dis found (apt-get install clang-19 llvm-19, "
                               "or set GSHMEM_CLANG), and no prebuilt bitcode ($GSHMEM_TRITON_BITCODE)")
    if cuda is None:
        raise UnsupportedError(CALL, "no CUDA toolkit found (set CUDA_HOME)")
    clang, dis, asm = tools
    if not any((pathlib.Path(d) / "gshmem" / "version.h").exists() for d in gshmem.include_dirs()):
        raise UnsupportedError(CALL, "gshmem/version.h is not in gshmem.include_dirs() (a source checkout has it "
                               "in a build's include/): set GSHMEM_LIBRARY to a build's lib/libgshmem.so or "
                               "GSHMEM_INCLUDE_DIR to its include/")
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "shim").mkdir()
        (tmp / "shim" / "texture_fetch_functions.h").write_text("/* gone from CUDA 13; clang still includes it */\n")
        cmd = [clang, "-x", "cuda", "--cuda-device-only", "-emit-llvm", "-c", f"--cuda-gpu-arch={arch}", "-O2",
               "-std=c++17", f"--cuda-path={cuda}", "-I", str(tmp / "shim"), "-include", str(_HERE / "clang_shim.h")]
        for d in gshmem.include_dirs() + [str(cuda / "include" / "cccl")]:
            cmd += ["-I", d]
        cmd += [str(_HERE / "device.cu"), "-o", str(tmp / "raw.bc")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise UnsupportedError(CALL, f"clang failed ({' '.join(cmd)}):\n{r.stderr[-4000:]}")
        subprocess.run([dis, str(tmp / "raw.bc"), "-o", str(tmp / "raw.ll")], check=True)
        ll = (tmp / "raw.ll").read_text()
        inlined = _inline_byval_functions(ll)
        if inlined != ll:
            (tmp / "inline.ll").write_text(inlined)
            subprocess.run([asm, str(tmp / "inline.ll"), "-o", str(tmp / "inline.bc")], check=True)
            cmd = [clang, "--target=nvptx64-nvidia-cuda", f"-march={arch}", "-O2", "-c", "-emit-llvm",
                   str(tmp / "inline.bc"), "-o", str(tmp / "opt.bc")]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                raise UnsupportedError(CALL, f"clang failed ({' '.join(cmd)}):\n{r.stderr[-4000:]}")
            subprocess.run([dis, str(tmp / "opt.bc"), "-o", str(tmp / "raw.ll")], check=True)
            ll = (tmp / "raw.ll").read_text()
        left = byval_functions(ll)
        if left:
            raise UnsupportedError(CALL, f"the bitcode still has functions taking a struct by value ({', '.join(left)}), "
                                   "which Triton 3.6's LLVM aborts on; the device headers changed: extend "
                                   "_inline_byval_functions")
        ll = re.sub(r"@_ZL\d+gshmemi_tu_state\b", "@gshmemi_tu_state", ll)
        m = re.search(r'^(!\d+) = !\{i32 \d+, !"nvvm-reflect-ftz", i32 \d+\}$', ll, re.M)
        if m:
            ll = re.sub(r"^(!llvm\.module\.flags = !\{)(.*)\}$",
                        lambda f: f.group(1) + ", ".join(x for x in f.group(2).split(", ") if x != m.group(1)) + "}",
                        ll, flags=re.M)
        if "@gshmemi_tu_state" not in ll:
            raise UnsupportedError(CALL, "the compiled bitcode has no gshmemi_tu_state (the device headers changed?)")
        (tmp / "fixed.ll").write_text(ll)
        subprocess.run([asm, str(tmp / "fixed.ll"), "-o", str(out)], check=True)
    return out


def byval_functions(ll):
    """The functions of LLVM IR text `ll` that take a parameter `byval` (defined or declared)."""
    return sorted(set(re.findall(r"^(?:define|declare) [^\n]*?@([\w.$]+)\([^\n]*\bbyval\(", ll, re.M)))


def _inline_byval_functions(ll):
    """`ll` with each function defined with a `byval` parameter moved to a copy of its attribute
    group that says `alwaysinline` instead of `noinline` (the next -O2 inlines it everywhere and
    drops it). Unchanged when there is none."""
    groups = dict(re.findall(r"^attributes #(\d+) = \{ (.*) \}$", ll, re.M))
    next_id = max(map(int, groups), default=-1) + 1
    added = []

    def make_inline(m):
        nonlocal next_id
        line = m.group(0)
        g = re.search(r" #(\d+) \{$", line)
        if "byval(" not in line or not g:
            return line
        attrs = " ".join(a for a in groups[g.group(1)].split() if a not in ("noinline", "alwaysinline"))
        added.append(f"attributes #{next_id} = {{ alwaysinline {attrs} }}")
        line = line[:g.start()] + f" #{next_id} {{"
        next_id += 1
        return line

    out = re.sub(r"^define [^\n]*$", make_inline, ll, flags=re.M)
    return out + "\n" + "\n".join(added) + "\n" if added else ll


def _fingerprint():
    h = hashlib.sha256()
    for f in (_HERE / "device.cu", _HERE / "clang_shim.h", _HERE / "_bitcode.py"):
        h.update(f.read_bytes())
    for d in gshmem.include_dirs():
        v = pathlib.Path(d) / "gshmem" / "version.h"
        if v.exists():
            h.update(v.read_bytes())
        for f in sorted((pathlib.Path(d) / "gshmem").rglob("*.cuh")):
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def bitcode_path():
    """The path of the bitcode, building it (cached) when needed."""
    env = os.environ.get("GSHMEM_TRITON_BITCODE")
    if env:
        if not pathlib.Path(env).exists():
            raise UnsupportedError(CALL, f"GSHMEM_TRITON_BITCODE={env} does not exist")
        return env
    shipped = _HERE.parent / "lib" / "gshmem_triton.bc"
    if shipped.exists():
        return str(shipped)
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "gshmem" / "triton"
    out = cache / f"gshmem_triton_{_fingerprint()}.bc"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        build(tmp)
        os.replace(tmp, out)  # atomic: ranks building at once agree
    return str(out)
