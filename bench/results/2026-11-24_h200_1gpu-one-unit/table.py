# SPDX-License-Identifier: BSD-3-Clause
"""Median latencies of the variants in one call directory, side by side, and their ratio to A.
   python3 table.py <call dir> [variant ...]   (default: every variant found there)"""
import collections, glob, json, os, re, sys

d = sys.argv[1]
found = sorted({re.match(r'perf-(\w+)-\d+\.jsonl', os.path.basename(f)).group(1)
                for f in glob.glob(os.path.join(d, 'perf-*-*.jsonl'))})
vs = sys.argv[2:] or found
lat = collections.defaultdict(list)
for v in vs:
    for f in sorted(glob.glob(os.path.join(d, f'perf-{v}-*.jsonl'))):
        for line in open(f):
            j = json.loads(line)
            if j.get('type') == 'result':
                assert j['verified'], (f, j)
                lat[(j['bench'], j['scope'], j['size'], v)].append(j['lat_us_median'])
keys = sorted({k[:3] for k in lat})
print('us, median of each run (mean of the runs); ratio to A')
print('%-20s %-6s %5s ' % ('bench', 'scope', 'size') + ''.join('%15s' % v for v in vs) + ''.join('%8s' % (v + '/A') for v in vs[1:]))
for k in keys:
    m = {v: sum(lat[k + (v,)]) / len(lat[k + (v,)]) for v in vs}
    print('%-20s %-6s %5d ' % k + ''.join('%15.3f' % m[v] for v in vs) + ''.join('%8.3f' % (m[v] / m['A']) for v in vs[1:]))
