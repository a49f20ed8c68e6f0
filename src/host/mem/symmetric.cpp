// SPDX-License-Identifier: BSD-3-Clause
// gshmem_malloc / calloc / align / free: collective, deterministic, and the
// same answer on every PE. Each call first all-gathers what it was asked to do
// (which call, its arguments), which both synchronises the PEs and catches PEs
// that made different calls or passed different arguments. A request of 0 bytes
// performs no action and returns NULL (OpenSHMEM), without communicating.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "host/core/runtime.h"
#include "bootstrap/bootstrap.h"
#include "host/mem/allocator.h"
#include "host/mem/heap.h"
#include "host/mem/live_track.h"
#include "host/core/config.h"

namespace gshmem {
namespace {

// What a call asks of the heap. The op is part of what the PEs agree on: calls
// that take different paths (calloc's closing barrier, free against malloc of a
// size equal to the block's offset) must not pass for the same request.
enum class Op : uint32_t { kMalloc, kAlign, kCalloc, kFree, kRealloc };
constexpr uint64_t kNotLive = ~0ull;   // the pointer is not a live block
constexpr uint64_t kOverflow = ~0ull;  // gshmem_calloc: count * size overflows

struct Request {
  Op op;
  uint32_t unused;
  uint64_t size;   // bytes (gshmem_calloc: kOverflow; gshmem_free: 0)
  uint64_t other;  // kAlign: the alignment; kFree, kRealloc: the block's heap offset or kNotLive
};

Request request(Op op, uint64_t size, uint64_t other = 0) { return Request{op, 0, size, other}; }

// "an allocation of 4096 bytes aligned to 256", "gshmem_free of the block at heap offset 4096", ...
std::string describe(const Request& q) {
  char buf[128];
  const auto size = static_cast<unsigned long long>(q.size), other = static_cast<unsigned long long>(q.other);
  switch (q.op) {
    case Op::kMalloc:
      snprintf(buf, sizeof(buf), "an allocation of %llu bytes", size);
      break;
    case Op::kAlign:
      snprintf(buf, sizeof(buf), "an allocation of %llu bytes aligned to %llu", size, other);
      break;
    case Op::kCalloc:
      if (q.size == kOverflow)
        snprintf(buf, sizeof(buf), "gshmem_calloc with count x size overflowing");
      else
        snprintf(buf, sizeof(buf), "gshmem_calloc of %llu bytes", size);
      break;
    case Op::kFree:
      if (q.other == kNotLive)
        snprintf(buf, sizeof(buf), "gshmem_free of a pointer that is not a live block");
      else
        snprintf(buf, sizeof(buf), "gshmem_free of the block at heap offset %llu", other);
      break;
    case Op::kRealloc:
      if (q.other == kNotLive)
        snprintf(buf, sizeof(buf), "gshmem_realloc to %llu bytes of a pointer that is not a live block", size);
      else
        snprintf(buf, sizeof(buf), "gshmem_realloc of the block at heap offset %llu to %llu bytes", other, size);
      break;
  }
  return buf;
}

// True when every PE made the same request; otherwise logs the first
// difference (on every PE, so each log names the culprit).
Status agree_on(const char* call, const Request& mine, bool* same) {
  Runtime& r = rt();
  std::vector<Request> all(r.n_pes);
  GSHMEM_TRY(r.boot->allgather(&mine, all.data(), sizeof(Request)));
  *same = true;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    const Request& q = all[pe];
    if (q.op == mine.op && q.size == mine.size && q.other == mine.other) continue;
    GSHMEM_LOG_ERROR(
        "%s: the PEs made different calls: this PE asked for %s but PE %d asked for %s. Symmetric "
        "allocation is collective: every PE must make the same call with the same arguments. %s",
        call, describe(mine).c_str(), pe, describe(q).c_str(),
        mine.op == Op::kFree      ? "Nothing is freed."
        : mine.op == Op::kRealloc ? "Returning NULL on every PE; the block is unchanged."
                                  : "Returning NULL on every PE.");
    *same = false;
    break;
  }
  return GSHMEM_SUCCESS;
}

// The heap offset of live block `ptr`, or ~0 (logging why under `call`).
uint64_t live_offset(const char* call, void* ptr) {
  Runtime& r = rt();
  const uint64_t off = static_cast<uint64_t>(static_cast<char*>(ptr) - r.heap->base());
  uint64_t requested = 0, reserved = 0;
  if (static_cast<char*>(ptr) >= r.heap->base() && r.alloc->block_size(off, &requested, &reserved)) return off;
  // A registered buffer's alias is a heap address too, but not a block (register.cpp).
  const bool registered = static_cast<char*>(ptr) >= r.heap->base() && r.heap->registration(off, nullptr, nullptr);
  GSHMEM_LOG_ERROR(
      "%s: %p is not a block returned by gshmem_malloc/calloc/align/realloc (or was freed already)%s; %s", call, ptr,
      registered ? ": it is a registered buffer, which gshmemx_buffer_unregister_symmetric gives back" : "",
      std::string(call) == "gshmem_free" ? "nothing is freed" : "returning NULL, nothing is changed");
  return kNotLive;
}

// Kernels of this PE that may still use a block finish first; the agreement
// that follows then waits for every PE to be done with it.
void drain_gpu(const char* call) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: GPU error before changing the heap: %s", call, cudaGetErrorString(e));
}

// Grows the heap (collectively) so that the request fits, or fails on every PE
// alike: whether it can fit and the new size depend only on agreed state.
Status grow_for(const char* call, uint64_t size, uint64_t align) {
  Runtime& r = rt();
  const uint64_t need = r.alloc->growth_needed(size, align);
  const uint64_t room = r.heap->max_size() - r.alloc->capacity();
  if (need == mem::Allocator::kNoGrowth || need > room) return GSHMEM_ERROR_OUT_OF_MEMORY;
  const uint64_t step = config::get().symmetric_size;
  const uint64_t target = r.alloc->capacity() + std::min(std::max(need, step), room);
  GSHMEM_LOG_INFO("%s: growing the symmetric heap from %llu to %llu bytes", call,
                  (unsigned long long)r.alloc->capacity(), (unsigned long long)target);
  GSHMEM_TRY(r.heap->grow(target, *r.boot));
  r.alloc->grow(r.heap->size());
  r.live->extent(r.heap->size());
  r.dstate.heap_size = r.heap->size();
  // The growth is agreed and done on every PE. A device-state copy that could not be
  // filled is logged with its file's name and concerns that file's kernels only;
  // failing the allocation for it would fail it on this PE alone.
  if (device_state::publish(r.dstate) != GSHMEM_SUCCESS)
    GSHMEM_LOG_WARN(
        "%s: the heap grew, but some files' kernels were not told so (above): gshmem_ptr there "
        "returns NULL for the new part",
        call);
  return GSHMEM_SUCCESS;
}

// The allocation itself (alloc_mutex held, arguments agreed): NULL when the
// heap cannot satisfy it, on every PE alike (the allocator is deterministic).
void* place(const char* call, uint64_t size, uint64_t align) {
  Runtime& r = rt();
  uint64_t off = 0;
  if (!r.alloc->allocate(size, align, &off)) {
    Status st = grow_for(call, size, align);
    if (st != GSHMEM_SUCCESS || !r.alloc->allocate(size, align, &off)) {
      GSHMEM_LOG_ERROR(
          "%s: symmetric heap exhausted: requested %llu bytes (alignment %llu); largest free "
          "block %llu bytes, %llu bytes free of %llu (limit GSHMEM_SYMMETRIC_SIZE_MAX=%llu). "
          "Returning NULL on every PE; free memory or raise GSHMEM_SYMMETRIC_SIZE(_MAX).",
          call, (unsigned long long)size, (unsigned long long)align, (unsigned long long)r.alloc->largest_free(),
          (unsigned long long)r.alloc->free_bytes(), (unsigned long long)r.alloc->capacity(),
          (unsigned long long)r.heap->max_size());
      return nullptr;
    }
  }
  return r.heap->base() + off;
}

// gshmem_malloc, _align, _calloc (q.size != 0).
void* allocate(const char* call, const Request& q) {
  if (require_init(call) != GSHMEM_SUCCESS) return nullptr;
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  cudaStreamSynchronize(r.stream);  // quiet for host-initiated operations
  bool same = false;
  if (agree_on(call, q, &same) != GSHMEM_SUCCESS || !same) return nullptr;
  if (q.op == Op::kCalloc && q.size == kOverflow) return nullptr;  // logged by gshmem_calloc, on every PE
  const uint64_t size = q.size, align = q.op == Op::kAlign ? q.other : 0;
  if (q.op == Op::kAlign && (align == 0 || (align & (align - 1)))) {
    GSHMEM_LOG_ERROR("%s: alignment %llu is not a power of two; returning NULL on every PE", call,
                     (unsigned long long)align);
    return nullptr;
  }
  char* p = static_cast<char*>(place(call, size, align));
  if (p && q.op == Op::kCalloc) {
    cudaError_t e = cudaMemsetAsync(p, 0, size, internal_stream());
    if (e == cudaSuccess) e = cudaStreamSynchronize(r.stream);
    if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: zeroing failed: %s", call, cudaGetErrorString(e));
    // Nobody may write into the new block before every PE has zeroed its copy.
    r.boot->barrier();
  }
  return p;
}

// gshmem_realloc with ptr != NULL and size != 0: a new block, the old contents
// copied (up to the smaller size), the old block freed. Fails as a whole: NULL
// and the old block unchanged, on every PE alike.
void* reallocate(void* ptr, uint64_t size) {
  const char* call = "gshmem_realloc";
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  const uint64_t off = live_offset(call, ptr);
  drain_gpu(call);
  bool same = false;
  if (agree_on(call, request(Op::kRealloc, size, off), &same) != GSHMEM_SUCCESS || !same || off == kNotLive)
    return nullptr;
  uint64_t old_size = 0, reserved = 0;
  r.alloc->block_size(off, &old_size, &reserved);
  char* p = static_cast<char*>(place(call, size, 0));
  if (!p) return nullptr;
  char* old = r.heap->base() + off;  // after place(): growing the heap keeps offsets
  cudaError_t e =
      cudaMemcpyAsync(p, old, size < old_size ? size : old_size, cudaMemcpyDeviceToDevice, internal_stream());
  if (e == cudaSuccess) e = cudaStreamSynchronize(r.stream);
  if (e != cudaSuccess) {
    GSHMEM_LOG_ERROR("%s: copying the block failed: %s", call, cudaGetErrorString(e));
    // Every PE must take the same branch: agree on failure, then undo.
  }
  bool all_ok = false;
  if (mem::all_agree(*r.boot, e == cudaSuccess, &all_ok) != GSHMEM_SUCCESS || !all_ok) {
    r.alloc->free(static_cast<uint64_t>(p - r.heap->base()));
    return nullptr;
  }
  r.alloc->free(off);
  return p;  // all_agree above was the closing barrier: nobody writes into p before every copy is done
}

}  // namespace
}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API void* gshmem_malloc(size_t size) {
  return size ? allocate("gshmem_malloc", request(Op::kMalloc, size)) : nullptr;
}

GSHMEM_API void* gshmem_align(size_t alignment, size_t size) {
  return size ? allocate("gshmem_align", request(Op::kAlign, size, alignment)) : nullptr;
}

GSHMEM_API void* gshmem_calloc(size_t count, size_t size) {
  if (count == 0 || size == 0) return nullptr;
  const bool overflow = count > SIZE_MAX / size;
  if (overflow)
    GSHMEM_LOG_ERROR("gshmem_calloc: count %zu x size %zu overflows; returning NULL (on every PE that asks the same)",
                     count, size);
  // Still agreed with the other PEs, which may have asked for something else.
  return allocate("gshmem_calloc", request(Op::kCalloc, overflow ? kOverflow : count * size));
}

GSHMEM_API void gshmem_free(void* ptr) {
  if (!ptr || require_init("gshmem_free") != GSHMEM_SUCCESS) return;
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  const uint64_t off = live_offset("gshmem_free", ptr);
  drain_gpu("gshmem_free");
  bool same = false;
  if (agree_on("gshmem_free", request(Op::kFree, 0, off), &same) != GSHMEM_SUCCESS || !same || off == kNotLive) return;
  r.alloc->free(off);
}

GSHMEM_API void* gshmem_realloc(void* ptr, size_t size) {
  if (!ptr) return size ? allocate("gshmem_realloc", request(Op::kMalloc, size)) : nullptr;
  if (require_init("gshmem_realloc") != GSHMEM_SUCCESS) return nullptr;
  if (size == 0) {
    gshmem_free(ptr);
    return nullptr;
  }
  return reallocate(ptr, size);
}

GSHMEM_API void* gshmem_malloc_with_hints(size_t size, long hints) {
  const long known = GSHMEM_MALLOC_ATOMICS_REMOTE | GSHMEM_MALLOC_SIGNAL_REMOTE;
  if (hints & ~known)
    GSHMEM_LOG_WARN(
        "gshmem_malloc_with_hints: unknown hint bits 0x%lx ignored (known: GSHMEM_MALLOC_ATOMICS_REMOTE, "
        "GSHMEM_MALLOC_SIGNAL_REMOTE)",
        hints & ~known);
  // Every block of the heap already serves remote atomics and signals at full speed.
  return size ? allocate("gshmem_malloc_with_hints", request(Op::kMalloc, size)) : nullptr;
}

}  // extern "C"
