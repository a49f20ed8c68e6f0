// SPDX-License-Identifier: BSD-3-Clause
#include "host/proxy/apply_kernel.h"

#include "gshmem/detail/proxy_abi.h"
#include "host/launch/preload.h"

namespace gshmem::hproxy {
namespace {

template <class T>
__device__ T amo(T* p, uint8_t op, T v, T cmp) {
  switch (op) {
    case GSHMEMI_PROXY_OP_AMO_SET:
      atomicExch_system(p, v);
      return 0;
    case GSHMEMI_PROXY_OP_AMO_ADD:
      return atomicAdd_system(p, v);
    case GSHMEMI_PROXY_OP_AMO_AND:
      return atomicAnd_system(p, v);
    case GSHMEMI_PROXY_OP_AMO_OR:
      return atomicOr_system(p, v);
    case GSHMEMI_PROXY_OP_AMO_XOR:
      return atomicXor_system(p, v);
    case GSHMEMI_PROXY_OP_AMO_SWAP:
      return atomicExch_system(p, v);
    case GSHMEMI_PROXY_OP_AMO_CSWAP:
      return atomicCAS_system(p, cmp, v);  // the old value either way
    default: {  // GSHMEMI_PROXY_OP_AMO_FETCH: a single-copy-atomic relaxed load at system scope
      T r;
      if constexpr (sizeof(T) == 8)
        asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
      else
        asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
      return r;
    }
  }
}

__global__ void k_apply(ApplyArgs a) {
  // The operations of a source reach this stream in its sequence order, each after the previous
  // one completed (stream order); the fence makes this strong operation follow their writes for
  // every observer too, as the device fence before a strong operation does on NVLink.
  asm volatile("fence.acq_rel.sys;" ::: "memory");
  uint64_t old = 0;
  switch (a.kind) {
    case kApplyStoreRelease:
      asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(a.addr), "l"(a.operand) : "memory");
      return;
    case kApplyAddRelease:
      asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(a.addr), "l"(a.operand) : "memory");
      return;
    default:
      if (a.width == 4)
        old = amo(reinterpret_cast<unsigned int*>(a.addr), a.op, static_cast<unsigned int>(a.operand),
                  static_cast<unsigned int>(a.compare));
      else
        old = amo(reinterpret_cast<unsigned long long*>(a.addr), a.op, static_cast<unsigned long long>(a.operand),
                  static_cast<unsigned long long>(a.compare));
      break;
  }
  if (a.result) *reinterpret_cast<volatile uint64_t*>(a.result) = old;
}

// Loaded by gshmem_init, not at its first launch by the proxy thread (host/launch/preload.h):
// a lazy load would wait for the application's running kernels, which may be waiting for this
// very AMO.
const preload::Entry kPreload(+[] { return preload::load({preload::K(k_apply)}); });

}  // namespace

cudaError_t launch_apply(const ApplyArgs& a, cudaStream_t stream) {
  k_apply<<<1, 1, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace gshmem::hproxy
