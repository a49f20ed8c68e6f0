#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Host put/get latency with GSHMEM_HIGH_PRIORITY_STREAM=0 and =1 (call2/lat-prio<0|1>-<rep>.jsonl):
mean over the runs of each point's median, the ratio, and each setting's call / floor range.
  python3 lat_table.py call2"""
import collections
import glob
import json
import sys

d = collections.defaultdict(list)
for f in sorted(glob.glob(f"{sys.argv[1]}/lat-prio*.jsonl")):
    prio = f.split("lat-prio")[1][0]
    for line in open(f):
        j = json.loads(line)
        if j.get("type") == "result":
            d[(j["bench"], j["size"], prio)].append(j)
print(f"{'bench':17s} {'bytes':>8s} {'prio 0':>8s} {'prio 1':>8s} {'1 / 0':>6s}  verified")
for b, s in sorted({(b, s) for b, s, _ in d}):
    m = {p: sum(j["lat_us_median"] for j in d[(b, s, p)]) / len(d[(b, s, p)]) for p in "01"}
    ok = all(j["verified"] for p in "01" for j in d[(b, s, p)])
    print(f"{b:17s} {s:8d} {m['0']:8.2f} {m['1']:8.2f} {m['1'] / m['0']:6.3f}  {ok}")
for b in sorted({b for b, _, _ in d}):
    for p in "01":
        js = [j for (bb, _, pp), v in d.items() if bb == b and pp == p for j in v]
        r = [j["lat_us_median"] / j["ceiling_us_median"] for j in js]
        fl = [j["ceiling_us_median"] for j in js]
        print(f"{b} prio {p}: call / floor {min(r):.3f}-{max(r):.3f}, floor {min(fl):.2f}-{max(fl):.2f} us")
