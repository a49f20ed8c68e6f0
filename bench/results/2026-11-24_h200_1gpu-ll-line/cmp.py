# SPDX-License-Identifier: BSD-3-Clause
# cmp.py OLD_DIR NEW_DIR PREFIX OLDCAPS NEWCAPS: median latency (us) per (benchmark, scope, size),
# one column per PREFIX-CAP.jsonl of the old run, then of the new one; a row per size.
# e.g. python3 cmp.py ../2026-11-24_h200_1gpu-mps4/call2 call2 d2 32,256,1K 64,256,1K
import json, sys
old_dir, new_dir, pref = sys.argv[1:4]
cols = [(old_dir, 'old' + c, c) for c in sys.argv[4].split(',')] + [(new_dir, 'new' + c, c) for c in sys.argv[5].split(',')]
data = {}
for d, name, cap in cols:
    for line in open(f'{d}/{pref}-{cap}.jsonl'):
        r = json.loads(line)
        if r.get('type') != 'result':
            continue
        if not r.get('verified', True):
            print('UNVERIFIED', d, pref, cap, r['bench'], r.get('scope'), r['size'])
        data.setdefault((r['bench'], r.get('scope') or '-', r['size']), {})[name] = r['lat_us_median']
print('%-24s %-6s %5s ' % ('bench', 'scope', 'size') + ' '.join('%7s' % n for _, n, _ in cols))
for k in sorted(data):
    print('%-24s %-6s %5d ' % k + ' '.join('%7.2f' % data[k].get(n, float('nan')) for _, n, _ in cols))
