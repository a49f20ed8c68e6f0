// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_buffer_register_symmetric / _unregister_symmetric: user memory made symmetric.
//
// Every PE passes its own buffer, the same size on every PE: one cuMemCreate allocation of its
// GPU, mapped with cuMemMap. The heap maps each PE's allocation (retained with
// cuMemRetainAllocationHandle, exported as a POSIX fd to the node-local peers) at one offset of
// every slot (heap_vmm.cpp, regions.h), so the returned alias is a symmetric address like a
// gshmem_malloc block: RMA, AMOs, signals, collectives and gshmem_ptr take it. The allocator
// withholds the range (Allocator::grow_withheld) and its capacity follows the heap's extent.
//
// Like gshmem_malloc, each call first all-gathers what every PE asks (size, flags, and whether
// its own buffer passed the local checks), so every PE takes the same branch: a failure returns
// NULL (or a status) on every PE and changes nothing.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "gshmem/host.h"
#include "host/core/driver.h"
#include "host/core/runtime.h"
#include "bootstrap/bootstrap.h"
#include "host/mem/allocator.h"
#include "host/mem/live_track.h"
#include "host/mem/heap.h"

namespace gshmem {
namespace {

constexpr const char* kRegister = "gshmemx_buffer_register_symmetric";
constexpr const char* kUnregister = "gshmemx_buffer_unregister_symmetric";
constexpr uint64_t kNotLive = ~0ull;
constexpr const char* kHowToAllocate =
    "register memory of the CUDA VMM API: cuMemCreate (CU_MEM_ALLOCATION_TYPE_PINNED on this PE's "
    "GPU, requestedHandleTypes including CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), then "
    "cuMemAddressReserve + cuMemMap + cuMemSetAccess, and pass the mapped address (or use "
    "gshmem_malloc)";

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// This PE's checks of its buffer. On success *handle holds a retained reference to the
// allocation (the caller passes it on or releases it) and *granularity its minimum granularity.
Status inspect(void* buf, size_t size, int flags, CUmemGenericAllocationHandle* handle, uint64_t* granularity) {
  Runtime& r = rt();
  if (flags != 0) {
    GSHMEM_LOG_ERROR("%s: flags is %d, but no flags are defined: pass 0", kRegister, flags);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (buf == nullptr || size == 0) {
    GSHMEM_LOG_ERROR("%s: buf is %p and size %zu: pass a buffer and its size in bytes (not 0)", kRegister, buf, size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  uint64_t existing = 0;
  if (r.heap->find_registration(buf, &existing)) {
    GSHMEM_LOG_ERROR("%s: %p is registered already (symmetric address %p); unregister it first", kRegister, buf,
                     static_cast<void*>(r.heap->base() + existing));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const cu::Api* api = nullptr;
  GSHMEM_TRY(cu::load(&api));
  const CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(buf);
  int legacy_ipc = 0;
  if (api->PointerGetAttribute(&legacy_ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, ptr) == CUDA_SUCCESS &&
      legacy_ipc) {
    GSHMEM_LOG_ERROR(
        "%s: %p is cudaMalloc memory, which gshmem cannot map into the symmetric heap's address "
        "range; %s",
        kRegister, buf, kHowToAllocate);
    return GSHMEM_ERROR_UNSUPPORTED;
  }
  CUresult e = api->MemRetainAllocationHandle(handle, buf);
  if (e != CUDA_SUCCESS) {
    GSHMEM_LOG_ERROR("%s: %p is not memory mapped with cuMemMap (cuMemRetainAllocationHandle: %s); %s", kRegister, buf,
                     cu::error_string(e), kHowToAllocate);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  // From here on the retained reference goes back on every failure.
  auto fail = [&](Status st) {
    cu::api().MemRelease(*handle);
    return st;
  };
  CUmemAllocationProp prop{};
  e = api->MemGetAllocationPropertiesFromHandle(&prop, *handle);
  if (e != CUDA_SUCCESS) {
    GSHMEM_LOG_ERROR("%s: cannot read the properties of the allocation at %p (%s); %s", kRegister, buf,
                     cu::error_string(e), kHowToAllocate);
    return fail(GSHMEM_ERROR_CUDA);
  }
  if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop.location.id != r.device) {
    GSHMEM_LOG_ERROR(
        "%s: the allocation at %p is not memory of this PE's GPU (device %d): its location is "
        "%s %d. Allocate it on device %d (CUmemAllocationProp::location).",
        kRegister, buf, r.device, prop.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? "device" : "location type",
        prop.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? prop.location.id : static_cast<int>(prop.location.type),
        r.device);
    return fail(GSHMEM_ERROR_INVALID_VALUE);
  }
  if (r.local_pes.size() > 1 && !(prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
    GSHMEM_LOG_ERROR(
        "%s: the allocation at %p was created without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
        "CUmemAllocationProp::requestedHandleTypes, so the other PEs of this node cannot map it. "
        "Create it with that handle type (cuMemCreate).",
        kRegister, buf);
    return fail(GSHMEM_ERROR_INVALID_VALUE);
  }
  size_t gran = 0;
  e = cu::api().MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (e != CUDA_SUCCESS || gran == 0) {
    GSHMEM_LOG_ERROR("%s: cannot read the granularity of the allocation at %p (%s)", kRegister, buf,
                     cu::error_string(e));
    return fail(GSHMEM_ERROR_CUDA);
  }
  if (ptr % gran != 0 || size % gran != 0) {
    GSHMEM_LOG_ERROR(
        "%s: buf %p and size %zu must be multiples of the allocation granularity, %zu bytes "
        "(cuMemGetAllocationGranularity, CU_MEM_ALLOC_GRANULARITY_MINIMUM): round size up to %zu "
        "and allocate that much",
        kRegister, buf, size, gran, (size + gran - 1) / gran * gran);
    return fail(GSHMEM_ERROR_INVALID_VALUE);
  }
  // The mapping that holds buf (one allocation's). Mapping the allocation again in the heap
  // starts at the allocation's first byte, so buf must be that byte, and size must fit in it.
  CUdeviceptr start = 0;
  size_t length = 0;
  if (api->MemGetAddressRange(&start, &length, ptr) == CUDA_SUCCESS) {
    if (start != ptr) {
      GSHMEM_LOG_ERROR(
          "%s: %p is %llu bytes into the allocation mapped at %p: pass the address the "
          "allocation is mapped at (a registered buffer is the start of one cuMemCreate "
          "allocation)",
          kRegister, buf, static_cast<unsigned long long>(ptr - start), reinterpret_cast<void*>(start));
      return fail(GSHMEM_ERROR_INVALID_VALUE);
    }
    if (size > length) {
      GSHMEM_LOG_ERROR(
          "%s: size %zu is larger than the allocation mapped at %p (%zu bytes): a registered "
          "buffer lies in one cuMemCreate allocation; register each allocation by itself",
          kRegister, size, buf, length);
      return fail(GSHMEM_ERROR_INVALID_VALUE);
    }
  }
  *granularity = gran;
  return GSHMEM_SUCCESS;
}

// What a PE asks of gshmemx_buffer_register_symmetric; all-gathered.
struct RegisterRequest {
  uint64_t size;
  int32_t flags;
  int32_t ok;            // 1: this PE's buffer passed its checks (inspect)
  uint64_t granularity;  // of its allocation (0 unless ok)
};

// "PE 0: 4194304 bytes, PE 1: 2097152 bytes, ..." (the first 16 PEs)
std::string list_sizes(const std::vector<RegisterRequest>& all, bool with_flags) {
  std::string s;
  char item[96];
  for (size_t pe = 0; pe < all.size(); ++pe) {
    if (pe == 16) {
      s += ", ...";
      break;
    }
    if (with_flags)
      snprintf(item, sizeof(item), "%sPE %zu: %llu bytes, flags %d", pe ? "; " : "", pe,
               static_cast<unsigned long long>(all[pe].size), static_cast<int>(all[pe].flags));
    else
      snprintf(item, sizeof(item), "%sPE %zu: %llu bytes", pe ? ", " : "", pe,
               static_cast<unsigned long long>(all[pe].size));
    s += item;
  }
  return s;
}

// After a change of the heap's extent: the allocator's capacity and the kernels' view follow.
void extent_changed(const char* call, uint64_t old_size) {
  Runtime& r = rt();
  const uint64_t now = r.heap->size();
  if (now == old_size) return;
  if (now > old_size) {
    r.alloc->grow_withheld(now);
  } else if (!r.alloc->shrink_withheld(now)) {
    GSHMEM_LOG_ERROR("%s: internal error: the allocator holds blocks above the heap's new extent %llu", call,
                     static_cast<unsigned long long>(now));
  }
  r.live->extent(now);
  r.dstate.heap_size = now;
  // The change is agreed and done on every PE; a copy that could not be filled concerns its own
  // file's kernels only (logged above with the file's name).
  if (device_state::publish(r.dstate) != GSHMEM_SUCCESS)
    GSHMEM_LOG_WARN("%s: some files' kernels were not told of the heap's new extent (above)", call);
}

void* register_buffer(void* buf, size_t size, int flags) {
  if (require_init(kRegister) != GSHMEM_SUCCESS) return nullptr;
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  if (!r.heap->can_register()) {  // the heap's kind is the same on every PE: no exchange needed
    GSHMEM_LOG_ERROR(
        "%s: the symmetric heap is the cudaMalloc + CUDA IPC heap (GSHMEM_DISABLE_VMM=1, or CUDA "
        "VMM with POSIX fd handles is unsupported here), which cannot map user buffers. Returning "
        "NULL; unset GSHMEM_DISABLE_VMM, or allocate with gshmem_malloc.",
        kRegister);
    return nullptr;
  }
  cudaStreamSynchronize(r.stream);  // quiet for host-initiated operations
  CUmemGenericAllocationHandle handle = 0;
  uint64_t gran = 0;
  const bool ok = inspect(buf, size, flags, &handle, &gran) == GSHMEM_SUCCESS;
  RegisterRequest mine{size, flags, ok ? 1 : 0, ok ? gran : 0};
  std::vector<RegisterRequest> all(r.n_pes);
  auto give_back = [&] {
    if (ok) cu::api().MemRelease(handle);
    return nullptr;
  };
  if (r.boot->allgather(&mine, all.data(), sizeof(RegisterRequest)) != GSHMEM_SUCCESS) return give_back();

  bool same = true, all_ok = true, flags_differ = false;
  uint64_t align = 1;
  std::string failed;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    same = same && all[pe].size == mine.size && all[pe].flags == mine.flags;
    flags_differ = flags_differ || all[pe].flags != mine.flags;
    if (!all[pe].ok) {
      all_ok = false;
      failed += (failed.empty() ? "" : ", ") + std::to_string(pe);
    }
    align = std::max<uint64_t>(align, all[pe].granularity);
  }
  if (!same) {
    GSHMEM_LOG_ERROR(
        "%s: the PEs passed different %s (%s). Registration is collective: every PE passes a "
        "buffer of the same size. Returning NULL on every PE; nothing is registered.",
        kRegister, flags_differ ? "sizes or flags" : "sizes", list_sizes(all, flags_differ).c_str());
    return give_back();
  }
  if (!all_ok) {
    if (ok)
      GSHMEM_LOG_ERROR(
          "%s: PE(s) %s could not register their buffers (their messages say why). Returning NULL on "
          "every PE; nothing is registered.",
          kRegister, failed.c_str());
    return give_back();
  }
  if (!is_pow2(align)) {  // agreed data: every PE takes this branch alike
    GSHMEM_LOG_ERROR("%s: the allocations' granularity (%llu bytes) is not a power of two; returning NULL on every PE",
                     kRegister, static_cast<unsigned long long>(align));
    return give_back();
  }
  const uint64_t old_size = r.heap->size();
  uint64_t offset = 0;
  // The heap takes over the handle, on failure too.
  if (r.heap->register_user(handle, size, align, buf, *r.boot, &offset) != GSHMEM_SUCCESS) return nullptr;
  extent_changed(kRegister, old_size);
  r.live->added(offset, size);  // a live range for the device checks and compute-sanitizer, as a block is
  char* sym = r.heap->base() + offset;
  GSHMEM_LOG_INFO("%s: %zu bytes at %p registered as symmetric address %p (heap offset %llu)", kRegister, size, buf,
                  static_cast<void*>(sym), static_cast<unsigned long long>(offset));
  return sym;
}

// The heap offset of the registration at `sym` of `size` bytes, or kNotLive (logged).
uint64_t registered_offset(void* sym, size_t size) {
  Runtime& r = rt();
  char* p = static_cast<char*>(sym);
  uint64_t bytes = 0;
  const uint64_t off = static_cast<uint64_t>(p - r.heap->base());
  if (p >= r.heap->base() && off < r.heap->size() && r.heap->registration(off, &bytes, nullptr)) {
    if (bytes == size) return off;
    GSHMEM_LOG_ERROR(
        "%s: the buffer at %p was registered with %llu bytes, not %zu: pass the size it was registered with",
        kUnregister, sym, static_cast<unsigned long long>(bytes), size);
    return kNotLive;
  }
  GSHMEM_LOG_ERROR(
      "%s: %p is not an address returned by gshmemx_buffer_register_symmetric (or was "
      "unregistered already); nothing is unregistered",
      kUnregister, sym);
  return kNotLive;
}

int unregister_buffer(void* sym, size_t size) {
  if (const Status st = require_init(kUnregister)) return st;  // not initialised, or aborted
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.alloc_mutex);
  if (!r.heap->can_register()) {  // the same on every PE: no exchange needed
    GSHMEM_LOG_ERROR("%s: %p is not a registered buffer: the cudaMalloc + CUDA IPC heap registers none", kUnregister,
                     sym);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const uint64_t off = registered_offset(sym, size);
  // This PE's kernels that may still use the buffer finish first; the exchange that follows
  // then waits for every PE to be done with it before anyone unmaps it.
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: GPU error before unregistering: %s", kUnregister, cudaGetErrorString(e));
  struct Ask {
    uint64_t offset, size;
  } ask{off, size};
  std::vector<Ask> all(r.n_pes);
  if (r.boot->allgather(&ask, all.data(), sizeof(Ask)) != GSHMEM_SUCCESS) return GSHMEM_ERROR_BOOTSTRAP;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    if (all[pe].offset == ask.offset && all[pe].size == ask.size) continue;
    auto show = [](const Ask& a) {
      char b[96];
      if (a.offset == kNotLive)
        snprintf(b, sizeof(b), "no registered buffer (%llu bytes)", static_cast<unsigned long long>(a.size));
      else
        snprintf(b, sizeof(b), "the buffer at heap offset %llu, %llu bytes", static_cast<unsigned long long>(a.offset),
                 static_cast<unsigned long long>(a.size));
      return std::string(b);
    };
    GSHMEM_LOG_ERROR(
        "%s: the PEs made different calls: this PE passed %s but PE %d passed %s. Unregistering "
        "is collective: every PE passes the address registration returned and the same size. "
        "Nothing is unregistered.",
        kUnregister, show(ask).c_str(), pe, show(all[pe]).c_str());
    return GSHMEM_ERROR_MISMATCH;
  }
  if (off == kNotLive) return GSHMEM_ERROR_INVALID_VALUE;  // logged on every PE by registered_offset
  const uint64_t old_size = r.heap->size();
  Status st = r.heap->unregister_user(off);
  if (st != GSHMEM_SUCCESS) return st;
  r.live->removed(off);
  extent_changed(kUnregister, old_size);
  GSHMEM_LOG_INFO("%s: unregistered the buffer at symmetric address %p (%zu bytes)", kUnregister, sym, size);
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace gshmem

extern "C" {

GSHMEM_API void* gshmemx_buffer_register_symmetric(void* buf, size_t size, int flags) {
  return gshmem::register_buffer(buf, size, flags);
}

GSHMEM_API int gshmemx_buffer_unregister_symmetric(void* sym, size_t size) {
  return gshmem::unregister_buffer(sym, size);
}

}  // extern "C"
