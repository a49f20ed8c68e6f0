// SPDX-License-Identifier: BSD-3-Clause
// gshmem_malloc / calloc / align / free: collective, deterministic, and the
// same answer on every PE. Each call first all-gathers its arguments, which
// both synchronises the PEs and catches PEs that passed different ones.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "host/init/runtime.h"
#include "host/util/config.h"

namespace gshmem {
namespace {

struct Request {
  uint64_t size;   // gshmem_free: the block's heap offset (~0: not a live block)
  uint64_t align;  // gshmem_realloc: the block's heap offset (~0: not a live block)
};

bool is(const char* call, const char* name) { return std::string(call) == name; }

// "(size 4096, alignment 256)", for gshmem_free "(block at heap offset 4096)",
// for gshmem_realloc "(block at heap offset 4096, new size 8192)".
std::string describe(const char* call, const Request& r) {
  char buf[96];
  const bool realloc = is(call, "gshmem_realloc");
  const uint64_t off = realloc ? r.align : r.size;
  if ((realloc || is(call, "gshmem_free")) && off == ~0ull) return "(a pointer that is not a live symmetric block)";
  if (realloc)
    snprintf(buf, sizeof(buf), "(block at heap offset %llu, new size %llu)", (unsigned long long)off,
             (unsigned long long)r.size);
  else if (is(call, "gshmem_free"))
    snprintf(buf, sizeof(buf), "(block at heap offset %llu)", (unsigned long long)off);
  else
    snprintf(buf, sizeof(buf), "(size %llu, alignment %llu)", (unsigned long long)r.size,
             (unsigned long long)r.align);
  return buf;
}

// True when every PE passed the same request; otherwise logs the first
// difference (on every PE, so each log names the culprit).
Status agree_on(const char* call, const Request& mine, bool* same) {
  Runtime& r = rt();
  std::vector<Request> all(r.n_pes);
  GSHMEM_TRY(r.boot->allgather(&mine, all.data(), sizeof(Request)));
  *same = true;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    if (all[pe].size == mine.size && all[pe].align == mine.align) continue;
    GSHMEM_LOG_ERROR("%s: arguments differ between PEs: this PE passed %s but PE %d passed %s. Symmetric "
                     "allocation is collective: every PE must make the same call. %s", call,
                     describe(call, mine).c_str(), pe, describe(call, all[pe]).c_str(),
                     is(call, "gshmem_free")      ? "Nothing is freed."
                     : is(call, "gshmem_realloc") ? "Returning NULL on every PE; the block is unchanged."
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
  if (static_cast<char*>(ptr) >= r.heap->base() && r.alloc.block_size(off, &requested, &reserved)) return off;
  GSHMEM_LOG_ERROR("%s: %p is not a block returned by gshmem_malloc/calloc/align/realloc (or was freed already); %s",
                   call, ptr, is(call, "gshmem_free") ? "nothing is freed" : "returning NULL, nothing is changed");
  return ~0ull;
}

// Kernels of this PE that may still use a block finish first; the agreement
// that follows then waits for every PE to be done with it.
void drain_gpu(const char* call) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: GPU error before changing the heap: %s", call, cudaGetErrorString(e));
}

Status grow_for(const char* call, uint64_t size, uint64_t align) {
  Runtime& r = rt();
  const uint64_t need = r.alloc.growth_needed(size, align);
  const uint64_t step = config::get().symmetric_size;
  uint64_t target = r.alloc.capacity() + (need > step ? need : step);
  if (target > r.heap->max_size()) target = r.alloc.capacity() + need;
  GSHMEM_LOG_INFO("%s: growing the symmetric heap from %llu to %llu bytes", call,
                  (unsigned long long)r.alloc.capacity(), (unsigned long long)target);
  GSHMEM_TRY(r.heap->grow(target, *r.boot));
  r.alloc.grow(r.heap->size());
  r.dstate.heap_size = r.heap->size();
  return device_state::publish(r.dstate);
}

// The allocation itself (alloc_mutex held, arguments agreed): NULL when the
// heap cannot satisfy it, on every PE alike (the allocator is deterministic).
void* place(const char* call, uint64_t size, uint64_t align) {
  Runtime& r = rt();
  uint64_t off = 0;
  if (!r.alloc.allocate(size, align, &off)) {
    Status st = grow_for(call, size, align);
    if (st != GSHMEM_SUCCESS || !r.alloc.allocate(size, align, &off)) {
      GSHMEM_LOG_ERROR("%s: symmetric heap exhausted: requested %llu bytes (alignment %llu); largest free "
                       "block %llu bytes, %llu bytes free of %llu (limit GSHMEM_SYMMETRIC_SIZE_MAX=%llu). "
                       "Returning NULL on every PE; free memory or raise GSHMEM_SYMMETRIC_SIZE(_MAX).",
                       call, (unsigned long long)size, (unsigned long long)align,
                       (unsigned long long)r.alloc.largest_free(), (unsigned long long)r.alloc.free_bytes(),
                       (unsigned long long)r.alloc.capacity(), (unsigned long long)r.heap->max_size());
      return nullptr;
    }
  }
  return r.heap->base() + off;
}

void* allocate(const char* call, uint64_t size, uint64_t align, bool zero) {
  if (require_init(call) != GSHMEM_SUCCESS) return nullptr;
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  cudaStreamSynchronize(r.stream);  // quiet for host-initiated operations
  bool same = false;
  if (agree_on(call, Request{size, align}, &same) != GSHMEM_SUCCESS || !same) return nullptr;
  if (align & (align - 1)) {
    GSHMEM_LOG_ERROR("%s: alignment %llu is not a power of two", call, (unsigned long long)align);
    return nullptr;
  }
  char* p = static_cast<char*>(place(call, size, align));
  if (p && zero) {
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
  if (agree_on(call, Request{size, off}, &same) != GSHMEM_SUCCESS || !same || off == ~0ull) return nullptr;
  uint64_t old_size = 0, reserved = 0;
  r.alloc.block_size(off, &old_size, &reserved);
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
    r.alloc.free(static_cast<uint64_t>(p - r.heap->base()));
    return nullptr;
  }
  r.alloc.free(off);
  return p;  // all_agree above was the closing barrier: nobody writes into p before every copy is done
}

}  // namespace
}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API void* gshmem_malloc(size_t size) { return allocate("gshmem_malloc", size, 0, false); }

GSHMEM_API void* gshmem_align(size_t alignment, size_t size) {
  return allocate("gshmem_align", size, alignment, false);
}

GSHMEM_API void* gshmem_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    GSHMEM_LOG_ERROR("gshmem_calloc: count %zu x size %zu overflows", count, size);
    // Still collective: every PE sees the same overflow and returns NULL.
    return nullptr;
  }
  return allocate("gshmem_calloc", count * size, 0, true);
}

GSHMEM_API void gshmem_free(void* ptr) {
  if (!ptr || require_init("gshmem_free") != GSHMEM_SUCCESS) return;
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  const uint64_t off = live_offset("gshmem_free", ptr);
  drain_gpu("gshmem_free");
  bool same = false;
  if (agree_on("gshmem_free", Request{off, 0}, &same) != GSHMEM_SUCCESS || !same || off == ~0ull) return;
  r.alloc.free(off);
}

GSHMEM_API void* gshmem_realloc(void* ptr, size_t size) {
  if (!ptr) return allocate("gshmem_realloc", size, 0, false);
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
    GSHMEM_LOG_WARN("gshmem_malloc_with_hints: unknown hint bits 0x%lx ignored (known: GSHMEM_MALLOC_ATOMICS_REMOTE, "
                    "GSHMEM_MALLOC_SIGNAL_REMOTE)", hints & ~known);
  // Every block of the heap already serves remote atomics and signals at full speed.
  return allocate("gshmem_malloc_with_hints", size, 0, false);
}

}  // extern "C"
