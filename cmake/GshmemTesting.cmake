# SPDX-License-Identifier: BSD-3-Clause
# gshmem_add_gpu_test(<name> <target> <npes> [args...]): ctest "<name>-<npes>"
# runs <target> on <npes> PEs through gshmrun. Label "gpu"; exit code 77 from
# the program (not enough GPUs) makes ctest report it as skipped, never passed.
function(gshmem_add_gpu_test name target npes)
  add_test(NAME ${name}-${npes}
           COMMAND $<TARGET_FILE:gshmrun> -n ${npes} --timeout 120 -- $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name}-${npes} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 150)
endfunction()
