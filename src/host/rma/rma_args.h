// SPDX-License-Identifier: BSD-3-Clause
// Host RMA requests: argument checks and the resolution of the remote side.
// Every host RMA form (contiguous, strided, blocking, _nbi, _on_stream, p/g)
// is one Request; resolve() checks it and turns the symmetric address on the
// target PE into this process's mapping of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem::rma {

struct Request {
  const char* call;  // the C name the user called
  bool put;          // put: local source -> symmetric dest on pe; get: the reverse
  void* dest;
  const void* source;
  ptrdiff_t dst, sst;  // element strides of dest and source (>= 1)
  size_t nelems;
  size_t elem;  // bytes per element
  int pe;
};

// Both sides as addresses in this process; pitches in bytes.
struct Transfer {
  char* dst;
  const char* src;
  size_t dst_pitch, src_pitch;
  size_t nelems, elem;
  const void* local;  // the caller's local buffer (for the kernel path's accessibility check)
  // The target's heap is not mapped here: it is reached through the proxy (host/proxy/
  // host_ops.h). Then dst/src hold only the local side and remote_offset is the heap offset.
  bool proxy = false;
  uint64_t remote_offset = 0;
};

// Checks (always, host calls are slow anyway): initialised, PE in range and
// reachable (mapped here, or a proxy peer: out->proxy), strides >= 1, the strided range fits the address space, the
// remote range lies inside the symmetric heap, the local pointer is not NULL,
// and source and destination do not overlap (exact for equal strides).
// On a violation logs one line naming the call, the target PE, the cause and
// the remedy, and returns false (the call then does nothing).
bool resolve(const Request& r, Transfer* out);

}  // namespace gshmem::rma
