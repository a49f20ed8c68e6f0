// SPDX-License-Identifier: BSD-3-Clause
#include "runtime.h"

#include <cstring>
#include <thread>

#include "host/util/config.h"

namespace gshmem {

Runtime& rt() {
  static Runtime* r = new Runtime();  // outlives static destructors of user code
  return *r;
}

unsigned node_cpus() { return std::thread::hardware_concurrency(); }

bool cpus_to_spin(const Runtime& r) { return node_cpus() >= 2u * static_cast<unsigned>(r.local_size); }

void use_pe_device(const char* call) {
  const Runtime& r = rt();
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == r.device) return;
  thread_local bool told = false;
  if (!told)
    GSHMEM_LOG_INFO("%s: called from a thread whose current GPU is %d; making this PE's GPU %d current for it "
                    "(gshmem's host calls act on the PE's GPU)", call, current, r.device);
  told = true;
  const cudaError_t e = cudaSetDevice(r.device);
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: cannot make GPU %d current: %s", call, r.device, cudaGetErrorString(e));
}

Status require_init(const char* call) {
  if (rt().initialized) {
    use_pe_device(call);
    return GSHMEM_SUCCESS;
  }
  GSHMEM_LOG_ERROR("%s: gshmem is not initialized; call gshmem_init() (or gshmemx_init_attr) first", call);
  return GSHMEM_ERROR_NOT_INITIALIZED;
}

void require_init_or_die(const char* call) {
  if (!rt().initialized)
    fatal("%s: gshmem is not initialized; call gshmem_init() (or gshmemx_init_attr) first", call);
  use_pe_device(call);
}

Status check_pe(const char* call, int pe) {
  if (pe >= 0 && pe < rt().n_pes) return GSHMEM_SUCCESS;
  GSHMEM_LOG_ERROR("%s: PE %d is out of range: valid PEs are 0..%d", call, pe, rt().n_pes - 1);
  return GSHMEM_ERROR_INVALID_VALUE;
}

Status check_symmetric(const char* call, const void* p, size_t bytes) {
  const Runtime& r = rt();
  const char* a = static_cast<const char*>(p);
  const char* base = r.heap->base();
  if (a >= base && bytes <= r.heap->size() && a - base <= (ptrdiff_t)(r.heap->size() - bytes))
    return GSHMEM_SUCCESS;
  GSHMEM_LOG_ERROR("%s: [%p, +%zu bytes) is not inside the symmetric heap [%p, %p); remote addresses "
                   "must come from gshmem_malloc/calloc/align", call, p, bytes, (const void*)base,
                   (const void*)(base + r.heap->size()));
  return GSHMEM_ERROR_INVALID_VALUE;
}

}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API const char* gshmemx_status_string(int status) { return status_message(status); }

GSHMEM_API void gshmem_info_get_version(int* major, int* minor) {
  if (major) *major = GSHMEM_SPEC_MAJOR_VERSION;
  if (minor) *minor = GSHMEM_SPEC_MINOR_VERSION;
}

GSHMEM_API void gshmem_info_get_name(char* name) {
  if (name) strcpy(name, GSHMEM_VENDOR_STRING);
}

GSHMEM_API int gshmemx_initialized(void) { return rt().initialized ? 1 : 0; }

GSHMEM_API int gshmemi_host_my_pe(void) { return rt().initialized ? rt().my_pe : -1; }
GSHMEM_API int gshmemi_host_n_pes(void) { return rt().initialized ? rt().n_pes : -1; }

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
  if (require_init("gshmem_ptr") != GSHMEM_SUCCESS || check_pe("gshmem_ptr", pe) != GSHMEM_SUCCESS)
    return nullptr;
  const Runtime& r = rt();
  const char* a = static_cast<const char*>(dest);
  if (a < r.heap->base() || a >= r.heap->base() + r.heap->size()) return nullptr;
  char* peer = r.heap->peer_base(pe);
  return peer ? peer + (a - r.heap->base()) : nullptr;
}

}  // extern "C"
