# SPDX-License-Identifier: BSD-3-Clause
# Atomics, signals, point-to-point waits and memory-model litmus tests
# (included by tests/functional/CMakeLists.txt). Each runs under gshmrun on 2, 3
# and 4 PEs as <name>-<npes>, label gpu.
foreach(t amo signal wait litmus)
  gt_add_functional_test(${t})
endforeach()

# Debug checks: bad calls in a GSHMEM_DEBUG_CHECKS build, one gshmrun job per
# case; the driver script checks each message (call, PE, cause).
add_executable(p2p_debug_checks p2p_debug_checks.cu)
target_link_libraries(p2p_debug_checks PRIVATE gshmem::gshmem)
target_compile_definitions(p2p_debug_checks PRIVATE GSHMEM_DEBUG_CHECKS=1)
target_compile_options(p2p_debug_checks PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
set_target_properties(p2p_debug_checks PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
add_test(NAME p2p_debug_checks
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/p2p_debug_checks.sh
                 $<TARGET_FILE:gshmrun> $<TARGET_FILE:p2p_debug_checks>)
set_tests_properties(p2p_debug_checks PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
set_property(TEST p2p_debug_checks APPEND PROPERTY RESOURCE_LOCK gshmem_gpus)

# Host-only: the mapping of stream signal waits onto cuStreamWaitValue64.
add_executable(test_p2p_wait_plan test_p2p_wait_plan.cpp)
target_include_directories(test_p2p_wait_plan PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include
                                                   ${GSHMEM_GENERATED_INCLUDE_DIR})
target_link_libraries(test_p2p_wait_plan PRIVATE CUDA::toolkit)
target_compile_options(test_p2p_wait_plan PRIVATE -Wall -Wextra)
add_test(NAME p2p_wait_plan COMMAND test_p2p_wait_plan)
set_tests_properties(p2p_wait_plan PROPERTIES LABELS unit)
