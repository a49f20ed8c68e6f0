# SPDX-License-Identifier: BSD-3-Clause
# Team reductions (included by tests/functional/CMakeLists.txt):
#   reduce-N, reducescatter-N    every operator / type class / form on N = 2, 3, 4 PEs
#   reduce_room-N                the members' kernels do not fit on the GPU at once: the last PE's
#   reduce_room_ctas16-N         own kernel leaves N SMs for its host call (128 or 16 CTAs), the
#                                others call device forms (test_reduce_room.cu); a hang is
#                                reported by GSHMEM_WAIT_TIMEOUT (20 s here)
#   reduce_errors-N              invalid calls (host checks with GSHMEM_DEBUG_CHECKS=1, device
#                                checks compiled in) must be reported naming the call, the PE
#                                and the cause: reduce_errors.sh runs test_reduce_errors
#                                (test_reduce.cu built with GT_REDUCE_ERRORS) under gshmrun
gt_add_functional_test(reduce)
gt_add_functional_test(reducescatter)
gt_add_functional_test(reduce_room)
foreach(n 2 3 4)
  gshmem_add_gpu_test(reduce_room_ctas16 test_reduce_room ${n})
  gt_gpu_test_properties(reduce_room_ctas16-${n} "${GT_GPU_ENV};GT_ROOM_CTAS=16")
  set_property(TEST reduce_room-${n} reduce_room_ctas16-${n} APPEND PROPERTY ENVIRONMENT "GSHMEM_WAIT_TIMEOUT=20")
endforeach()

add_executable(test_reduce_errors test_reduce.cu)
target_compile_definitions(test_reduce_errors PRIVATE GT_REDUCE_ERRORS=1 GSHMEM_DEBUG_CHECKS=1)
target_link_libraries(test_reduce_errors PRIVATE gshmem::gshmem)
target_compile_options(test_reduce_errors PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_reduce_errors PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2 4)
  add_test(NAME reduce_errors-${n}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/reduce_errors.sh
                   $<TARGET_FILE:gshmrun> $<TARGET_FILE:test_reduce_errors> ${n})
  set_tests_properties(reduce_errors-${n} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
  gt_gpu_test_properties(reduce_errors-${n} "${GT_GPU_ENV}")
endforeach()

# Across 2 simulated nodes (proxy.cmake, which is included before this file, says how).
foreach(t reduce reducescatter)
  gshmem_add_sim_test(${t}-sim2 test_${t} 2 2)
  gshmem_add_sim_test(${t}-sim2x2 test_${t} 4 2)
  gt_sim_quick(${t})
endforeach()
