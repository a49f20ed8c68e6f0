# SPDX-License-Identifier: BSD-3-Clause
# Faults without a supervisor's help (docs/reliability.md):
#   abort_release   gshmemx_abort from a host thread releases a spinning kernel within 100 ms;
#                   host calls then fail; finalize and a new init work

add_executable(test_abort_release test_abort_release.cu)
target_link_libraries(test_abort_release PRIVATE gshmem::gshmem)
target_compile_options(test_abort_release PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_abort_release PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 1 2)
  gshmem_add_gpu_test(abort_release test_abort_release ${n})
  gt_gpu_test_properties(abort_release-${n} "${GT_GPU_ENV}")
endforeach()
