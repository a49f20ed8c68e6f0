# SPDX-License-Identifier: BSD-3-Clause
# Device calls across (simulated) nodes, through the proxy (docs/internode.md): test_proxy on
# one node (its checks over NVLink), on 2 simulated nodes of 1 PE, on 2 nodes of 2 PEs (PEs
# share the GPUs; teams mix NVLink and proxy peers) and with GSHMEM_DISABLE_P2P=1; and API
# families' tests on 2 simulated nodes ("<test>-sim2"; collectives, reductions and teams also
# "<test>-sim2x2": 2 nodes of 2 PEs, the hierarchical steps).
gt_add_functional_test(proxy)

math(EXPR gt_proxy_timeout "${GSHMEM_TEST_TIMEOUT} + 30")
# The environment of a family's -sim2 / -sim2x2 tests (below; reduce.cmake).
function(gt_sim_quick t)
  set_property(TEST ${t}-sim2 ${t}-sim2x2 APPEND PROPERTY ENVIRONMENT "GT_SIM_NODES=2;GT_SIM_QUICK=1")
endfunction()

gshmem_add_sim_test(proxy-sim2 test_proxy 2 2)
gshmem_add_sim_test(proxy-sim2x2 test_proxy 4 2)
gshmem_add_gpu_test(proxy_nop2p test_proxy 2)
gt_gpu_test_properties(proxy_nop2p-2 "${GT_GPU_ENV};GSHMEM_DISABLE_P2P=1")
# One kernel waits for the proxy while the next is loaded: lazy loading would hang it
# (docs/internode.md, section 1); gshmrun sets CUDA_MODULE_LOADING=EAGER for such jobs.
# rma_pg and signal include the on-stream forms (through the ring in stream order:
# src/host/proxy/stream_ops.h).
foreach(t rma_put rma_get rma_pg amo signal wait sync litmus)
  if(TARGET test_${t})
    gshmem_add_sim_test(${t}-sim2 test_${t} 2 2)
  endif()
endforeach()

# The bulk path (docs/internode.md section 5, "Bulk data") with chunks of 4 KiB from 1 KiB on and
# 2 slots a pair: test_proxy's puts of up to 64 KiB + 3 and rma_put's large ones become tens of
# chunks that wait for slots, every byte checked as usual; and test_proxy with the path off
# (GSHMEM_PROXY_BULK=0), so that large payloads as active messages stay covered.
set(gt_bulk_stress "GSHMEM_PROXY_CHUNK=4K;GSHMEM_PROXY_BULK_MIN=1K;GSHMEM_PROXY_BULK_SLOTS=2")
gshmem_add_sim_test(proxy_bulk-sim2 test_proxy 2 2)
gshmem_add_sim_test(proxy_bulk-sim2x2 test_proxy 4 2)
set_property(TEST proxy_bulk-sim2 proxy_bulk-sim2x2 APPEND PROPERTY ENVIRONMENT "${gt_bulk_stress}")
if(TARGET test_rma_put)
  gshmem_add_sim_test(rma_put_bulk-sim2 test_rma_put 2 2)
  set_property(TEST rma_put_bulk-sim2 APPEND PROPERTY ENVIRONMENT "${gt_bulk_stress}")
endif()
gshmem_add_sim_test(proxy_am-sim2 test_proxy 2 2)
set_property(TEST proxy_am-sim2 APPEND PROPERTY ENVIRONMENT "GSHMEM_PROXY_BULK=0")

# One hardware queue per context (CUDA_DEVICE_MAX_CONNECTIONS=1, as Megatron-LM's recipes set):
# an apply stream in the application's context then queues behind test_signal's stream, whose
# next command waits for what the proxy applies - a hang in every run, with or without MPS
# (docs/internode.md section 9). GSHMEM_PROXY_APPLY_CONTEXT's default applies from a CUDA
# context of the proxy's own here, and the test passes.
if(TARGET test_signal)
  gshmem_add_sim_test(signal_one_queue-sim2 test_signal 2 2)
  set_property(TEST signal_one_queue-sim2 APPEND PROPERTY ENVIRONMENT "CUDA_DEVICE_MAX_CONNECTIONS=1")
endif()

# The same across network namespaces (scripts/netns-nodes.sh; docs/launch.md): gshmrun -H starts
# the PEs in namespaces with their own host names and addresses, so the bootstrap and UCX run
# over TCP between veth pairs, as between hosts. As root where ip(8) works; skipped (77) with the
# reason elsewhere.
function(gt_add_netns_test name target npes nodes)
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/launcher/netns_nodes.sh gpu ${nodes} ${npes}
                   $<TARGET_FILE:gshmrun> ${GSHMEM_TEST_TIMEOUT} $<TARGET_FILE:${target}>)
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT ${gt_proxy_timeout}
                       RESOURCE_LOCK gshmem_netns)
  gt_gpu_test_properties(${name} "${GT_GPU_ENV};GT_SHARE_GPUS=1")
endfunction()
gt_add_netns_test(proxy-netns2 test_proxy 2 2)
gt_add_netns_test(proxy-netns2x2 test_proxy 4 2)

# Collectives, reductions and teams across 2 simulated nodes (docs/internode.md section 7): 2
# nodes of 1 PE (every step through the proxy) and 2 nodes of 2 PEs (NVLink inside a node, the
# proxy between the leaders; the test teams include teams of one node, of both and split teams).
# GT_SIM_NODES tells the team test the layout (gshmrun puts PE i on node i * K / N);
# GT_SIM_QUICK=1 trims the forms, roots and sizes the tests sweep (every proxy operation costs
# tens of microseconds), so that each stays within about a minute.
# team_sync_dissemination: the same test built with GSHMEMI_ALLTOALL_SYNC_MAX=1, so that every sync
# takes the dissemination rounds, whose slots are counted in the proxy sync words too.
# (reduce and reducescatter: reduce.cmake, included after this file.)
foreach(t coll_bcast coll_collect coll_alltoall coll_ll team team_sync team_sync_dissemination)
  if(TARGET test_${t})
    gshmem_add_sim_test(${t}-sim2 test_${t} 2 2)
    gshmem_add_sim_test(${t}-sim2x2 test_${t} 4 2)
    gt_sim_quick(${t})
  endif()
endforeach()
