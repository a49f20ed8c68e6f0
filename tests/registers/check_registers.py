#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks what the inlined device API costs the user's kernels in registers and stack.

kernels.cu holds representative user kernels, each compiled twice: "bare" (the kernel without
the gshmem calls, each replaced by the local work it stands for) and "with" (the calls). This
script reads ptxas's report of both builds (nvcc -Xptxas -v: registers, stack frame, spill
bytes per kernel) and fails when, for a kernel,
  1. the with form has a stack frame or spills beyond the bare form's: a slow path (a printf's
     argument buffer, a report's arguments) or register pressure left in line;
  2. the with form uses more than max(bare + MARGIN, FLOOR) registers. FLOOR: below 32
     registers a thread the count never limits occupancy (an sm_90 SM has 65,536 registers for
     at most 2,048 threads), so a call may use them freely. Kernels with __launch_bounds__(1024)
     (names ending in _lb1024) too: ptxas may give them up to 64, but at more than 32 an SM
     holds one such block instead of two, which halved the speed of a memory-bound stencil
     (perftest/apps/jacobi_nbi.cu, 58 registers, before the copies' general path went out of
     line). Not _2x1024 kernels: ptxas holds them to 32 and spills past it (rule 1);
  3. a kernel launched with 1,024 threads without __launch_bounds__ (name ending in _t1024)
     needs more than 64 registers: it would not launch ("too many resources requested");
  4. a _lb1024 kernel whose bare form fits two blocks an SM (at most 32 registers) needs more
     than 32 with the calls: the calls would halve its occupancy.
MARGIN is chosen from the data: with every slow path out of line, the with forms use at most 8
registers more than the bare ones (a put's copy loops against a plain 16-byte loop), and 2
more leave room for the compiler's variation; each slow path that was left in line cost 16 to
44 (a wait's timeout report in a compute loop: 44). ALLOW lists the kernels that may exceed the
rules, each with its bound and why.

The reports' printf (include/gshmem/device/impl/report.cuh) takes 8-byte arguments only; with
--headers, every report_printf call in the device headers is checked for that: %lld, %llu,
%llx, %p or %s conversions, as many as it has arguments.

Usage:
  check_registers.py compile --log LOG -- NVCC ARGS...   run NVCC ARGS, write its output to LOG
  check_registers.py check BARE_LOG WITH_LOG [--self-test] [--headers DIR]
      --self-test  also checks the checker: each rule, given a with form that breaks it, fails
      --headers    the device headers' directory (include/gshmem/device) for the format check
"""

import argparse
import glob
import os
import re
import subprocess
import sys

MARGIN = 10  # registers a call may add to a kernel above FLOOR
FLOOR = 32  # registers a thread below which the count never limits occupancy (sm_90)
MAX_1024 = 64  # registers a thread with which a block of 1,024 threads still launches

# kernel -> {"regs": at most this many registers, "stack"/"spill": at most this many bytes more
# than the bare form}, and why.
ALLOW = {
    # The reduction is a whole collective (LL, push and pull paths), none of it a slow path;
    # its bare form only copies. A bound so that it does not grow unnoticed.
    "call_reduce_block": ({"regs": 104}, "a team reduction inline against a local copy"),
    # A warp's and a lone thread's copies stay in line (impl/copy.cuh, copy_general says why):
    # partial warps and five unit widths, 4 units a thread in flight, against a plain loop.
    "rma_bw_put_warp_t1024": ({"regs": MAX_1024}, "the warp copy's general path in line, in a loop"),
    # A block put in a loop of 1,024-thread blocks, with the proxy's branch in line
    # (impl/proxy.cuh) and the aligned copy's loop (impl/copy.cuh, scoped_copy_unit_first): ptxas
    # keeps two 4-byte values in local memory (8-byte frame) to stay at 32 registers.
    "rma_bw_put_block_lb1024": ({"stack": 8, "spill": 8}, "a block put's proxy branch and loop in a loop"),
    # A sync or barrier alone in a kernel: with a proxy its variant with proxied members is a call
    # (impl/sync.cuh, sync_members_mixed), whose arguments this small kernel keeps; without one
    # the kernel runs the code it ran before (perftest barrier at 2 PEs: within 1 %). The barrier
    # 38 since its waits for proxied members count their signals in host memory (issue 52:
    # take_proxied_member, a call with its arguments, in the wait loop; 42-46 with it inline).
    "call_barrier_all_block": ({"regs": 38}, "the proxy's sync variant, a call"),
    "call_sync_all_block": ({"regs": 36}, "the proxy's sync variant, a call"),
    # A data-movement collective: its inline load/store path against a local copy, and its
    # spanning path (impl/coll_span.cuh), a chain of calls whose widest function sets the
    # kernel's count (68 and 72 without it, 101 and 104 before that chain was narrowed), with
    # its arguments and team in local memory. Bounds so that the chain does not widen unseen.
    # fcollect 86 since a proxied put waiting for a full ring naps in proportion to its distance
    # from a free slot (impl/proxy.cuh, claim: issue 52's flood of host reads; 84 before).
    "call_fcollect_thread": ({"regs": 86, "stack": 160}, "fcollect: the spanning path's call chain"),
    "call_alltoalls_warp": ({"regs": 74, "stack": 72}, "alltoalls: the spanning path's call chain"),
}


def parse_log(text):
    """{kernel: {"regs", "stack", "spill_st", "spill_ld"}} for every entry function in ptxas -v output."""
    out, entry, cur = {}, None, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
            out[entry] = {}
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur in out:
            out[cur].update(stack=int(m.group(1)), spill_st=int(m.group(2)), spill_ld=int(m.group(3)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and entry in out:
            out[entry]["regs"] = int(m.group(1))
    return out


def bounded(name):
    return name.endswith("_2x1024")


def check_kernel(name, bare, with_):
    """Problems of one kernel, as strings (empty: it holds)."""
    problems = []
    allow = ALLOW.get(name, ({}, ""))[0]
    for key, what in (("stack", "stack frame"), ("spill_st", "spill stores"), ("spill_ld", "spill loads")):
        extra = allow.get("stack" if key == "stack" else "spill", 0)
        if with_[key] > bare[key] + extra:
            problems.append(f"{what}: {with_[key]} bytes with the calls, {bare[key]} without"
                            + (f" (allowed: {extra} more)" if extra else ""))
    if not bounded(name):
        limit = allow.get("regs", max(bare["regs"] + MARGIN, FLOOR))
        if with_["regs"] > limit:
            why = "allowed" if "regs" in allow else f"bare {bare['regs']} + {MARGIN}, at least {FLOOR}"
            problems.append(f"{with_['regs']} registers with the calls, at most {limit} ({why})")
    if name.endswith("_t1024") and with_["regs"] > MAX_1024:
        problems.append(f"{with_['regs']} registers: a block of 1,024 threads needs at most {MAX_1024}")
    if name.endswith("_lb1024") and bare["regs"] <= FLOOR < with_["regs"]:
        problems.append(f"{with_['regs']} registers: the bare kernel's {bare['regs']} fit two blocks of 1,024 "
                        f"an SM, which needs at most {FLOOR}")
    return problems


def run(bare, with_, verbose=True):
    failed = 0
    if verbose:
        print(f"{'kernel':34} {'bare':>5} {'with':>5} {'+':>4}  stack  spill st/ld (with)")
    for name in sorted(set(bare) | set(with_)):
        if name not in bare or name not in with_:
            print(f"FAIL {name}: in one build only")
            failed += 1
            continue
        b, w = bare[name], with_[name]
        if any(k not in d for d in (b, w) for k in ("regs", "stack", "spill_st", "spill_ld")):
            print(f"FAIL {name}: ptxas's report of it is incomplete")
            failed += 1
            continue
        problems = check_kernel(name, b, w)
        if verbose:
            print(f"{name:34} {b['regs']:5} {w['regs']:5} {w['regs'] - b['regs']:4}  "
                  f"{w['stack']:5}  {w['spill_st']}/{w['spill_ld']}" + ("  FAIL" if problems else ""))
        for p in problems:
            print(f"FAIL {name}: {p}")
        failed += bool(problems)
    return failed


def self_test(bare, with_):
    """Each rule, given a with form that breaks it, must fail. Returns the rules that did not."""
    missed = []
    free = [n for n in with_ if n in bare and not bounded(n) and n not in ALLOW]
    cases = []
    if free:
        n = free[0]
        cases.append(("registers", n, dict(with_[n], regs=max(bare[n]["regs"] + MARGIN, FLOOR) + 1)))
        cases.append(("stack frame", n, dict(with_[n], stack=bare[n]["stack"] + 8)))
        cases.append(("spills", n, dict(with_[n], spill_st=bare[n]["spill_st"] + 4)))
    t1024 = [n for n in with_ if n in bare and n.endswith("_t1024")]
    if t1024:
        cases.append(("1,024 threads", t1024[0], dict(with_[t1024[0]], regs=MAX_1024 + 1)))
    lb = [n for n in with_ if n in bare and n.endswith("_lb1024") and bare[n]["regs"] <= FLOOR and n not in ALLOW]
    if lb:
        cases.append(("two blocks of 1,024", lb[0], dict(with_[lb[0]], regs=FLOOR + 2)))
    for rule, n, broken in cases:
        if not check_kernel(n, bare[n], broken):
            missed.append(rule)
    if len(cases) < 5:
        missed.append("(no kernel to try every rule on)")
    return missed


def report_formats(text):
    """(line, problem) for each report_printf call in C++ source text whose format does not fit it."""
    out, i = [], 0
    while True:
        j = text.find("report_printf(", i)
        if j < 0:
            return out
        i = j + 1
        line_start = text.rfind("\n", 0, j) + 1
        if (j and (text[j - 1].isalnum() or text[j - 1] == "_")) or text[line_start:j].lstrip().startswith("//"):
            continue
        if re.search(r"void\s+$", text[line_start:j]):  # the definition
            continue
        k, depth, args, cur = j + len("report_printf("), 1, [], ""
        while k < len(text) and depth:
            c = text[k]
            if c == '"':
                e = k + 1
                while text[e] != '"':
                    e += 2 if text[e] == "\\" else 1
                cur += text[k:e + 1]
                k = e + 1
                continue
            depth += c in "([{"
            depth -= c in ")]}"
            if depth == 0 or (c == "," and depth == 1):
                args.append(cur)
                cur = ""
            else:
                cur += c
            k += 1
        fmt = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', args[0])).replace("%%", "")
        convs = re.findall(r"%[-+ #0-9.]*([a-zA-Z]+)", fmt)
        line = text.count("\n", 0, j) + 1
        bad = sorted({c for c in convs if c not in ("lld", "llu", "llx", "p", "s")})
        if bad:
            out.append((line, f"conversions {', '.join('%' + c for c in bad)}: report_printf passes 8-byte "
                              "arguments (%lld, %llu, %llx, %p, %s)"))
        if len(convs) != len(args) - 1:
            out.append((line, f"{len(convs)} conversions for {len(args) - 1} arguments"))


def check_formats(directory):
    failed, calls = 0, 0
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.cuh"), recursive=True)):
        with open(path) as f:
            text = f.read()
        calls += text.count("report_printf(")
        for line, problem in report_formats(text):
            print(f"FAIL {path}:{line}: {problem}")
            failed += 1
    if calls == 0:
        print(f"FAIL: no report_printf call under {directory}")
        failed += 1
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--log", required=True)
    c.add_argument("command", nargs=argparse.REMAINDER)
    k = sub.add_parser("check")
    k.add_argument("bare_log")
    k.add_argument("with_log")
    k.add_argument("--self-test", action="store_true")
    k.add_argument("--headers")
    a = ap.parse_args()

    if a.cmd == "compile":
        cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(a.log, "w") as f:
            f.write(r.stdout)
        if r.returncode != 0:
            sys.stdout.write(r.stdout)
        return r.returncode

    logs = []
    for path in (a.bare_log, a.with_log):
        with open(path) as f:
            logs.append(parse_log(f.read()))
    bare, with_ = logs
    if not bare or not with_:
        print("FAIL: no entry function in ptxas's report")
        return 1
    failed = run(bare, with_)
    if a.self_test:
        missed = self_test(bare, with_)
        for m in missed:
            print(f"FAIL self-test: a broken with form passes the rule on {m}")
        failed += len(missed)
        broken = 'report_printf("x %d %s\\n", a);'
        if len(report_formats(broken)) != 2:
            print("FAIL self-test: a report format with %d and too few arguments passes")
            failed += 1
    if a.headers:
        failed += check_formats(a.headers)
    if failed:
        print(f"device_registers: {failed} check(s) failed")
        return 1
    print(f"device_registers: OK, {len(set(bare) & set(with_))} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
