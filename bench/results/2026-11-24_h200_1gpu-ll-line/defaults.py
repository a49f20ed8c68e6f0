# SPDX-License-Identifier: BSD-3-Clause
# defaults.py PREFIX: each (benchmark, scope, size) at the default LL bound before this change
# (64 bytes: the old code's bound-256 run for sizes up to 64, its bound-32 run - the flag
# paths - above) and after (256: call3's bound-256 run); us, median, and the ratio.
import json, sys
pref = sys.argv[1]
old, new = '../2026-11-24_h200_1gpu-mps4/call2', 'call3'
def load(path):
    d = {}
    for line in open(path):
        r = json.loads(line)
        if r.get('type') == 'result':
            d[(r['bench'], r.get('scope') or '-', r['size'])] = r['lat_us_median']
    return d
o32, o256, n256 = load(f'{old}/{pref}-32.jsonl'), load(f'{old}/{pref}-256.jsonl'), load(f'{new}/{pref}-256.jsonl')
print('%-24s %-6s %5s %8s %8s %6s' % ('bench', 'scope', 'size', 'before', 'after', 'x'))
for k in sorted(n256):
    if k[2] > 1024:
        continue
    b = (o256 if k[2] <= 64 else o32).get(k)
    if b is not None:
        print('%-24s %-6s %5d %8.2f %8.2f %6.2f' % (k + (b, n256[k], b / n256[k])))
