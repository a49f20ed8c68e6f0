// SPDX-License-Identifier: BSD-3-Clause
// Host forms of wait_until / test and their _all/_any/_some(_vector) variants,
// and gshmemx_<type>_wait_until[_all[_vector]]_on_stream: the device
// implementation in a one-thread kernel (see p2p_host.h for why). Host forms run on the internal
// stream and wait for it, their inputs and results passing through the library's pinned and
// device memory for such calls (call_memory.h); the stream forms allocate theirs on the stream.
#include <gshmem/gshmem.h>

#include <cstring>

#include "host/init/runtime.h"
#include "host/launch/preload.h"
#include "host/p2p/p2p_host.h"

namespace gshmem::p2p {
namespace {

template <class T>
__global__ void wait_kernel(int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                            const T* values, size_t* result) {
  const gshmem::cmp cc = static_cast<gshmem::cmp>(c);
  const bool vec = values != nullptr;
  size_t r = 0;
  switch (op) {
    case GSHMEMI_WAIT_UNTIL: gshmem::wait_until(ivars, cc, value); break;
    case GSHMEMI_WAIT_UNTIL_ALL:
      if (vec) gshmem::wait_until_all_vector(ivars, n, status, cc, values);
      else gshmem::wait_until_all(ivars, n, status, cc, value);
      break;
    case GSHMEMI_WAIT_UNTIL_ANY:
      r = vec ? gshmem::wait_until_any_vector(ivars, n, status, cc, values)
              : gshmem::wait_until_any(ivars, n, status, cc, value);
      break;
    case GSHMEMI_WAIT_UNTIL_SOME:
      r = vec ? gshmem::wait_until_some_vector(ivars, n, indices, status, cc, values)
              : gshmem::wait_until_some(ivars, n, indices, status, cc, value);
      break;
    case GSHMEMI_TEST: r = gshmem::test(ivars, cc, value) ? 1 : 0; break;
    case GSHMEMI_TEST_ALL:
      r = (vec ? gshmem::test_all_vector(ivars, n, status, cc, values) : gshmem::test_all(ivars, n, status, cc, value))
              ? 1 : 0;
      break;
    case GSHMEMI_TEST_ANY:
      r = vec ? gshmem::test_any_vector(ivars, n, status, cc, values) : gshmem::test_any(ivars, n, status, cc, value);
      break;
    case GSHMEMI_TEST_SOME:
      r = vec ? gshmem::test_some_vector(ivars, n, indices, status, cc, values)
              : gshmem::test_some(ivars, n, indices, status, cc, value);
      break;
    default: break;
  }
  if (result) *result = r;
}

size_t align16(size_t x) { return (x + 15) & ~size_t(15); }

// Host form: the inputs are staged in the library's pinned memory and copied to its device
// memory (the kernel reads them on every poll), the result and indices come back through the
// pinned memory (call_memory.h). Layouts, each part 16-byte aligned:
//   pinned  [result][indices: n][status: n][values: n]
//   device          [indices: n][status: n][values: n]   (at the same offsets less 16)
template <class T>
size_t run(const char* call, int op, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
           const void* cmp_value, const void* cmp_values) {
  const bool some = op == GSHMEMI_WAIT_UNTIL_SOME || op == GSHMEMI_TEST_SOME;
  const size_t failed = (op == GSHMEMI_WAIT_UNTIL_ANY || op == GSHMEMI_TEST_ANY) ? SIZE_MAX : 0;
  T value = T();
  if (cmp_value) memcpy(&value, cmp_value, sizeof(T));
  const size_t idx_bytes = some ? align16(n * sizeof(size_t)) : 0;
  const size_t status_bytes = status ? align16(n * sizeof(int)) : 0;
  const size_t values_bytes = cmp_values ? n * sizeof(T) : 0;
  const size_t dev_bytes = idx_bytes + status_bytes + values_bytes;
  constexpr size_t kHead = 16;  // the result, in pinned memory only
  CallMemory& m = rt().call_memory;
  char* host = static_cast<char*>(m.pinned(call, kHead + dev_bytes));
  char* dev = dev_bytes ? static_cast<char*>(m.device(call, dev_bytes)) : nullptr;
  if (!host || (dev_bytes && !dev)) return failed;
  const cudaStream_t s = internal_stream();
  const size_t inputs = idx_bytes;  // the status mask's offset in device memory (pinned: kHead more)
  if (status) memcpy(host + kHead + inputs, status, n * sizeof(int));
  if (cmp_values) memcpy(host + kHead + inputs + status_bytes, cmp_values, values_bytes);
  if (status_bytes + values_bytes &&
      !cuda_ok(call, "copy of the status mask and comparison values",
               cudaMemcpyAsync(dev + inputs, host + kHead + inputs, status_bytes + values_bytes,
                               cudaMemcpyHostToDevice, s)))
    return failed;
  auto* result = reinterpret_cast<size_t*>(host);
  wait_kernel<T><<<1, 1, 0, s>>>(op, ivars, n, some ? reinterpret_cast<size_t*>(dev) : nullptr,
                                 status ? reinterpret_cast<const int*>(dev + inputs) : nullptr, cmp, value,
                                 cmp_values ? reinterpret_cast<const T*>(dev + inputs + status_bytes) : nullptr,
                                 result);
  if (!finish(call, s, false)) return failed;
  if (some && n && !cuda_ok(call, "copy of the indices",
                            cudaMemcpyAsync(host + kHead, dev, n * sizeof(size_t), cudaMemcpyDeviceToHost, s)))
    return failed;
  if (!finish(call, s, true)) return failed;
  const size_t r = *result;
  if (some && r > 0 && r <= n) memcpy(indices, host + kHead, r * sizeof(size_t));
  return r;
}

// Comparisons depend on size and signedness: one instantiation per pair.
size_t run_any_type(const char* call, int op, int kind, size_t size, void* ivars, size_t n, size_t* indices,
                    const int* status, int cmp, const void* cmp_value, const void* cmp_values) {
  const bool sgn = kind == GSHMEMI_KIND_SIGNED;
#define P2P_RUN_AS(T) run(call, op, static_cast<T*>(ivars), n, indices, status, cmp, cmp_value, cmp_values)
  if (size == 2) return sgn ? P2P_RUN_AS(int16_t) : P2P_RUN_AS(uint16_t);
  if (size == 4) return sgn ? P2P_RUN_AS(int32_t) : P2P_RUN_AS(uint32_t);
  return sgn ? P2P_RUN_AS(int64_t) : P2P_RUN_AS(uint64_t);
#undef P2P_RUN_AS
}

// Stream form: scratch allocated, filled, used and freed in order on `stream`
// (status and cmp_values are captured before return: pageable host copies
// complete before cudaMemcpyAsync returns).
template <class T>
void wait_on_stream(const char* call, int op, T* ivars, size_t n, const int* status, int cmp, const void* cmp_value,
                    const void* cmp_values, cudaStream_t stream) {
  T value = T();
  if (cmp_value) memcpy(&value, cmp_value, sizeof(T));
  const size_t off_values = status ? align16(n * sizeof(int)) : 0;
  StreamScratch scratch(call, off_values + (cmp_values ? n * sizeof(T) : 0), stream);
  if (!scratch.ok()) return;
  if (status && n && !cuda_ok(call, "copy of the status array", cudaMemcpyAsync(scratch.at<int>(0), status,
                                                                              n * sizeof(int), cudaMemcpyDefault,
                                                                              stream)))
    return;
  if (cmp_values && n && !cuda_ok(call, "copy of cmp_values", cudaMemcpyAsync(scratch.at<T>(off_values), cmp_values,
                                                                            n * sizeof(T), cudaMemcpyDefault, stream)))
    return;
  wait_kernel<T><<<1, 1, 0, stream>>>(op, ivars, n, nullptr, status ? scratch.at<int>(0) : nullptr, cmp, value,
                                      cmp_values ? scratch.at<T>(off_values) : nullptr, nullptr);
  finish(call, stream, false);
}

bool valid_type(const char* call, int kind, size_t size) {
  if (kind != GSHMEMI_KIND_FLOAT && (size == 2 || size == 4 || size == 8)) return true;
  GSHMEM_LOG_ERROR("%s: internal error: no wait for %zu-byte kind-%d variables", call, size, kind);
  return false;
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load({preload::K(wait_kernel<int16_t>), preload::K(wait_kernel<uint16_t>),
                        preload::K(wait_kernel<int32_t>), preload::K(wait_kernel<uint32_t>),
                        preload::K(wait_kernel<int64_t>), preload::K(wait_kernel<uint64_t>)});
});

}  // namespace
}  // namespace gshmem::p2p

extern "C" GSHMEM_API size_t gshmemi_host_wait(const char* call, int op, int kind, size_t size, void* ivars,
                                               size_t nelems, size_t* indices, const int* status, int cmp,
                                               const void* cmp_value, const void* cmp_values) {
  using namespace gshmem::p2p;
  const size_t failed = (op == GSHMEMI_WAIT_UNTIL_ANY || op == GSHMEMI_TEST_ANY) ? SIZE_MAX : 0;
  if (!check_init(call) || !check_cmp(call, cmp) || !valid_type(call, kind, size)) return failed;
  if (!check_local(call, ivars, nelems * size)) return failed;
  if (nelems && !ivars) {
    GSHMEM_LOG_ERROR("%s: ivars is NULL with nelems %zu", call, nelems);
    return failed;
  }
  if ((op == GSHMEMI_WAIT_UNTIL_SOME || op == GSHMEMI_TEST_SOME) && nelems && !indices) {
    GSHMEM_LOG_ERROR("%s: indices is NULL; it must have room for nelems (%zu) entries", call, nelems);
    return failed;
  }
  return run_any_type(call, op, kind, size, ivars, nelems, indices, status, cmp, cmp_value, cmp_values);
}

extern "C" GSHMEM_API void gshmemi_host_wait_on_stream(const char* call, int op, int kind, size_t size, void* ivars,
                                                       size_t nelems, const int* status, int cmp, const void* cmp_value,
                                                       const void* cmp_values, cudaStream_t stream) {
  using namespace gshmem::p2p;
  if (!check_init(call) || !check_cmp(call, cmp) || !valid_type(call, kind, size)) return;
  if (!check_local(call, ivars, nelems * size)) return;
  if (nelems && !ivars) {
    GSHMEM_LOG_ERROR("%s: ivars is NULL with nelems %zu", call, nelems);
    return;
  }
  const bool sgn = kind == GSHMEMI_KIND_SIGNED;
#define P2P_WAIT_AS(T) \
  wait_on_stream(call, op, static_cast<T*>(ivars), nelems, status, cmp, cmp_value, cmp_values, stream)
  if (size == 2) sgn ? P2P_WAIT_AS(int16_t) : P2P_WAIT_AS(uint16_t);
  else if (size == 4) sgn ? P2P_WAIT_AS(int32_t) : P2P_WAIT_AS(uint32_t);
  else sgn ? P2P_WAIT_AS(int64_t) : P2P_WAIT_AS(uint64_t);
#undef P2P_WAIT_AS
}
