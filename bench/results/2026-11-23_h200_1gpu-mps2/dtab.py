# SPDX-License-Identifier: BSD-3-Clause
# Device-scope reductions, HEAD's binary against this change's, two runs each (us, median):
#   python3 dtab.py DIR        (DIR/d-base-1.jsonl ... d-new-2.jsonl)
import collections
import json
import sys

d = sys.argv[1]
labs = ["d-base-1", "d-base-2", "d-new-1", "d-new-2"]
rows = collections.defaultdict(dict)
for lab in labs:
    for line in open(f"{d}/{lab}.jsonl"):
        r = json.loads(line)
        if r.get("type") == "result":
            rows[(r["bench"], r["scope"], r["size"])][lab] = r["lat_us_median"]
print("| bench | scope | size | " + " | ".join(labs) + " | new / base |")
print("|---|---|---|" + "---|" * (len(labs) + 1))
for k in sorted(rows):
    v = rows[k]
    base = (v["d-base-1"] + v["d-base-2"]) / 2
    new = (v["d-new-1"] + v["d-new-2"]) / 2
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join("%.3f" % v[l] for l in labs) + " | %.3f |" % (new / base))
