// SPDX-License-Identifier: BSD-3-Clause
// CUDA_DEVICE_MAX_CONNECTIONS and the proxy's apply stream (docs/internode.md section 9). CUDA
// runs a context's streams on that many hardware queues; a stream that shares one with an
// application stream waits behind that stream's commands. The proxy applies what other nodes
// send (puts, signals) on its own stream while a kernel of this PE may wait for exactly that:
// queued behind the kernel's stream (behind the next command of that stream, which waits for
// the kernel), the apply never runs, a hang. Under MPS a client gets fewer queues than CUDA's
// usual 8 unless it asks. CUDA reads the variable when it starts in the process: the library
// can set it only when gshmem_init comes first. The cure is the apply context: a CUDA context
// of the proxy's own has its own queues. The decisions, apart from the environment so that a
// unit test covers them (tests/unit/test_proxy_connections.cpp).
#pragma once

#include <cstdlib>

namespace gshmem::hproxy {

constexpr long kMinConnections = 4;  // fewer: warn (Megatron-LM's recipes set 1)
// What the library sets under MPS and what its messages advise: test_signal's on-stream
// pipeline across 2 simulated nodes under MPS hung in every run with the MPS client's default
// queues (15 of 15) and in none with 4, 8, 16 or 32 set (docs/internode.md section 9); 16
// leaves room for the application's own streams. gshmrun gives it to every PE with proxy peers
// (tools/gshmrun), since a PE that starts CUDA before gshmem_init fixes its value.
constexpr const char* kProxyConnections = "16";

struct ConnectionsAdvice {
  const char* set = nullptr;  // set the variable to this (it was unset)
  long too_few = 0;           // > 0: it asks for this many queues, fewer than kMinConnections
};

// `current`: the variable's value (nullptr: unset); `mps`: an MPS daemon serves this process.
inline ConnectionsAdvice connections_advice(const char* current, bool mps) {
  ConnectionsAdvice a;
  if (current == nullptr) {
    if (mps) a.set = kProxyConnections;
    return a;
  }
  char* end = nullptr;
  const long n = std::strtol(current, &end, 10);
  if (end != current && *end == '\0' && n >= 1 && n < kMinConnections) a.too_few = n;
  return a;
}

// Whether the proxy applies on streams of a CUDA context of its own (GSHMEM_PROXY_APPLY_CONTEXT:
// `setting` -1 auto, 0, 1). Measured on one H200 (docs/internode.md section 9): under MPS such a
// context runs beside the application's at the same speed (a stream write 4 us, an 8-byte copy
// 11 us, a kernel 9 us); outside MPS contexts take turns, and an apply then costs 0.15 ms with
// the application idle and up to 2 ms beside a busy kernel. So auto takes it under MPS, and
// where the application's context has so few queues that sharing one is certain.
enum class ApplyContext { kNo, kAsked, kMps, kFewConnections };

inline ApplyContext apply_context_choice(long setting, const char* connections, bool mps) {
  if (setting == 0) return ApplyContext::kNo;
  if (setting > 0) return ApplyContext::kAsked;
  if (mps) return ApplyContext::kMps;
  if (connections_advice(connections, false).too_few > 0) return ApplyContext::kFewConnections;
  return ApplyContext::kNo;
}

}  // namespace gshmem::hproxy
