#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 3, as call 2's build: on-stream collectives in a CUDA graph at 2 and 4 PEs and
# the device collectives at 4 PEs, LL bounds 64, 256 and 1 KiB (the commands of
# 2026-11-24_h200_1gpu-mps4/call2's g2-*, d4-* and g4-* runs).
source "$(dirname "$0")/common.sh"
G=(reduction_on_stream reducescatter_on_stream broadcast_on_stream fcollect_on_stream alltoall_on_stream -b 4 -e 4K -f 4 --graph)
D=(reduction reducescatter broadcast fcollect alltoall -s thread,warp,block -b 4 -e 4K -f 4)
for cap in 64 256 1K; do run g2-$cap 2 GSHMEM_LL_MAX_BYTES=$cap -- "${G[@]}"; pack; done
for cap in 64 256 1K; do run d4-$cap 4 GSHMEM_LL_MAX_BYTES=$cap -- "${D[@]}"; pack; done
for cap in 64 256 1K; do run g4-$cap 4 GSHMEM_LL_MAX_BYTES=$cap -- "${G[@]}"; pack; done
mps_stop
pack
echo "done $(el)"
