# SPDX-License-Identifier: BSD-3-Clause
# The A/B of scripts/mps_ab.sh as a table (us, median of each run, mean of the runs):
#   python3 ab_table.py DIR        (DIR/d-base-1.jsonl, d-new-1.jsonl, ...)
import collections
import glob
import json
import os
import sys

d = sys.argv[1]
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sorted(glob.glob(os.path.join(d, "d-*-*.jsonl"))):
    var = os.path.basename(path).split("-")[1]
    for line in open(path):
        r = json.loads(line)
        if r.get("type") == "result":
            assert r["verified"], path
            runs[(r["bench"], r["scope"], r["size"])][var].append(r["lat_us_median"])
print("| bench | scope | size | base | new | new / base |")
print("|---|---|---|---|---|---|")
ratios = []
for k in sorted(runs):
    b = sum(runs[k]["base"]) / len(runs[k]["base"])
    n = sum(runs[k]["new"]) / len(runs[k]["new"])
    ratios.append(n / b)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {b:.3f} | {n:.3f} | {n / b:.3f} |")
ratios.sort()
print(f"\n{len(ratios)} rows; new / base: min {ratios[0]:.3f}, median {ratios[len(ratios) // 2]:.3f}, max {ratios[-1]:.3f}")
