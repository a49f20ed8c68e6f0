#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Baselines: the latest accepted suite run of one kind of machine in one small file,
bench/baselines/<kind>.jsonl (bench/README.md), and comparisons against them.

usage:
  baseline.py make KIND RUN [RUN|EXTRA.jsonl ...] [--machine T] [--command T] [--source T] [-o FILE]
      RUN: what perftest/run_suite.sh N wrote (perf-<N>pe/: suite.json, results.jsonl,
      machine.txt), one per PE count. A .jsonl file after a RUN adds its lines to that PE
      count's section (a run beside the suite; marked "extra"). Writes stdout unless -o.
  baseline.py compare OLD NEW [--threshold 0.05] [--all] [--bench a,b] [--pes N] [--lib L]
      OLD, NEW: a baseline, a suite directory or results.jsonl files (a quoted glob or a
      comma-separated list; a point measured in several files counts with its median; --pes N:
      only the suites of N PEs).
      Prints every point whose median time moved by more than the threshold (new / old > 1:
      slower), NVSHMEM's own new / old beside as the machine's control (else NCCL's), a
      tally, and the targets of both sides.
  baseline.py show FILE
      The baseline's first line and one line per section.

File format (JSON lines): {"type":"baseline", kind, machine, git, date, command, pes, ...};
per PE count {"type":"suite", ...} (run_suite.sh's suite.json, the machine and counts); per
process {"type":"header", cmd, lib, pes, gpus_visible, ...} (gshmem-perf's header, less what
the suite line says); then {"type":"series", <the fields every point of the series shares>,
"cols": [...], "rows": [[...], ...]}: one result line of results.jsonl per row, its fields the
shared ones plus cols (null: absent). read_baseline() and runs() turn it back into result lines.
"""
import argparse
import glob
import json
import os
import re
import signal
import statistics
import sys

SERIES = ("lib", "bench", "kind", "pes", "scope", "dtype", "op", "ctas", "threads", "iters", "warmup", "reps",
          "bidir", "graph", "timer")
POINT = ("lib", "bench", "pes", "scope", "dtype", "op", "ctas", "threads", "bidir", "graph", "size")
HEADER_DROP = ("type", "gpu", "driver", "host", "date")  # the suite line has them


def _lines(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


def is_baseline(path):
    if not os.path.isfile(path):
        return False
    for j in _lines(path):
        return j.get("type") == "baseline"
    return False


def shared_gpus(header):
    """PEs shared GPUs (GSHMEM_PERF_SHARE_GPUS=1: fewer GPUs visible than PEs)."""
    return 0 < header.get("gpus_visible", 0) < header.get("pes", 0)


def read_results(paths):
    """Result lines of results.jsonl files, each with "shared" from its process's header."""
    rows = []
    for p in paths:
        shared = False
        for j in _lines(p):
            if j.get("type") == "header":
                shared = shared_gpus(j)
            elif j.get("type") == "result":
                j["shared"] = shared
                rows.append(j)
    return rows


def read_baseline(path):
    """(first line, sections): each section {"suite", "headers", "rows"}; rows as read_results gives them."""
    first, sections, shared, header = None, [], False, None
    for j in _lines(path):
        t = j.get("type")
        if t == "baseline":
            first = j
        elif t == "suite":
            sections.append({"suite": j, "headers": [], "rows": []})
        elif t == "header":
            header, shared = j, shared_gpus(j)
            sections[-1]["headers"].append(j)
        elif t == "series":
            const = {k: v for k, v in j.items() if k not in ("type", "cols", "rows")}
            for vals in j["rows"]:
                r = {"type": "result", **const}
                r.update((k, v) for k, v in zip(j["cols"], vals) if v is not None)
                r["shared"] = shared
                if header and header.get("extra"):
                    r["extra"] = True  # a run beside the suite (the plots leave it out)
                sections[-1]["rows"].append(r)
    return first, sections


def runs(paths, pes=None):
    """What the tools read: a list of runs {"title", "npes", "suite", "rows"}. Each section of a
    baseline is a run; all other paths (results.jsonl files, or suite directories: their
    results.jsonl) together are one run. pes: only the sections of that PE count."""
    out, plain = [], []
    for p in paths:
        if os.path.isdir(p):
            p = os.path.join(p, "results.jsonl")
        if is_baseline(p):
            first, sections = read_baseline(p)
            for s in sections:
                n = s["suite"].get("npes")
                if pes is None or n == pes:
                    title = f"{first.get('kind')}, {n} PEs: {s['suite'].get('cmd')} of {s['suite'].get('git')}, " \
                            f"{s['suite'].get('date', '')[:10]} ({os.path.basename(p)})"
                    out.append({"title": title, "npes": n, "suite": s["suite"], "rows": s["rows"]})
        else:
            plain.append(p)
    if plain:
        suite = None
        sj = os.path.join(os.path.dirname(plain[0]), "suite.json")
        if os.path.isfile(sj):
            suite = next(_lines(sj), None)
        out.insert(0, {"title": None, "npes": (suite or {}).get("npes"), "suite": suite, "rows": read_results(plain)})
    return out


# ---- make


def _machine(path):
    """'4 x NVIDIA H200 (143771 MiB, 1980 MHz), NV18 between every pair' from run_suite's machine.txt."""
    if not os.path.isfile(path):
        return None
    gpus, links = [], set()
    for line in open(path):
        m = re.match(r"\d+, (.+?), [\d.]+, (\d+ MiB), (\d+ MHz)", line)
        if m:
            gpus.append(f"{m.group(1)} ({m.group(2)}, {m.group(3)})")
        elif re.match(r"\S*GPU\d+\s", line):
            links.update(w for w in line.split()[1:] if re.fullmatch(r"NV\d+|SYS|NODE|PHB|PXB|PIX", w))
    if not gpus:
        return None
    text = ", ".join(f"{gpus.count(g)} x {g}" for g in dict.fromkeys(gpus))
    if len(links) == 1:
        text += f", {links.pop()} between every pair"
    elif links:
        text += ", links " + "/".join(sorted(links))
    return text


def _series(results):
    """Result lines of one process as series lines, in the order they first appear."""
    groups = {}
    for r in results:
        groups.setdefault(tuple(json.dumps(r.get(k)) for k in SERIES), []).append(r)
    out = []
    for rs in groups.values():
        keys = list(dict.fromkeys(k for r in rs for k in r if k not in ("type", "shared")))
        const = {k: rs[0].get(k) for k in keys
                 if k in SERIES or (k != "size" and all(k in r and r[k] == rs[0][k] for r in rs))}
        cols = [k for k in keys if k not in const]
        s = {"type": "series", **{k: v for k, v in const.items() if v is not None}, "cols": cols,
             "rows": [[r.get(k) for k in cols] for r in rs]}
        out.append(s)
    return out


def _section(run_dir, extras):
    suite = next(_lines(os.path.join(run_dir, "suite.json")))
    lines = []
    counts = {}
    bad = 0

    def add(path, extra):
        nonlocal bad
        header, results = None, []

        def flush():
            if header is not None or results:
                h = {"type": "header", **{k: v for k, v in (header or {}).items() if k not in HEADER_DROP}}
                if "cmd" in h:  # the binary's name, not the build's path; not the file it wrote
                    h["cmd"] = re.sub(r" --json \S+", "", re.sub(r"^\S*/", "", h["cmd"]))
                if extra:
                    h["extra"] = os.path.basename(path)
                lines.append(h)
                lines.extend(_series(results))

        for j in _lines(path):
            if j.get("type") == "header":
                flush()
                header, results = j, []
            elif j.get("type") == "result":
                results.append(j)
                counts[j.get("lib", "gshmem")] = counts.get(j.get("lib", "gshmem"), 0) + 1
                bad += not j.get("verified")
        flush()

    add(os.path.join(run_dir, "results.jsonl"), False)
    for e in extras:
        add(e, True)
    suite["machine"] = _machine(os.path.join(run_dir, "machine.txt"))
    suite["results"] = counts
    suite["not_verified"] = bad
    return suite, lines


def make(a):
    groups = []  # [run_dir, [extra jsonl ...]]
    for p in a.runs:
        if os.path.isdir(p):
            groups.append([p, []])
        elif groups:
            groups[-1][1].append(p)
        else:
            sys.exit(f"baseline.py: {p}: a .jsonl file must follow the suite directory it belongs to")
    sections = [_section(d, e) for d, e in groups]
    last = max((s for s, _ in sections), key=lambda s: s.get("date", ""))
    first = {"type": "baseline", "kind": a.kind, "machine": a.machine or last.get("machine"),
             "git": last.get("git"), "date": last.get("date", "")[:10], "command": a.command,
             "pes": sorted(s.get("npes") for s, _ in sections)}
    if a.source:
        first["source"] = a.source
    out = open(a.output, "w") if a.output else sys.stdout
    out.write(json.dumps(first) + "\n")
    for suite, lines in sections:
        out.write(json.dumps(suite) + "\n")
        for line in lines:
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
    if a.output:
        out.close()
        print(f"{a.output}: {os.path.getsize(a.output)} bytes, "
              + ", ".join(f"{s.get('npes')} PEs {sum(s['results'].values())} results" for s, _ in sections))
    return 0


# ---- compare


def _expand(spec):
    paths = []
    for part in spec.split(","):
        hits = sorted(glob.glob(part))
        paths.extend(hits or [part])
    return paths


def _points(spec, pes, libs):
    """{(npes, point key): [row, ...]} and the runs, for one side."""
    rs = runs(_expand(spec), pes)
    pts = {}
    for run in rs:
        for r in run["rows"]:
            if r.get("lib", "gshmem") in libs:
                pts.setdefault((run["npes"], tuple(r.get(k) for k in POINT)), []).append(r)
    return pts, rs


def _merge_suites(pts):
    out = {}
    for (_, k), rows in pts.items():
        out.setdefault((None, k), []).extend(rows)
    return out


def _med(rows, field):
    v = [r[field] for r in rows if r.get(field)]
    return statistics.median(v) if v else None


def _cfg(key):
    lib, bench, pes, scope, dtype, op, ctas, threads, bidir, graph, size = key
    return "/".join(str(x) for x in (scope, dtype, op, "bidir" if bidir else None, "graph" if graph else None,
                                     f"{ctas}x{threads}" if ctas and ctas != 1 else None) if x)


def compare(a):
    libs = {"gshmem", "nvshmem"}
    old, old_runs = _points(a.old, a.pes, libs)
    new, new_runs = _points(a.new, a.pes, libs)
    on, nn = {k[0] for k in old}, {k[0] for k in new}
    if None in on | nn or not on & nn:  # a side without a suite: points of any suite match
        old, new = (_merge_suites(d) for d in (old, new))
    benches = set(a.bench.split(",")) if a.bench else None
    keys = sorted((k for k in new if k in old and k[1][0] == a.lib and (not benches or k[1][1] in benches)),
                  key=lambda k: tuple(str(x) for x in k[1][1:10]) + (k[1][10], str(k[0])))
    print(f"{'suite':>5} {'bench':<24} {'pes':>3} {'config':<30} {'size':>11} {'old_us':>10} {'new_us':>10} "
          f"{'new/old':>8} {'control':>8}")
    ratios, shown = [], 0
    for k in keys:
        o, n = _med(old[k], "lat_us_median"), _med(new[k], "lat_us_median")
        if not o or not n:
            continue
        ratio = n / o
        ratios.append(ratio)
        if not a.all and abs(ratio - 1) <= a.threshold:
            continue
        other = "nvshmem" if a.lib == "gshmem" else "gshmem"
        ck = (k[0], (other,) + k[1][1:])
        if ck in old and ck in new and _med(old[ck], "lat_us_median") and _med(new[ck], "lat_us_median"):
            ctl = f"{_med(new[ck], 'lat_us_median') / _med(old[ck], 'lat_us_median'):8.3f}"
        elif _med(old[k], "nccl_lat_us_median") and _med(new[k], "nccl_lat_us_median"):
            ctl = f"{_med(new[k], 'nccl_lat_us_median') / _med(old[k], 'nccl_lat_us_median'):7.3f}N"
        else:
            ctl = f"{'-':>8}"
        shown += 1
        print(f"{str(k[0] or '-'):>5} {k[1][1]:<24} {k[1][2]:>3} {_cfg(k[1]):<30} {k[1][10]:>11} {o:10.3f} {n:10.3f} "
              f"{ratio:8.3f} {ctl}")
    if ratios:
        t, med = a.threshold, statistics.median(ratios)
        print(f"== {a.lib}: {len(ratios)} points in both, {shown} shown; median new/old {med:.3f}; "
              f"faster by > {t:.0%}: {sum(r < 1 - t for r in ratios)}, slower by > {t:.0%}: "
              f"{sum(r > 1 + t for r in ratios)} (control: NVSHMEM's new/old, N: NCCL's)")
    else:
        print("== no point measured on both sides")
    bad = [r for pts in new.values() for r in pts if not r.get("verified")]
    if bad:
        print(f"== NEW: {len(bad)} result(s) did NOT verify")
    _compare_targets(old_runs, new_runs)
    return 1 if bad else 0


def _compare_targets(old_runs, new_runs):
    try:
        import summary
    except ImportError:
        return
    by_pes = lambda rs: {r["npes"]: [x for x in r["rows"] if x.get("lib", "gshmem") == "gshmem" and not x["shared"]]
                         for r in rs}
    o, n = by_pes(old_runs), by_pes(new_runs)
    pairs = [(p, o[p], n[p]) for p in n if p in o] or \
            ([(None, sum(o.values(), []), sum(n.values(), []))] if o and n else [])
    for p, orows, nrows in pairs:
        if not orows or not nrows:
            continue
        pes = sorted({r["pes"] for r in orows} | {r["pes"] for r in nrows})
        old_t = {t[0]: t for t in summary.targets(orows, pes)}
        print(f"== targets{f' ({p} PEs)' if p else ''}: old -> new")
        for label, value, unit, cmp, limit, _ in summary.targets(nrows, pes):
            ov = old_t.get(label, (None, None))[1]
            if value is None and ov is None:
                continue
            ok = value is not None and (value <= limit if cmp == "<=" else value >= limit if cmp == ">=" else
                                        value > limit)
            fv = lambda v: f"{v:9.3f}" if v is not None else f"{'n/a':>9}"
            print(f"  {'PASS' if ok else 'MISS':<5} {label:<52} {fv(ov)} -> {fv(value)} {unit} (target {cmp} {limit})")


def show(a):
    first, sections = read_baseline(a.file)
    print(json.dumps(first, indent=1))
    for s in sections:
        su = s["suite"]
        print(f"{su.get('npes')} PEs: {su.get('cmd')} git {su.get('git')} {su.get('date')} {su.get('results')} "
              f"results, {len(s['rows'])} rows, {len(s['headers'])} processes")
    return 0


def main(argv):
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("kind")
    m.add_argument("runs", nargs="+")
    m.add_argument("--machine")
    m.add_argument("--command")
    m.add_argument("--source")
    m.add_argument("-o", "--output")
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--threshold", type=float, default=0.05)
    c.add_argument("--all", action="store_true")
    c.add_argument("--bench")
    c.add_argument("--pes", type=int)
    c.add_argument("--lib", default="gshmem", choices=("gshmem", "nvshmem"))
    s = sub.add_parser("show")
    s.add_argument("file")
    a = ap.parse_args(argv)
    if a.cmd == "make":
        return make(a)
    return compare(a) if a.cmd == "compare" else show(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
