// SPDX-License-Identifier: BSD-3-Clause
// Host-initiated operations on proxy peers (docs/internode.md section 2, "Host families"): the
// host RMA, AMO, signal and reduction calls hand operations on PEs whose heaps are not mapped
// here to the engine's host queue instead of a copy engine or a kernel. Host calls keep their
// order through the queue (the engine numbers them per target), so gshmem_fence stays free.
//
// Blocking calls wait for their operation's completion (applied at the target; a get's data in
// place here); _nbi calls return at once and complete at gshmem_quiet, which waits for every
// host operation issued before it. A failed operation (its target PE failed) makes the
// blocking call return false with a line naming the call and the PE; the proxy thread logs why.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem::hproxy {

// Whether `pe` is reached through the proxy: the proxy runs and `pe`'s heap is not mapped here.
bool is_proxy_peer(int pe);

struct Signal {
  uint64_t offset = 0;  // heap offset of the signal word at the target
  uint64_t value = 0;
  bool add = false;  // GSHMEM_SIGNAL_ADD (else SET)
};

// `local` is this process's memory, host or device; `offset` is a heap offset at `pe`. Strided
// forms move `nelems` elements of `elem` bytes, `lpitch` / `rpitch` bytes apart, one operation
// each. Contiguous transfers go in chunks of at most 1 MiB. `sig` (puts only, optional) is
// applied after all the data.
bool put(const char* call, int pe, uint64_t offset, size_t rpitch, const void* local, size_t lpitch, size_t nelems,
         size_t elem, bool blocking, const Signal* sig = nullptr);
bool get(const char* call, int pe, uint64_t offset, size_t rpitch, void* local, size_t lpitch, size_t nelems,
         size_t elem, bool blocking);
// A signal alone (gshmem_signal_op).
bool signal(const char* call, int pe, const Signal& sig, bool blocking);
// An AMO of `width` (4 or 8) bytes on heap offset `offset` at `pe`: `op` is a
// GSHMEMI_PROXY_OP_AMO_*; with `fetched` it fetches (the old value, zero-extended). Blocking.
bool amo(const char* call, int pe, uint64_t offset, unsigned op, unsigned width, uint64_t operand, uint64_t compare,
         uint64_t* fetched);
// Every host operation issued before has completed (host gshmem_quiet). No-op without a proxy.
void quiet();

// The line for strided on-stream forms, which cannot reach a proxy peer yet; returns false.
bool unsupported_on_stream(const char* call, int pe);

}  // namespace gshmem::hproxy
