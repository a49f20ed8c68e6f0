#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Network namespaces as nodes: K "hosts" on this machine, each a network namespace with its own
# address (10.77.0.i) on a private switch, whose PEs also get a UTS namespace with its own host
# name -- so gshmem sees K nodes (different host names: no shared heaps, the proxy and the
# network transport between them) and the bootstrap and UCX talk over real TCP/IP between
# interfaces. Root only (CAP_SYS_ADMIN + CAP_NET_ADMIN).
#
#   netns-nodes.sh up K            create the switch and nodes 1..K
#   netns-nodes.sh down            delete them (and end the processes still inside them)
#   netns-nodes.sh run K -- CMD... up K, run CMD, down -- also when CMD fails or is interrupted
#   netns-nodes.sh exec HOST CMDLINE...
#                                  the remote shell for gshmrun --rsh: runs the sh command
#                                  line CMDLINE (the words joined by spaces, as ssh does) in the
#                                  node HOST -- its namespace name (gshns1), or its address
#                                  (10.77.0.1) -- with the node's name as host name
#   netns-nodes.sh check           exit 0 if namespaces can be made here, else say why, exit 77
#   netns-nodes.sh bundle-ip DIR   copy ip(8) and the libraries it needs into DIR (see below)
#
# A two-node job: (the first host's address is the rendezvous; the names resolve nowhere)
#   scripts/netns-nodes.sh up 2
#   gshmrun -H gshns1:1,gshns2:1 --rsh "scripts/netns-nodes.sh exec" \
#           -x GSHMEM_BOOTSTRAP_ADDR=10.77.0.1 ./prog      # or: -H 10.77.0.1:1,10.77.0.2:1
#   scripts/netns-nodes.sh down
#
# Layout: namespace ${P}sw holds a bridge; node i is namespace ${P}i (P = GSHMEM_NETNS_PREFIX,
# default gshns) with interface gsh0 = ${GSHMEM_NETNS_SUBNET:-10.77.0}.i/24, a veth whose peer is
# a port of that bridge, plus lo. The root namespace is not touched (no address, no route, no
# firewall rule): its iptables FORWARD policy (docker's DROP) cannot get in the way, and nothing
# is left in it. UCX: UCX_NET_DEVICES=gsh0 keeps it on that interface.
#
# Machines without ip(8) (the GPU image): on a machine with the same distribution run
#   scripts/netns-nodes.sh bundle-ip /path/ipkit
# which copies /usr/sbin/ip and the libraries `ldd` lists for it (but the C library and the
# loader, which the target has) into /path/ipkit, carry that folder over, and set
# GSHMEM_NETNS_IP=/path/ipkit/ip (a wrapper that runs it through the target's loader with
# --library-path, so that no LD_LIBRARY_PATH reaches the PEs). unshare(1) (util-linux) is
# needed as well; it is in every Debian/Ubuntu base image.
set -euo pipefail

P=${GSHMEM_NETNS_PREFIX:-gshns}
NET=${GSHMEM_NETNS_SUBNET:-10.77.0}
IP=${GSHMEM_NETNS_IP:-ip}
SW=${P}sw

die() { printf 'netns-nodes.sh: %s\n' "$*" >&2; exit 1; }

# Why namespaces cannot be made here ("" if they can).
why_not() {
  [[ $(id -u) -eq 0 ]] || { echo "not root (network namespaces need CAP_SYS_ADMIN)"; return; }
  command -v "$IP" >/dev/null 2>&1 || { echo "no ip(8) ('$IP'; see bundle-ip in this script)"; return; }
  command -v unshare >/dev/null 2>&1 || { echo "no unshare(1)"; return; }
  local probe=${P}probe$$
  if ! "$IP" netns add "$probe" 2>/dev/null; then
    echo "cannot create a network namespace (ip netns add failed: no CAP_SYS_ADMIN, or /run/netns not writable)"
    return
  fi
  if ! "$IP" -n "$probe" link add gshp0 type veth peer name gshp1 2>/dev/null; then
    "$IP" netns del "$probe" 2>/dev/null || true
    echo "cannot create a veth pair (no veth support in this kernel?)"
    return
  fi
  if ! "$IP" netns exec "$probe" unshare --uts true 2>/dev/null; then
    "$IP" netns del "$probe" 2>/dev/null || true
    echo "cannot create a UTS namespace (unshare --uts failed)"
    return
  fi
  "$IP" netns del "$probe" 2>/dev/null || true
}

nodes() { "$IP" netns list 2>/dev/null | awk '{print $1}' | grep -E "^${P}[0-9]+$" || true; }

down() {
  local ns pids
  for ns in $(nodes) "$SW"; do
    "$IP" netns list 2>/dev/null | awk '{print $1}' | grep -qx "$ns" || continue
    # Processes still inside (a PE that outlived its job): ended by pid, first TERM, then KILL.
    pids=$("$IP" netns pids "$ns" 2>/dev/null || true)
    if [[ -n $pids ]]; then
      kill -TERM $pids 2>/dev/null || true
      sleep 0.5
      pids=$("$IP" netns pids "$ns" 2>/dev/null || true)
      [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
    fi
    # Deleting a namespace deletes its interfaces, the veth peers and the bridge with them.
    "$IP" netns del "$ns" 2>/dev/null || true
  done
}

up() {
  local k=$1 i
  [[ $k =~ ^[0-9]+$ && $k -ge 1 && $k -le 250 ]] || die "up needs a number of nodes 1..250, not '$k'"
  local why
  why=$(why_not)
  [[ -z $why ]] || die "$why"
  down  # leftovers of an earlier run
  "$IP" netns add "$SW"
  "$IP" -n "$SW" link set lo up
  "$IP" -n "$SW" link add br0 type bridge
  "$IP" -n "$SW" link set br0 up
  for ((i = 1; i <= k; i++)); do
    "$IP" netns add "$P$i"
    "$IP" -n "$P$i" link set lo up
    # The pair is made inside the switch namespace and one end moved into the node.
    "$IP" -n "$SW" link add "p$i" type veth peer name gsh0 netns "$P$i"
    "$IP" -n "$SW" link set "p$i" master br0 up
    "$IP" -n "$P$i" addr add "$NET.$i/24" dev gsh0
    "$IP" -n "$P$i" link set gsh0 up
  done
  echo "netns-nodes.sh: nodes ${P}1..${P}$k at $NET.1..$NET.$k (switch $SW); remove with: $0 down"
}

# The namespace of HOST: its name, or its address on the switch.
ns_of() {
  local h=$1
  if [[ $h =~ ^${NET//./\\.}\.([0-9]+)$ ]]; then
    h=$P${BASH_REMATCH[1]}
  fi
  "$IP" netns list 2>/dev/null | awk '{print $1}' | grep -qx "$h" || die "no node '$1' (namespace $h; run: $0 up K)"
  printf '%s' "$h"
}

cmd=${1:-}
[[ -n $cmd ]] || die "usage: $0 up K | down | run K -- CMD... | exec HOST CMDLINE... | check | bundle-ip DIR"
shift
case $cmd in
  up)
    up "${1:-}"
    ;;
  down)
    down
    ;;
  run)
    k=${1:-}
    shift || true
    [[ ${1:-} == -- ]] && shift
    [[ $# -gt 0 ]] || die "run needs a command after --"
    trap down EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    up "$k" >/dev/null
    set +e
    "$@"
    rc=$?
    set -e
    exit $rc
    ;;
  exec)
    [[ $# -ge 2 ]] || die "exec needs HOST and a command line"
    ns=$(ns_of "$1")
    shift
    # A UTS namespace per process tree, named after the node: gethostname() differs per node.
    # exec all the way, so the PE keeps the pid (and process group) gshmrun gave this script.
    exec "$IP" netns exec "$ns" unshare --uts -- sh -c 'echo "$1" > /proc/sys/kernel/hostname && exec sh -c "$2"' \
      sh "$ns" "$*"
    ;;
  check)
    why=$(why_not)
    if [[ -n $why ]]; then
      echo "netns-nodes.sh: cannot make nodes here: $why"
      exit 77
    fi
    ;;
  bundle-ip)
    dir=${1:-}
    [[ -n $dir ]] || die "bundle-ip needs a folder"
    mkdir -p "$dir/lib"
    src=$(command -v "$IP") || die "no ip(8) here to copy"
    cp -L "$src" "$dir/ip.bin"
    # Every library ldd resolves, but the C library and the loader (the target's own must be used).
    ldd "$src" | awk '/=> \// {print $3}' | grep -vE '/(libc|ld-linux[^/]*)\.so' | while read -r lib; do
      cp -L "$lib" "$dir/lib/"
    done
    # The wrapper runs ip through the target's own loader with --library-path, not with
    # LD_LIBRARY_PATH, which `ip netns exec` would pass on to the PEs.
    loader=$(ldd "$src" | awk '$1 ~ /^\/.*ld-linux/ {print $1; exit}')
    [[ -n $loader ]] || die "cannot find the dynamic loader of $src in ldd's output"
    cat >"$dir/ip" <<EOF
#!/bin/sh
d=\$(dirname "\$(readlink -f "\$0")")
exec $loader --library-path "\$d/lib" "\$d/ip.bin" "\$@"
EOF
    chmod +x "$dir/ip"
    "$dir/ip" -V
    echo "netns-nodes.sh: carry $dir over and set GSHMEM_NETNS_IP=$dir/ip"
    ;;
  *)
    die "unknown command '$cmd' (up K | down | run K -- CMD... | exec HOST CMDLINE... | check | bundle-ip DIR)"
    ;;
esac
