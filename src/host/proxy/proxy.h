// SPDX-License-Identifier: BSD-3-Clause
// The inter-node proxy of one PE (docs/internode.md sections 2-5, 9): the channel devices write
// into, the network transport (a plugin), the CUDA stager, the engine and the thread that runs
// it. Made by gshmem_init when some peer's heap is not mapped here (another node, or
// GSHMEM_DISABLE_P2P); single-node jobs make none and load nothing.
//
// Lifecycle: setup() (collective: every PE agrees, or every PE fails naming a pair and the
// cause) -> the proxy thread runs Engine::progress() -> set_finalizing() before finalize's
// barrier -> destruction stops the thread, then destroys the engine, the transport, the stager
// and the channel.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "gshmem/detail/device_state.h"
#include "host/core/runtime.h"
#include "host/core/status.h"
#include "proxy/engine.h"
#include "proxy/host_queue.h"
#include "proxy/plugin_transport.h"

namespace gshmem::hproxy {

class Channel;
class CudaStager;

// What gshmem_init does when a peer fails (the failure monitor's path: log, and end the PE
// under GSHMEM_PEER_FAILURE_ABORT).
using PeerFailureFn = void (*)(int pe, const std::string& how);
// Where a team sync's proxied signal to the flag at a heap offset is counted (team::proxy_sync_word,
// passed in by gshmem_init: the teams sit above the proxy), or nullptr.
using SyncWordFn = uint64_t* (*)(uint64_t heap_offset);

class Proxy {
 public:
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  // Host calls (host_ops.h): queue an operation; its id completes once host_completed() > id.
  uint64_t push(const proxy::HostOp& op);
  uint64_t host_completed() const { return queue_.completed(); }
  // Waits (spinning briefly, then in short sleeps) until every host operation with an id
  // below `end` completed. Bounded by peer failure only: a failed peer's operations complete
  // as failed.
  void wait_host(uint64_t end) const;
  uint64_t host_pushed() const { return pushed_.load(std::memory_order_acquire); }

  // From now on a peer that goes away is expected (finalize): logged, not fatal.
  void set_finalizing() { finalizing_.store(true, std::memory_order_release); }
  gshmemi_proxy_channel device_channel() const;
  // GSHMEM_PROXY_TRACE: stops the thread (unless called on it) and writes the trace, once; at
  // exit for a process that did not finalize, else by the destructor.
  void stop_and_write_trace();

 private:
  friend Status setup(Runtime& r, PeerFailureFn on_failure, SyncWordFn sync_word);
  Proxy() = default;
  void run();  // the proxy thread (proxy_thread.cpp)
  void report_failures(size_t* seen);
  bool report_device_failure();
  void nap();
  void write_trace();
  // Traced: registers the at-exit writer (once a process) and marks this proxy as the one it
  // writes (proxy_thread.cpp).
  void trace_at_exit();

  int device_ = 0;
  int my_pe_ = 0;
  int n_pes_ = 0;
  PeerFailureFn on_failure_ = nullptr;
  // Declared in construction order; destroyed in reverse (engine, queue, transport, stager,
  // channel, trace) after the destructor has stopped the thread.
  std::unique_ptr<proxy::Trace> trace_;  // GSHMEM_PROXY_TRACE; nullptr: off
  std::unique_ptr<Channel> channel_;
  std::unique_ptr<CudaStager> stager_;
  std::unique_ptr<proxy::PluginTransport> transport_;
  proxy::SteadyClock clock_;
  proxy::HostQueue queue_;
  std::unique_ptr<proxy::Engine> engine_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finalizing_{false};
  std::atomic<uint64_t> pushed_{0};  // ids handed out: the next push's id
  std::vector<uint8_t> reported_;    // per PE: its failure went to on_failure_ already
  uint64_t nap_last_ns_ = 0;         // traced: how long the last nap slept
  bool nap_fd_ = false;              // traced: an fd ended it
  bool trace_written_ = false;       // traced: the trace went out (at exit or at the destructor)
};

// Whether this job needs a proxy: a PE on another node, or GSHMEM_DISABLE_P2P with several
// PEs. The same answer on every PE without communication (n_nodes and DISABLE_P2P agree).
bool needed(const Runtime& r);

// Before CUDA starts in this process (gshmem_init's first CUDA call), when needed(r): asks for
// eager module loading unless CUDA_MODULE_LOADING is set. With lazy loading (CUDA's default) the
// first launch of a kernel waits for the GPU's running kernels to finish; a running kernel that
// waits for the proxy (a quiet, a fetch, a signal another node sends) then waits for the apply
// stream, which that load holds: a deadlock (measured: a p and a quiet, with a second kernel
// launched behind them, never completed). setup() warns when the process runs lazily anyway.
void prefer_eager_loading(const Runtime& r);
// Also before CUDA starts, when needed(r). With the applies in the application's context under
// MPS (GSHMEM_PROXY_APPLY_CONTEXT=0): asks for 16 hardware queues (CUDA_DEVICE_MAX_CONNECTIONS,
// unless set), so that the proxy's apply stream is less likely to queue behind a kernel that
// waits for it. Set below 4: by default the applies get a context of their own, and a warning
// says what that costs outside MPS; with GSHMEM_PROXY_APPLY_CONTEXT=0, a warning of the hang
// (host/proxy/connections.h).
void prefer_connections(const Runtime& r);

// Collective over all PEs, after the heap exists: loads the transport
// (GSHMEM_REMOTE_TRANSPORT, GSHMEM_UCX_LIB), all-gathers the worker addresses, connects to every
// proxy peer, makes the channel (GSHMEM_PROXY_RING_ENTRIES), stager and engine, and starts the
// thread; then r.proxy is set and r.dstate.proxy filled (the caller publishes the state). On
// any PE's failure every PE logs the same line, naming a pair of PEs and the cause, and returns
// an error; nothing is left behind. `sync_word`: where the stager counts team sync signals
// (CudaStager::set_sync_words).
Status setup(Runtime& r, PeerFailureFn on_failure, SyncWordFn sync_word);

}  // namespace gshmem::hproxy
