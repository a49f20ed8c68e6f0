#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# coll_cost outputs of a directory (cc<PEs>-<variant>-<round>.txt) side by side: for each row, the
# range of its medians over the rounds and the PEs (each prints its own line, "PE n ..."), per PE
# count and variant; then any "VERIFY FAILED" line.   python3 table.py DIR
import glob
import os
import re
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
cells, cases, failed = {}, [], []
for f in sorted(glob.glob(os.path.join(d, "cc*.txt"))):
    m = re.match(r"cc(\d+)-(\w+?)-\d+\.txt$", os.path.basename(f))
    if not m:
        continue
    col = (int(m.group(1)), m.group(2))
    for line in open(f):
        if "VERIFY FAILED" in line:
            failed.append(os.path.basename(f) + ": " + line.strip())
        r = re.match(r"PE \d+ (.*?)\s+median\s+([\d.]+) us\s+p90\s+([\d.]+)", line)
        if r:
            case = r.group(1).strip()
            if case not in cells:
                cases.append(case)
            cells.setdefault(case, {}).setdefault(col, []).append(float(r.group(2)))
order = {"new": 0, "spin0": 1}
cols = sorted({c for v in cells.values() for c in v}, key=lambda c: (c[0], order.get(c[1], 9), c[1]))
print("%-50s" % "median us, range over rounds and PEs" + "".join("%15s" % ("%d PE %s" % c) for c in cols))
for case in cases:
    row = "%-50s" % case[:50]
    for c in cols:
        v = cells[case].get(c)
        row += "%15s" % (("%.2f-%.2f" % (min(v), max(v))) if v else "-")
    print(row)
print("\n".join(failed) if failed else "no VERIFY FAILED line")
