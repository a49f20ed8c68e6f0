#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""PNG plots from gshmem-perf JSON lines (perftest/README.md) or a baseline (bench/README.md).

usage: plot.py [-o OUTDIR] [--pes N] RESULTS [RESULTS ...]
  RESULTS   results.jsonl files, directories searched for *.jsonl, or baselines
            (bench/baselines/<kind>.jsonl: the section of --pes N, by default the largest PE count)
  -o        output directory (default: plots/ next to the first input)

Writes, per benchmark with a size sweep, <bench>.png: median latency (log-log) and
bandwidth (bus bandwidth as nccl-tests defines it) against size, one line per
configuration (PE count, scope, datatype, op, bidir, graph), NCCL dashed in the
same colour, NVSHMEM (lines of gshmem-perf-nvshmem, "lib": "nvshmem") dash-dotted with
triangles, the copy-engine ceiling dotted (for host latencies: a lone copy's time, on
the latency axis too). Size-less benchmarks (barriers, p/g,
atomics, ping-pong without data) go into latency_summary.png (median, p99 as the
whisker; NVSHMEM's bar below gshmem's). overview.png puts the headline comparisons on one page.
Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baseline  # noqa: E402

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # pragma: no cover
    sys.exit("plot.py needs matplotlib: pip install matplotlib")

OVERVIEW = [("put_bw", "put bandwidth (device)"), ("reduction_on_stream", "allreduce on stream vs NCCL"),
            ("alltoall_on_stream", "alltoall on stream vs NCCL"), ("broadcast_on_stream", "broadcast on stream vs NCCL")]


def inputs(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith(".jsonl"):
                        yield os.path.join(d, f)
        else:
            yield p


def load(paths, pes=None):
    """Result lines and the header lines (or a baseline section's suite line) they came with."""
    rows, headers, plain = [], [], []
    for path in inputs(paths):
        if baseline.is_baseline(path):
            sections = baseline.runs([path], pes)
            if sections and pes is None:
                sections = [max(sections, key=lambda r: r["npes"] or 0)]
            for run in sections:
                rows.extend(r for r in run["rows"] if not r.get("extra"))
                headers.append(run["suite"])
            continue
        plain.append(path)
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith('{"type":"header"') or line.startswith('{"type": "header"'):
                    try:
                        headers.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass
    rows.extend(baseline.read_results(plain))
    return rows, headers


def label(r, with_bench=False):
    parts = [f"{r['pes']} PEs"]
    for k in ("scope", "dtype", "op"):
        if r.get(k):
            parts.append(str(r[k]))
    if r.get("bidir"):
        parts.append("bidir")
    if r.get("graph"):
        parts.append("graph")
    if with_bench:
        parts.insert(0, r["bench"])
    return " ".join(parts)


def series(rows):
    out = {}
    for r in rows:
        if r.get("lat_us_median") is None:
            continue
        out.setdefault(label(r), []).append(r)
    for k in out:
        out[k].sort(key=lambda r: r["size"])
    return out


def bw_field(rows):
    return "busbw_GBps" if any(r.get("busbw_GBps") is not None for r in rows) else None


def size_axis(ax):
    ax.set_xscale("log", base=2)
    lo, hi = ax.get_xlim()
    ticks = [1 << k for k in range(0, 40, 2) if lo <= (1 << k) <= hi]
    if len(ticks) > 10:
        ticks = ticks[::2]
    ax.set_xticks(ticks)
    ax.set_xticklabels([fmt_size(t) for t in ticks], fontsize=7)
    ax.set_xlabel("size (bytes)")


def fmt_size(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= (1 << shift):
            return f"{b >> shift}{unit}"
    return str(b)


def plot_sweep(ax_lat, ax_bw, rows, title, nv_rows=()):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    bwf = bw_field(rows)
    nv = series(nv_rows)
    for i, (name, rs) in enumerate(sorted(series(rows).items())):
        c = colors[i % len(colors)]
        x = [r["size"] for r in rs]
        ax_lat.plot(x, [r["lat_us_median"] for r in rs], "o-", color=c, ms=3, label=f"gshmem {name}")
        nccl = [r for r in rs if r.get("nccl_lat_us_median") is not None]
        if nccl:
            ax_lat.plot([r["size"] for r in nccl], [r["nccl_lat_us_median"] for r in nccl], "s--", color=c, ms=3,
                        label=f"NCCL {name}")
        floor = [r for r in rs if "latency" in r["bench"] and r.get("ceiling_us_median")]
        if floor:
            ax_lat.plot([r["size"] for r in floor], [r["ceiling_us_median"] for r in floor], ":", color=c,
                        label=f"lone cudaMemcpyAsync {name}")
        other = nv.get(name, [])
        if other:
            ax_lat.plot([r["size"] for r in other], [r["lat_us_median"] for r in other], "^-.", color=c, ms=3,
                        label=f"NVSHMEM {name}")
        if ax_bw is not None and bwf:
            ax_bw.plot(x, [r.get(bwf) or 0 for r in rs], "o-", color=c, ms=3, label=f"gshmem {name}")
            if nccl:
                ax_bw.plot([r["size"] for r in nccl], [r.get("nccl_busbw_GBps") or 0 for r in nccl], "s--", color=c,
                           ms=3, label=f"NCCL {name}")
            if other:
                ax_bw.plot([r["size"] for r in other], [r.get(bwf) or 0 for r in other], "^-.", color=c, ms=3,
                           label=f"NVSHMEM {name}")
            ceil = [r for r in rs if r.get("ceiling_GBps")]
            if ceil:
                ax_bw.plot([r["size"] for r in ceil], [r["ceiling_GBps"] for r in ceil], ":", color=c,
                           label=f"copy-engine ceiling {name}")
    ax_lat.set_yscale("log")
    ax_lat.set_ylabel("median latency (us)")
    ax_lat.set_title(title, fontsize=9)
    size_axis(ax_lat)
    ax_lat.grid(True, which="both", alpha=0.3)
    ax_lat.legend(fontsize=6)
    if ax_bw is not None:
        ax_bw.set_ylabel("bus bandwidth (GB/s)")
        ax_bw.set_title(title, fontsize=9)
        size_axis(ax_bw)
        ax_bw.grid(True, alpha=0.3)
        ax_bw.legend(fontsize=6)


def plot_bench(bench, rows, outdir, subtitle, nv_rows=()):
    has_bw = bw_field(rows) is not None
    fig, axes = plt.subplots(1, 2 if has_bw else 1, figsize=(13 if has_bw else 7, 4.8), squeeze=False)
    plot_sweep(axes[0][0], axes[0][1] if has_bw else None, rows, f"{bench}  ({subtitle})", nv_rows)
    fig.tight_layout()
    path = os.path.join(outdir, f"{bench}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_sizeless(rows, outdir, subtitle, nv_rows=()):
    rows = [r for r in rows if r.get("lat_us_median") is not None]
    if not rows:
        return None
    rows.sort(key=lambda r: (r["bench"], r["pes"], str(r.get("scope")), str(r.get("op"))))
    names = [label(r, with_bench=True) for r in rows]
    nv = {label(r, with_bench=True): r for r in nv_rows if r.get("lat_us_median") is not None}

    def whisker(r):
        return max(0.0, (r.get("lat_us_p99") or r["lat_us_median"]) - r["lat_us_median"])

    med = [r["lat_us_median"] for r in rows]
    p99 = [whisker(r) for r in rows]
    fig, ax = plt.subplots(figsize=(9, max(3, (0.36 if nv else 0.22) * len(rows) + 1)))
    h = 0.4 if nv else 0.8
    ax.barh(range(len(rows)), med, height=h, xerr=[[0] * len(rows), p99], color="tab:blue", alpha=0.8,
            label="gshmem")
    if nv:
        idx = [i for i, n in enumerate(names) if n in nv]
        ax.barh([i + h for i in idx], [nv[names[i]]["lat_us_median"] for i in idx], height=h,
                xerr=[[0] * len(idx), [whisker(nv[names[i]]) for i in idx]], color="tab:green", alpha=0.8,
                label="NVSHMEM")
        ax.legend(fontsize=7)
    ax.set_yticks([i + (h / 2 if nv else 0) for i in range(len(rows))])
    ax.set_yticklabels(names, fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("median latency (us); whisker: p99")
    ax.set_title(f"size-less benchmarks ({subtitle})", fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(outdir, "latency_summary.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_overview(by_bench, outdir, subtitle, nv_by_bench=None):
    present = [(b, t) for b, t in OVERVIEW if b in by_bench]
    if not present:
        return None
    fig, axes = plt.subplots(2, 2, figsize=(13, 9), squeeze=False)
    for ax, (b, t) in zip([a for row in axes for a in row], present):
        rows = by_bench[b]
        bwf = bw_field(rows)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, (name, rs) in enumerate(sorted(series(rows).items())):
            c = colors[i % len(colors)]
            if bwf:
                ax.plot([r["size"] for r in rs], [r.get(bwf) or 0 for r in rs], "o-", color=c, ms=3,
                        label=f"gshmem {name}")
            nccl = [r for r in rs if r.get("nccl_busbw_GBps") is not None]
            if nccl:
                ax.plot([r["size"] for r in nccl], [r["nccl_busbw_GBps"] for r in nccl], "s--", color=c, ms=3,
                        label=f"NCCL {name}")
            other = series((nv_by_bench or {}).get(b, [])).get(name, [])
            if other and bwf:
                ax.plot([r["size"] for r in other], [r.get(bwf) or 0 for r in other], "^-.", color=c, ms=3,
                        label=f"NVSHMEM {name}")
        ax.set_title(t, fontsize=9)
        ax.set_ylabel("bus bandwidth (GB/s)")
        size_axis(ax)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6)
    for ax in [a for row in axes for a in row][len(present):]:
        ax.axis("off")
    fig.suptitle(f"gshmem vs NCCL{' and NVSHMEM' if nv_by_bench else ''} ({subtitle})", fontsize=10)
    fig.tight_layout()
    path = os.path.join(outdir, "overview.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+")
    ap.add_argument("-o", "--outdir")
    ap.add_argument("--pes", type=int)
    a = ap.parse_args(argv)
    rows, headers = load(a.results, a.pes)
    if not rows:
        print("plot.py: no result lines in", " ".join(a.results))
        return 1
    first = a.results[0]
    outdir = a.outdir or os.path.join(first if os.path.isdir(first) else os.path.dirname(first) or ".", "plots")
    os.makedirs(outdir, exist_ok=True)
    headers = [x for x in headers if x.get("lib", "gshmem") == "gshmem"] or headers
    h = headers[0] if headers else {}
    subtitle = ", ".join(x for x in (h.get("gpu"), f"driver {h['driver']}" if h.get("driver") else None,
                                      h.get("date", "")[:10]) if x) or "gshmem-perf"
    by_bench, nv_by_bench = {}, {}
    for r in rows:
        (nv_by_bench if r.get("lib") == "nvshmem" else by_bench).setdefault(r["bench"], []).append(r)
    written = []
    sizeless, nv_sizeless = [], []
    for bench, rs in sorted(by_bench.items()):
        if len({r["size"] for r in rs}) > 1:
            written.append(plot_bench(bench, rs, outdir, subtitle, nv_by_bench.get(bench, [])))
        else:
            sizeless.extend(rs)
            nv_sizeless.extend(nv_by_bench.get(bench, []))
    for p in (plot_sizeless(sizeless, outdir, subtitle, nv_sizeless),
              plot_overview(by_bench, outdir, subtitle, nv_by_bench)):
        if p:
            written.append(p)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
