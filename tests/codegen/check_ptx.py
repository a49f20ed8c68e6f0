#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the PTX of memory_model_codegen.cu against docs/memory-model.md.

Each kernel of memory_model_codegen.cu (one PTX .entry) instantiates one primitive of
the device API. EXPECT below says, per entry, which instructions the memory model
promises for it (NEED) and which it rules out (NEVER), citing the section of
docs/memory-model.md that makes the promise: "<heading> > <text in that section>",
usually the call's row of the section's table. The checker verifies the citations
against the document too (--doc), so a renamed section or row shows up here.

An instruction spec is PTX dot notation, order-insensitive:
  "atom.add.relaxed.sys"  an `atom` whose qualifiers include add, relaxed and sys
                          (matches atom.add.relaxed.sys.s32 and atom.relaxed.sys.global.add.u32)
  "st.weak.v4"            `weak` = no memory-order qualifier (relaxed/acquire/release/volatile/
                          mmio): an ordinary data access; here a vectorised one
  "*.release"             any instruction with .release
  "bar.sync|barrier.sync" either
  "... x2" / "... >=8"    exactly 2 / at least 8 such instructions in the entry (default: >= 1)
Only the entry's own body counts, not the functions it calls (the library keeps error
reports and the peer-table lookup out of line; they order nothing).

Usage: check_ptx.py PTX [--doc docs/memory-model.md] [--self-test] [--list]
  --self-test  also checks the checker: each row, with its first NEED moved to NEVER,
               must fail against the same PTX
  --list       prints each entry's memory-ordering instructions
"""

import argparse
import collections
import re
import sys

# ---- where the promises are (docs/memory-model.md) ----
T = "The guarantees, one by one"  # the table: call | guarantee | PTX on the load/store path
WHY = "Why each is sufficient"
SCOPE = "Scope: what one thread's call orders"

# ---- frequent NEVER lists ----
NO_FENCE = ["fence", "membar"]
RELAXED_ONLY = NO_FENCE + ["*.acquire", "*.release"]  # AMOs and signal_op: "relaxed"
WEAK_ONLY = RELAXED_ONLY + ["*.relaxed", "*.volatile", "atom", "red"]  # put/get data: weak accesses
SCOPE_BARRIER = ["bar.sync|barrier.sync", "bar.warp.sync"]

# entry -> (citation, NEED, NEVER)
EXPECT = {
    # -- the named wrappers of include/gshmem/device/impl/memops.cuh: each is one instruction --
    "cg_ld_acquire_sys": (f"{T} > `signal_fetch`", ["ld.acquire.sys x1"], NO_FENCE),
    "cg_ld_acquire_sys_global": (f"{T} > `sync_all<Scope>`", ["ld.acquire.sys.global x1"], NO_FENCE),
    "cg_ld_acquire_b8": (f"{T} > `wait_until`", ["ld.acquire.sys x1"], NO_FENCE),
    "cg_ld_acquire_b16": (f"{T} > `wait_until`", ["ld.acquire.sys x1"], NO_FENCE),
    "cg_ld_acquire_b32": (f"{T} > `wait_until`", ["ld.acquire.sys x1"], NO_FENCE),
    "cg_ld_acquire_b64": (f"{T} > `wait_until`", ["ld.acquire.sys x1"], NO_FENCE),
    "cg_ld_relaxed_sys": (f"{T} > AMOs (`atomic_fetch_add`", ["ld.relaxed.sys x1"], RELAXED_ONLY),
    "cg_st_release_sys": (f"{T} > `put_signal<Scope>`", ["st.release.sys x1"], NO_FENCE),
    "cg_st_relaxed_sys": (f"{T} > `signal_op`", ["st.relaxed.sys x1"], RELAXED_ONLY),
    "cg_ld_relaxed_sys_v2": (f"{T} > (`.v2.u64`: each word single-copy atomic)",
                             ["ld.relaxed.sys.global.v2.u64 x1"], RELAXED_ONLY),
    "cg_st_relaxed_sys_v2": (f"{T} > (`.v2.u64`: each word single-copy atomic)",
                             ["st.relaxed.sys.global.v2.u64 x1"], RELAXED_ONLY),
    "cg_red_add_relaxed_sys_u32": (f"{T} > `red.add.relaxed.sys` for `atomic_add`",
                                   ["red.add.relaxed.sys.global.u32 x1"], RELAXED_ONLY + ["atom"]),
    "cg_red_add_relaxed_sys_u64": (f"{T} > `red.add.relaxed.sys` for `atomic_add`",
                                   ["red.add.relaxed.sys.global.u64 x1"], RELAXED_ONLY + ["atom"]),
    "cg_red_add_release_sys_u32": (f"{T} > `red.add.release.sys` (ADD)",
                                   ["red.add.release.sys.global.u32 x1"], NO_FENCE + ["atom"]),
    "cg_red_add_release_sys_u64": (f"{T} > `red.add.release.sys` (ADD)",
                                   ["red.add.release.sys.global.u64 x1"], NO_FENCE + ["atom"]),
    "cg_fence_acq_rel_sys": (f"{T} > `fence()`", ["fence.acq_rel.sys x1"], ["fence.sc", "membar"]),
    "cg_fence_sc_sys": (f"{T} > `quiet<Scope>()`", ["fence.sc.sys x1"], ["fence.acq_rel", "membar"]),

    # -- RMA. The doc says `st.global` / `ld.global`; the peer address is generic, so the PTX
    #    has generic weak accesses (st.v4.u32): checked as weak and vectorised, any state space.
    "cg_p": (f"{T} > `p`: `st.volatile`", ["st.volatile x1"], RELAXED_ONLY + ["atom", "red"]),
    "cg_g": (f"{T} > `g`: `ld.volatile`", ["ld.volatile x1"], RELAXED_ONLY + ["atom", "red"]),
    "cg_put": (f"{T} > `put`, `p`, `putmem` (+ `_nbi`)", ["st.weak.v4"], WEAK_ONLY),
    "cg_putmem_nbi_block": (f"{T} > `put`, `p`, `putmem` (+ `_nbi`)", ["st.weak.v4"], WEAK_ONLY),
    "cg_get": (f"{T} > `get`, `g`", ["ld.weak.v4"], WEAK_ONLY),

    # -- fence / quiet --
    "cg_fence": (f"{T} > `fence()`", ["fence.acq_rel.sys x1"], ["fence.sc", "membar"] + SCOPE_BARRIER),
    "cg_c_fence": (f"{T} > `fence()`", ["fence.acq_rel.sys x1"], ["fence.sc", "membar"] + SCOPE_BARRIER),
    # thread scope: "the fence alone"
    "cg_quiet": (f"{T} > (thread scope: the fence alone)", ["fence.sc.sys x1"],
                 ["fence.acq_rel", "membar"] + SCOPE_BARRIER),
    "cg_c_quiet": (f"{T} > (thread scope: the fence alone)", ["fence.sc.sys x1"],
                   ["fence.acq_rel", "membar"] + SCOPE_BARRIER),
    # "`Scope::sync()`, `fence.sc.sys` by the first thread, `Scope::sync()`"
    "cg_quiet_warp": (f"{T} > `quiet<Scope>()`", ["bar.warp.sync x2", "fence.sc.sys x1"],
                      ["fence.acq_rel", "membar"]),
    "cg_quiet_block": (f"{T} > `quiet<Scope>()`", ["bar.sync|barrier.sync x2", "fence.sc.sys x1"],
                       ["fence.acq_rel", "membar"]),

    # -- AMOs: "atom.{add,cas,exch,and,or,xor}.relaxed.sys; red.add.relaxed.sys for atomic_add/
    #    atomic_inc, which return nothing; ld.relaxed.sys (fetch), st.relaxed.sys (set)" --
    "cg_atomic_fetch": (f"{T} > `ld.relaxed.sys` (fetch)", ["ld.relaxed.sys x1"],
                        RELAXED_ONLY + ["atom", "red"]),
    "cg_atomic_set": (f"{T} > `st.relaxed.sys` (set)", ["st.relaxed.sys x1"], RELAXED_ONLY + ["atom", "red"]),
    "cg_atomic_swap": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.exch.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_swap_double": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.exch.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_compare_swap": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.cas.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_fetch_add": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.add.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_fetch_inc": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.add.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_fetch_and": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.and.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_fetch_or": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.or.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_fetch_xor": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.xor.relaxed.sys x1"], RELAXED_ONLY),
    "cg_atomic_xor": (f"{T} > AMOs (`atomic_fetch_add`", ["atom.xor.relaxed.sys x1"], RELAXED_ONLY),
    # "Additions whose old value nobody reads are `red`, not `atom`"
    "cg_atomic_add": (f"{T} > `red.add.relaxed.sys` for `atomic_add`/`atomic_inc`",
                      ["red.add.relaxed.sys x1"], RELAXED_ONLY + ["atom"]),
    "cg_atomic_inc": (f"{T} > `red.add.relaxed.sys` for `atomic_add`/`atomic_inc`",
                      ["red.add.relaxed.sys x1"], RELAXED_ONLY + ["atom"]),
    "cg_c_uint64_atomic_add": (f"{T} > `red.add.relaxed.sys` for `atomic_add`/`atomic_inc`",
                               ["red.add.relaxed.sys x1"], RELAXED_ONLY + ["atom"]),

    # -- put_signal: "data: weak stores; Scope::sync(); one thread: st.release.sys (SET) or
    #    red.add.release.sys (ADD)" -- and no fence: the release alone orders the data.
    "cg_put_signal_set": (f"{T} > `put_signal<Scope>`", ["st.weak.v4", "st.release.sys x1"],
                          NO_FENCE + SCOPE_BARRIER + ["red", "atom", "st.relaxed"]),
    "cg_put_signal_add": (f"{T} > `put_signal<Scope>`", ["st.weak.v4", "red.add.release.sys x1"],
                          NO_FENCE + SCOPE_BARRIER + ["st.release", "st.relaxed", "red.relaxed", "atom"]),
    "cg_putmem_signal_nbi_warp_add": (f"{WHY} > **`put_signal` at thread, warp and block scope.**",
                                      ["st.weak.v4", "bar.warp.sync", "red.add.release.sys x1"],
                                      NO_FENCE + ["st.release", "st.relaxed", "red.relaxed", "atom"]),
    "cg_putmem_signal_nbi_block_set": (f"{WHY} > **`put_signal` at thread, warp and block scope.**",
                                       ["st.weak.v4", "bar.sync|barrier.sync", "st.release.sys x1"],
                                       NO_FENCE + ["red", "atom", "st.relaxed"]),
    # sig_op at run time (the C name): both updates, both releases
    "cg_putmem_signal_nbi_rt": (f"{T} > `put_signal<Scope>`",
                                ["st.weak.v4", "st.release.sys x1", "red.add.release.sys x1"],
                                NO_FENCE + ["st.relaxed", "red.relaxed", "atom"]),
    "cg_signal_op_set": (f"{T} > `signal_op`", ["st.relaxed.sys x1"], RELAXED_ONLY + ["red", "atom"]),
    "cg_signal_op_add": (f"{T} > `signal_op`", ["red.add.relaxed.sys x1"], RELAXED_ONLY + ["st.relaxed", "atom"]),
    "cg_signal_fetch": (f"{T} > `signal_fetch`", ["ld.acquire.sys x1"], NO_FENCE + ["ld.relaxed", "ld.volatile"]),

    # -- waits: one variable and sets of up to 4: polling ld.acquire.sys, nothing after it;
    #    5 or more: ld.relaxed.sys scans, 8 loads in flight, then fence.acq_rel.sys (_all,
    #    _some) or an ld.acquire.sys re-read (_any) --
    "cg_wait_until": (f"{WHY} > **Waits.**", ["ld.acquire.sys"], NO_FENCE + ["ld.relaxed", "ld.volatile"]),
    "cg_c_int_wait_until": (f"{WHY} > **Waits.**", ["ld.acquire.sys"], NO_FENCE + ["ld.relaxed", "ld.volatile"]),
    "cg_test": (f"{T} > `wait_until`, `test` (true)", ["ld.acquire.sys x1"],
                NO_FENCE + ["ld.relaxed", "ld.volatile"]),
    "cg_signal_wait_until": (f"{T} > `signal_wait_until`", ["ld.acquire.sys"],
                             NO_FENCE + ["ld.relaxed", "ld.volatile"]),
    "cg_wait_until_all_4": (f"{T} > sets of up to 4: polling `ld.acquire.sys`", ["ld.acquire.sys >=4"],
                            NO_FENCE + ["ld.relaxed"]),
    "cg_wait_until_any_4": (f"{T} > sets of up to 4: polling `ld.acquire.sys`", ["ld.acquire.sys >=4"],
                            NO_FENCE + ["ld.relaxed"]),
    "cg_wait_until_all_8": (f"{T} > then `fence.acq_rel.sys` (`_all`, `_some`)",
                            ["ld.relaxed.sys >=8", "fence.acq_rel.sys"], ["fence.sc", "membar", "ld.acquire"]),
    "cg_wait_until_all_vector_8": (f"{T} > then `fence.acq_rel.sys` (`_all`, `_some`)",
                                   ["ld.relaxed.sys >=8", "fence.acq_rel.sys"],
                                   ["fence.sc", "membar", "ld.acquire"]),
    "cg_wait_until_some_8": (f"{T} > then `fence.acq_rel.sys` (`_all`, `_some`)",
                             ["ld.relaxed.sys >=8", "fence.acq_rel.sys"], ["fence.sc", "membar", "ld.acquire"]),
    "cg_test_all_8": (f"{T} > then `fence.acq_rel.sys` (`_all`, `_some`)",
                      ["ld.relaxed.sys >=8", "fence.acq_rel.sys"], ["fence.sc", "membar", "ld.acquire"]),
    "cg_wait_until_any_8": (f"{T} > `ld.acquire.sys` re-read of the element found (`_any`)",
                            ["ld.relaxed.sys >=8", "ld.acquire.sys"], NO_FENCE),
    "cg_test_any_8": (f"{T} > `ld.acquire.sys` re-read of the element found (`_any`)",
                      ["ld.relaxed.sys >=8", "ld.acquire.sys"], NO_FENCE),
    # set size at run time: both ways
    "cg_wait_until_all_rt": (f"{T} > `*_all/_any/_some(_vector)`",
                             ["ld.acquire.sys", "ld.relaxed.sys >=8", "fence.acq_rel.sys"], ["fence.sc", "membar"]),

    # -- sync_all: "Scope::sync(); each signalling thread: one fence.acq_rel.sys, then
    #    red.add.relaxed.sys of 1 into its slot at each peer; ld.acquire.sys polls its own slots
    #    until non-zero, then red.add.relaxed.sys of -1"; barrier_all: the same with fence.sc.sys.
    #    (Teams of more than 32 PEs signal by dissemination with red.add.release.sys instead, a
    #    path the doc does not describe: that instruction is neither needed nor ruled out here.)
    "cg_sync_all": (f"{T} > `sync_all<Scope>`",
                    ["fence.acq_rel.sys", "red.add.relaxed.sys", "ld.acquire.sys"],
                    ["fence.sc", "membar", "atom"] + SCOPE_BARRIER),
    "cg_sync_all_block": (f"{T} > `sync_all<Scope>`",
                          ["bar.sync|barrier.sync", "fence.acq_rel.sys", "red.add.relaxed.sys", "ld.acquire.sys"],
                          ["fence.sc", "membar", "atom"]),
    "cg_team_sync": (f"{T} > `sync_all<Scope>`",
                     ["fence.acq_rel.sys", "red.add.relaxed.sys", "ld.acquire.sys"],
                     ["fence.sc", "membar", "atom"] + SCOPE_BARRIER),
    "cg_barrier_all": (f"{T} > `barrier_all<Scope>`",
                       ["fence.sc.sys", "red.add.relaxed.sys", "ld.acquire.sys"],
                       ["fence.acq_rel", "membar", "atom"] + SCOPE_BARRIER),
    "cg_barrier_all_block": (f"{T} > `barrier_all<Scope>`",
                             ["bar.sync|barrier.sync", "fence.sc.sys", "red.add.relaxed.sys", "ld.acquire.sys"],
                             ["fence.acq_rel", "membar", "atom"]),
    "cg_barrier": (f"{T} > `barrier_all<Scope>`",
                   ["fence.sc.sys", "red.add.relaxed.sys", "ld.acquire.sys"],
                   ["fence.acq_rel", "membar", "atom"] + SCOPE_BARRIER),

    # -- collectives: both paths in one entry (the size is a run-time value). LL: st.relaxed.sys
    #    per word or .v2.u64 per two, ld.relaxed.sys polls; larger: fence.acq_rel.sys, then
    #    st.relaxed.sys flags, ld.acquire.sys polls. Never a sequentially consistent fence. --
    "cg_reduce": (f"{T} > team reductions (`reduce`, `reducescatter`, every form)",
                  ["st.relaxed.sys.v2.u64", "ld.relaxed.sys", "fence.acq_rel.sys", "st.relaxed.sys.b64",
                   "ld.acquire.sys"],
                  ["fence.sc", "membar", "atom", "red"]),
    "cg_reduce_block": (f"{T} > team reductions (`reduce`, `reducescatter`, every form)",
                        ["bar.sync|barrier.sync", "st.relaxed.sys", "ld.relaxed.sys", "fence.acq_rel.sys",
                         "ld.acquire.sys"],
                        ["fence.sc", "membar", "atom", "red"]),
    "cg_broadcast": (f"{T} > `broadcast`, `fcollect`, `alltoall` (every form)",
                     ["st.relaxed.sys.v2.u64", "ld.relaxed.sys", "fence.acq_rel.sys", "st.relaxed.sys.b64",
                      "ld.acquire.sys"],
                     ["fence.sc", "membar", "atom", "red"]),
    "cg_fcollect_warp": (f"{T} > `broadcast`, `fcollect`, `alltoall` (every form)",
                         ["bar.warp.sync", "st.relaxed.sys", "ld.relaxed.sys", "fence.acq_rel.sys",
                          "ld.acquire.sys"],
                         ["fence.sc", "membar", "atom", "red"]),
    "cg_alltoall_block": (f"{T} > `broadcast`, `fcollect`, `alltoall` (every form)",
                          ["bar.sync|barrier.sync", "st.relaxed.sys", "ld.relaxed.sys", "fence.acq_rel.sys",
                           "ld.acquire.sys"],
                          ["fence.sc", "membar", "atom", "red"]),
}

SEMANTICS = {"relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio"}
ORDERING_OPCODES = {"fence", "membar", "atom", "red", "bar", "barrier"}


# ---- PTX ----
def parse_ptx(text):
    """{entry name: [instruction, ...]} for every .entry; an instruction is its dotted opcode
    ("ld.acquire.sys.b32"). Only the entry's own body: called .func bodies are not inlined."""
    entries = {}
    lines = text.splitlines()
    i = 0
    entry_re = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)")
    while i < len(lines):
        m = entry_re.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group(1)
        # the body: from the first "{" at depth 0 to its matching "}"
        depth, body, started = 0, [], False
        while i < len(lines):
            line = re.sub(r"//.*", "", lines[i])
            for ch in line:
                if ch == "{":
                    depth += 1
                    started = True
                elif ch == "}":
                    depth -= 1
            if started:
                body.append(line)
            i += 1
            if started and depth == 0:
                break
        entries[name] = instructions(body)
    return entries


def instructions(body):
    stmts, cur = [], ""
    for line in body:
        line = line.strip()
        # blank, braces, labels; directives (.reg, .param, .pragma; .loc, which has no ";")
        if not line or line in ("{", "}") or re.fullmatch(r"[\w$]+:", line) or line.startswith("."):
            continue
        cur += " " + line
        if ";" in cur:
            parts = cur.split(";")
            stmts.extend(parts[:-1])
            cur = parts[-1]
    out = []
    for s in stmts:
        s = s.strip().lstrip("{").strip()
        s = re.sub(r"^@!?%\w+\s+", "", s)  # predicate guard
        if not s:
            continue
        op = s.split()[0].rstrip(",")
        if re.fullmatch(r"[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+)*", op):
            out.append(op)
    return out


# ---- specs ----
Spec = collections.namedtuple("Spec", "body alternatives count exact")


def parse_spec(text):
    m = re.fullmatch(r"(.+?)(?:\s+(x|>=)(\d+))?", text.strip())
    body, kind, n = m.group(1), m.group(2), m.group(3)
    alts = []
    for alt in body.split("|"):
        parts = alt.strip().split(".")
        alts.append((parts[0], frozenset(parts[1:])))
    return Spec(body.strip(), alts, int(n) if n else 1, kind == "x")


def matches(alts, insn):
    parts = insn.split(".")
    op, quals = parts[0], set(parts[1:])
    for sop, squals in alts:
        if sop != "*" and sop != op:
            continue
        want = set(squals)
        if "weak" in want:
            want.discard("weak")
            if quals & SEMANTICS:
                continue
        if want <= quals:
            return True
    return False


def check_entry(insns, need, never):
    """Problems of one entry, as strings (empty: it holds)."""
    problems = []
    for text in need:
        s = parse_spec(text)
        n = sum(1 for x in insns if matches(s.alternatives, x))
        if (s.exact and n != s.count) or n < s.count:
            want = f"exactly {s.count}" if s.exact else f"at least {s.count}"
            problems.append(f"needs {want} '{s.body}', found {n}")
    for text in never:
        s = parse_spec(text)
        hits = sorted({x for x in insns if matches(s.alternatives, x)})
        if hits:
            problems.append(f"must not contain '{text}', found {', '.join(hits)}")
    return problems


def ordering_summary(insns):
    c = collections.Counter(
        x for x in insns if x.split(".")[0] in ORDERING_OPCODES or set(x.split(".")[1:]) & SEMANTICS)
    return ", ".join(f"{k} x{v}" for k, v in sorted(c.items())) or "(none)"


# ---- the document ----
def check_citations(doc_text):
    """Each citation's heading exists and its text appears in that section."""
    sections, cur = {}, None
    for line in doc_text.splitlines():
        m = re.match(r"^(#+)\s+(.*)$", line)
        if m:
            cur = m.group(2).strip()
            sections[cur] = ""
        elif cur is not None:
            sections[cur] += line + "\n"
    problems = []
    for entry, (cite, _, _) in EXPECT.items():
        heading, _, key = cite.partition(" > ")
        if heading not in sections:
            problems.append(f"{entry}: cites section '{heading}', not in the document")
        elif key and key not in sections[heading]:
            problems.append(f"{entry}: cites '{key}', not in section '{heading}'")
    return problems


def run(entries, expect, verbose):
    failed = 0
    for name in sorted(set(entries) | set(expect)):
        if name not in expect:
            print(f"FAIL {name}: kernel without a row in EXPECT (check_ptx.py)")
            failed += 1
            continue
        cite, need, never = expect[name]
        if name not in entries:
            print(f"FAIL {name}: row without a kernel in the PTX")
            failed += 1
            continue
        problems = check_entry(entries[name], need, never)
        if problems:
            failed += 1
            print(f"FAIL {name} (docs/memory-model.md: {cite})")
            for p in problems:
                print(f"       {p}")
            print(f"       the entry holds: {ordering_summary(entries[name])}")
        elif verbose:
            print(f"ok   {name}: {ordering_summary(entries[name])}")
    return failed


def self_test(entries):
    """Each row, with its first NEED moved to NEVER, must fail."""
    missed = []
    for name, (cite, need, never) in EXPECT.items():
        if name not in entries or not need:
            continue
        broken = parse_spec(need[0]).body
        if not check_entry(entries[name], need[1:], never + [broken]):
            missed.append(name)
    return missed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptx")
    ap.add_argument("--doc", help="docs/memory-model.md: check the citations against it")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    with open(a.ptx) as f:
        entries = parse_ptx(f.read())
    if not entries:
        print(f"FAIL: no .entry in {a.ptx}")
        return 1
    bad = 0
    if a.doc:
        with open(a.doc) as f:
            for p in check_citations(f.read()):
                print(f"FAIL citation: {p}")
                bad += 1
    bad += run(entries, EXPECT, a.list)
    if a.self_test:
        missed = self_test(entries)
        for name in missed:
            print(f"FAIL self-test: {name} still passes with its first NEED forbidden")
        bad += len(missed)
    print(f"{len(EXPECT)} rows, {len(entries)} entries: " + ("all hold" if bad == 0 else f"{bad} failed"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
