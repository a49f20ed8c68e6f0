#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# The A/B runs of one call as a table: per (bench, scope, size), each variant's median latency
# (us), the mean of its runs, and its ratio to A.   table.py CALLDIR [SIZES]
import glob
import json
import os
import sys

d = sys.argv[1]
sizes = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else None
runs = {}
for f in sorted(glob.glob(os.path.join(d, "perf-*.jsonl"))):
    var = os.path.basename(f).split("-")[1]
    for line in open(f):
        r = json.loads(line)
        if r.get("type") != "result":
            continue
        runs.setdefault((r["bench"], r["scope"], r["size"]), {}).setdefault(var, []).append(r["lat_us_median"])
variants = sorted({v for k in runs for v in runs[k]}, key=lambda v: (v != "A", v))
print(f"{'bench':<14}{'scope':<7}{'size':>7}" + "".join(f"{v:>9}" for v in variants) + "".join(f"{v + '/A':>8}" for v in variants[1:]))
for k in sorted(runs):
    if sizes and k[2] not in sizes:
        continue
    m = {v: sum(x) / len(x) for v, x in runs[k].items()}
    print(f"{k[0]:<14}{k[1]:<7}{k[2]:>7}" + "".join(f"{m.get(v, float('nan')):>9.3f}" for v in variants) +
          "".join(f"{m.get(v, float('nan')) / m['A']:>8.3f}" for v in variants[1:]))
