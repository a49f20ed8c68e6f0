#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fits the start-up model of docs/design.md to a run of tools/bootstrap-harness/run_harness.py.

    bench/startup/model.py bench/startup/host-2core.json [--svg bench/startup/model.svg]

Prints the measured table and each fitted quantity with its value at 27,648 PEs (4,608 nodes x 6
GPUs), and draws the measured points beside the fitted curves (log-log, SVG, no plotting library).
Fits are least squares on the measured points, with the terms each quantity can have: bytes
through rank 0 are c N (tree) or c N^2 (star), rank 0's CPU seconds a N (tree) or a N + b N^2
(star), peak RSS r + k N.
"""
import argparse
import json
import math

SUMMIT = 27648


def fit(points, terms):
    """Least squares of y = sum(c_i * t_i(n)); returns the coefficients (normal equations)."""
    k = len(terms)
    a = [[sum(terms[i](n) * terms[j](n) for n, _ in points) for j in range(k)] for i in range(k)]
    b = [sum(terms[i](n) * y for n, y in points) for i in range(k)]
    for col in range(k):  # Gauss-Jordan, k <= 2
        piv = a[col][col]
        for j in range(k):
            a[col][j] /= piv
        b[col] /= piv
        for row in range(k):
            if row != col:
                f = a[row][col]
                for j in range(k):
                    a[row][j] -= f * a[col][j]
                b[row] -= f * b[col]
    return b


def model(runs, topo, key, terms):
    pts = [(r["n"], r[key]) for r in runs if r["topology"] == topo and r.get(key) is not None]
    c = fit(pts, terms)
    return pts, c, lambda n: sum(ci * t(n) for ci, t in zip(c, terms))


def svg(series, path):
    """series: [(label, colour, points, curve)] on log-log axes, N from 64 to SUMMIT."""
    w, h, m = 720, 420, 60
    ys = [y for _, _, pts, f in series for y in [p[1] for p in pts] + [f(64), f(SUMMIT)] if y > 0]
    y0, y1 = math.log10(min(ys)) - 0.2, math.log10(max(ys)) + 0.2
    x0, x1 = math.log10(48), math.log10(SUMMIT * 1.3)
    px = lambda n: m + (math.log10(n) - x0) / (x1 - x0) * (w - 2 * m)
    py = lambda y: h - m - (math.log10(y) - y0) / (y1 - y0) * (h - 2 * m)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{m}" y1="{h - m}" x2="{w - m}" y2="{h - m}" stroke="black"/>',
           f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h - m}" stroke="black"/>']
    for n in (64, 256, 1024, 4096, SUMMIT):
        out.append(f'<text x="{px(n):.0f}" y="{h - m + 16}" text-anchor="middle">{n}</text>')
    for e in range(math.ceil(y0), math.floor(y1) + 1):
        out.append(f'<text x="{m - 6}" y="{py(10 ** e) + 4:.0f}" text-anchor="end">1e{e}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 20}" text-anchor="middle">PEs (log)</text>')
    for i, (label, colour, pts, f) in enumerate(series):
        ns = [64 * (SUMMIT / 64) ** (j / 60) for j in range(61)]
        d = " ".join(f"{'M' if j == 0 else 'L'}{px(n):.1f},{py(f(n)):.1f}" for j, n in enumerate(ns) if f(n) > 0)
        out.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-dasharray="4,3"/>')
        for n, y in pts:
            out.append(f'<circle cx="{px(n):.1f}" cy="{py(y):.1f}" r="3.5" fill="{colour}"/>')
        out.append(f'<text x="{m + 10}" y="{m + 14 * i}" fill="{colour}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--svg", help="write the plot here")
    args = ap.parse_args()
    with open(args.results) as fh:
        doc = json.load(fh)
    runs = doc["runs"] if isinstance(doc, dict) else doc
    print("| N | topology | wall s (forking + rest) | rank 0 CPU s | peak RSS MB: rank 0 / median | sockets after "
          "rendezvous: rank 0 / median / max | bytes sent by rank 0 | through rank 0, one host-id allgather "
          "(N x 24 B) | ... / (N x 24) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['n']:,} | {r['topology']} | {r['wall_s']:.2f} ({r['launch_s']:.2f} + {r['after_launch_s']:.2f}) "
              f"| {r['cpu_s_rank0']:.3f} | {r['rss_kb_rank0'] / 1024:.1f} / {r['rss_kb_median'] / 1024:.1f} "
              f"| {r['sockets_rank0']} / {r['sockets_median']} / {r['sockets_max']} | {r['bytes_sent_rank0']:,} "
              f"| {r['hostid_allgather_bytes_rank0']:,} | {r['hostid_allgather_bytes_rank0'] / r['n_x_item']:.2f} |")
    lin, sq, one = (lambda n: n), (lambda n: n * n), (lambda n: 1)
    fits = [
        ("bytes through rank 0, one host-id allgather", "hostid_allgather_bytes_rank0", {"tree": [lin], "star": [sq]}, 1),
        ("bytes sent by rank 0, whole start-up", "bytes_sent_rank0", {"tree": [lin], "star": [sq]}, 1),
        ("rank 0 CPU seconds, whole start-up", "cpu_s_rank0", {"tree": [lin], "star": [lin, sq]}, 1),
        ("peak RSS of rank 0, KB", "rss_kb_rank0", {"tree": [one, lin], "star": [one, lin]}, 1),
    ]
    print("\n| quantity | topology | fit | at 4,096 (measured) | at 27,648 |")
    print("|---|---|---|---|---|")
    plotted = []
    for label, key, forms, _ in fits:
        for topo, terms in forms.items():
            pts, c, f = model(runs, topo, key, terms)
            names = {id(lin): "N", id(sq): "N^2", id(one): "1"}
            form = " + ".join(f"{ci:.4g}" + ("" if t is one else f" {names[id(t)]}") for ci, t in zip(c, terms))
            at4096 = dict(pts).get(4096)
            print(f"| {label} | {topo} | {form} | {at4096:,} | {f(SUMMIT):,.4g} |")
            if key == "cpu_s_rank0":
                plotted.append((f"rank 0 CPU s, {topo}", "#1f77b4" if topo == "tree" else "#d62728", pts, f))
    if args.svg:
        svg(plotted, args.svg)


if __name__ == "__main__":
    main()
