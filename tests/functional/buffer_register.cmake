# SPDX-License-Identifier: BSD-3-Clause
# Registered user buffers (gshmemx_buffer_register_symmetric / _unregister_symmetric), included by
# tests/functional/CMakeLists.txt (its glob of *.cmake): buffer_register-2 and -3, and
# buffer_register_ipc-2 on the cudaMalloc + CUDA IPC heap; label gpu. The test allocates its
# buffers with the CUDA driver's VMM API, fetched through the runtime (no libcuda link: without a
# GPU the test loads and skips).
add_executable(test_buffer_register test_buffer_register.cu)
target_link_libraries(test_buffer_register PRIVATE gshmem::gshmem)
target_compile_options(test_buffer_register PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_buffer_register PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
foreach(n 2 3)
  gshmem_add_gpu_test(buffer_register test_buffer_register ${n})
  gt_gpu_test_properties(buffer_register-${n} "${GT_GPU_ENV}")
endforeach()
# The cudaMalloc + CUDA IPC heap registers nothing: a clear error on every PE, heap intact.
gshmem_add_gpu_test(buffer_register_ipc test_buffer_register 2)
gt_gpu_test_properties(buffer_register_ipc-2 "${GT_GPU_ENV};GSHMEM_DISABLE_VMM=1;GSHMEM_SYMMETRIC_SIZE=256M")
