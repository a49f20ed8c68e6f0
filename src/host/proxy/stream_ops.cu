// SPDX-License-Identifier: BSD-3-Clause
// On-stream operations on PEs of other nodes: one-thread kernels that post into the proxy ring
// (stream_ops.h says what each promises).
#include "host/proxy/stream_ops.h"

#include "gshmem/detail/proxy_abi.h"
#include "gshmem/device/impl/proxy.cuh"
#include "host/core/log.h"
#include "host/core/runtime.h"
#include "host/launch/preload.h"
#include "host/proxy/proxy.h"

namespace gshmem::hproxy {
namespace {

// An entry's words 0-6 as the device call would write them (proxy_abi.h).
struct Entry {
  uint64_t w[7];
};

// Posts the entry and, when it wants a reply (a by-reference put or get), waits for it.
__global__ void k_post(Entry e) { detail::proxy::post(e.w[0], e.w[1], e.w[2], e.w[3], e.w[4], e.w[5], e.w[6]); }
__global__ void k_quiet() { detail::proxy::quiet(); }

// Whether the launch of a proxy stream kernel took; else a line naming the call and the PE.
bool launched(const char* call, int pe, cudaError_t err) {
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  GSHMEM_LOG_ERROR("%s: PE %d is on another node; launching the proxy's stream kernel failed: %s", call, pe,
                   cudaGetErrorString(err));
  return false;
}

bool post_on(const char* call, int pe, Entry e, cudaStream_t stream) {
  void* args[] = {&e};
  return launched(call, pe, cudaLaunchKernel(reinterpret_cast<const void*>(k_post), dim3(1), dim3(1), args, 0, stream));
}

Entry entry(unsigned op, unsigned flags, uint32_t len, int pe, uint64_t w1) {
  Entry e{};
  e.w[0] = gshmemi_proxy_w0(op, flags, len, static_cast<uint32_t>(pe));
  e.w[1] = w1;
  return e;
}

void put_signal_words(Entry* e, const Signal& sig) {
  e->w[4] = sig.offset;
  e->w[5] = gshmemi_proxy_lo(sig.value);
  e->w[6] = gshmemi_proxy_hi(sig.value);
}

const preload::Entry kPreload(+[] { return preload::load({preload::K(k_post), preload::K(k_quiet)}); });

}  // namespace

bool put_on_stream(const char* call, int pe, uint64_t offset, const void* source, size_t bytes, const Signal* sig,
                   cudaStream_t stream) {
  unsigned flags = GSHMEMI_PROXY_F_BY_REF;
  if (sig) flags |= GSHMEMI_PROXY_F_HAS_SIGNAL | (sig->add ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0u);
  Entry e = entry(GSHMEMI_PROXY_OP_PUT, flags, 0, pe, offset);
  e.w[2] = reinterpret_cast<uint64_t>(source);
  e.w[3] = bytes;
  if (sig) put_signal_words(&e, *sig);
  return post_on(call, pe, e, stream);
}

bool get_on_stream(const char* call, int pe, uint64_t offset, void* dest, size_t bytes, cudaStream_t stream) {
  Entry e = entry(GSHMEMI_PROXY_OP_GET, GSHMEMI_PROXY_F_BY_REF, 0, pe, offset);
  e.w[2] = reinterpret_cast<uint64_t>(dest);
  e.w[3] = bytes;
  return post_on(call, pe, e, stream);
}

bool value_on_stream(const char* call, int pe, uint64_t offset, const void* value, unsigned bytes,
                     cudaStream_t stream) {
  // Inline: the value is copied into the entry now, as the call returns before the kernel runs.
  Entry e = entry(GSHMEMI_PROXY_OP_PUT, 0, bytes, pe, offset);
  const unsigned char* v = static_cast<const unsigned char*>(value);
  for (unsigned i = 0; i < bytes && i < GSHMEMI_PROXY_INLINE_MAX; ++i)
    e.w[2 + i / 4] |= uint64_t{v[i]} << (8 * (i % 4));
  return post_on(call, pe, e, stream);
}

bool signal_on_stream(const char* call, int pe, const Signal& sig, cudaStream_t stream) {
  Entry e = entry(GSHMEMI_PROXY_OP_SIGNAL, sig.add ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0u, 0, pe, 0);
  put_signal_words(&e, sig);
  return post_on(call, pe, e, stream);
}

bool quiet_on_stream(const char* call, cudaStream_t stream) {
  if (!rt().proxy) return true;
  const cudaError_t err =
      cudaLaunchKernel(reinterpret_cast<const void*>(k_quiet), dim3(1), dim3(1), nullptr, 0, stream);
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  GSHMEM_LOG_ERROR("%s: launching the proxy's quiet kernel failed: %s", call, cudaGetErrorString(err));
  return false;
}

}  // namespace gshmem::hproxy
