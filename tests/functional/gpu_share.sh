#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for gpu_share-N: gshmem_init must find which PEs share a GPU by the GPU itself, not
# by its number (each process's CUDA_VISIBLE_DEVICES numbers GPUs its own way), because the
# library splits a shared GPU's SMs between the PEs' collective kernels (a member's kernel
# that cannot start while the others' wait for it would hang). Runs test_init (four
# initialisations) under `gshmrun -n N` with GSHMEM_DEBUG=INFO, twice:
#   1. as the environment gives it (GPU = local rank % visible GPUs, or one GPU for every PE
#      under GT_SHARE_GPUS=1 with CUDA_VISIBLE_DEVICES=0);
#   2. with each PE's CUDA_VISIBLE_DEVICES naming one GPU, the local rank % G-th of the G
#      visible ones: every process then sees one "GPU 0".
# The oracle is the PCI address that each PE logs at init (not the UUID the library
# compares): PEs of one PCI address form a group; the first PE of a group of two or more
# must warn "PEs a, b, ... share one GPU" once per initialisation, and no other PE may warn
# it. A run is skipped when the PEs would share GPUs and GT_SHARE_GPUS is not 1 (test_init
# exits 77 then); the test is skipped (77) when both are.
# usage: gpu_share.sh GSHMRUN TEST_INIT NPES
set -u
gshmrun=$1 prog=$2 n=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_share.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The GPUs this job may use: CUDA_VISIBLE_DEVICES's entries, else every GPU nvidia-smi lists.
if [[ -n ${CUDA_VISIBLE_DEVICES:-} ]]; then
  IFS=, read -ra gpus <<<"$CUDA_VISIBLE_DEVICES"
else
  mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null)
fi

fail=0 ran=0
bad() { echo "FAIL ($1): ${*:2}"; fail=1; }

# check LABEL LOG: the warnings in LOG against the groups of PEs by PCI address.
check() {
  local label=$1 log=$2 pe pci
  local -A group=() inits=()
  local line re='gshmem INFO \[PE [0-9]+/[0-9]+ [^]]*\]: PE ([0-9]+): local rank [0-9]+ of [0-9]+, GPU [0-9]+ \(.*, PCI ([0-9a-f:]+)\)'
  while IFS= read -r line; do
    [[ $line =~ $re ]] || continue
    pe=${BASH_REMATCH[1]} pci=${BASH_REMATCH[2]}
    inits[$pe]=$((${inits[$pe]:-0} + 1))
    [[ " ${group[$pci]:-} " == *" $pe "* ]] || group[$pci]="${group[$pci]:-} $pe"
  done <"$log"
  for ((pe = 0; pe < n; pe++)); do
    [[ ${inits[$pe]:-0} -ge 1 ]] || bad "$label" "PE $pe logged no initialisation (GPU and PCI address)"
  done
  local -A want=()
  for pci in "${!group[@]}"; do
    read -ra members <<<"${group[$pci]}"
    mapfile -t members < <(printf '%s\n' "${members[@]}" | sort -n)
    if ((${#members[@]} > 1)); then
      local list
      list=$(printf '%s, ' "${members[@]}")
      want[${members[0]}]="PEs ${list%, } share one GPU"
      echo "($label) PCI $pci: PEs ${list%, }"
    else
      echo "($label) PCI $pci: PE ${members[0]} alone"
    fi
  done
  local got
  for ((pe = 0; pe < n; pe++)); do
    got=$(grep -cE "gshmem WARN \[PE $pe/[0-9]+ [^]]*\]: gshmem_init: PEs [0-9, ]+ share one GPU" "$log")
    if [[ -n ${want[$pe]:-} ]]; then
      local exact
      exact=$(grep -cE "gshmem WARN \[PE $pe/[0-9]+ [^]]*\]: gshmem_init: ${want[$pe]} \(GPU [0-9]+ of PE $pe\);.*give each PE a GPU of its own" "$log")
      [[ $got -eq ${inits[$pe]:-0} && $exact -eq $got ]] ||
        bad "$label" "PE $pe: expected \"${want[$pe]}\" once per initialisation (${inits[$pe]:-0}), found $exact of $got such warnings"
    else
      [[ $got -eq 0 ]] || bad "$label" "PE $pe warned $got times that it shares a GPU; it is alone or not the first of its group"
    fi
  done
}

# run LABEL [WRAPPER...]: test_init under gshmrun; 77 skips the run.
run() {
  local label=$1 log=$tmp/$1.log rc
  GSHMEM_DEBUG=INFO timeout 300 "$gshmrun" -n "$n" --timeout 240 -- "${@:2}" "$prog" >"$log" 2>&1
  rc=$?
  if [[ $rc -eq 77 ]]; then
    echo "($label) skipped: $(grep -m1 'SKIP: ' "$log")"
    return
  fi
  ran=1
  if [[ $rc -ne 0 ]]; then
    bad "$label" "test_init exited $rc"
    tail -30 "$log"
    return
  fi
  check "$label" "$log"
}

run as_given
if ((${#gpus[@]} >= n)) || [[ ${GT_SHARE_GPUS:-0} == 1 && ${#gpus[@]} -ge 1 ]]; then
  # shellcheck disable=SC2016  # expanded by the PE's shell
  run one_gpu_each env GT_SHARE_GPUS=1 "GT_GPU_LIST=$(IFS=,; echo "${gpus[*]}")" bash -c \
    'IFS=, read -ra d <<<"$GT_GPU_LIST"; export CUDA_VISIBLE_DEVICES=${d[GSHMEM_LOCAL_RANK % ${#d[@]}]}; exec "$@"' wrap
else
  echo "(one_gpu_each) skipped: ${#gpus[@]} GPUs for $n PEs and GT_SHARE_GPUS is not 1"
fi

((ran)) || exit 77
((fail)) && exit 1
echo "gpu_share-$n: passed"
