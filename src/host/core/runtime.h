// SPDX-License-Identifier: BSD-3-Clause
// The host runtime's state: one instance per process (one PE per process).
// Lifecycle: init/init.cpp fills it, finalize tears it down; every other host
// file reads it through rt() after require_init().
// Core is the bottom floor (src/README.md): it names the bootstrap, the heap and the
// allocator of the floors above it but does not include them; Runtime's constructor and
// destructor are defined where those types are complete (init/runtime_members.cpp).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "gshmem/detail/device_state.h"
#include "host/core/call_memory.h"
#include "host/core/status.h"

namespace gshmem {

namespace bootstrap {
class Bootstrap;
}
namespace mem {
class Allocator;
class Heap;
class LiveTracker;
}  // namespace mem
namespace hproxy {
class Proxy;
}

struct Runtime {
  Runtime();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  bool initialized = false;
  int thread_level = GSHMEM_THREAD_SERIALIZED;  // host threads (gshmem_query_thread)
  int my_pe = 0;
  int n_pes = 1;
  int local_rank = 0;
  int local_size = 1;
  int device = 0;
  std::vector<int> local_pes;  // world PEs on this node, by local rank
  int n_nodes = 1;             // nodes of the job (distinct host ids)
  int max_node_size = 1;       // PEs of the job's most populated node (sizes the node teams' slots)
  std::vector<int> gpu_pes;    // world PEs on this PE's GPU (itself included), in PE order
  // [n_pes]: the lowest world PE of each PE's node (team node_run); empty with one node.
  std::vector<int> node_first;
  // This PE's rank and PE count on its physical host. Equal to local_rank / local_size unless
  // GSHMEM_HOSTID or GSHMEM_DISABLE_P2P split the host into simulated nodes: the GPU choice and
  // the CPUs a PE may spin on follow the host, the heap mapping follows the node.
  int host_local_rank = 0;
  int host_local_size = 1;

  std::unique_ptr<bootstrap::Bootstrap> boot;
  std::unique_ptr<mem::Heap> heap;
  std::unique_ptr<mem::Allocator> alloc;  // blocks of the heap (never null)
  // The live ranges for the device debug checks and compute-sanitizer (mem/live_track.h; never null).
  std::unique_ptr<mem::LiveTracker> live;
  // The inter-node proxy (host/proxy/): null when every peer's heap is mapped here.
  std::unique_ptr<hproxy::Proxy> proxy;
  std::mutex alloc_mutex;

  gshmemi_device_state dstate{};   // what every registered TU's __constant__ copy holds
  uint64_t* abort_host = nullptr;  // the abort word (host/core/abort.h): mapped pinned, one per init
  char** d_peer_base = nullptr;    // device array [n_pes]
  // Teams (src/host/team/): host mirror of the device table (index = gshmem_team_t
  // = slot; size 0 marks a free slot), the device table itself, the symmetric
  // slot region (a slot per team: control words sized for the slot's capacity, then
  // scratch; team/slot_plan.h) and each team's configuration. The world team's entry is
  // also in dstate.world.
  std::vector<gshmemi_team> teams;
  gshmemi_team* d_teams = nullptr;
  char* team_region = nullptr;
  std::vector<uint64_t> team_slot_offset;  // [slot + 1]: byte offsets in team_region
  std::vector<uint64_t> team_slot_ctrl;    // [slot]: bytes of control words
  std::vector<int> team_slot_capacity;     // [slot]: most members a team in the slot may have
  std::vector<gshmem_team_config_t> team_configs;
  // The teams' proxy sync words (team/slot_plan.h, proxy_sync_index), in jobs with a proxy:
  // mapped pinned host memory, GSHMEMI_TEAM_PROXY_SYNC_WORDS per slot; the proxy thread adds to
  // them, kernels read them through dstate.proxy.sync_words (the device view). Null without a
  // proxy.
  uint64_t* team_proxy_sync = nullptr;
  uint64_t* team_proxy_sync_d = nullptr;
  // Internal stream: host RMA, host AMOs, signals and waits, and host-side
  // collectives. Work is enqueued on it through internal_stream().
  cudaStream_t stream = nullptr;
  cudaEvent_t stream_done = nullptr;  // recorded on `stream` for other streams to wait on
  // Whether work may still be in flight on `stream`: set by internal_stream(),
  // cleared by gshmem_quiet and by an on-stream barrier that found the stream
  // idle (sync/barrier.cu). Host calls are serialised (GSHMEM_THREAD_SERIALIZED
  // at most), so relaxed accesses suffice.
  std::atomic<bool> stream_maybe_busy{false};
  // Results and inputs of the blocking host calls on `stream` (call_memory.h).
  CallMemory call_memory;
  // Memory of on-stream calls that must outlive the call until their stream has used it: pinned
  // staging of large wait arrays, and device memory where stream-ordered allocation fails
  // (call_memory.h).
  StreamCallMemory stream_call_memory;
};

Runtime& rt();

// The internal stream, for host operations that enqueue work on it; notes that
// work may be in flight there, which barriers on other streams must wait for.
inline cudaStream_t internal_stream() {
  Runtime& r = rt();
  r.stream_maybe_busy.store(true, std::memory_order_relaxed);
  return r.stream;
}

// This PE's part of `whole` (its GPU's SMs, or the CTAs of a kernel that fit on it at
// once) when PEs share the GPU: whole / their number, at least 1 (0 stays 0). The library
// sizes the grids of its collective kernels and the limit of collective launches with it,
// so that every sharing PE's kernel can be resident at once: a kernel that waits for
// another PE's, which cannot start, would hang.
inline int share_of_gpu(int whole) {
  const int n = static_cast<int>(rt().gpu_pes.size());
  if (n < 2 || whole < 1) return whole;
  return whole / n > 1 ? whole / n : 1;
}

// The CPUs of this node (std::thread::hardware_concurrency), and whether they are at least
// two per PE on the physical host (r.host_local_size): then a PE that waits by spinning takes no CPU another
// PE needs. Decides whether the bootstrap's waits (GSHMEM_BOOTSTRAP_SPIN_US) and the blocking
// host calls' done word (GSHMEM_HOST_SPIN_US) spin by default.
unsigned node_cpus();
bool cpus_to_spin(const Runtime& r);

// Makes this PE's GPU the calling thread's current device. The current device is
// per thread: a host call from another thread than gshmem_init's (which
// GSHMEM_THREAD_SERIALIZED allows) may find another GPU current, or none (GPU 0
// to the runtime), and would launch, copy and synchronise there - gshmem_free's
// drain would not wait for this PE's kernels. Left current after the call.
void use_pe_device(const char* call);
// Returns GSHMEM_ERROR_NOT_INITIALIZED with a log line naming `call` if gshmem
// is not initialised, GSHMEM_ERROR_ABORTED (gshmemx_abort) or GSHMEM_ERROR_PEER_FAILURE (a peer
// failed) with one while the abort word is set (host/core/abort.h); otherwise use_pe_device(call).
Status require_init(const char* call);
// For void API calls: the fatal path when not initialised.
void require_init_or_die(const char* call);
// Check 0 <= pe < n_pes; logs "<call>: PE <pe> out of range" otherwise.
Status check_pe(const char* call, int pe);

namespace device_state {
// Fill every registered TU's copy with rt().dstate (and remember it for TUs
// registered later). Called at init, after heap growth and at finalize.
Status publish(const gshmemi_device_state& s);
}  // namespace device_state

}  // namespace gshmem
