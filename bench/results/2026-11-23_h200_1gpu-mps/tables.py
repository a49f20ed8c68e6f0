# SPDX-License-Identifier: BSD-3-Clause
# Median latency (us) per benchmark and size, one column per run label:
#   python3 tables.py DIR label1 label2 ...      (DIR/<label>.jsonl, gshmem-perf --json output)
import collections
import json
import sys

d, labels = sys.argv[1], sys.argv[2:]
rows = collections.defaultdict(dict)
for lab in labels:
    for line in open(f"{d}/{lab}.jsonl"):
        r = json.loads(line)
        if r.get("type") == "result":
            rows[(r["bench"], r["size"])][lab] = r["lat_us_median"]
print("| bench | size | " + " | ".join(labels) + " |")
print("|---|---|" + "---|" * len(labels))
for (b, s) in sorted(rows):
    print(f"| {b} | {s} | " + " | ".join("%.2f" % rows[(b, s)][l] if l in rows[(b, s)] else "-" for l in labels) + " |")
