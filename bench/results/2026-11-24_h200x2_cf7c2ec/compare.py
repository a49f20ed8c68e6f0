#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Two suite runs side by side, point by point: gshmem's median latency in each, their ratio, and
# the same ratio for NVSHMEM (run in both suites with the same kernels: a control for the machine).
#   compare.py OLD/results.jsonl NEW/results.jsonl [--max-size BYTES] [--bench a,b,...]
#              [--nvshmem-old RUN/results.jsonl]   (NVSHMEM's old times from another run)
import argparse
import json
import statistics


def load(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("type") != "result":
            continue
        key = (r["bench"], r["pes"], r.get("scope"), r.get("dtype"), r.get("op"), r["size"], r.get("bidir"),
               r.get("graph"))
        out.setdefault(r["lib"], {})[key] = r["lat_us_median"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--max-size", type=int, default=1 << 62)
    ap.add_argument("--bench", default="")
    ap.add_argument("--nvshmem-old", default="")
    a = ap.parse_args()
    old, new = load(a.old), load(a.new)
    if a.nvshmem_old:
        old["nvshmem"] = load(a.nvshmem_old).get("nvshmem", {})
    benches = set(a.bench.split(",")) if a.bench else None
    print(f"{'bench':<24}{'config':<26}{'size':>10}{'old_us':>10}{'new_us':>10}{'new/old':>9}{'nvshmem new/old':>17}")
    ratios = []
    for key in sorted(new.get("gshmem", {}), key=lambda k: (k[0], str(k[2]), str(k[3]), str(k[4]), k[7] or False, k[5])):
        bench, pes, scope, dtype, op, size, bidir, graph = key
        if key not in old.get("gshmem", {}) or size > a.max_size or (benches and bench not in benches):
            continue
        o, n = old["gshmem"][key], new["gshmem"][key]
        no, nn = old.get("nvshmem", {}).get(key), new.get("nvshmem", {}).get(key)
        ctl = f"{nn / no:17.3f}" if no and nn else f"{'-':>17}"
        cfg = "/".join(str(x) for x in (scope, dtype, op) if x) + ("/bidir" if bidir else "") + ("/graph" if graph else "")
        print(f"{bench:<24}{cfg:<26}{size:>10}{o:>10.3f}{n:>10.3f}{n / o:>9.3f}{ctl}")
        ratios.append(n / o)
    if ratios:
        print(f"== {len(ratios)} points: median new/old {statistics.median(ratios):.3f}, "
              f"faster by > 3 %: {sum(r < 0.97 for r in ratios)}, slower by > 3 %: {sum(r > 1.03 for r in ratios)}")


if __name__ == "__main__":
    main()
