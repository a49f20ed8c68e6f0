#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary of gshmem-perf JSON lines: key sizes of every series, the issue's targets
(shared/guide/targets.md) with PASS / MISS, and every result that did not verify.

usage: summary.py results.jsonl [more.jsonl ...]
"""
import json
import sys

KEY_SIZES = {4, 8, 16, 64, 4096, 256 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20}


def load(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    j = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if j.get("type") == "result":
                    rows.append(j)
    return rows


def series_key(r):
    return (r["bench"], r["pes"], r.get("scope"), r.get("dtype"), r.get("op"), r.get("bidir"), r.get("graph"),
            r.get("ctas"), r.get("threads"))


def fmt(v, f="{:.2f}"):
    return "-" if v is None else f.format(v)


def size_str(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= (1 << shift) and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def print_series(rows):
    groups = {}
    for r in rows:
        groups.setdefault(series_key(r), []).append(r)
    print(f"{'bench':<24} {'pes':>3} {'config':<26} {'size':>6} {'lat_med_us':>10} {'lat_p99_us':>10} "
          f"{'busbw':>8} {'nccl_busbw':>10} {'ratio':>6} {'extra':>10}  check")
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        rs = sorted(groups[key], key=lambda r: r["size"])
        sizes = [r["size"] for r in rs]
        keep = {sizes[0], sizes[-1]} | (KEY_SIZES & set(sizes))
        bench, pes, scope, dtype, op, bidir, graph, ctas, threads = key
        cfg = "/".join(x for x in (scope, dtype, op, "bidir" if bidir else None, "graph" if graph else None) if x)
        for r in rs:
            if r["size"] not in keep:
                continue
            extra = ""
            if r.get("ceiling_GBps"):
                extra = f"ceil {r['ceiling_GBps']:.0f}"
            elif r.get("mops"):
                extra = f"{r['mops']:.1f}Mops"
            ok = "ok" if r.get("verified") else "FAILED"
            print(f"{bench:<24} {pes:>3} {cfg:<26} {size_str(r['size']):>6} {fmt(r.get('lat_us_median'), '{:.3f}'):>10} "
                  f"{fmt(r.get('lat_us_p99'), '{:.3f}'):>10} {fmt(r.get('busbw_GBps')):>8} "
                  f"{fmt(r.get('nccl_busbw_GBps')):>10} {fmt(r.get('ratio')):>6} {extra:>10}  {ok}")


def find(rows, bench, pes=None, size=None, **kv):
    out = []
    for r in rows:
        if r["bench"] != bench or (pes is not None and r["pes"] != pes) or (size is not None and r["size"] != size):
            continue
        if all(r.get(k) == v for k, v in kv.items()):
            out.append(r)
    return out


def best(rs, field, larger=True):
    rs = [r for r in rs if r.get(field) is not None]
    if not rs:
        return None
    return max(rs, key=lambda r: r[field]) if larger else min(rs, key=lambda r: r[field])


# (what, finder, field, comparison, limit) - limit is a number or "nccl" (ratio >= value)
def targets(rows):
    t = []
    pe_counts = sorted({r["pes"] for r in rows})

    def lat(label, rs, limit):
        r = best(rs, "lat_us_median", larger=False)
        t.append((label, r["lat_us_median"] if r else None, "us", "<=", limit, r))

    def bw(label, rs, limit):
        r = best(rs, "algbw_GBps")
        t.append((label, r["algbw_GBps"] if r else None, "GB/s", ">=", limit, r))

    def ratio(label, rs, limit, cmp=">="):
        r = best(rs, "ratio")
        t.append((label, r["ratio"] if r else None, "x NCCL", cmp, limit, r))

    bw("put bandwidth 256 MiB, block, PE0->PE1", find(rows, "put_bw", size=256 << 20, scope="block", bidir=False), 400)
    bw("get bandwidth 256 MiB, block", find(rows, "get_bw", size=256 << 20, scope="block", bidir=False), 395)
    lat("p ping-pong one-way latency", find(rows, "pingpong_p"), 0.9)
    lat("putmem_block 8 B + quiet", find(rows, "put_latency", size=8, scope="block"), 1.2)
    lat("putmem_block 256 KiB + quiet", find(rows, "put_latency", size=256 << 10, scope="block"), 5.0)
    lat("atomic_fetch_add 64-bit latency", find(rows, "atomic_latency", op="fetch_add", dtype="uint64"), 0.9)
    for n in pe_counts:
        if n != 4:
            continue
        lat("device barrier_all_block, 4 PEs", find(rows, "barrier", pes=4, scope="block"), 1.5)
        lat("barrier_all_on_stream, 4 PEs", find(rows, "barrier_on_stream", pes=4), 3.0)
        lat("device alltoall_block int32 16 B/pair, 4 PEs",
            find(rows, "alltoall", pes=4, size=64, scope="block", dtype="int32"), 3.0)
        ratio("alltoall on-stream 16 MiB/PE vs NCCL, 4 PEs", find(rows, "alltoall_on_stream", pes=4, size=16 << 20),
              1.1)
    for n in pe_counts:
        if n == 2:
            lat("device sum-reduce float 4 B, 2 PEs", find(rows, "reduction", pes=2, size=4, dtype="float", op="sum"),
                4.0)
        ratio(f"allreduce on-stream float 64 MiB vs NCCL, {n} PEs",
              find(rows, "reduction_on_stream", pes=n, size=64 << 20, dtype="float", op="sum"), 1.0)
        ratio(f"broadcast on-stream int32 64 MiB vs NCCL, {n} PEs",
              find(rows, "broadcast_on_stream", pes=n, size=64 << 20, dtype="int32"), 1.0)
        small = find(rows, "reduction_on_stream", pes=n, dtype="float", op="sum")
        if small:
            smallest = min(r["size"] for r in small)
            ratio(f"small allreduce on-stream ({smallest} B) vs NCCL, {n} PEs",
                  [r for r in small if r["size"] == smallest], 1.0, ">")
    return t


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    rows = load(argv[1:])
    if not rows:
        print("summary: no results")
        return 1
    print("== results (key sizes of every series; ratio = NCCL time / gshmem time, > 1: gshmem faster)")
    print_series(rows)
    print()
    print("== targets (shared/guide/targets.md)")
    for label, value, unit, cmp, limit, r in targets(rows):
        if value is None:
            print(f"  {'n/a':<5} {label:<52} not measured")
            continue
        ok = value <= limit if cmp == "<=" else value >= limit if cmp == ">=" else value > limit
        cfg = ""
        if r is not None:
            cfg = f"  [{r['bench']} pes={r['pes']} size={size_str(r['size'])} {r.get('scope') or ''}" \
                  f"{' graph' if r.get('graph') else ''}]"
        print(f"  {'PASS' if ok else 'MISS':<5} {label:<52} {value:9.3f} {unit} (target {cmp} {limit}){cfg}")
    bad = [r for r in rows if not r.get("verified")]
    print()
    if bad:
        print(f"== {len(bad)} result(s) did NOT verify:")
        for r in bad:
            print(f"  {r['bench']} pes={r['pes']} size={r['size']} scope={r.get('scope')} dtype={r.get('dtype')} "
                  f"op={r.get('op')} note={r.get('note', '')}")
    else:
        print(f"== all {len(rows)} results verified")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
