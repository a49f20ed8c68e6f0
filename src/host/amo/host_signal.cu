// SPDX-License-Identifier: BSD-3-Clause
// Host and stream forms of the signal calls.
//   put_signal  copy engine (cudaMemcpyAsync into the peer's heap), then the
//               signal update on the same stream;
//   SET update  cuStreamWriteValue64 on the (peer-mapped) signal word: zero SMs;
//   ADD update  a one-thread kernel (no stream memop adds); also SET when the
//               memop is unavailable;
//   fetch/wait  the device code in a one-thread kernel (host forms wait for it),
//               which stores the value into the library's pinned memory, then
//               its done word (host/launch/done_word.h);
//   stream wait cuStreamWaitValue64 where it is exact (wait_value_plan.h),
//               else the device wait in a one-thread kernel on the stream.
//
// PEs on other nodes: through the proxy (signal_via_proxy below): the host queue, or for the
// on-stream forms the ring in stream order (host/proxy/stream_ops.h).
//
// Why the signal cannot overtake the data on a stream: stream order starts
// the signal update only after the copy has completed, and the update is a
// release at system scope (the memop's default pre-write memory barrier, or
// the kernel's st/red .release.sys), so every observer that acquires the
// signal (signal_wait_until & co., or a stream wait followed by kernels)
// sees the copied data. Modes: see GSHMEMI_MODE_* in host_entry_amo.h.
#include <gshmem/gshmem.h>

#include "host/core/runtime.h"
#include "host/launch/preload.h"
#include "host/amo/amo_host.h"
#include "host/amo/stream_memops.h"
#include "host/proxy/host_ops.h"
#include "host/proxy/stream_ops.h"

namespace gshmem::amo {
namespace {

__global__ void signal_update_kernel(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmem::detail::signal_update_release(gshmem::detail::peer_address(sig_addr, pe), signal, sig_op);
}
__global__ void signal_fetch_kernel(const uint64_t* sig_addr, uint64_t* out, DoneWord done) {
  *out = gshmem::signal_fetch(sig_addr);
  store_done(done);
}
__global__ void signal_wait_kernel(uint64_t* sig_addr, int cmp, uint64_t value, uint64_t* out, DoneWord done) {
  const uint64_t v = gshmem::signal_wait_until(sig_addr, static_cast<gshmem::cmp>(cmp), value);
  if (out) *out = v;
  store_done(done);
}

cudaStream_t stream_of(int mode, cudaStream_t user) { return mode == GSHMEMI_MODE_STREAM ? user : internal_stream(); }

// The signal update after everything already on `s` (checked arguments).
bool enqueue_update(const char* call, cudaStream_t s, uint64_t* sig_addr, uint64_t* remote_sig, uint64_t signal,
                    int sig_op, int pe) {
  if (sig_op == GSHMEM_SIGNAL_SET && stream_write_value64(call, s, remote_sig, signal)) return true;
  signal_update_kernel<<<1, 1, 0, s>>>(sig_addr, signal, sig_op, pe);
  return finish(call, s, false);
}

bool check_signal_target(const char* call, uint64_t* sig_addr, int sig_op, int pe, uint64_t** remote) {
  if (!check_sig_op(call, sig_op, pe)) return false;
  *remote = static_cast<uint64_t*>(remote_address(call, sig_addr, sizeof(uint64_t), pe));
  if (!*remote) return false;
  if (reinterpret_cast<uintptr_t>(sig_addr) % sizeof(uint64_t) != 0) {
    GSHMEM_LOG_ERROR("%s: sig_addr %p is not 8-byte aligned (PE %d); signals are uint64_t objects", call,
                     static_cast<void*>(sig_addr), pe);
    return false;
  }
  return true;
}

// A PE on another node: the data and the signal go through the proxy as one operation (the
// target applies the signal after the data on its apply stream: docs/internode.md section 6).
// Returns true when `pe` is such a PE (the call was handled, or refused with a message).
bool signal_via_proxy(const char* call, void* dest, const void* source, size_t nbytes, uint64_t* sig_addr,
                      uint64_t signal, int sig_op, int pe, int mode, cudaStream_t stream) {
  if (!gshmem::hproxy::is_proxy_peer(pe)) return false;
  uint64_t sig_off = 0, off = 0;
  if (!check_sig_op(call, sig_op, pe) || !proxy_offset(call, sig_addr, sizeof(uint64_t), pe, &sig_off)) return true;
  if (sig_off % sizeof(uint64_t) != 0) {
    GSHMEM_LOG_ERROR("%s: sig_addr %p is not 8-byte aligned (PE %d); signals are uint64_t objects", call,
                     static_cast<void*>(sig_addr), pe);
    return true;
  }
  if (nbytes && !proxy_offset(call, dest, nbytes, pe, &off)) return true;
  gshmem::hproxy::Signal sig;
  sig.offset = sig_off;
  sig.value = signal;
  sig.add = sig_op == GSHMEM_SIGNAL_ADD;
  if (mode == GSHMEMI_MODE_STREAM) {  // in stream order, through the ring (host/proxy/stream_ops.h)
    if (source)
      gshmem::hproxy::put_on_stream(call, pe, off, source, nbytes, &sig, stream);
    else
      gshmem::hproxy::signal_on_stream(call, pe, sig, stream);
    return true;
  }
  const bool blocking = mode == GSHMEMI_MODE_BLOCKING;
  if (source)
    gshmem::hproxy::put(call, pe, off, 1, source, 1, nbytes, 1, blocking, &sig);
  else
    gshmem::hproxy::signal(call, pe, sig, blocking);
  return true;
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load(
      {preload::K(signal_update_kernel), preload::K(signal_fetch_kernel), preload::K(signal_wait_kernel)});
});

}  // namespace
}  // namespace gshmem::amo

using namespace gshmem::amo;

extern "C" {

GSHMEM_API void gshmemi_host_putmem_signal(const char* call, void* dest, const void* source, size_t nbytes,
                                           uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, int mode,
                                           cudaStream_t stream) {
  if (!check_init(call)) return;
  if (signal_via_proxy(call, dest, nbytes ? source : nullptr, nbytes, sig_addr, signal, sig_op, pe, mode, stream))
    return;
  uint64_t* remote_sig = nullptr;
  if (!check_signal_target(call, sig_addr, sig_op, pe, &remote_sig)) return;
  void* remote_dest = nbytes ? remote_address(call, dest, nbytes, pe) : nullptr;
  if (nbytes && !remote_dest) return;
  const cudaStream_t s = stream_of(mode, stream);
  if (nbytes && !cuda_ok(call, "copy of the data", cudaMemcpyAsync(remote_dest, source, nbytes, cudaMemcpyDefault, s)))
    return;
  if (!enqueue_update(call, s, sig_addr, remote_sig, signal, sig_op, pe)) return;
  if (mode == GSHMEMI_MODE_BLOCKING) finish(call, s, true);
}

GSHMEM_API void gshmemi_host_signal_op(const char* call, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                       int mode, cudaStream_t stream) {
  if (!check_init(call)) return;
  if (signal_via_proxy(call, nullptr, nullptr, 0, sig_addr, signal, sig_op, pe, mode, stream)) return;
  uint64_t* remote_sig = nullptr;
  if (!check_signal_target(call, sig_addr, sig_op, pe, &remote_sig)) return;
  const cudaStream_t s = stream_of(mode, stream);
  if (!enqueue_update(call, s, sig_addr, remote_sig, signal, sig_op, pe)) return;
  if (mode == GSHMEMI_MODE_BLOCKING) finish(call, s, true);
}

GSHMEM_API uint64_t gshmemi_host_signal_fetch(const char* call, const uint64_t* sig_addr) {
  if (!check_init(call) || !check_local(call, sig_addr, sizeof(uint64_t))) return 0;
  const cudaStream_t s = gshmem::internal_stream();
  auto* out = static_cast<uint64_t*>(gshmem::rt().call_memory.pinned(call, sizeof(uint64_t)));
  if (!out) return 0;
  const gshmem::DoneWord done = gshmem::next_done_word();
  signal_fetch_kernel<<<1, 1, 0, s>>>(sig_addr, out, done);
  return finish(call, s, done) ? *out : 0;
}

GSHMEM_API uint64_t gshmemi_host_signal_wait_until(const char* call, uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  if (!check_init(call) || !check_cmp(call, cmp) || !check_local(call, sig_addr, sizeof(uint64_t))) return 0;
  const cudaStream_t s = gshmem::internal_stream();
  auto* out = static_cast<uint64_t*>(gshmem::rt().call_memory.pinned(call, sizeof(uint64_t)));
  if (!out) return 0;
  const gshmem::DoneWord done = gshmem::next_done_word();
  signal_wait_kernel<<<1, 1, 0, s>>>(sig_addr, cmp, cmp_value, out, done);
  return finish(call, s, done) ? *out : 0;
}

GSHMEM_API void gshmemi_host_signal_wait_until_on_stream(const char* call, uint64_t* sig_addr, int cmp,
                                                         uint64_t cmp_value, cudaStream_t stream) {
  if (!check_init(call) || !check_cmp(call, cmp) || !check_local(call, sig_addr, sizeof(uint64_t))) return;
  if (stream_wait_value64(call, stream, sig_addr, cmp, cmp_value)) return;
  signal_wait_kernel<<<1, 1, 0, stream>>>(sig_addr, cmp, cmp_value, nullptr, gshmem::DoneWord{});
  finish(call, stream, false);
}

}  // extern "C"
