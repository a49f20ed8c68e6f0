// SPDX-License-Identifier: BSD-3-Clause
// Tells compute-sanitizer (memcheck) which bytes of the symmetric heap are allocated, through the
// NVTX memory API (the NVTX v3 headers of the CUDA toolkit, nvtx3/nvToolsExtMem.h): every heap
// window mapped into this process - this PE's and each node-local peer's - is a sub-allocator
// pool, and every live range (live_set.h) a region of each, named "gshmem PE p heap +0xOFF (N
// bytes)". memcheck then reports a kernel's access to heap memory no region covers (freed
// blocks, alignment padding, past an allocation's end) as an invalid access, where it would
// otherwise see one valid allocation: the heap. A put into a peer's window is checked the same.
//
// Without a tool attached (the usual case) the NVTX calls return at once: the first one,
// attach(), finds no tool and every later call returns without any NVTX call (see active()).
// GSHMEM_NVTX_HEAP=0 turns the registration off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gshmem/detail/live_table.h"

namespace gshmem::mem {

class SanitizerHeap {
 public:
  SanitizerHeap() = default;
  ~SanitizerHeap() { detach(); }
  SanitizerHeap(const SanitizerHeap&) = delete;
  SanitizerHeap& operator=(const SanitizerHeap&) = delete;

  // One pool of `extent` bytes at each non-null bases[pe], the `live` ranges registered in each.
  // false when no tool listens (or it refused the pools): nothing is registered, later calls do
  // nothing.
  bool attach(const std::vector<char*>& bases, uint64_t extent, const std::vector<gshmemi_live_range>& live);
  // The heap's mapped extent changed: the pools are registered again with the new extent (a
  // pool's size is fixed), and `live` in them.
  void resize(uint64_t extent, const std::vector<gshmemi_live_range>& live);
  void add(const gshmemi_live_range& r);  // a new live range, in every window
  void remove(uint64_t offset);           // the range starting at `offset`, from every window
  void detach();                          // the pools and their regions are unregistered
  // For a heap of cuMemMap'd windows (the VMM heap): registers nothing, and says so once when a
  // tool is attached. compute-sanitizer (CUDA 13.0) refuses such windows as pools
  // (nvtxMemHeapRegister: "one or more of the parameters is invalid", each refusal one more error in
  // its summary) and takes cudaMalloc'd ones (the IPC heap, GSHMEM_DISABLE_VMM=1).
  static void decline_vmm();
  bool active() const { return attached_; }

 private:
  int register_pools(uint64_t extent);  // the pools a tool took
  void register_ranges(const gshmemi_live_range* r, size_t n);
  bool attached_ = false;     // a tool took the pools
  void* domain_ = nullptr;    // nvtxDomainHandle_t; nullptr: NVTX's global domain
  std::vector<char*> bases_;  // [pe]: the window of PE pe, or nullptr
  std::vector<void*> pools_;  // [pe]: nvtxMemHeapHandle_t, or nullptr
};

}  // namespace gshmem::mem
