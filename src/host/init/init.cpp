// SPDX-License-Identifier: BSD-3-Clause
// gshmem_init / gshmemx_init_attr / gshmem_finalize.
// Order: config -> bootstrap -> shared config -> node discovery -> GPU -> heap -> internal
// symmetric objects -> proxy (jobs with PEs on other nodes) -> device state -> failure monitor.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/env.h"
#include "bootstrap/init_exchange.h"
#include "host/core/abort.h"
#include "host/core/driver.h"
#include "host/launch/done_word.h"
#include "host/launch/preload.h"
#include "host/core/config.h"
#include "host/team/team.h"
#include "mpi_comm.h"
#include "host/core/runtime.h"
#include "bootstrap/bootstrap.h"
#include "host/mem/allocator.h"
#include "host/mem/heap.h"
#include "host/mem/live_track.h"
#include "host/proxy/host_ops.h"
#include "host/proxy/proxy.h"

namespace gshmem {
namespace {

// local_pes = PEs whose node id equals mine, in PE order; also the job's node count and its
// largest node, which size the node teams' slots (bootstrap/init_exchange.h). The node id is the
// host's unless GSHMEM_HOSTID or GSHMEM_DISABLE_P2P simulate nodes (docs/internode.md section 8);
// then a second discovery on the physical id gives the PEs of this host (`host_pes`), by which
// GPUs are chosen and shared: 2 simulated nodes of 2 PEs on a 2-GPU host use GPUs 0, 1, 0, 1.
// Whether that second all-gather runs is the same on every PE (check_shared_config compared it).
Status discover_node(Runtime& r, std::vector<int>* host_pes) {
  const config::Values& cfg = config::get();
  const bootstrap::HostId physical = bootstrap::local_host_id();
  const bool simulated = !cfg.hostid.empty() || cfg.disable_p2p;
  bootstrap::NodeInfo node;
  GSHMEM_TRY(bootstrap::discover_node(
      *r.boot, simulated ? bootstrap::node_host_id(physical, cfg.hostid, cfg.disable_p2p, r.my_pe) : physical, &node));
  r.local_pes = std::move(node.local_pes);
  r.local_rank = node.local_rank;
  r.local_size = static_cast<int>(r.local_pes.size());
  r.n_nodes = node.n_nodes;
  r.max_node_size = node.max_node_size;
  if (!simulated) {
    *host_pes = r.local_pes;
  } else {
    bootstrap::NodeInfo host;
    GSHMEM_TRY(bootstrap::discover_node(*r.boot, physical, &host));
    *host_pes = std::move(host.local_pes);
    r.host_local_rank = host.local_rank;
    r.host_local_size = static_cast<int>(host_pes->size());
    GSHMEM_LOG_INFO(
        "PE %d: simulated node %d of %d PEs (GSHMEM_HOSTID='%s', GSHMEM_DISABLE_P2P=%d); host rank %d of %d", r.my_pe,
        r.local_pes[0], r.local_size, cfg.hostid.c_str(), cfg.disable_p2p ? 1 : 0, r.host_local_rank,
        r.host_local_size);
    return GSHMEM_SUCCESS;
  }
  r.host_local_rank = r.local_rank;
  r.host_local_size = r.local_size;
  return GSHMEM_SUCCESS;
}

// Variables that size or shape symmetric state (the heap and how it grows, the team slots,
// their layout, the paths collectives take) must be equal on every PE: a difference would
// put members' calls at different offsets or on different paths, and hang them. Compared
// once, before anything is sized; every PE reports the first difference.
Status check_shared_config(Runtime& r) {
  const config::Values& cfg = config::get();
  // GSHMEM_DISABLE_P2P: both ends of a pair must choose the same transport. Whether GSHMEM_HOSTID
  // is set (its values differ by design): node discovery makes a second all-gather when it is.
  // GSHMEM_HEARTBEAT_TIMEOUT: a PE sends at the period its own bound sets, and a neighbour with a
  // shorter bound would find it silent.
  constexpr int kShared = 9;
  static const char* const kNames[kShared] = {
      "GSHMEM_TEAM_SCRATCH_SIZE",  "GSHMEM_MAX_TEAMS",   "GSHMEM_LL_MAX_BYTES", "GSHMEM_SYMMETRIC_SIZE",
      "GSHMEM_SYMMETRIC_SIZE_MAX", "GSHMEM_DISABLE_VMM", "GSHMEM_DISABLE_P2P",  "GSHMEM_HOSTID (set: 1, unset: 0)",
      "GSHMEM_HEARTBEAT_TIMEOUT"};
  const uint64_t mine[kShared] = {
      static_cast<uint64_t>(cfg.team_scratch_size),  static_cast<uint64_t>(cfg.max_teams),
      static_cast<uint64_t>(cfg.ll_max_bytes),       static_cast<uint64_t>(cfg.symmetric_size),
      static_cast<uint64_t>(cfg.symmetric_size_max), static_cast<uint64_t>(cfg.disable_vmm),
      static_cast<uint64_t>(cfg.disable_p2p),        cfg.hostid.empty() ? 0u : 1u,
      static_cast<uint64_t>(cfg.heartbeat_timeout)};
  return bootstrap::agree_on_values(*r.boot, "gshmem_init", mine, kNames, kShared);
}

// How long this PE spins in bootstrap collectives before it sleeps
// (GSHMEM_BOOTSTRAP_SPIN_US; auto: only while the node has two CPUs per local PE,
// so that a spinning PE never holds the CPU the PE it waits for needs: on a busy
// node, spinning makes the waits longer, not shorter).
void tune_bootstrap_waits(Runtime& r) {
  long long us = config::get().bootstrap_spin_us;
  if (us < 0) us = cpus_to_spin(r) ? 50 : 0;
  if (us > 1000000) us = 1000000;
  r.boot->set_wait_spin_us(static_cast<int>(us));
  GSHMEM_LOG_INFO("bootstrap: waits in collectives spin for %lld us before sleeping (%d PEs on this host, %u CPUs)", us,
                  r.host_local_size, node_cpus());
}

Status select_gpu(Runtime& r, cudaUUID_t* uuid) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    GSHMEM_LOG_ERROR(
        "gshmem_init: no CUDA GPU is visible to this PE (%s). gshmem needs one GPU per "
        "PE; check the driver and CUDA_VISIBLE_DEVICES.",
        e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    cudaGetLastError();
    return GSHMEM_ERROR_CUDA;
  }
  GSHMEM_TRY(cu::load(nullptr));
  CUcontext ctx = nullptr;
  cu::api().CtxGetCurrent(&ctx);
  if (ctx != nullptr) {  // the user chose a GPU already
    GSHMEM_CUDA_TRY("gshmem_init", cudaGetDevice(&r.device));
  } else {
    r.device = r.host_local_rank % count;  // the physical host's rank: simulated nodes share its GPUs
    GSHMEM_CUDA_TRY("gshmem_init", cudaSetDevice(r.device));
  }
  cudaDeviceProp prop;
  GSHMEM_CUDA_TRY("gshmem_init", cudaGetDeviceProperties(&prop, r.device));
  *uuid = prop.uuid;
  if (prop.major < 7) {
    GSHMEM_LOG_ERROR("gshmem_init: GPU %d (%s) has compute capability %d.%d; gshmem needs 7.0 or newer", r.device,
                     prop.name, prop.major, prop.minor);
    return GSHMEM_ERROR_UNSUPPORTED;
  }
  // The host's local rank (the one GPUs are chosen by; the simulated node's is logged by
  // discover_node), in the form tests/functional/gpu_share.sh reads.
  GSHMEM_LOG_INFO("PE %d: local rank %d of %d, GPU %d (%s, PCI %04x:%02x:%02x)", r.my_pe, r.host_local_rank,
                  r.host_local_size, r.device, prop.name, prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  return GSHMEM_SUCCESS;
}

// gpu_pes = the PEs of this host (`host_pes`: simulated nodes share GPUs) on this PE's GPU, by its UUID: a GPU's number
// depends on each process's CUDA_VISIBLE_DEVICES, and PEs may also have chosen one before init. PEs that share a GPU
// (time-slicing, or side by side under MPS) split its SMs between the library's kernels (share_of_gpu); the first of
// them says so once.
Status find_gpu_peers(Runtime& r, const cudaUUID_t& mine, const std::vector<int>& host_pes) {
  static_assert(sizeof(cudaUUID_t) == 16, "a GPU's id travels as 16 bytes");
  uint8_t id[16];
  memcpy(id, &mine, sizeof(id));
  GSHMEM_TRY(bootstrap::same_device_pes(*r.boot, id, host_pes, &r.gpu_pes));
  if (r.gpu_pes.size() < 2 || r.gpu_pes[0] != r.my_pe) return GSHMEM_SUCCESS;
  std::string pes;
  for (int pe : r.gpu_pes) pes += (pes.empty() ? "" : ", ") + std::to_string(pe);
  GSHMEM_LOG_WARN(
      "gshmem_init: PEs %s share one GPU (GPU %d of PE %d); they time-share it, or run side by side "
      "under MPS, and synchronise slowly. The library's collective kernels take 1/%zu of its SMs "
      "each. For speed, give each PE a GPU of its own.",
      pes.c_str(), r.device, r.my_pe, r.gpu_pes.size());
  return GSHMEM_SUCCESS;
}

// Symmetric allocation during init (same offsets on every PE, since every PE
// makes the same calls); logs when the heap is too small.
Status init_alloc(Runtime& r, uint64_t bytes, const char* what, char** out) {
  uint64_t off = 0;
  if (!r.alloc->allocate(bytes, 0, &off)) {
    GSHMEM_LOG_ERROR(
        "gshmem_init: the symmetric heap (%llu bytes) is too small for %s (%llu bytes); "
        "raise GSHMEM_SYMMETRIC_SIZE",
        (unsigned long long)r.alloc->capacity(), what, (unsigned long long)bytes);
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  *out = r.heap->base() + off;
  GSHMEM_CUDA_TRY("gshmem_init", cudaMemset(*out, 0, bytes));
  return GSHMEM_SUCCESS;
}

// The team slots (src/host/team/): one symmetric region for GSHMEM_MAX_TEAMS
// teams, reserved now so that making a team later involves only its parent's
// PEs. Grows the heap first if GSHMEM_SYMMETRIC_SIZE leaves no room for it.
Status setup_world_team(Runtime& r) {
  const uint64_t bytes = team::plan(r).region_bytes();
  const uint64_t need = r.alloc->growth_needed(bytes, 0);
  if (need != 0 && need != mem::Allocator::kNoGrowth && r.alloc->capacity() + need <= r.heap->max_size()) {
    GSHMEM_TRY(r.heap->grow(r.alloc->capacity() + need, *r.boot));
    r.alloc->grow(r.heap->size());
  }
  char* region = nullptr;
  GSHMEM_TRY(init_alloc(r, bytes,
                        "the team slots (GSHMEM_MAX_TEAMS x (GSHMEM_TEAM_SCRATCH_SIZE + control), the "
                        "predefined teams' scratch x4; or lower those)",
                        &region));
  return team::setup(r, region, hproxy::needed(r) && config::get().proxy_host_sync);
}

// Internal symmetric objects come first out of the heap, so they sit at the
// same offsets on every PE.
// The longest run of consecutive PEs whose mapped heaps are equally spaced (the
// VMM heap: one slot per node-local PE): device code computes their bases from
// the __constant__ state instead of loading them from the peer_base array.
void set_flat_layout(const std::vector<char*>& bases, gshmemi_device_state* s) {
  int best_first = 0, best_count = 0;
  for (int first = 0; first < static_cast<int>(bases.size()); ++first) {
    if (!bases[first]) continue;
    int count = 1;
    const bool has_next = first + 1 < static_cast<int>(bases.size()) && bases[first + 1] > bases[first];
    const uintptr_t stride = has_next ? bases[first + 1] - bases[first] : 0;
    while (has_next && first + count < static_cast<int>(bases.size()) && bases[first + count] &&
           reinterpret_cast<uintptr_t>(bases[first + count]) ==
               reinterpret_cast<uintptr_t>(bases[first]) + static_cast<uintptr_t>(count) * stride)
      ++count;
    if (count > best_count) {
      best_first = first;
      best_count = count;
    }
  }
  if (best_count < 2) return;  // nothing gained over the array
  s->flat_base = bases[best_first];
  s->flat_stride = static_cast<uint64_t>(bases[best_first + 1] - bases[best_first]);
  s->flat_first = best_first;
  s->flat_count = best_count;
}

Status setup_internal_objects(Runtime& r) {
  const config::Values& cfg = config::get();
  GSHMEM_TRY(setup_world_team(r));
  GSHMEM_CUDA_TRY("gshmem_init", cudaMalloc(&r.d_peer_base, sizeof(char*) * r.n_pes));
  GSHMEM_CUDA_TRY("gshmem_init", cudaMemcpy(r.d_peer_base, r.heap->peer_bases().data(), sizeof(char*) * r.n_pes,
                                            cudaMemcpyHostToDevice));
  // Host calls block on this stream, so its kernels (barriers, waits, AMOs, collectives)
  // should not queue behind the application's: at the greatest priority they take the next
  // free SM slot ahead of pending blocks of kernels on other streams.
  int least = 0, greatest = 0;
  if (cfg.high_priority_stream) GSHMEM_CUDA_TRY("gshmem_init", cudaDeviceGetStreamPriorityRange(&least, &greatest));
  GSHMEM_CUDA_TRY("gshmem_init", cudaStreamCreateWithPriority(&r.stream, cudaStreamNonBlocking, greatest));
  GSHMEM_LOG_INFO("PE %d: internal stream priority %d (GSHMEM_HIGH_PRIORITY_STREAM=%d)", r.my_pe, greatest,
                  cfg.high_priority_stream ? 1 : 0);
  GSHMEM_CUDA_TRY("gshmem_init", cudaEventCreateWithFlags(&r.stream_done, cudaEventDisableTiming));
  // Every kernel a host call may launch, loaded now: loaded at its first launch, it would wait
  // for whatever kernels run then (host/launch/preload.h).
  GSHMEM_TRY(preload::all("gshmem_init"));
  // Room for the small calls now, so that the first host AMO or g allocates nothing.
  if (!r.call_memory.pinned("gshmem_init", 256) || !r.call_memory.device("gshmem_init", 256))
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  if (host_spin_us() > 0) r.call_memory.done_word();  // (a warning if not: calls then synchronise)
  // The abort word (host/core/abort.h): the device reads it through a mapped pointer.
  GSHMEM_CUDA_TRY("gshmem_init", cudaHostAlloc(reinterpret_cast<void**>(&r.abort_host), sizeof(uint64_t),
                                               cudaHostAllocMapped | cudaHostAllocPortable));
  __atomic_store_n(r.abort_host, uint64_t{0}, __ATOMIC_SEQ_CST);
  uint64_t* d_abort = nullptr;
  GSHMEM_CUDA_TRY("gshmem_init", cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_abort), r.abort_host, 0));
  abort_word::attach(r.abort_host);
  GSHMEM_CUDA_TRY("gshmem_init", cudaDeviceSynchronize());
  r.live->start(r.heap->peer_bases(), r.heap->size(), r.stream, cfg.nvtx_heap,
                std::strcmp(r.heap->kind(), "cuda-vmm") == 0);

  gshmemi_device_state& s = r.dstate;
  s = {};
  s.abort_word = d_abort;
  s.version = GSHMEMI_DEVICE_STATE_VERSION;
  s.struct_size = sizeof(s);
  s.my_pe = r.my_pe;
  s.n_pes = r.n_pes;
  s.heap_base = r.heap->base();
  s.heap_size = r.heap->size();
  s.peer_base = r.d_peer_base;
  s.teams = r.d_teams;
  s.max_teams = static_cast<int32_t>(r.teams.size());
  s.world = r.teams[GSHMEM_TEAM_WORLD];
  s.wait_timeout_ns = cfg.wait_timeout > 0 ? static_cast<uint64_t>(cfg.wait_timeout) * 1000000000ull : 0;
  s.debug_checks = cfg.debug_checks ? 1 : 0;
  s.live_table = r.live->device_word();
  set_flat_layout(r.heap->peer_bases(), &s);
  // With a proxy the state is published once the proxy's channel is in it (init_steps).
  return hproxy::needed(r) ? GSHMEM_SUCCESS : device_state::publish(s);
}

void on_peer_failure(int dead_pe, const std::string& how) {
  // First: this PE's device waits stop within milliseconds and name the PE (abort word).
  const bool first = abort_word::raise(GSHMEMI_ABORT_PEER, dead_pe);
  // The bootstrap's monitor and the proxy may both report a failure: the first one acts.
  if (!first && abort_word::status() == GSHMEM_ERROR_PEER_FAILURE) return;
  if (config::get().peer_failure_abort) {
    GSHMEM_LOG_ERROR("PE %d failed (%s); ending this PE in 3 s", dead_pe, how.c_str());
    // Give the launcher (gshmrun, torchrun, mpirun) time to see the dead PE first, so it
    // reports that PE as the cause rather than this one. On a thread of its own: the caller
    // (the proxy's thread) goes on meanwhile and prints what the released kernels report.
    std::thread([dead_pe, how] {
      std::this_thread::sleep_for(std::chrono::seconds(3));
      fatal(
          "PE %d failed (%s); ending this PE too so the job does not hang. "
          "(GSHMEM_PEER_FAILURE_ABORT=0 keeps it running.)",
          dead_pe, how.c_str());
    }).detach();
    return;
  }
  GSHMEM_LOG_ERROR("PE %d failed (%s); calls that need it will not complete", dead_pe, how.c_str());
}

void teardown(Runtime& r) {
  if (r.dstate.version) {
    r.dstate.version = 0;
    device_state::publish(r.dstate);
  }
  r.proxy.reset();  // its thread stops first; then engine, transport, stager, channel
  if (r.stream_done) cudaEventDestroy(r.stream_done);
  r.stream_done = nullptr;
  if (r.stream) cudaStreamDestroy(r.stream);
  if (r.d_peer_base) cudaFree(r.d_peer_base);
  r.call_memory.release();
  r.stream_call_memory.release();
  team::teardown(r);
  r.stream = nullptr;
  r.stream_maybe_busy.store(false, std::memory_order_relaxed);
  r.d_peer_base = nullptr;
  r.live->stop();  // before the heap's windows are unmapped: NVTX's pools lie in them
  r.heap.reset();
  *r.alloc = mem::Allocator();
  r.boot.reset();
  // No thread sets the abort word any more (the proxy's and the monitor's have stopped).
  abort_word::attach(nullptr);
  if (r.abort_host) cudaFreeHost(r.abort_host);
  r.abort_host = nullptr;
  r.local_pes.clear();
  r.gpu_pes.clear();
  r.n_nodes = r.max_node_size = 1;
  r.host_local_rank = 0;
  r.host_local_size = 1;
  r.initialized = false;
}

Status connect_bootstrap(Runtime& r, unsigned flags, const gshmemx_init_attr_t* attr) {
  bootstrap::ConnectOptions opts;
  opts.timeout_s = static_cast<int>(config::get().bootstrap_timeout);
  gshmemx_init_attr_t from_mpi;
  if (flags & GSHMEMX_INIT_WITH_MPI_COMM) {  // rank, size and a unique id from the MPI communicator
    GSHMEM_TRY(mpi::uniqueid_attr_from_comm(flags, attr, &from_mpi));
    flags = GSHMEMX_INIT_WITH_UNIQUEID;
    attr = &from_mpi;
  }
  if (flags & GSHMEMX_INIT_WITH_UNIQUEID) {
    if (!attr || attr->version != GSHMEMX_INIT_ATTR_VERSION || attr->nranks < 1 || attr->rank < 0 ||
        attr->rank >= attr->nranks) {
      GSHMEM_LOG_ERROR(
          "gshmemx_init_attr: invalid attributes (attr=%p, rank %d, nranks %d); fill them "
          "with gshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr)",
          (const void*)attr, attr ? attr->rank : -1, attr ? attr->nranks : -1);
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    r.my_pe = attr->rank;
    r.n_pes = attr->nranks;
    log::set_identity(r.my_pe, r.n_pes);
    return bootstrap::connect(attr->uniqueid, attr->rank, attr->nranks, opts, &r.boot);
  }
  if (flags != GSHMEMX_INIT_DEFAULT) {
    GSHMEM_LOG_ERROR("gshmemx_init_attr: unknown flags 0x%x", flags);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  bootstrap::EnvInfo env;
  const Status st = bootstrap::detect_from_env(&env, nullptr, /*defer_missing_address=*/true);
  if (st != GSHMEM_SUCCESS && env.address_missing) {
    // Across nodes, and the launcher does not say where rank 0 runs (Open MPI): a program that
    // initialised MPI gets the id through MPI_COMM_WORLD, as with GSHMEMX_INIT_WITH_MPI_COMM;
    // others get the message that says which address to pass.
    if (!mpi::world_ready()) {
      GSHMEM_LOG_ERROR("%s", env.address_error.c_str());
      return st;
    }
    GSHMEM_LOG_INFO(
        "bootstrap: %s job across nodes without GSHMEM_BOOTSTRAP_ADDR: the rendezvous goes through "
        "MPI_COMM_WORLD",
        env.launcher.c_str());
    gshmemx_init_attr_t from_mpi;
    GSHMEM_TRY(mpi::uniqueid_attr_from_world(&from_mpi));
    if (from_mpi.rank != env.rank || from_mpi.nranks != env.size) {
      GSHMEM_LOG_ERROR("gshmem_init: MPI_COMM_WORLD says rank %d of %d, the %s variables rank %d of %d", from_mpi.rank,
                       from_mpi.nranks, env.launcher.c_str(), env.rank, env.size);
      return GSHMEM_ERROR_MISMATCH;
    }
    env.id = from_mpi.uniqueid;
  } else {
    GSHMEM_TRY(st);
  }
  r.my_pe = env.rank;
  r.n_pes = env.size;
  log::set_identity(r.my_pe, r.n_pes);
  GSHMEM_LOG_INFO("bootstrap: %s, PE %d of %d", env.launcher.c_str(), env.rank, env.size);
  return bootstrap::connect(env.id, env.rank, env.size, opts, &r.boot);
}

Status init_steps(Runtime& r, unsigned flags, const gshmemx_init_attr_t* attr) {
  GSHMEM_TRY(config::load());
  GSHMEM_TRY(connect_bootstrap(r, flags, attr));
  GSHMEM_TRY(check_shared_config(r));  // first: node discovery depends on two of its values
  std::vector<int> host_pes;
  GSHMEM_TRY(discover_node(r, &host_pes));
  hproxy::prefer_eager_loading(r);  // before this process's first CUDA call (select_gpu)
  hproxy::prefer_connections(r);
  tune_bootstrap_waits(r);
  cudaUUID_t uuid{};
  Status gpu = select_gpu(r, &uuid);
  bool all_ok = false;
  GSHMEM_TRY(mem::all_agree(*r.boot, gpu == GSHMEM_SUCCESS, &all_ok));
  if (!all_ok) {
    if (gpu == GSHMEM_SUCCESS) GSHMEM_LOG_ERROR("gshmem_init: another PE could not set up its GPU (see its message)");
    return gpu != GSHMEM_SUCCESS ? gpu : GSHMEM_ERROR_PEER_FAILURE;
  }
  GSHMEM_TRY(find_gpu_peers(r, uuid, host_pes));
  tune_host_spin(r);
  const config::Values& cfg = config::get();
  mem::HeapParams hp;
  hp.device = r.device;
  hp.my_pe = r.my_pe;
  hp.n_pes = r.n_pes;
  hp.local_pes = r.local_pes;
  hp.initial_size = cfg.symmetric_size;
  hp.max_size = cfg.symmetric_size_max;
  hp.job_key = r.boot->job_key();
  GSHMEM_TRY(mem::create_heap(hp, *r.boot, &r.heap));
  *r.alloc = mem::Allocator(r.heap->size());
  // Every block, the library's own first (the team slots), is a live range of the device's table
  // and of compute-sanitizer's pools (mem/live_track.h).
  r.alloc->set_listener([&r](bool live, uint64_t offset, uint64_t bytes) {
    if (live)
      r.live->added(offset, bytes);
    else
      r.live->removed(offset);
  });
  GSHMEM_LOG_INFO("symmetric heap: %s, %llu bytes (may grow to %llu)", r.heap->kind(),
                  (unsigned long long)r.heap->size(), (unsigned long long)r.heap->max_size());
  Status st = setup_internal_objects(r);
  GSHMEM_TRY(mem::all_agree(*r.boot, st == GSHMEM_SUCCESS, &all_ok));
  if (!all_ok) return st != GSHMEM_SUCCESS ? st : GSHMEM_ERROR_PEER_FAILURE;
  if (hproxy::needed(r)) {
    // Collective, and its failures are agreed: every PE returns here alike.
    GSHMEM_TRY(hproxy::setup(r, on_peer_failure, team::proxy_sync_word));
    st = device_state::publish(r.dstate);
    GSHMEM_TRY(mem::all_agree(*r.boot, st == GSHMEM_SUCCESS, &all_ok));
    if (!all_ok) return st != GSHMEM_SUCCESS ? st : GSHMEM_ERROR_PEER_FAILURE;
  }
  r.boot->set_heartbeat(static_cast<int>(cfg.heartbeat_timeout));
  GSHMEM_TRY(r.boot->start_failure_monitor(on_peer_failure));
  return GSHMEM_SUCCESS;
}

Status init(unsigned flags, const gshmemx_init_attr_t* attr) {
  Runtime& r = rt();
  if (r.initialized) {
    GSHMEM_LOG_WARN("gshmem_init: already initialized; ignoring this call");
    return GSHMEM_SUCCESS;
  }
  Status st = init_steps(r, flags, attr);
  if (st != GSHMEM_SUCCESS) {
    teardown(r);
    return st;
  }
  r.initialized = true;
  r.thread_level = GSHMEM_THREAD_SERIALIZED;
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API void gshmem_init(void) {
  Status st = init(GSHMEMX_INIT_DEFAULT, nullptr);
  if (st != GSHMEM_SUCCESS) fatal("gshmem_init failed: %s (%s)", status_message(st), status_name(st));
}

GSHMEM_API int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t* attr) { return init(flags, attr); }

// Thread level: the host API is safe for one host thread at a time (SERIALIZED);
// device code is unaffected (any GPU thread may call the device API).
GSHMEM_API int gshmem_init_thread(int requested, int* provided) {
  if (requested < GSHMEM_THREAD_SINGLE || requested > GSHMEM_THREAD_MULTIPLE) {
    GSHMEM_LOG_ERROR(
        "gshmem_init_thread: requested thread level %d is not one of GSHMEM_THREAD_SINGLE (%d) .. "
        "GSHMEM_THREAD_MULTIPLE (%d); not initialising",
        requested, GSHMEM_THREAD_SINGLE, GSHMEM_THREAD_MULTIPLE);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const Status st = init(GSHMEMX_INIT_DEFAULT, nullptr);
  if (st != GSHMEM_SUCCESS) return st;
  if (requested < rt().thread_level) rt().thread_level = requested;
  if (provided) *provided = rt().thread_level;
  return GSHMEM_SUCCESS;
}

GSHMEM_API void gshmem_query_thread(int* provided) {
  if (provided) *provided = rt().thread_level;
}

GSHMEM_API void gshmem_finalize(void) {
  Runtime& r = rt();
  if (!r.initialized) {
    GSHMEM_LOG_WARN("gshmem_finalize: gshmem is not initialized; nothing to do");
    return;
  }
  use_pe_device("gshmem_finalize");
  // After an abort the proxy's operations may never complete (a peer failed): not waited for.
  const bool aborted = abort_word::value() != 0;
  // Host operations through the proxy are complete; from now on a peer closing its endpoints
  // is expected (PEs leave the barrier below at different times), not a failure.
  if (!aborted) hproxy::quiet();
  if (r.proxy) r.proxy->set_finalizing();
  // Every PE's GPU work is finished before any PE unmaps memory others may read.
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("gshmem_finalize: this PE's GPU reported an error: %s", cudaGetErrorString(e));
  if (r.boot->barrier() != GSHMEM_SUCCESS)
    GSHMEM_LOG_ERROR("gshmem_finalize: not every PE reached finalize; tearing down anyway");
  r.boot->finalize();
  teardown(r);
}

GSHMEM_API int gshmemx_get_uniqueid(gshmemx_uniqueid_t* id) {
  if (!id) {
    GSHMEM_LOG_ERROR("gshmemx_get_uniqueid: id is NULL");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  GSHMEM_TRY(config::load());
  return bootstrap::create_uniqueid(id);
}

GSHMEM_API int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t* id,
                                              gshmemx_init_attr_t* attr) {
  if (!id || !attr || nranks < 1 || rank < 0 || rank >= nranks) {
    GSHMEM_LOG_ERROR(
        "gshmemx_set_attr_uniqueid_args: invalid arguments (rank %d, nranks %d, id %p, attr %p): "
        "need 0 <= rank < nranks and non-NULL pointers",
        rank, nranks, (const void*)id, (const void*)attr);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  attr->version = GSHMEMX_INIT_ATTR_VERSION;
  attr->rank = rank;
  attr->nranks = nranks;
  attr->uniqueid = *id;
  return GSHMEM_SUCCESS;
}

}  // extern "C"
