#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# rt_cost outputs of a directory (rt<PEs>-<variant>-<round>.txt) side by side: for each case, the
# range of its medians over the rounds (and the PEs: each prints its own), per PE count and variant. python3 table.py DIR
import glob
import os
import re
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
cells = {}  # case -> (pes, variant) -> [medians]
cases = []
for f in sorted(glob.glob(os.path.join(d, "rt*.txt"))):
    m = re.match(r"rt(\d+)-(\w+?)(?:-\d+)?\.txt$", os.path.basename(f))
    if not m:
        continue
    col = (int(m.group(1)), m.group(2))
    for line in open(f):
        r = re.match(r"(.*?)\s+median\s+([\d.]+) us\s+p90\s+([\d.]+)", line)
        if r:
            case = r.group(1).strip()
            if case not in cells:
                cases.append(case)
            cells.setdefault(case, {}).setdefault(col, []).append(float(r.group(2)))
order = {"new": 0, "spin0": 1, "old": 2}
cols = sorted({c for v in cells.values() for c in v}, key=lambda c: (c[0], order.get(c[1], 9), c[1]))
print("%-46s" % "median us, range over rounds and PEs" + "".join("%13s" % ("%d PE %s" % c) for c in cols))
for case in cases:
    row = "%-46s" % case[:46]
    for c in cols:
        v = cells[case].get(c)
        row += "%13s" % (("%.2f-%.2f" % (min(v), max(v))) if v else "-")
    print(row)
