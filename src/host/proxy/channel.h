// SPDX-License-Identifier: BSD-3-Clause
// The proxy channel's memory (docs/internode.md section 3): the ring and the proxy's control
// words in pinned host memory mapped for the GPU, the producers' counters in device memory.
// Devices see it through gshmemi_proxy_channel (device pointers); the engine through
// proxy::RingRegion (host pointers to the same bytes).
#pragma once

#include <cstdint>
#include <memory>

#include "gshmem/detail/device_state.h"
#include "gshmem/detail/proxy_abi.h"
#include "host/core/status.h"
#include "proxy/ring.h"

namespace gshmem::hproxy {

class Channel {
 public:
  // `entries`: a power of two (GSHMEM_PROXY_RING_ENTRIES). Logs "<call>: ..." and fails on a
  // CUDA error or an entry count that is not a power of two.
  static Status create(const char* call, uint64_t entries, std::unique_ptr<Channel>* out);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  proxy::RingRegion region() const;      // host addresses, for the engine
  gshmemi_proxy_channel device() const;  // device addresses, for device_state.proxy
  uint64_t fault() const { return __atomic_load_n(fault_h_, __ATOMIC_ACQUIRE); }
  // A device thread's failure on the proxy path (proxy_abi.h, GSHMEMI_PROXY_DIAG_*): its code
  // (0: none) and ticket, in the words beside `fault`.
  uint64_t diag() const { return __atomic_load_n(fault_h_ + GSHMEMI_PROXY_DIAG_WORD, __ATOMIC_ACQUIRE); }
  uint64_t diag_ticket() const { return __atomic_load_n(fault_h_ + GSHMEMI_PROXY_DIAG_WORD + 1, __ATOMIC_ACQUIRE); }

 private:
  Channel() = default;

  unsigned log2_ = 0;
  uint64_t* ring_h_ = nullptr;  // cudaHostAlloc: 8 << log2_ words
  uint64_t* ring_d_ = nullptr;
  uint64_t* ctrl_h_ = nullptr;  // cudaHostAlloc: released, completed, fault, a 64-B line each
  uint64_t* ctrl_d_ = nullptr;
  uint64_t* released_h_ = nullptr;
  uint64_t* completed_h_ = nullptr;
  uint64_t* fault_h_ = nullptr;
  uint64_t* counters_d_ = nullptr;  // cudaMalloc: issued, released_cache, completed_cache, a line each
};

}  // namespace gshmem::hproxy
