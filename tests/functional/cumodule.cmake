# SPDX-License-Identifier: BSD-3-Clause
# gshmemx_cumodule_init / _finalize (included by tests/functional/CMakeLists.txt): the kernels of
# cumodule_kernel.cu are compiled by nvcc -cubin at build time (no -rdc, gshmem's public include
# directories, the first of CMAKE_CUDA_ARCHITECTURES) into three modules, which test_cumodule
# loads through the driver API: cumodule-2, label gpu.
set(_cm_arch 90)
foreach(_a IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(_a MATCHES "^([0-9]+[af]?)")
    set(_cm_arch ${CMAKE_MATCH_1})
    break()
  endif()
endforeach()
# The library's public include directories in the build tree (its INSTALL_INTERFACE entry is
# empty here; FILTER drops it) - the source include/ and the generated gshmem/version.h.
set(_cm_includes "$<FILTER:$<TARGET_PROPERTY:gshmem,INTERFACE_INCLUDE_DIRECTORIES>,INCLUDE,.>")
file(GLOB_RECURSE _cm_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/gshmem/*.h
     ${PROJECT_SOURCE_DIR}/include/gshmem/*.cuh)
set(_cm_ccbin)
if(CMAKE_CUDA_HOST_COMPILER)
  set(_cm_ccbin -ccbin ${CMAKE_CUDA_HOST_COMPILER})
endif()
set(_cm_cubins)
foreach(_v gshmem plain wrong_size)
  set(_cm_def)
  if(_v STREQUAL "plain")
    set(_cm_def -DCUMODULE_PLAIN)
  elseif(_v STREQUAL "wrong_size")
    set(_cm_def -DCUMODULE_WRONG_SIZE)
  endif()
  set(_cm_out ${CMAKE_CURRENT_BINARY_DIR}/cumodule_${_v}.cubin)
  add_custom_command(OUTPUT ${_cm_out}
    COMMAND ${CMAKE_CUDA_COMPILER} ${_cm_ccbin} -cubin -arch=sm_${_cm_arch} -std=c++17 -O3 ${_cm_def}
            "-I$<JOIN:${_cm_includes},;-I>" ${CMAKE_CURRENT_SOURCE_DIR}/cumodule_kernel.cu -o ${_cm_out}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cumodule_kernel.cu ${_cm_headers}
            ${GSHMEM_GENERATED_INCLUDE_DIR}/gshmem/version.h
    COMMENT "nvcc -cubin (sm_${_cm_arch}): cumodule_${_v}.cubin"
    COMMAND_EXPAND_LISTS VERBATIM)
  list(APPEND _cm_cubins ${_cm_out})
endforeach()
add_custom_target(cumodule_cubins DEPENDS ${_cm_cubins})

add_executable(test_cumodule test_cumodule.cu)
target_link_libraries(test_cumodule PRIVATE gshmem::gshmem)
target_compile_options(test_cumodule PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(test_cumodule PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
add_dependencies(test_cumodule cumodule_cubins)
# A heap of 64M that grows (VMM) to fit the test's block of 96M.
gshmem_add_gpu_test(cumodule test_cumodule 2 ${_cm_cubins})
gt_gpu_test_properties(cumodule-2 "${GT_GPU_ENV};GSHMEM_SYMMETRIC_SIZE=64M;GSHMEM_SYMMETRIC_SIZE_MAX=512M")
