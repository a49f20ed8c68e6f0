#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One device call with a build made elsewhere and carried as build/carry.tar.xz
# (scripts/pack-build.sh; configure with GSHMEM_NVSHMEM_HOME so that gshmem-perf-nvshmem is in
# it), on a machine of 1, 2 or 4 GPUs joined by NVLink. STEPS picks what runs, in order:
#   suite   perftest/run_suite.sh NPES (default: the GPU count), NCCL and NVSHMEM beside gshmem
#   ctest   ctest -L gpu with a GPU per PE (the 2-PE tests on 2 GPUs; 3 and 4 on 4; on one GPU
#           only the 1-PE tests run, the others skip); CTEST_ARGS adds arguments (e.g.
#           -R '.*-[34]$': the 4-GPU suite took 384 s for 96 tests on 2026-11-22, near a call's
#           600 s now that there are 114)
#   mps     the 2-4 PE tests with their PEs sharing GPU 0 under CUDA MPS (GT_SHARE_GPUS=1), less
#           the tests that cannot run there (tests/CMakeLists.txt says why); CTEST_ARGS too
#   prio    host put/get latency, GSHMEM_HIGH_PRIORITY_STREAM 0 and 1 alternated, 2 runs each
#   probe   gshmem-put-block-probe (putmem_block variants against the bare copy), 2 runs
# ctest logs are verbose: each test's "PE n: N checks passed" lines are in them.
# Results go to $OUT/r and are packed into $OUT/all.tar.gz after every step, so a call cut
# short keeps what it did. REV names the commit the build is of (the suite's JSON records it);
# BUILT_AT, the directory the build was made in (ctest's files name its paths; e.g. /tmp/ci44
# for a CI clone there), is linked to this checkout.
#   STEPS="suite prio" REV=abc1234 BUILT_AT=/tmp/ci44 bash scripts/nvl-run.sh
#   STEPS="ctest mps" BUILT_AT=/tmp/ci46 bash scripts/nvl-run.sh      (one GPU)
set -u
here=$PWD
for at in /work/main ${BUILT_AT:-}; do
  [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }
done
if [[ -f build/carry.tar.xz ]]; then rm -rf build/default && tar -C build -xJf build/carry.tar.xz; fi
B=$here/build/default
R=${OUT:-$here/nvl-out}/r
mkdir -p "$R"
pack() { [[ -n ${OUT:-} ]] && tar -C "$OUT" -czf "$OUT/all.tar.gz" r; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=${GSHMEM_WAIT_TIMEOUT:-15}
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0)) s]"; }
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/gpus.txt" 2>&1
echo "nvl-run: $ngpu GPUs, build of ${REV:-unknown}, steps: ${STEPS:-suite}"
# Tests that cannot run with their PEs sharing one GPU under MPS: the error-path tests
# (tests/CMakeLists.txt says why) and kill_in_barrier (a PE killed on purpose). The compat
# programs share it under GT_SHARE_GPUS=1 like the functional tests, perf_smoke under
# GSHMEM_PERF_SHARE_GPUS=1 (NCCL, which refuses two ranks on a GPU, is skipped with a note).
# Only example_ring still skips (the demo wants a GPU per PE).
mps_exclude='^(kill_in_barrier|coll_errors|reduce_errors|rma_errors|p2p_debug_checks)-?'
# "P passed, S skipped, F failed" of a ctest log, then the tests that did not pass.
tally() {
  local p s f
  p=$(grep -cE 'Test +#[0-9]+: .* Passed' "$1")
  s=$(grep -cE 'Test +#[0-9]+: .*Skipped' "$1")
  f=$(grep -cE 'Test +#[0-9]+: .*(Failed|Timeout|Exception)' "$1")
  echo "$p passed, $s skipped, $f failed"
  grep -E 'Test +#[0-9]+: .*(Failed|Timeout|Exception)' "$1"
}
run() { LD_LIBRARY_PATH=$B/lib timeout "$1" "$B/bin/gshmrun" -n "$2" --timeout $(($1 - 5)) -- "${@:3}"; }
for s in ${STEPS:-suite}; do
  case $s in
    suite)
      n=${NPES:-$ngpu}
      GSHMEM_GIT_REV=${REV:-unknown} OUT=$R timeout 570 perftest/run_suite.sh "$n" >"$R/suite-$n.txt" 2>&1
      echo "suite $n PEs rc=$? $(el)"
      tail -4 "$R/suite-$n.txt" ;;
    ctest)
      # shellcheck disable=SC2086  # CTEST_ARGS: words
      (set -f; cd "$B" && timeout 540 ctest -L gpu ${CTEST_ARGS:-} -V --timeout 150 >"$R/ctest-${ngpu}gpu.log" 2>&1)
      echo "ctest rc=$? $(el) $(tally "$R/ctest-${ngpu}gpu.log")" ;;
    mps)
      export CUDA_MPS_PIPE_DIRECTORY=/tmp/nvl-mps-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/nvl-mps-log-$$
      mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
      if timeout 20 nvidia-cuda-mps-control -d; then
        sleep 1
        # shellcheck disable=SC2086  # CTEST_ARGS: words
        # The library's kernels size their grids to the PEs' share of the GPU (no CTA knobs needed).
        (set -f; cd "$B" && CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 GSHMEM_PERF_SHARE_GPUS=1 timeout 480 \
          ctest -L gpu -R '.*-[234]$' -E "$mps_exclude" ${CTEST_ARGS:-} -V --timeout 150 >"$R/ctest-mps.log" 2>&1)
        echo "mps rc=$? $(el) $(tally "$R/ctest-mps.log")"
        timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
      else
        echo "mps: the MPS daemon did not start"
      fi
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY ;;
    prio)
      for rep in 1 2; do
        for p in 0 1; do
          GSHMEM_HIGH_PRIORITY_STREAM=$p run 100 2 "$B/bin/gshmem-perf" host_put_latency host_get_latency \
            -b 8 -e 4M -f 4 --json "$R/prio$p-$rep.jsonl" >"$R/prio$p-$rep.txt" 2>&1
          echo "prio=$p rep=$rep rc=$? $(el)"
        done
      done ;;
    probe)
      for rep in 1 2; do
        run 120 2 "$B/bin/gshmem-put-block-probe" >"$R/probe-$rep.txt" 2>&1
        echo "probe rep=$rep rc=$? $(el)"
      done ;;
    *) echo "nvl-run: unknown step $s" ;;
  esac
  pack
done
