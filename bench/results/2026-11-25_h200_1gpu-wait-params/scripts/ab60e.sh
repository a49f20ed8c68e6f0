#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 37: p2p_debug_checks (one PE, one GPU, no MPS) with its new host-timeout mode - a host
# wait_until_all over 300 variables whose element 260 never meets the comparison: the warp scan's
# timeout report names the call, the PE and the element, and the host call returns. Carries
# build/ab60e.tar.xz (gshmrun, p2p_debug_checks and the final library of /tmp/ci62).
# Run from the repository root: bash bench/results/2026-11-25_h200_1gpu-wait-params/scripts/ab60e.sh
set -u
rm -rf /tmp/ab60e && mkdir -p /tmp/ab60e && tar -C /tmp/ab60e -xJf build/ab60e.tar.xz
B=/tmp/ab60e/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
LD_LIBRARY_PATH=$B/lib timeout 300 bash tests/functional/p2p_debug_checks.sh "$B/bin/gshmrun" \
  "$B/bin/p2p_debug_checks" >"$R/p2p_debug_checks.log" 2>&1
echo "p2p_debug_checks rc=$?"
sed -n '/---- host-timeout/,$p' "$R/p2p_debug_checks.log"
