# SPDX-License-Identifier: BSD-3-Clause
# Faults without a supervisor's help (docs/reliability.md):
#   stuck_pe-N      a PE stops (SIGSTOP) while the others sit in a device barrier, a wait_until,
#                   an fcollect and a host wait: each names it within the heartbeat bound
#                   (GSHMEM_HEARTBEAT_TIMEOUT=2 here; GSHMEM_WAIT_TIMEOUT left at its default)
#   abort_release   gshmemx_abort from a host thread releases a spinning kernel within 100 ms;
#                   host calls then fail; finalize and a new init work
#   kill_matrix-2   PE 1 SIGKILLed at 5 call sites under 4 launchers (below)
#   proxy_kill-sim2 a PE on another (simulated) node is SIGKILLed while the other waits in a
#                   device barrier or a proxied get: the survivor names it within 5 s
# The drivers run gshmrun themselves (the jobs must fail, and say why).
add_executable(stuck_pe stuck_pe.cu)
target_link_libraries(stuck_pe PRIVATE gshmem::gshmem)
set_target_properties(stuck_pe PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2 3 4)
  add_test(NAME stuck_pe-${n}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/stuck_pe.sh $<TARGET_FILE:gshmrun> $<TARGET_FILE:stuck_pe> ${n})
  set_tests_properties(stuck_pe-${n} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
  set_property(TEST stuck_pe-${n} APPEND PROPERTY RESOURCE_LOCK gshmem_gpus)
endforeach()

add_executable(test_abort_release test_abort_release.cu)
target_link_libraries(test_abort_release PRIVATE gshmem::gshmem)
target_compile_options(test_abort_release PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_abort_release PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 1 2)
  gshmem_add_gpu_test(abort_release test_abort_release ${n})
  gt_gpu_test_properties(abort_release-${n} "${GT_GPU_ENV}")
endforeach()

add_executable(proxy_kill proxy_kill.cu)
target_link_libraries(proxy_kill PRIVATE gshmem::gshmem)
set_target_properties(proxy_kill PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
add_test(NAME proxy_kill-sim2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/proxy_kill.sh $<TARGET_FILE:gshmrun> $<TARGET_FILE:proxy_kill>)
set_tests_properties(proxy_kill-sim2 PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 200)
set_property(TEST proxy_kill-sim2 APPEND PROPERTY RESOURCE_LOCK gshmem_gpus)

# kill_matrix-2: PE 1 is SIGKILLed at 5 call sites (device barrier, device wait, on-stream
# collective, host AMO, heap growth) under the unique-id bootstrap and torchrun's environment
# without a supervisor, and under gshmrun and Open MPI's mpirun; every survivor must end on its
# own within 5 s, and the next GPU job must pass. By default each site once (< 60 s);
# GSHMEM_KILL_MATRIX_TRIALS=20 runs the full matrix (kill_matrix.sh says how to narrow it).
add_executable(kill_matrix kill_matrix.cu)
target_link_libraries(kill_matrix PRIVATE gshmem::gshmem)
target_compile_options(kill_matrix PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(kill_matrix PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
add_test(NAME kill_matrix-2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/kill_matrix.sh $<TARGET_FILE:gshmrun> $<TARGET_FILE:kill_matrix> 2)
# The short run takes about 30 s; the bound leaves room for the full matrix run through ctest.
set_tests_properties(kill_matrix-2 PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 7200)
set_property(TEST kill_matrix-2 APPEND PROPERTY RESOURCE_LOCK gshmem_gpus)

# bad_rma_corpus-N: with GSHMEM_DEBUG_CHECKS=1, 1,000 seeded bad host calls per class (puts into
# freed blocks and past an allocation's end, gets from freed blocks, misaligned AMOs, AMOs on
# freed blocks) are all refused, and a matching good corpus all carried out.
add_executable(test_bad_rma_corpus test_bad_rma_corpus.cu)
target_link_libraries(test_bad_rma_corpus PRIVATE gshmem::gshmem)
target_compile_options(test_bad_rma_corpus PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_bad_rma_corpus PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 1 2)
  gshmem_add_gpu_test(bad_rma_corpus test_bad_rma_corpus ${n})
  gt_gpu_test_properties(bad_rma_corpus-${n} "${GT_GPU_ENV};GSHMEM_DEBUG_CHECKS=1")
endforeach()

# sanitizer_nvtx-2: the heap described to compute-sanitizer (NVTX memory API): memcheck reports
# device puts past an allocation's end and into a freed block, on this PE's heap and in a peer's
# window, and none of the in-bounds ones, on the IPC heap; on the VMM heap (grown), which
# compute-sanitizer does not take as pools, the library describes nothing and memcheck reports
# no error. 2 PEs, which may share a GPU.
# Skipped without compute-sanitizer (PATH or CUDA's bin directory). About 4 sanitizer runs.
add_executable(sanitizer_nvtx sanitizer_nvtx.cu)
target_link_libraries(sanitizer_nvtx PRIVATE gshmem::gshmem)
target_compile_options(sanitizer_nvtx PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(sanitizer_nvtx PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
add_test(NAME sanitizer_nvtx-2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sanitizer_nvtx.sh $<TARGET_FILE:gshmrun>
                 $<TARGET_FILE:sanitizer_nvtx> ${CUDAToolkit_BIN_DIR})
set_tests_properties(sanitizer_nvtx-2 PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 1300)
set_property(TEST sanitizer_nvtx-2 APPEND PROPERTY RESOURCE_LOCK gshmem_gpus)

# debug_check_cost-N: ns per device call (p, 8-byte put, AMO) from a Release translation unit and
# from a GSHMEM_DEBUG_CHECKS one (PE, bounds and live-allocation checks), with a few and with
# 1,027 live allocations; every value written is checked. Prints the figures; a few seconds.
add_executable(test_debug_check_cost test_debug_check_cost.cu debug_check_cost_release.cu debug_check_cost_debug.cu)
target_link_libraries(test_debug_check_cost PRIVATE gshmem::gshmem)
target_compile_options(test_debug_check_cost PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_debug_check_cost PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 1 2)
  gshmem_add_gpu_test(debug_check_cost test_debug_check_cost ${n})
  gt_gpu_test_properties(debug_check_cost-${n} "${GT_GPU_ENV}")
endforeach()

# soak-2: init/finalize cycles, heap grow/free cycles and a seeded RMA/AMO/collective mix with
# checksums; fds, RSS and GPU memory flat. Short by default (~20 s); the issue's full length:
# GSHMEM_SOAK_CYCLES=10000 GSHMEM_SOAK_GROWS=1000 GSHMEM_SOAK_OPS=1000000 (test_soak.cu).
add_executable(test_soak test_soak.cu)
target_link_libraries(test_soak PRIVATE gshmem::gshmem)
target_compile_options(test_soak PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_soak PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
gshmem_add_gpu_test(soak test_soak 2)
gt_gpu_test_properties(soak-2 "${GT_GPU_ENV};GSHMEM_SYMMETRIC_SIZE=64M;GSHMEM_SYMMETRIC_SIZE_MAX=512M")

# host_fuzz-2: 2,000 seeded invalid host calls per PE under a watchdog (no crash, no hang, the
# library still right afterwards); GSHMEM_HOST_FUZZ_CALLS=100000 for the issue's full length.
# The environment half runs on CPUs in CI: config_fuzz (tests/unit).
add_executable(test_host_fuzz test_host_fuzz.cu)
target_link_libraries(test_host_fuzz PRIVATE gshmem::gshmem)
target_compile_options(test_host_fuzz PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_host_fuzz PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
gshmem_add_gpu_test(host_fuzz test_host_fuzz 2)
gt_gpu_test_properties(host_fuzz-2 "${GT_GPU_ENV}")
