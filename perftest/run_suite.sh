#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole perftest suite for one PE count, side by side with NCCL, in < 5 minutes
# on 4 x H200:
#   perftest/run_suite.sh [NPES] [BUILD_DIR]        (defaults: 4, build/default)
# Point-to-point benchmarks run on 2 PEs, collectives on NPES. Every process runs
# under `timeout` (and gshmrun --timeout). Results (JSON lines), logs and the
# machine description go to $OUT (default ./perf-out), in perf-<NPES>pe/:
#   results.jsonl   one header line per process, one line per measurement
#   suite.json      how the suite was run (command, git revision, GPUs, driver)
#   machine.txt     nvidia-smi and topology; logs/<step>.log  each step's output
#   summary.txt     the summary table (also printed last)
# An accepted run becomes its kind of machine's baseline, bench/baselines/<kind>.jsonl
# (perftest/baseline.py make; bench/README.md).
# Where NVIDIA NVSHMEM is installed and the build made gshmem-perf-nvshmem (the same
# benchmark sources built against NVSHMEM: perftest/nvshmem), every step runs a
# second time with it, into the same results.jsonl ("lib": "nvshmem"; NCCL is not
# timed again), and the summary puts the two side by side. NVSHMEM=0 skips that.
# ONLY="step ..." runs only the steps named (without the nvshmem_ prefix; in both passes),
# e.g. ONLY="halo_host_1pe halo_host jacobi_nbi_1pe jacobi_nbi" for the two halo exchanges alone.
# The build dir's paths are those of the machine that built it; BUILD_ROOT
# (default /work/main) is linked to this checkout so that they resolve.
set -uo pipefail
npes=${1:-4}
build=${2:-build/default}
here=$(cd "$(dirname "$0")/.." && pwd)
root=${BUILD_ROOT:-/work/main}
if [[ $here != "$root" && ! -e $root ]]; then
  mkdir -p "$(dirname "$root")" && ln -s "$here" "$root"
fi
[[ $build = /* ]] || build=$here/$build
perf=$build/bin/gshmem-perf
perf_nvshmem=$build/bin/gshmem-perf-nvshmem
gshmrun=$build/bin/gshmrun
for f in "$perf" "$gshmrun"; do
  [[ -x $f ]] || { echo "run_suite: $f not found (build it: cmake --build $build --target gshmem-perf gshmrun)"; exit 1; }
done
out=${OUT:-$here/perf-out}/perf-${npes}pe
mkdir -p "$out/logs"
results=$out/results.jsonl
: >"$results"
suite_start=$(date +%s)
budget=${SUITE_BUDGET_S:-280}  # the whole suite; each step gets what is left, at most 120 s

# Never NVLink multicast; device waits report and trap instead of hanging.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=${GSHMEM_WAIT_TIMEOUT:-30}
if [[ -z ${NCCL_LIB:-} ]] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2 '; then
  # The nvidia-nccl Python wheel (what PyTorch installs).
  d=$(python3 -c "import nvidia.nccl as m, os; print(os.path.dirname(m.__file__) if getattr(m, '__file__', None) else list(m.__path__)[0])" 2>/dev/null)
  [[ -n $d && -e $d/lib/libnccl.so.2 ]] && export NCCL_LIB=$d/lib/libnccl.so.2
fi

# NVSHMEM's libraries: the machine's nvidia-nvshmem wheel (what PyTorch installs).
nvshmem_lib=
if [[ ${NVSHMEM:-1} != 0 && -x $perf_nvshmem ]]; then
  d=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)
  if [[ -n $d && -e $d/lib/libnvshmem_host.so.3 ]]; then nvshmem_lib=$d/lib
  else echo "run_suite: gshmem-perf-nvshmem built, but no NVSHMEM library here (nvidia.nvshmem): NVSHMEM not timed"
  fi
fi

{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv
  nvidia-smi topo -m
} >"$out/machine.txt" 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
rev=${GSHMEM_GIT_REV:-$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)}
dirty=$(git -C "$here" status --porcelain 2>/dev/null | grep -q . && echo true || echo false)
printf '{"type":"suite","cmd":"%s","npes":%d,"gpu":"%s","driver":"%s","git":"%s","dirty":%s,"date":"%s","nccl_lib":"%s","nvshmem_lib":"%s"}\n' \
  "perftest/run_suite.sh $*" "$npes" "$gpu" "$driver" "$rev" "$dirty" "$(date -u +%FT%TZ)" "${NCCL_LIB:-default loader path}" \
  "${nvshmem_lib:-none}" >"$out/suite.json"

failed=()
nv_failed=()  # NVSHMEM's steps: reported, but they do not fail gshmem's suite
ran=0
# step <name> <pes> <gshmem-perf arguments...>; runs $bin (gshmem-perf, or the NVSHMEM
# build in the second pass) with $extra after the arguments.
bin=$perf
prefix=
extra=()
step() {
  [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]] || return 0
  local name=$prefix$1 n=$2
  shift 2
  local left=$((budget - ($(date +%s) - suite_start)))
  if ((left < 10)); then
    echo "run_suite: skipping $name: the suite's $budget s are spent" | tee -a "$out/logs/$name.log"
    failed+=("$name(no time)")
    return
  fi
  local t=$((left < 120 ? left : 120))
  local t0=$(date +%s)
  timeout -k 5 "$t" "$gshmrun" -n "$n" --timeout "$((t - 2))" -- "$bin" "$@" "${extra[@]}" --json "$results" \
    >"$out/logs/$name.log" 2>&1
  local rc=$?
  printf 'run_suite: %-22s %2d PEs  %3d s  rc=%d\n' "$name" "$n" $(($(date +%s) - t0)) "$rc"
  ((rc == 77)) || ran=$((ran + 1))
  if ((rc != 0 && rc != 77)); then
    if [[ -n $prefix ]]; then nv_failed+=("$name(rc=$rc)"); else failed+=("$name(rc=$rc)"); fi
  fi
}

steps() {
  # ---- point to point (2 PEs)
  step p2p_bw 2 put_bw get_bw
  step p2p_bw_bidir 2 put_bw get_bw --bidir
  step p2p_latency 2 put_latency get_latency pingpong_put pingpong_put_signal -s block
  # One thread / one warp moving large buffers is slow by nature: smaller sizes, fewer iterations.
  step p2p_latency_tw 2 put_latency get_latency pingpong_put pingpong_put_signal -s thread,warp -e 64K -n 200 -w 20
  step p2p_small 2 p_latency g_latency p_bw pingpong_p pingpong_signal pingpong_atomic atomic_latency atomic_bw
  step host_rma 2 host_put_bw host_get_bw host_put_latency host_get_latency
  # ---- collectives (NPES)
  step dev_sync "$npes" barrier sync barrier_team sync_team -s all
  step dev_coll "$npes" broadcast fcollect alltoall reduction reducescatter
  step dev_coll_tw "$npes" broadcast fcollect alltoall reduction reducescatter -s thread,warp -e 16K -n 50 -w 5
  step stream_sync "$npes" barrier_on_stream sync_on_stream barrier_team_on_stream sync_team_on_stream
  step stream_sync_graph "$npes" barrier_on_stream sync_on_stream barrier_team_on_stream sync_team_on_stream --graph
  step stream_coll "$npes" broadcast_on_stream fcollect_on_stream alltoall_on_stream reduction_on_stream \
    reducescatter_on_stream -n 10 -r 5
  # In a CUDA graph too, over the same sizes (4 B-256 MiB): production collectives run in graphs, and
  # the summary judges every size of both forms against NCCL.
  step stream_coll_graph "$npes" broadcast_on_stream fcollect_on_stream alltoall_on_stream reduction_on_stream \
    reducescatter_on_stream --graph -n 10 -r 5
  step malloc "$npes" malloc -e 1G -f 4 -n 5
  # ---- applications (NPES): grids 1024^2 ... 16384^2
  step jacobi "$npes" jacobi -b 8M -e 2G -f 4
  # Matrix multiplication by circular shift, 512^2 ... 4096^2: the whole product and the shifts
  # alone, B's blocks shifted all rows at once (matmul) and row by row (matmul_rowwise: a put
  # per row by a thread, a warp or a CTA).
  step matmul "$npes" matmul matmul_rowwise -b 2M -e 128M -f 4 -s all
  # The host-driven halo loop (step kernel, put_on_stream x2, barrier_all_on_stream; grids
  # 1024^2 ... 8192^2 floats, rows of 16 KiB at 4096) taken apart, and the step kernel that sends
  # its own halo rows (4096^2, 200 iterations), on one PE (self-exchange) and two.
  step halo_host_1pe 1 halo_host -f 4
  step halo_host 2 halo_host -f 4
  step jacobi_nbi_1pe 1 jacobi_nbi
  step jacobi_nbi 2 jacobi_nbi
}

steps
if [[ -n $nvshmem_lib ]]; then
  # The same steps timing NVSHMEM (its heap sized for the largest buffers; NCCL was timed above).
  budget=$((budget + ${NVSHMEM_BUDGET_S:-240}))
  bin=$perf_nvshmem prefix=nvshmem_ extra=(--no-nccl)
  export LD_LIBRARY_PATH=$nvshmem_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-8G}
  steps
fi

echo "run_suite: $(($(date +%s) - suite_start)) s in all; results in $results"
if ((ran == 0)); then
  echo "run_suite: SKIP: no step could run here (not enough GPUs; see $out/logs)"
  exit 77
fi
if command -v python3 >/dev/null; then
  python3 "$here/perftest/summary.py" "$results" | tee "$out/summary.txt"
  ((PIPESTATUS[0] == 0)) || failed+=("summary(unverified results)")
else
  grep -h '^{"type":"result"' "$results" | head -50
fi
if ((${#nv_failed[@]})); then
  echo "run_suite: NVSHMEM steps that failed: ${nv_failed[*]} (logs in $out/logs; not counted against gshmem)"
fi
if ((${#failed[@]})); then
  echo "run_suite: FAILED steps: ${failed[*]} (logs in $out/logs)"
  exit 1
fi
