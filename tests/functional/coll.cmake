# SPDX-License-Identifier: BSD-3-Clause
# Teams, team barriers/syncs and the data-movement collectives (broadcast, fcollect,
# collect, alltoall, alltoalls), coll_ll: their LL path under reuse pressure, and
# stream_order: on-stream collectives and reductions that may start early still wait for
# the kernel ahead of them. Included by tests/functional/CMakeLists.txt. Each runs
# under gshmrun on 2, 3 and 4 PEs as <name>-<npes>, label gpu.
foreach(t team team_sync coll_bcast coll_collect coll_alltoall coll_ll stream_order)
  gt_add_functional_test(${t})
endforeach()

# The LL path at other sizes (GSHMEM_LL_MAX_BYTES): coll_ll_4k-N, every call of coll_ll by
# it (its push-path calls included), and reduce_ll4k-N, test_reduce's arrays of up to 4
# KiB by it, in every form (a lone thread's wide batches and their remainders).
foreach(n 2 3 4)
  gshmem_add_gpu_test(coll_ll_4k test_coll_ll ${n})
  gt_gpu_test_properties(coll_ll_4k-${n} "${GT_GPU_ENV};GSHMEM_LL_MAX_BYTES=4K")
  gshmem_add_gpu_test(reduce_ll4k test_reduce ${n})
  gt_gpu_test_properties(reduce_ll4k-${n} "${GT_GPU_ENV};GSHMEM_LL_MAX_BYTES=4K")
endforeach()

# The host argument checks (GSHMEM_DEBUG_CHECKS=1) exchange 32 bytes a member through the
# team's check words; with GSHMEM_LL_MAX_BYTES=16 that exchange takes the direct path, which
# needs the team sync that follows it (a root's next check must not overwrite a record a
# member is still reading): coll_bcast_checks_ll16-N.
foreach(n 2 3 4)
  gshmem_add_gpu_test(coll_bcast_checks_ll16 test_coll_bcast ${n})
  gt_gpu_test_properties(coll_bcast_checks_ll16-${n} "${GT_GPU_ENV};GSHMEM_DEBUG_CHECKS=1;GSHMEM_LL_MAX_BYTES=16")
endforeach()

# The host and on-stream collectives with fewer CTAs than pieces (GSHMEM_COLL_CTAS=3: each CTA
# takes pieces b, b + 3, ...): broadcast (the split push and the relay) and fcollect / collect.
foreach(n 2 3 4)
  foreach(t coll_bcast coll_collect)
    gshmem_add_gpu_test(${t}_ctas3 test_${t} ${n})
    gt_gpu_test_properties(${t}_ctas3-${n} "${GT_GPU_ENV};GSHMEM_COLL_CTAS=3")
  endforeach()
endforeach()

# The same team-sync test with the dissemination barrier forced on small teams (device
# forms only: the library's host forms keep the all-to-all exchange).
add_executable(test_team_sync_dissemination test_team_sync.cu)
target_link_libraries(test_team_sync_dissemination PRIVATE gshmem::gshmem)
target_compile_definitions(test_team_sync_dissemination PRIVATE GSHMEMI_ALLTOALL_SYNC_MAX=1)
target_compile_options(test_team_sync_dissemination PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_team_sync_dissemination PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2 3 4)
  gshmem_add_gpu_test(team_sync_dissemination test_team_sync_dissemination ${n})
  gt_gpu_test_properties(team_sync_dissemination-${n} "${GT_GPU_ENV}")
endforeach()

# coll_errors-N: every bad-argument case in its own gshmrun job; the driver checks the
# exit status and greps the message (call, PE, cause, remedy). Device checks compiled in.
add_executable(test_coll_errors test_coll_errors.cu)
target_link_libraries(test_coll_errors PRIVATE gshmem::gshmem)
target_compile_definitions(test_coll_errors PRIVATE GSHMEM_DEBUG_CHECKS=1)
target_compile_options(test_coll_errors PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_coll_errors PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2 3)
  add_test(NAME coll_errors-${n}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/coll_errors.sh $<TARGET_FILE:gshmrun>
                   $<TARGET_FILE:test_coll_errors> ${n})
  set_tests_properties(coll_errors-${n} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
  gt_gpu_test_properties(coll_errors-${n} "${GT_GPU_ENV}")
endforeach()
