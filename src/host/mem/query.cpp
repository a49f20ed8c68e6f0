// SPDX-License-Identifier: BSD-3-Clause
// Questions about the symmetric heap: which PEs and addresses this PE reaches by load and
// store (gshmem_pe_accessible, gshmem_addr_accessible, gshmem_ptr), and the debug check
// that an address lies in the heap.
#include <cstddef>
#include <cstdio>

#include <mutex>

#include "host/core/config.h"
#include "host/core/runtime.h"
#include "host/mem/allocator.h"
#include "host/mem/heap.h"

namespace gshmem {

Status check_symmetric(const char* call, const void* p, size_t bytes) {
  const Runtime& r = rt();
  const char* a = static_cast<const char*>(p);
  const char* base = r.heap->base();
  if (a >= base && bytes <= r.heap->size() && a - base <= (ptrdiff_t)(r.heap->size() - bytes))
    return config::get().debug_checks ? check_live(call, -1, p, bytes) : GSHMEM_SUCCESS;
  GSHMEM_LOG_ERROR(
      "%s: [%p, +%zu bytes) is not inside the symmetric heap [%p, %p); remote addresses "
      "must come from gshmem_malloc/calloc/align",
      call, p, bytes, (const void*)base, (const void*)(base + r.heap->size()));
  return GSHMEM_ERROR_INVALID_VALUE;
}

Status check_live(const char* call, int pe, const void* p, size_t bytes) {
  Runtime& r = rt();
  const char* base = r.heap->base();
  const uint64_t off = static_cast<uint64_t>(static_cast<const char*>(p) - base);
  uint64_t start = 0, requested = 0;
  mem::Allocator::Span span;
  {
    std::lock_guard<std::mutex> lock(r.alloc_mutex);
    span = r.alloc->classify(off, bytes, &start, &requested);
  }
  if (span == mem::Allocator::Span::kLive) return GSHMEM_SUCCESS;
  char target[48] = "";
  if (pe >= 0) snprintf(target, sizeof(target), "target PE %d: ", pe);
  if (span == mem::Allocator::Span::kFree)
    GSHMEM_LOG_ERROR(
        "%s: %s[%p, +%zu bytes) lies in symmetric heap memory that is not allocated (freed by gshmem_free, or "
        "never allocated) (GSHMEM_DEBUG_CHECKS); pass addresses of live allocations",
        call, target, p, bytes);
  else
    GSHMEM_LOG_ERROR(
        "%s: %s[%p, +%zu bytes) runs %llu bytes past the end of its allocation [%p, +%llu bytes) "
        "(GSHMEM_DEBUG_CHECKS); keep the access inside the allocation",
        call, target, p, bytes, static_cast<unsigned long long>(off + bytes - (start + requested)),
        static_cast<const void*>(base + start), static_cast<unsigned long long>(requested));
  return GSHMEM_ERROR_INVALID_VALUE;
}

}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API int gshmem_pe_accessible(int pe) {
  const Runtime& r = rt();
  return r.initialized && pe >= 0 && pe < r.n_pes && r.heap->peer_base(pe) != nullptr ? 1 : 0;
}

GSHMEM_API int gshmem_addr_accessible(const void* addr, int pe) {
  const Runtime& r = rt();
  const char* a = static_cast<const char*>(addr);
  return gshmem_pe_accessible(pe) && a >= r.heap->base() && a < r.heap->base() + r.heap->size() ? 1 : 0;
}

GSHMEM_API void* gshmemi_host_ptr(const void* dest, int pe) {
  if (require_init("gshmem_ptr") != GSHMEM_SUCCESS || check_pe("gshmem_ptr", pe) != GSHMEM_SUCCESS) return nullptr;
  const Runtime& r = rt();
  const char* a = static_cast<const char*>(dest);
  if (a < r.heap->base() || a >= r.heap->base() + r.heap->size()) return nullptr;
  char* peer = r.heap->peer_base(pe);
  return peer ? peer + (a - r.heap->base()) : nullptr;
}

}  // extern "C"
