// SPDX-License-Identifier: BSD-3-Clause
#include "runtime.h"

#include <cstring>
#include <thread>

#include "host/core/abort.h"
#include "host/core/config.h"

namespace gshmem {

Runtime& rt() {
  static Runtime* r = new Runtime();  // outlives static destructors of user code
  return *r;
}

unsigned node_cpus() { return std::thread::hardware_concurrency(); }

bool cpus_to_spin(const Runtime& r) { return node_cpus() >= 2u * static_cast<unsigned>(r.host_local_size); }

void use_pe_device(const char* call) {
  const Runtime& r = rt();
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == r.device) return;
  thread_local bool told = false;
  if (!told)
    GSHMEM_LOG_INFO(
        "%s: called from a thread whose current GPU is %d; making this PE's GPU %d current for it "
        "(gshmem's host calls act on the PE's GPU)",
        call, current, r.device);
  told = true;
  const cudaError_t e = cudaSetDevice(r.device);
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: cannot make GPU %d current: %s", call, r.device, cudaGetErrorString(e));
}

Status require_init(const char* call) {
  if (rt().initialized) {
    if (const Status st = abort_word::status()) {
      char why[96];
      GSHMEM_LOG_ERROR("%s: refused: %s; call gshmem_finalize (then gshmem_init to start again)", call,
                       abort_word::reason(why, sizeof(why)));
      return st;
    }
    use_pe_device(call);
    return GSHMEM_SUCCESS;
  }
  GSHMEM_LOG_ERROR("%s: gshmem is not initialized; call gshmem_init() (or gshmemx_init_attr) first", call);
  return GSHMEM_ERROR_NOT_INITIALIZED;
}

void require_init_or_die(const char* call) {
  if (!rt().initialized) fatal("%s: gshmem is not initialized; call gshmem_init() (or gshmemx_init_attr) first", call);
  use_pe_device(call);
}

Status check_pe(const char* call, int pe) {
  if (pe >= 0 && pe < rt().n_pes) return GSHMEM_SUCCESS;
  GSHMEM_LOG_ERROR("%s: PE %d is out of range: valid PEs are 0..%d", call, pe, rt().n_pes - 1);
  return GSHMEM_ERROR_INVALID_VALUE;
}

}  // namespace gshmem
