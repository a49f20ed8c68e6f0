#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Median busbw (GB/s) and NCCL ratio per relay variant, PE count and size, from ab_relay.sh's
<variant>-<npes>-<rep>.jsonl files. usage: relay_table.py DIR [DIR ...]"""
import collections
import glob
import json
import os
import statistics
import sys

bw = collections.defaultdict(list)
ratio = collections.defaultdict(list)
bad = 0
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "*.jsonl"))):
        v, n, _ = os.path.basename(f)[:-6].rsplit("-", 2)
        for line in open(f):
            r = json.loads(line)
            if r.get("type") != "result":
                continue
            bad += not r["verified"]
            key = (int(n), v, r["size"] >> 20)
            bw[key].append(r["busbw_GBps"])
            ratio[key].append(r.get("ratio") or 0)
sizes = sorted({k[2] for k in bw})
for n in sorted({k[0] for k in bw}, reverse=True):
    print(f"{n} PEs: median busbw GB/s (x NCCL) [runs]")
    print("variant " + "".join(f"{s:>22}" for s in (f"{x} MiB" for x in sizes)))
    for v in sorted({k[1] for k in bw if k[0] == n}):
        cells = []
        for s in sizes:
            b = bw.get((n, v, s))
            cells.append(f"{statistics.median(b):8.1f} ({statistics.median(ratio[(n, v, s)]):.3f}) [{len(b)}]"
                         if b else "-")
        print(f"{v:8}" + "".join(f"{c:>22}" for c in cells))
print(f"unverified results: {bad}")
