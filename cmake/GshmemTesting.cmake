# SPDX-License-Identifier: BSD-3-Clause
# gshmem_add_gpu_test(<name> <target> <npes> [args...]): ctest "<name>-<npes>"
# runs <target> on <npes> PEs through gshmrun. Label "gpu"; exit code 77 from
# the program (not enough GPUs) makes ctest report it as skipped, never passed.
#
# GSHMEM_TEST_WRAPPER: a command every PE of these tests runs under (gshmrun -n N --
# <wrapper> <test>), e.g. the CUDA sanitizer, one per PE:
#   cmake -DGSHMEM_TEST_WRAPPER="compute-sanitizer;--tool;memcheck;--error-exitcode;86" \
#         -DGSHMEM_TEST_TIMEOUT=600 build/default && ctest --preset gpu
# (reconfiguring only rewrites the test commands; nothing is rebuilt). GSHMEM_TEST_TIMEOUT:
# seconds a GPU test may run (gshmrun's --timeout; ctest allows 30 more). Half of it,
# GSHMEM_TEST_WAIT_TIMEOUT, is the GSHMEM_WAIT_TIMEOUT the test directories give their tests,
# so a hung device wait reports itself before gshmrun stops the job.
#
# gshmem_add_sim_test(<name> <target> <npes> <nodes> [args...]): ctest "<name>", <target> on
# <npes> PEs split into <nodes> simulated nodes (gshmrun --sim-nodes: PE i on node i * nodes /
# npes; docs/internode.md), so that PEs on different nodes reach each other through the proxy.
# The PEs may share GPUs (GT_SHARE_GPUS=1, e.g. under CUDA MPS), device waits are bounded by
# GSHMEM_TEST_WAIT_TIMEOUT, and one GPU test runs at a time (resource lock gshmem_gpus).
set(GSHMEM_TEST_WRAPPER "" CACHE STRING
    "Command (a ;-list) every PE of the GPU tests runs under, e.g. compute-sanitizer;--tool;memcheck")
set(GSHMEM_TEST_TIMEOUT 120 CACHE STRING "Seconds a GPU test may run (gshmrun --timeout)")
math(EXPR GSHMEM_TEST_WAIT_TIMEOUT "${GSHMEM_TEST_TIMEOUT} / 2")

function(gshmem_add_gpu_test name target npes)
  math(EXPR ctest_timeout "${GSHMEM_TEST_TIMEOUT} + 30")
  add_test(NAME ${name}-${npes}
           COMMAND $<TARGET_FILE:gshmrun> -n ${npes} --timeout ${GSHMEM_TEST_TIMEOUT} --
                   ${GSHMEM_TEST_WRAPPER} $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name}-${npes} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT ${ctest_timeout})
endfunction()

function(gshmem_add_sim_test name target npes nodes)
  math(EXPR ctest_timeout "${GSHMEM_TEST_TIMEOUT} + 30")
  add_test(NAME ${name}
           COMMAND $<TARGET_FILE:gshmrun> -n ${npes} --sim-nodes ${nodes} --timeout ${GSHMEM_TEST_TIMEOUT} --
                   ${GSHMEM_TEST_WRAPPER} $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT ${ctest_timeout}
                       RESOURCE_LOCK gshmem_gpus
                       ENVIRONMENT "GSHMEM_WAIT_TIMEOUT=${GSHMEM_TEST_WAIT_TIMEOUT};GT_SHARE_GPUS=1")
endfunction()
