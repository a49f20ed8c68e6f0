// SPDX-License-Identifier: BSD-3-Clause
// Host forms of the AMOs (gshmem_int_atomic_fetch_add from host code, ...):
// the device AMO in a one-thread kernel on the internal stream, which stores the
// fetched value into the library's pinned memory for the caller (call_memory.h), then
// its done word (host/launch/done_word.h).
// Blocking, _nbi forms included (their result is complete on return, which
// satisfies "complete at quiet").
// Signed and unsigned integers of one size share a kernel: the AMOs are
// bitwise identical for them (two's complement wrap-around).
#include <gshmem/gshmem.h>

#include <cstring>
#include <type_traits>

#include "host/core/runtime.h"
#include "host/launch/preload.h"
#include "host/amo/amo_host.h"
#include "host/proxy/host_ops.h"
#include "gshmem/detail/proxy_abi.h"

namespace gshmem::amo {
namespace {

template <class T>
__global__ void amo_kernel(int op, T* dest, T value, T cond, T* result, int pe, DoneWord done) {
  T r = T();
  switch (op) {
    case GSHMEMI_AMO_FETCH:
      r = gshmem::atomic_fetch(dest, pe);
      break;
    case GSHMEMI_AMO_SET:
      gshmem::atomic_set(dest, value, pe);
      r = value;
      break;
    case GSHMEMI_AMO_SWAP:
      r = gshmem::atomic_swap(dest, value, pe);
      break;
    default:
      if constexpr (std::is_integral<T>::value) {
        switch (op) {
          case GSHMEMI_AMO_COMPARE_SWAP:
            r = gshmem::atomic_compare_swap(dest, cond, value, pe);
            break;
          case GSHMEMI_AMO_FETCH_ADD:
            r = gshmem::atomic_fetch_add(dest, value, pe);
            break;
          case GSHMEMI_AMO_FETCH_AND:
            r = gshmem::atomic_fetch_and(dest, value, pe);
            break;
          case GSHMEMI_AMO_FETCH_OR:
            r = gshmem::atomic_fetch_or(dest, value, pe);
            break;
          case GSHMEMI_AMO_FETCH_XOR:
            r = gshmem::atomic_fetch_xor(dest, value, pe);
            break;
          default:
            break;
        }
      }
      break;
  }
  if (result) *result = r;
  store_done(done);
}

template <class T>
void run(const char* call, int op, void* dest, const void* value, const void* cond, void* fetch, int pe) {
  T v = T(), c = T();
  if (value) memcpy(&v, value, sizeof(T));
  if (cond) memcpy(&c, cond, sizeof(T));
  const cudaStream_t s = internal_stream();
  T* result = nullptr;  // the kernel stores the fetched value straight into pinned host memory
  if (fetch) {
    result = static_cast<T*>(rt().call_memory.pinned(call, sizeof(T)));
    if (!result) return;
  }
  const DoneWord done = next_done_word();
  amo_kernel<T><<<1, 1, 0, s>>>(op, static_cast<T*>(dest), v, c, result, pe, done);
  if (!finish(call, s, done)) return;
  if (fetch) memcpy(fetch, result, sizeof(T));
}

// A PE on another node: the AMO goes through the proxy and runs on that PE's GPU with the
// same system-scope atomics as its NVLink peers' (host/proxy/apply_kernel.cu). Floats move as
// their bits: only fetch, set and swap are defined for them.
void run_proxy(const char* call, int op, size_t size, void* dest, const void* value, const void* cond, void* fetch,
               int pe) {
  static const unsigned kOps[] = {GSHMEMI_PROXY_OP_AMO_FETCH, GSHMEMI_PROXY_OP_AMO_SET, GSHMEMI_PROXY_OP_AMO_SWAP,
                                  GSHMEMI_PROXY_OP_AMO_CSWAP, GSHMEMI_PROXY_OP_AMO_ADD, GSHMEMI_PROXY_OP_AMO_AND,
                                  GSHMEMI_PROXY_OP_AMO_OR,    GSHMEMI_PROXY_OP_AMO_XOR};
  uint64_t offset = 0, v = 0, c = 0, old = 0;
  if (!proxy_offset(call, dest, size, pe, &offset)) return;
  if (value) memcpy(&v, value, size);
  if (cond) memcpy(&c, cond, size);
  if (!hproxy::amo(call, pe, offset, kOps[op], static_cast<unsigned>(size), v, c, fetch ? &old : nullptr)) return;
  if (fetch) memcpy(fetch, &old, size);
}

bool valid_op(const char* call, int op, int kind) {
  const bool known = op >= GSHMEMI_AMO_FETCH && op <= GSHMEMI_AMO_FETCH_XOR;
  if (known && (kind != GSHMEMI_KIND_FLOAT || op <= GSHMEMI_AMO_SWAP)) return true;
  GSHMEM_LOG_ERROR("%s: internal error: AMO operation %d is not defined for this type (kind %d)", call, op, kind);
  return false;
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load({preload::K(amo_kernel<float>), preload::K(amo_kernel<double>), preload::K(amo_kernel<uint32_t>),
                        preload::K(amo_kernel<uint64_t>)});
});

}  // namespace
}  // namespace gshmem::amo

extern "C" GSHMEM_API void gshmemi_host_amo(const char* call, int op, int kind, size_t size, void* dest,
                                            const void* value, const void* cond, void* fetch, int pe) {
  using namespace gshmem::amo;
  if (!check_init(call) || !valid_op(call, op, kind)) return;
  const bool proxy = gshmem::hproxy::is_proxy_peer(pe);
  if (!proxy && !remote_address(call, dest, size, pe)) return;
  if (reinterpret_cast<uintptr_t>(dest) % size != 0) {
    GSHMEM_LOG_ERROR(
        "%s: dest %p is not aligned to its %zu-byte type (PE %d); AMOs need naturally aligned "
        "objects",
        call, dest, size, pe);
    return;
  }
  if (proxy && (size == 4 || size == 8))
    run_proxy(call, op, size, dest, value, cond, fetch, pe);
  else if (kind == GSHMEMI_KIND_FLOAT && size == 4)
    run<float>(call, op, dest, value, cond, fetch, pe);
  else if (kind == GSHMEMI_KIND_FLOAT && size == 8)
    run<double>(call, op, dest, value, cond, fetch, pe);
  else if (kind != GSHMEMI_KIND_FLOAT && size == 4)
    run<uint32_t>(call, op, dest, value, cond, fetch, pe);
  else if (kind != GSHMEMI_KIND_FLOAT && size == 8)
    run<uint64_t>(call, op, dest, value, cond, fetch, pe);
  else
    GSHMEM_LOG_ERROR("%s: internal error: no %zu-byte AMO type", call, size);
}
