#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# table.py <call dir> A B: the call's gshmem-perf medians (r/perf-<V>-<pes>-<rep>.jsonl), the
# mean over the repetitions, B against A for every point both measured; every result must be
# verified.
import glob, json, os, re, sys
from collections import defaultdict
d, A, B = sys.argv[1], sys.argv[2], sys.argv[3]
med = defaultdict(list)  # (var, pes, bench, dtype, scope, size) -> medians
for f in glob.glob(os.path.join(d, "r", "perf-*-*-*.jsonl")):
    m = re.match(r"perf-(.+)-(\d+)-(\d+)\.jsonl$", os.path.basename(f))
    v, n = m.group(1), int(m.group(2))
    for line in open(f):
        r = json.loads(line)
        if r.get("type") != "result" or r.get("lib") != "gshmem": continue
        if not r.get("verified"): print("NOT VERIFIED:", f, line.strip()); continue
        scope = r["scope"] or ("graph" if r["graph"] else "stream")
        med[(v, n, r["bench"], r["dtype"], scope, r["size"])].append(r["lat_us_median"])
rows = sorted({k[1:] for k in med if k[0] == A} & {k[1:] for k in med if k[0] == B})
print(f"us, median of each run (mean of {max(len(x) for x in med.values())} runs); {B} / {A}")
print(f"{'pes':>3} {'bench':14} {'dtype':6} {'scope':6} {'size':>5} {A:>8} {B:>8} {'ratio':>6}")
for k in rows:
    a = sum(med[(A,) + k]) / len(med[(A,) + k]); b = sum(med[(B,) + k]) / len(med[(B,) + k])
    print(f"{k[0]:>3} {k[1]:14} {k[2]:6} {k[3]:6} {k[4]:>5} {a:8.3f} {b:8.3f} {b / a:6.3f}")
