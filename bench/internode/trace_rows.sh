#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 52: the 2-node ping-pong, barrier and sync rows with the proxy traced (GSHMEM_PROXY_TRACE,
# docs/internode.md section 13) and reported by tools/proxy_trace.py, then the rows untraced with
# GSHMEM_PROXY_ACK_DELAY_US=0 and =20 (what acknowledgements riding on replies save the ping-pong
# and the push reduction, and what they cost a put + quiet). Two PEs as two simulated nodes on
# this host's GPUs (one GPU: both PEs share it; run under MPS, else they time-slice it and the
# figures say nothing). About a minute.
#
#   GSHMEM_UCX_LIB=<wheel>/libucx/lib/libucp.so.0 bench/internode/trace_rows.sh [OUT_DIR]
#
# OUT_DIR (default $OUT, else /tmp/gshmem-trace) gets <row>.{0,1}.tsv (the traces),
# <row>.report.txt, <row>.perf.txt and ackdelay{0,20}.txt. GSHMEM_BIN: the build's bin/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${1:-${OUT:-/tmp/gshmem-trace}}
bin=${GSHMEM_BIN:-build/default/bin}
: "${GSHMEM_UCX_LIB:?set GSHMEM_UCX_LIB to libucp.so.0 of the UCX 1.22 wheel (bench/internode/README.md)}"
mkdir -p "$out"
export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 GSHMEM_UCX_LIB
perf() { "$bin/gshmrun" -n 2 --sim-nodes 2 -- "$bin/gshmem-perf" "$@" --no-nccl; }

for row in pingpong_signal barrier sync; do
  echo "== $row, traced"
  GSHMEM_PROXY_TRACE=$out/$row perf "$row" -s thread -n 2000 -w 200 >"$out/$row.perf.txt" 2>&1 ||
    { tail -20 "$out/$row.perf.txt"; exit 1; }
  grep -E '^# [a-z_]+:|^  ' "$out/$row.perf.txt" || true  # gshmem-perf's title and rows
  python3 tools/proxy_trace.py "$out/$row" --skip 200 --rounds 2 >"$out/$row.report.txt"
  # (head may close the pipe early: with pipefail that must not end the script)
  sed -n '/^== hops/,/^== timeline/p' "$out/$row.report.txt" | head -30 || true
done
for d in 0 20; do
  echo "== GSHMEM_PROXY_ACK_DELAY_US=$d, untraced"
  {
    GSHMEM_PROXY_ACK_DELAY_US=$d perf pingpong_signal barrier sync p_latency -s thread
    GSHMEM_PROXY_ACK_DELAY_US=$d perf reduction -s thread -d float -o sum -b 8 -e 8
  } >"$out/ackdelay$d.txt" 2>&1 || { tail -20 "$out/ackdelay$d.txt"; exit 1; }
  grep -E '^# [a-z_]+:|^  ' "$out/ackdelay$d.txt" || true
done
