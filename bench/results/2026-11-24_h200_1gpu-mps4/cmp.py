# SPDX-License-Identifier: BSD-3-Clause
# cmp.py PREFIX CAPS: median latency per (benchmark, scope, size) of PREFIX-CAP.jsonl, one column per cap.
# e.g. cd call2 && python3 ../cmp.py d2 32,256,1K
import json,sys,glob,collections
pref=sys.argv[1]; caps=sys.argv[2].split(',')
d=collections.defaultdict(dict)
for c in caps:
    for l in open(f'{pref}-{c}.jsonl'):
        r=json.loads(l)
        if r.get('type')!='result': continue
        k=(r['bench'],r.get('scope') or '-',r['size'])
        d[k][c]=r['lat_us_median']
        if not r.get('verified',True): print('UNVERIFIED',k,c)
for k in sorted(d):
    print('%-24s %-6s %6d '%k + ' '.join('%7.3f'%d[k].get(c,float('nan')) for c in caps))
