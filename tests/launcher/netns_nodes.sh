#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real multi-node job on one machine: PEs in network + UTS namespaces joined by veth pairs
# (scripts/netns-nodes.sh), run by ctest as root. Exit 77 (skipped) with the reason where
# namespaces cannot be made (not root, no ip(8), no veth), or, for ucx, without UCX.
#
#   netns_nodes.sh bootstrap GSHMRUN LAUNCHER_PROBE LAUNCHER_BOOTSTRAP_PROBE
#       gshmrun -H across 2 and 3 namespaces: the bootstrap (an allgather checked byte by byte,
#       2 nodes by host id, local ranks per node), host names given as addresses, and the
#       supervision (a remote PE's failure stops the others: nothing is left in the namespaces)
#   netns_nodes.sh ucx TEST_TRANSPORT_UCX
#       the UCX plugin's exchange between 3 processes in 3 namespaces, over tcp on their veths
#   netns_nodes.sh gpu NODES NPES GSHMRUN TIMEOUT PROGRAM [ARGS...]
#       a GPU test on NODES namespaces, NPES/NODES PEs each (ctest label gpu: <test>-netns<N>)
# The namespaces are removed on exit, whatever happens (netns-nodes.sh run traps EXIT/INT/TERM).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nodes=$here/../../scripts/netns-nodes.sh
# Names of this run's own (gshci<pid>n1..): runs of other build trees on the machine (several CI
# runs at once) neither meet nor remove each other's nodes; addresses may repeat, as each
# run's switch is a namespace of its own. Set once, by the outer invocation.
if [[ -z ${GSHMEM_NETNS_PREFIX:-} || ${1:-} != _* ]]; then
  export GSHMEM_NETNS_PREFIX=gshci$$n
fi
export GSHMEM_NETNS_SUBNET=10.77.0
P=$GSHMEM_NETNS_PREFIX
IP=${GSHMEM_NETNS_IP:-ip}

# Nodes of earlier runs killed before they could clean up (ctest's timeout kills with SIGKILL):
# removed when the run that made them is gone.
sweep() {
  local ns pid
  for ns in $("$IP" netns list 2>/dev/null | awk '{print $1}' | sed -nE 's/^gshci([0-9]+)n(sw|[0-9]+)$/\1/p' | sort -u); do
    pid=$ns
    kill -0 "$pid" 2>/dev/null && continue
    GSHMEM_NETNS_PREFIX=gshci${pid}n "$nodes" down || true
  done
}

fail() { echo "netns_nodes.sh: FAILED: $*" >&2; exit 1; }

bootstrap_body() {
  local gshmrun=$1 probe=$2 bprobe=$3 out rc t0 left
  local rsh="$nodes exec"
  # 3 PEs on 2 nodes (2 + 1), rendezvous on node 1's address.
  out=$("$gshmrun" --timeout 60 -H "${P}1:2,${P}2:1" --rsh "$rsh" -x GSHMEM_BOOTSTRAP_ADDR=10.77.0.1 \
        "$bprobe" --nodes 2 2>&1)
  rc=$?
  echo "$out"
  [[ $rc -eq 0 ]] || fail "3 PEs on 2 nodes: gshmrun exited $rc"
  [[ $(grep -c '^bootstrap ok [0-2]$' <<<"$out") -eq 3 ]] || fail "3 PEs on 2 nodes: not every PE said ok"
  # 3 nodes named by their addresses (gshmrun resolves PE 0's host itself).
  out=$("$gshmrun" --timeout 60 -H "10.77.0.3:1,10.77.0.1:1,10.77.0.2:1" --rsh "$rsh" "$bprobe" --nodes 3 2>&1)
  rc=$?
  echo "$out"
  [[ $rc -eq 0 && $(grep -c '^bootstrap ok' <<<"$out") -eq 3 ]] || fail "3 nodes by address: gshmrun exited $rc"
  # The check can fail: 2 PEs on one node are not 2 nodes.
  out=$("$gshmrun" --timeout 60 -H "${P}1:2" --rsh "$rsh" -x GSHMEM_BOOTSTRAP_ADDR=10.77.0.1 "$bprobe" --nodes 2 2>&1)
  rc=$?
  [[ $rc -ne 0 && $out == *"make 1 nodes, not 2"* ]] || fail "one node passed for two (rc $rc): $out"
  # Supervision: PE 1 (node 2) exits 5; PE 0 (node 1) is stopped; nothing stays behind.
  t0=$SECONDS
  out=$("$gshmrun" --timeout 60 -H "${P}1:1,${P}2:1" --rsh "$rsh" -x GSHMEM_BOOTSTRAP_ADDR=10.77.0.1 \
        "$probe" --only 1 exit 5 200 2>&1)
  rc=$?
  echo "$out"
  [[ $rc -eq 5 ]] || fail "a remote PE's exit 5 gave gshmrun exit $rc"
  [[ $out == *"PE 1 on ${P}2 "*"exited with status 5; stopping the other 1 PE"* ]] || fail "message: $out"
  for ((i = 0; i < 50; i++)); do
    left=$("$IP" netns pids "${P}1"; "$IP" netns pids "${P}2")
    [[ -z $left ]] && break
    sleep 0.1
  done
  [[ -z $left ]] || fail "processes left in the namespaces: $(ps -o pid,args -p "$(echo $left | tr ' ' ,)")"
  echo "netns_nodes.sh: bootstrap across namespaces passed in $((SECONDS - t0 + 1)) s or less"
}

ucx_body() {
  GSHMEM_TEST_NETNS="${P}1,${P}2,${P}3" UCX_NET_DEVICES=gsh0 \
    "$1" --gtest_filter=TransportUcx.ThreePesAcrossNetworkNamespaces
}

gpu_body() {
  local n=$1 npes=$2 gshmrun=$3 timeout=$4 hosts="" i
  shift 4
  for ((i = 1; i <= n; i++)); do hosts+="10.77.0.$i:$((npes / n)),"; done
  # The "remote" shell is local here: the PEs inherit this environment (GSHMEM_*, GT_*, CUDA_*).
  "$gshmrun" -H "${hosts%,}" --rsh "$nodes exec" --timeout "$timeout" -x UCX_NET_DEVICES=gsh0 -- "$@"
}

case ${1:-} in
  _bootstrap) shift; bootstrap_body "$@"; exit ;;
  _ucx) shift; ucx_body "$@"; exit ;;
  _gpu) shift; gpu_body "$@"; exit ;;
  bootstrap | ucx | gpu) ;;
  *) echo "usage: $0 bootstrap GSHMRUN PROBE BOOTSTRAP_PROBE | ucx TEST_TRANSPORT_UCX |" \
          "gpu NODES NPES GSHMRUN TIMEOUT PROGRAM..." >&2; exit 2 ;;
esac
why=$("$nodes" check) || { echo "SKIPPED: ${why#netns-nodes.sh: }"; exit 77; }
sweep
mode=$1
shift
count=3
[[ $mode == gpu ]] && count=$1
"$nodes" run "$count" -- "$0" "_$mode" "$@"
rc=$?
leftover=$("$IP" netns list | awk '{print $1}' | grep -E "^${P}" || true)
[[ -z $leftover ]] || { echo "netns_nodes.sh: FAILED: namespaces left behind: $leftover" >&2; exit 1; }
exit $rc
