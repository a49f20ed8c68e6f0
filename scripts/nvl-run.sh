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
#   ab      builds or settings against each other in one call: gshmem-perf $AB_ARGS at AB_NPES
#           PEs (default 2) for each variant named in AB (default "base new"), alternated
#           AB_REPS rounds (default 3), into r/ab/<variant>-<round>.jsonl; then
#           perftest/baseline.py compare of the first variant against each other one
#           (r/ab/compare-<variant>.txt, AB_THRESHOLD default 0.03). A variant's binaries and
#           libraries are build/<variant>/{bin,lib} (unpacked from build/<variant>.tar.xz, one top
#           directory holding bin/ and lib/ as scripts/pack-build.sh makes it), each the carried
#           build's where the variant has none (a variant of libgshmem alone:
#           build/<variant>/lib/libgshmem.so.0);
#           AB_ENV_<variant>="VAR=value ..." sets its environment; AB_GSHMRUN_ARGS adds gshmrun
#           options (e.g. "--sim-nodes 2": the PEs on simulated nodes, through the proxy).
#           AB_MPS=1: the PEs share GPU 0 under CUDA MPS (--no-nccl; small calls compare,
#           bandwidths mean nothing there).
# ctest logs are verbose: each test's "PE n: N checks passed" lines are in them.
# Results go to $OUT/r and are packed into $OUT/all.tar.gz after every step, so a call cut
# short keeps what it did. REV names the commit the build is of (the suite's JSON records it);
# BUILT_AT, the directory the build was made in (ctest's files name its paths; e.g. /tmp/ci44
# for a CI clone there), is linked to this checkout.
#   STEPS="suite prio" REV=abc1234 BUILT_AT=/tmp/ci44 bash scripts/nvl-run.sh
#   STEPS="ctest mps" BUILT_AT=/tmp/ci46 bash scripts/nvl-run.sh      (one GPU)
#   STEPS=ab AB="base new" AB_ARGS="put_latency -s block -b 8 -e 64K" bash scripts/nvl-run.sh
#   STEPS=ab AB="e0 e1" AB_ENV_e0=GSHMEM_EARLY_LAUNCH=0 AB_ARGS="barrier_on_stream" AB_NPES=4 ...
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
# A user-level MPS daemon for GPU 0 (no card setting changes); mps_stop ends it.
mps_start() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/nvl-mps-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/nvl-mps-log-$$
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d && sleep 1
}
mps_stop() {
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
ab() {
  local A=$R/ab v rep rc bin lib envv ev vars args share=() extra=()
  mkdir -p "$A"
  read -r -a vars <<<"${AB:-base new}"
  read -r -a args <<<"${AB_ARGS:?STEPS=ab needs AB_ARGS, the gshmem-perf arguments to time}"
  for v in "${vars[@]}"; do
    if [[ -f build/$v.tar.xz ]]; then
      rm -rf "build/$v" && mkdir -p "build/$v" && tar -C "build/$v" --strip-components=1 -xJf "build/$v.tar.xz"
    fi
  done
  if [[ ${AB_MPS:-0} == 1 ]]; then
    mps_start || { echo "ab: the MPS daemon did not start"; return; }
    share=(CUDA_VISIBLE_DEVICES=0 GSHMEM_PERF_SHARE_GPUS=1) extra=(--no-nccl)
  fi
  for rep in $(seq 1 "${AB_REPS:-3}"); do
    for v in "${vars[@]}"; do
      bin=$here/build/$v/bin lib=$here/build/$v/lib ev=()
      [[ -x $bin/gshmem-perf ]] || bin=$B/bin
      [[ -d $lib ]] || lib=$B/lib
      envv=AB_ENV_$v
      [[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && read -r -a ev <<<"${!envv:-}"
      env "${share[@]}" "${ev[@]}" LD_LIBRARY_PATH="$lib" timeout "${AB_TIMEOUT:-120}" "$bin/gshmrun" \
        -n "${AB_NPES:-2}" ${AB_GSHMRUN_ARGS:-} --timeout $((${AB_TIMEOUT:-120} - 5)) -- "$bin/gshmem-perf" "${args[@]}" "${extra[@]}" \
        --json "$A/$v-$rep.jsonl" >"$A/$v-$rep.log" 2>&1
      rc=$?
      echo "ab $v round $rep rc=$rc $(el) $(grep -c '"verified":true' "$A/$v-$rep.jsonl" 2>/dev/null) verified," \
        "$(grep -c '"verified":false' "$A/$v-$rep.jsonl" 2>/dev/null) not"
    done
    pack
  done
  [[ ${AB_MPS:-0} == 1 ]] && mps_stop
  for v in "${vars[@]:1}"; do
    python3 perftest/baseline.py compare "$A/${vars[0]}-*.jsonl" "$A/$v-*.jsonl" \
      --threshold "${AB_THRESHOLD:-0.03}" >"$A/compare-$v.txt" 2>&1
    echo "ab ${vars[0]} -> $v: $(grep -m1 '^== ' "$A/compare-$v.txt")"
  done
}
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
      if mps_start; then
        # shellcheck disable=SC2086  # CTEST_ARGS: words
        # The library's kernels size their grids to the PEs' share of the GPU (no CTA knobs needed).
        (set -f; cd "$B" && CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 GSHMEM_PERF_SHARE_GPUS=1 timeout 480 \
          ctest -L gpu -R '.*-[234]$' -E "$mps_exclude" ${CTEST_ARGS:-} -V --timeout 150 >"$R/ctest-mps.log" 2>&1)
        echo "mps rc=$? $(el) $(tally "$R/ctest-mps.log")"
        mps_stop
      else
        echo "mps: the MPS daemon did not start"
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      fi ;;
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
    ab) ab ;;
    *) echo "nvl-run: unknown step $s" ;;
  esac
  pack
done
