# SPDX-License-Identifier: BSD-3-Clause
# gshmrun behaviour tests (label "launcher"): test_launcher (GoogleTest) runs
# gshmrun on launcher_probe and checks exit codes, timings, messages and the
# environment/fds each PE received. Host only: no GPU needed.
add_executable(launcher_probe ${CMAKE_CURRENT_LIST_DIR}/launcher_probe.cpp)
target_compile_options(launcher_probe PRIVATE -Wall -Wextra)

# Joins the real TCP bootstrap under gshmrun (end-to-end contract check).
add_executable(launcher_bootstrap_probe ${CMAKE_CURRENT_LIST_DIR}/launcher_bootstrap_probe.cpp)
target_link_libraries(launcher_bootstrap_probe PRIVATE gshmem_bootstrap)
target_compile_options(launcher_bootstrap_probe PRIVATE -Wall -Wextra)

# gshmem_init under gshmrun with one PE's environment changed (runs without a GPU).
add_executable(init_config_probe ${CMAKE_CURRENT_LIST_DIR}/init_config_probe.cpp)
target_link_libraries(init_config_probe PRIVATE gshmem)
target_compile_options(init_config_probe PRIVATE -Wall -Wextra)

add_executable(test_launcher ${CMAKE_CURRENT_LIST_DIR}/test_launcher.cpp ${CMAKE_CURRENT_LIST_DIR}/test_launcher_hosts.cpp)
# gshmem_bootstrap: the test decodes gshmrun's GSHMEM_UNIQUEID with the library's decoder.
target_link_libraries(test_launcher PRIVATE gshmem_bootstrap GTest::gtest GTest::gtest_main)
target_compile_definitions(test_launcher PRIVATE
  GSHMRUN_PATH="$<TARGET_FILE:gshmrun>"
  LAUNCHER_PROBE_PATH="$<TARGET_FILE:launcher_probe>"
  LAUNCHER_BOOTSTRAP_PROBE_PATH="$<TARGET_FILE:launcher_bootstrap_probe>"
  INIT_CONFIG_PROBE_PATH="$<TARGET_FILE:init_config_probe>")
target_compile_options(test_launcher PRIVATE -Wall -Wextra)
add_dependencies(test_launcher gshmrun launcher_probe launcher_bootstrap_probe init_config_probe)
gtest_discover_tests(test_launcher DISCOVERY_MODE PRE_TEST
                     PROPERTIES LABELS launcher TIMEOUT 60)

# The option parser's unit tests (tests/unit/test_gshmrun_options.cpp, built by
# tests/unit/CMakeLists.txt) need the parser library.
if(TARGET test_gshmrun_options)
  target_link_libraries(test_gshmrun_options PRIVATE gshmrun_options)
endif()
# And those of the launch across hosts (tests/unit/test_gshmrun_remote.cpp).
if(TARGET test_gshmrun_remote)
  target_link_libraries(test_gshmrun_remote PRIVATE gshmrun_options)
endif()

# A real multi-node job on this machine (scripts/netns-nodes.sh): PEs in network + UTS
# namespaces joined by veth pairs, as root; skipped (77) with the reason elsewhere. The two
# share the namespaces' names, hence the lock.
add_test(NAME netns_bootstrap
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/netns_nodes.sh bootstrap $<TARGET_FILE:gshmrun>
                 $<TARGET_FILE:launcher_probe> $<TARGET_FILE:launcher_bootstrap_probe>)
set_tests_properties(netns_bootstrap PROPERTIES LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gshmem_netns)
if(TARGET test_transport_ucx)
  add_test(NAME netns_ucx COMMAND ${CMAKE_CURRENT_LIST_DIR}/netns_nodes.sh ucx $<TARGET_FILE:test_transport_ucx>)
  set_tests_properties(netns_ucx PROPERTIES LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77 RESOURCE_LOCK gshmem_netns)
  if(GSHMEM_TEST_UCX_LIB)
    set_tests_properties(netns_ucx PROPERTIES ENVIRONMENT GSHMEM_UCX_LIB=${GSHMEM_TEST_UCX_LIB})
  endif()
endif()

# Open MPI across nodes without an address: an MPI program's gshmem_init goes through
# MPI_COMM_WORLD; a non-MPI one gets the error naming `mpirun -x GSHMEM_BOOTSTRAP_ADDR`.
# Runs without a GPU (the rendezvous comes before the GPU). Open MPI only, as gshmem reads it.
set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE AND MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI")
  add_executable(mpi_world_probe ${CMAKE_CURRENT_LIST_DIR}/mpi_world_probe.c)
  target_link_libraries(mpi_world_probe PRIVATE gshmem MPI::MPI_C)
  add_test(NAME mpi_world_rendezvous
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/mpi_world.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:mpi_world_probe>)
  set_tests_properties(mpi_world_rendezvous PROPERTIES LABELS unit TIMEOUT 150)
endif()
