# SPDX-License-Identifier: BSD-3-Clause
# Every benchmark file of gshmem-perf: the benchmarks it registers, the PE counts of
# its smoke test, and the C names it needs (checked against the headers; a file
# whose names are not declared yet is left out). Device files call the C++
# templates; the C names listed are generated together with them.
# Point-to-point benchmarks use PEs 0 and 1 (more PEs idle); collectives any count.

# ---- device, point to point
perf_bench(device/rma_bw.cu BENCHES put_bw get_bw PES 2 NEEDS gshmemx_putmem_nbi_block gshmemx_getmem_nbi_warp)
perf_bench(device/rma_latency.cu BENCHES put_latency get_latency p_latency g_latency PES 2
           NEEDS gshmemx_putmem_block gshmemx_getmem_warp gshmem_double_p gshmem_uint64_g)
perf_bench(device/p_bw.cu BENCHES p_bw PES 2 NEEDS gshmem_int_p)
perf_bench(device/pingpong.cu BENCHES pingpong_p pingpong_put PES 2 NEEDS gshmem_uint64_wait_until gshmemx_putmem_block)
perf_bench(device/pingpong_signal.cu BENCHES pingpong_put_signal pingpong_signal PES 2
           NEEDS gshmem_putmem_signal gshmemx_putmem_signal_warp gshmemx_putmem_signal_block gshmemx_signal_op
                 gshmem_signal_wait_until)
perf_bench(device/pingpong_atomic.cu BENCHES pingpong_atomic PES 2 NEEDS gshmem_uint64_atomic_add)
perf_bench(device/atomic_latency.cu BENCHES atomic_latency PES 2
           NEEDS gshmem_uint64_atomic_fetch_xor gshmem_int32_atomic_compare_swap gshmem_uint32_atomic_fetch
                 gshmem_int64_atomic_and gshmem_uint64_atomic_inc gshmem_int32_atomic_set)
perf_bench(device/atomic_bw.cu BENCHES atomic_bw PES 2
           NEEDS gshmem_uint64_atomic_fetch_xor gshmem_int32_atomic_compare_swap gshmem_uint32_atomic_fetch
                 gshmem_int64_atomic_and gshmem_uint64_atomic_inc gshmem_int32_atomic_set)

# ---- device, collectives (every PE)
perf_bench(device/barrier.cu BENCHES barrier sync PES 3 NEEDS gshmemx_barrier_all_block gshmemx_sync_all_warp)
perf_bench(device/team_sync.cu BENCHES barrier_team sync_team PES 3
           NEEDS gshmem_barrier gshmemx_barrier_block gshmemx_team_sync_block gshmemx_team_sync_warp)
perf_bench(device/broadcast.cu BENCHES broadcast PES 3
           NEEDS gshmem_int32_broadcast gshmemx_int64_broadcast_warp gshmemx_double_broadcast_block)
perf_bench(device/fcollect.cu BENCHES fcollect PES 3
           NEEDS gshmem_int32_fcollect gshmemx_int64_fcollect_warp gshmemx_double_fcollect_block)
perf_bench(device/alltoall.cu BENCHES alltoall PES 3
           NEEDS gshmem_int32_alltoall gshmemx_int64_alltoall_warp gshmemx_double_alltoall_block)
perf_bench(device/reduction.cu BENCHES reduction PES 3
           NEEDS gshmem_float_sum_reduce gshmemx_double_prod_reduce_warp gshmemx_int32_xor_reduce_block
                 gshmemx_int64_min_reduce_block gshmemx_float_max_reduce_block)
perf_bench(device/reducescatter.cu BENCHES reducescatter PES 3
           NEEDS gshmem_float_sum_reducescatter gshmemx_double_prod_reducescatter_warp
                 gshmemx_int32_xor_reducescatter_block gshmemx_int64_min_reducescatter_block
                 gshmemx_float_max_reducescatter_block)
# Both benchmarks' kernels, a file per datatype (reduce_bench.cuh says why).
foreach(t int32 int64 float32 float64)
  perf_bench(device/reduce_${t}.cu NEEDS gshmem_float_sum_reduce gshmem_float_sum_reducescatter)
endforeach()

# ---- host: on-stream collectives (with NCCL), barriers, host RMA, malloc
perf_bench(host/barrier_on_stream.cpp BENCHES barrier_on_stream sync_on_stream PES 3
           NEEDS gshmemx_barrier_all_on_stream gshmemx_sync_all_on_stream gshmemx_quiet_on_stream)
perf_bench(host/team_sync_on_stream.cpp BENCHES barrier_team_on_stream sync_team_on_stream PES 3
           NEEDS gshmemx_barrier_on_stream gshmemx_team_sync_on_stream)
perf_bench(host/broadcast_on_stream.cpp BENCHES broadcast_on_stream PES 3
           NEEDS gshmemx_int32_broadcast_on_stream gshmemx_int64_broadcast_on_stream gshmemx_float_broadcast_on_stream
                 gshmemx_double_broadcast_on_stream)
perf_bench(host/fcollect_on_stream.cpp BENCHES fcollect_on_stream PES 3
           NEEDS gshmemx_int32_fcollect_on_stream gshmemx_int64_fcollect_on_stream gshmemx_float_fcollect_on_stream
                 gshmemx_double_fcollect_on_stream)
perf_bench(host/alltoall_on_stream.cpp BENCHES alltoall_on_stream PES 3
           NEEDS gshmemx_int32_alltoall_on_stream gshmemx_int64_alltoall_on_stream gshmemx_float_alltoall_on_stream
                 gshmemx_double_alltoall_on_stream)
set(_perf_reduce_names)
foreach(kind reduce reducescatter)
  foreach(t int32 int64 float double)
    foreach(op sum prod min max)
      list(APPEND _perf_${kind}_names gshmemx_${t}_${op}_${kind}_on_stream)
    endforeach()
  endforeach()
  foreach(t int32 int64)
    foreach(op and or xor)
      list(APPEND _perf_${kind}_names gshmemx_${t}_${op}_${kind}_on_stream)
    endforeach()
  endforeach()
endforeach()
perf_bench(host/reduction_on_stream.cpp BENCHES reduction_on_stream PES 3 NEEDS ${_perf_reduce_names})
perf_bench(host/reducescatter_on_stream.cpp BENCHES reducescatter_on_stream PES 3 NEEDS ${_perf_reducescatter_names})
perf_bench(host/host_rma.cpp BENCHES host_put_bw host_get_bw host_put_latency host_get_latency PES 2
           NEEDS gshmem_putmem_nbi gshmem_getmem gshmem_ptr gshmem_quiet)
perf_bench(host/malloc.cpp BENCHES malloc PES 2 NEEDS gshmem_malloc gshmem_free)

# ---- applications (the programs and their headers: the top-level apps/; these files call into them)
perf_bench(apps/jacobi.cu BENCHES jacobi PES 2 3 NEEDS gshmemx_putmem_signal_block gshmem_signal_wait_until)
# The halo exchange of a stencil two ways users write it, each judged against NVSHMEM's build of
# the same source: the host-driven loop (put_on_stream x2 + barrier_all_on_stream a step) and the
# step kernel that sends its own halo rows with block puts.
perf_bench(apps/halo_host.cu BENCHES halo_host PES 1 2
           NEEDS gshmemx_float_put_on_stream gshmemx_barrier_all_on_stream gshmem_getmem gshmem_ptr)
perf_bench(apps/jacobi_nbi.cu BENCHES jacobi_nbi PES 1 2
           NEEDS gshmemx_putmem_nbi_block gshmemx_putmem_signal_nbi_block gshmemx_signal_op gshmem_signal_wait_until
                 gshmem_quiet gshmemx_barrier_all_on_stream gshmem_getmem)
perf_bench(apps/matmul.cu BENCHES matmul matmul_rowwise PES 2 3
           NEEDS gshmemx_putmem_signal_block gshmem_putmem gshmemx_putmem_warp gshmemx_putmem_block gshmemx_signal_op
                 gshmem_signal_wait_until gshmem_fence gshmem_quiet)
