#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 2, the committed code (default LL bound 256 bytes): tests under MPS
# (GSHMEM_REDUCE_CTAS=16, as ctest), then the device collectives at thread / warp / block
# scope, 2 PEs, LL bounds 64, 256 and 1 KiB (the commands of
# 2026-11-24_h200_1gpu-mps4/call2's d2-* runs, which timed the code before).
source "$(dirname "$0")/common.sh"
export GSHMEM_REDUCE_CTAS=16
tst coll_ll-2 2 -- $B/test_coll_ll
tst coll_ll-3 3 -- $B/test_coll_ll
tst coll_ll-4 4 -- $B/test_coll_ll
tst coll_ll_4k-2 2 GSHMEM_LL_MAX_BYTES=4K -- $B/test_coll_ll
tst coll_ll_4k-3 3 GSHMEM_LL_MAX_BYTES=4K -- $B/test_coll_ll
tst coll_ll_4k-4 4 GSHMEM_LL_MAX_BYTES=4K -- $B/test_coll_ll
tst reduce-2 2 -- $B/test_reduce
tst reduce-3 3 -- $B/test_reduce
tst reduce_ll4k-4 4 GSHMEM_LL_MAX_BYTES=4K -- $B/test_reduce
tst reducescatter-2 2 -- $B/test_reducescatter
tst reducescatter_ll4k-3 3 GSHMEM_LL_MAX_BYTES=4K -- $B/test_reducescatter
pack
D=(reduction reducescatter broadcast fcollect alltoall -s thread,warp,block -b 4 -e 4K -f 4)
for cap in 64 256 1K; do run d2-$cap 2 GSHMEM_LL_MAX_BYTES=$cap -- "${D[@]}"; pack; done
mps_stop
pack
echo "done $(el)"
