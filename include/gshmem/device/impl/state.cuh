// SPDX-License-Identifier: BSD-3-Clause
// This translation unit's copy of the device state, and the registrar that
// lets the host library fill it (see detail/device_state.h for why).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

#include "gshmem/detail/device_state.h"

namespace gshmem {
namespace detail {

// Internal linkage on purpose: one copy per translation unit, no -rdc needed.
static __constant__ gshmemi_device_state tu_state;

static int upload_tu_state(const gshmemi_device_state* s) {
  return static_cast<int>(cudaMemcpyToSymbol(tu_state, s, sizeof(*s)));
}

struct tu_state_registrar {
  tu_state_registrar() {
    gshmemi_register_device_state(&upload_tu_state, GSHMEMI_DEVICE_STATE_VERSION,
                                  static_cast<uint32_t>(sizeof(gshmemi_device_state)), __BASE_FILE__);
  }
  ~tu_state_registrar() { gshmemi_unregister_device_state(&upload_tu_state); }
};
static tu_state_registrar tu_state_registrar_instance;

__device__ __forceinline__ const gshmemi_device_state& state() { return tu_state; }

// Symmetric address on this PE -> address of the same object on `pe` in this
// GPU's address space (nullptr if `pe` is not reachable by loads/stores).
template <class T>
__device__ __forceinline__ T* peer_address(T* sym, int pe) {
  const gshmemi_device_state& s = state();
  char* base = s.peer_base[pe];
  if (base == nullptr) return nullptr;
  return reinterpret_cast<T*>(base + (reinterpret_cast<const char*>(sym) - s.heap_base));
}

#if defined(GSHMEM_DEBUG_CHECKS)
static __device__ __noinline__ void report_bad_argument(const char* call, const void* addr, int pe) {
  const gshmemi_device_state& s = state();
  if (s.version == 0) {
    printf("gshmem ERROR [PE ?]: %s: device state is not initialised in this translation unit "
           "(call gshmem_init before launching kernels that use gshmem)\n", call);
  } else if (pe < 0 || pe >= s.n_pes) {
    printf("gshmem ERROR [PE %d]: %s: PE %d is out of range [0, %d) (block %d thread %d)\n", s.my_pe,
           call, pe, s.n_pes, blockIdx.x, threadIdx.x);
  } else {
    printf("gshmem ERROR [PE %d]: %s: address %p is not in the symmetric heap [%p, %p) "
           "(allocate it with gshmem_malloc)\n", s.my_pe, call, addr, s.heap_base,
           s.heap_base + s.heap_size);
  }
  __trap();
}
// Debug builds: check PE range and that [addr, addr+bytes) is symmetric.
__device__ __forceinline__ void check_remote(const char* call, const void* addr, size_t bytes, int pe) {
  const gshmemi_device_state& s = state();
  const char* a = static_cast<const char*>(addr);
  if (s.version == 0 || pe < 0 || pe >= s.n_pes || a < s.heap_base || a + bytes > s.heap_base + s.heap_size)
    report_bad_argument(call, addr, pe);
}
#define GSHMEMI_CHECK_REMOTE(call, addr, bytes, pe) ::gshmem::detail::check_remote(call, addr, bytes, pe)
#else
#define GSHMEMI_CHECK_REMOTE(call, addr, bytes, pe) ((void)0)
#endif

}  // namespace detail
}  // namespace gshmem
