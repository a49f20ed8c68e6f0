# SPDX-License-Identifier: BSD-3-Clause
# RMA beyond put/get/p/g: strided (iput/iget), half/bfloat16 and the new stream forms, and
# the argument checks of debug builds. Included by tests/functional/CMakeLists.txt.

# rma_strided-N, rma_half-N (N = 2, 3, 4 PEs; label gpu).
gt_add_functional_test(rma_strided)
gt_add_functional_test(rma_half)

# The same half/bfloat16 test with the device argument checks compiled in: every valid call of
# every form and scope must pass them (no false positives).
add_executable(test_rma_half_checked test_rma_half.cu)
target_link_libraries(test_rma_half_checked PRIVATE gshmem::gshmem)
target_compile_definitions(test_rma_half_checked PRIVATE GSHMEM_DEBUG_CHECKS=1)
target_compile_options(test_rma_half_checked PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_rma_half_checked PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2)
  gshmem_add_gpu_test(rma_half_checked test_rma_half_checked ${n})
  gt_gpu_test_properties(rma_half_checked-${n} "${GT_GPU_ENV}")
endforeach()

# A stride whose pitch exceeds the copy engines' limit (host kernel / element-wise paths);
# the symmetric heap grows to hold a > 2 GiB span.
foreach(n 2)
  gshmem_add_gpu_test(rma_strided_bigpitch test_rma_strided ${n} bigpitch)
  gt_gpu_test_properties(rma_strided_bigpitch-${n} "${GT_GPU_ENV}")
endforeach()

# rma_errors-N: every bad-argument case in its own gshmrun invocation; the driver greps the
# output for the message (call, PE, cause, remedy). The TU is built with the device checks on.
add_executable(test_rma_errors test_rma_errors.cu)
target_link_libraries(test_rma_errors PRIVATE gshmem::gshmem)
target_compile_definitions(test_rma_errors PRIVATE GSHMEM_DEBUG_CHECKS=1)
target_compile_options(test_rma_errors PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_rma_errors PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2)
  add_test(NAME rma_errors-${n}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/rma_errors.sh
                   $<TARGET_FILE:gshmrun> $<TARGET_FILE:test_rma_errors> ${n})
  set_tests_properties(rma_errors-${n} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
  gt_gpu_test_properties(rma_errors-${n} "${GT_GPU_ENV}")
endforeach()
