#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# ptab.py <call dir> BASE V...: run_probe.sh's lines (r/probe-*.txt), the mean over the
# repetitions of each (variant, PEs, collective, bytes, scope), each variant against BASE.
import glob, os, sys
from collections import defaultdict
d, base, vs = sys.argv[1], sys.argv[2], sys.argv[3:]
t = defaultdict(list)
for f in sorted(glob.glob(os.path.join(d, "r", "probe-[0-9]*.txt"))):
    for line in open(f):
        w = line.split()
        if len(w) < 9 or w[2] != "PEs" or "B/msg" not in w: continue
        # label N PEs op... B B/msg scope us us (an op may be two words: "reduce f32")
        i = w.index("B/msg")
        t[(w[0], int(w[1]), "_".join(w[3:i - 1]), int(w[i - 1]), w[i + 1])].append(float(w[i + 2]))
keys = sorted({k[1:] for k in t if k[0] == base}, key=lambda k: (k[0], k[1], k[3], k[2]))
print("us, mean over the runs of the probe's median; ratio to " + base)
print(f"{'pes':>3} {'op':10} {'scope':7} {'B':>5} {base:>8} " + " ".join(f"{v:>8} {'/' + base:>7}" for v in vs))
for k in keys:
    b = sum(t[(base,) + k]) / len(t[(base,) + k])
    cells = []
    for v in vs:
        x = t.get((v,) + k)
        cells.append(f"{sum(x) / len(x):8.3f} {sum(x) / len(x) / b:7.3f}" if x else f"{'-':>8} {'-':>7}")
    print(f"{k[0]:>3} {k[1]:10} {k[3]:7} {k[2]:>5} {b:8.3f} " + " ".join(cells))
