#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The raw-UCX anchor of the proxy path (issue 52's "1 MiB put >= 0.8 x raw UCX host-memory put
# bandwidth on the same path"): ucx_perftest between two processes of this machine over tcp on
# loopback, host memory, the same transport the proxy's UCX plugin uses between simulated nodes.
#
#   UCX_PERFTEST=/path/to/ucx_perftest bash bench/internode/ucx_anchor.sh [out.txt]
#
# UCX_PERFTEST defaults to the ucx_perftest in PATH (PyPI's libucx-cu13 wheel has one in
# libucx/bin; run it with LD_LIBRARY_PATH at the wheel's libucx/lib and libucx_cu13.libs, whose
# libgomp it needs: carried without it, every row fails). Prints one line per test:
# the test, the size and the client's final line (latency in us, bandwidth in MB/s).
set -uo pipefail
perftest=${UCX_PERFTEST:-$(command -v ucx_perftest)}
[[ -x $perftest ]] || { echo "ucx_anchor: no ucx_perftest (set UCX_PERFTEST)"; exit 2; }
export UCX_TLS=${UCX_TLS:-tcp} UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
port=$((20000 + RANDOM % 10000))
one() {  # test size iterations [options of both sides]
  local p=$((port++))
  timeout 60 "$perftest" -p "$p" "${@:4}" >/dev/null 2>&1 &
  local srv=$!
  sleep 0.5
  local line
  line=$(timeout 60 "$perftest" 127.0.0.1 -p "$p" -t "$1" -s "$2" -n "$3" -w 100 "${@:4}" 2>&1 | grep '^Final' | tail -1)
  wait "$srv" 2>/dev/null
  echo "$1 size=$2 ${*:4} ${line:-FAILED}"
}
{
  echo "# $perftest, UCX_TLS=$UCX_TLS UCX_NET_DEVICES=$UCX_NET_DEVICES, host memory"
  echo "# columns of Final: iterations, typical/avg/overall latency (us), avg/overall bandwidth (MB/s), msg rate"
  one ucp_put_lat 8 20000
  one ucp_am_lat 8 20000
  one ucp_put_bw 65536 5000
  one ucp_put_bw 1048576 2000
  # With peer error handling (-e), as the gshmem plugin's endpoints: UCX then emulates a put
  # over tcp by active messages unless rendezvous is off (UCX >= 1.20; docs/internode.md
  # section 5, "Why the puts have a context of their own").
  one ucp_put_bw 1048576 2000 -e
  one ucp_am_bw 1048576 2000
} | if [[ $# -ge 1 ]]; then tee -a "$1"; else cat; fi
