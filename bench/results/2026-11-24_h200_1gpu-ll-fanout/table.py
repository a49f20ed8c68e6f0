# SPDX-License-Identifier: BSD-3-Clause
# table.py DIR: median latency (us) of each (bench, scope, PEs, size) for build A (HEAD) and B
# (fan-out), each the mean of its runs' medians (DIR/{A,B}-<npes>-<rep>.jsonl), and B / A.
import glob, json, os, sys
d = sys.argv[1]
data = {}
for f in glob.glob(os.path.join(d, '[AB]-*-*.jsonl')):
    v = os.path.basename(f)[0]
    for line in open(f):
        r = json.loads(line)
        if r.get('type') != 'result':
            continue
        if not r.get('verified', True):
            print('UNVERIFIED', f, r['bench'], r['scope'], r['size'])
        data.setdefault((r['bench'], r['scope'], r['pes'], r['size']), {}).setdefault(v, []).append(r['lat_us_median'])
print('%-10s %-6s %3s %5s %7s %7s %6s' % ('bench', 'scope', 'PEs', 'size', 'A', 'B', 'B/A'))
for k in sorted(data):
    a, b = (sum(x) / len(x) if x else float('nan') for x in (data[k].get('A', []), data[k].get('B', [])))
    print('%-10s %-6s %3d %5d %7.2f %7.2f %6.3f' % (k + (a, b, b / a)))
