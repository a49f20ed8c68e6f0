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
