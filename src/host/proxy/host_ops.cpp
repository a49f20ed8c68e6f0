// SPDX-License-Identifier: BSD-3-Clause
#include "host/proxy/host_ops.h"

#include <atomic>

#include "gshmem/detail/proxy_abi.h"
#include "host/core/log.h"
#include "host/core/runtime.h"
#include "host/mem/heap.h"
#include "host/proxy/proxy.h"

namespace gshmem::hproxy {
namespace {

// The bounce-chunk size of docs/internode.md section 5: large transfers pipeline through the
// network and the apply stream instead of waiting for one huge message.
constexpr size_t kChunk = 1u << 20;

uint16_t width_flags(unsigned width) {
  unsigned log2 = 0;
  while ((1u << log2) < width) ++log2;
  return static_cast<uint16_t>(log2 << GSHMEMI_PROXY_F_WIDTH_SHIFT);
}

// Pushes `op`; blocking: waits for its completion and reports a failure.
class Issuer {
 public:
  Issuer(const char* call, int pe, bool blocking) : call_(call), pe_(pe), blocking_(blocking) {}
  void push(proxy::ProxyOp op, uint64_t* result = nullptr) {
    op.target = pe_;
    proxy::HostOp h;
    h.op = op;
    h.result = result;
    h.failed = blocking_ ? &failed_ : nullptr;  // nbi: nothing waits; the proxy thread logs failures
    last_ = rt().proxy->push(h);
    any_ = true;
  }
  bool finish() {
    if (!blocking_ || !any_) return true;
    rt().proxy->wait_host(last_ + 1);
    if (failed_.load(std::memory_order_acquire) == 0) return true;
    GSHMEM_LOG_ERROR(
        "%s: the operation on PE %d (on another node, through the proxy) failed; the proxy's error above "
        "says why",
        call_, pe_);
    return false;
  }

 private:
  const char* call_;
  int pe_;
  bool blocking_;
  bool any_ = false;
  uint64_t last_ = 0;
  std::atomic<int> failed_{0};
};

bool transfer(const char* call, uint8_t opcode, int pe, uint64_t offset, size_t rpitch, const void* local,
              size_t lpitch, size_t nelems, size_t elem, bool blocking, const Signal* sig) {
  Issuer is(call, pe, blocking);
  const auto base = reinterpret_cast<uintptr_t>(local);
  auto one = [&](uint64_t off, uintptr_t addr, uint64_t bytes, bool last) {
    proxy::ProxyOp op;
    op.op = opcode;
    op.flags = GSHMEMI_PROXY_F_BY_REF;
    op.offset = off;
    op.size = bytes;
    op.ref_addr = addr;
    if (last && sig) {
      op.flags |= GSHMEMI_PROXY_F_HAS_SIGNAL | (sig->add ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0);
      op.sig_offset = sig->offset;
      op.sig_value = sig->value;
    }
    is.push(op);
  };
  if (rpitch == elem && lpitch == elem) {
    const uint64_t total = static_cast<uint64_t>(nelems) * elem;
    for (uint64_t done = 0; done < total; done += kChunk) {
      const uint64_t n = total - done < kChunk ? total - done : kChunk;
      one(offset + done, base + done, n, done + n == total);
    }
  } else {
    for (size_t i = 0; i < nelems; ++i) one(offset + i * rpitch, base + i * lpitch, elem, i + 1 == nelems);
  }
  return is.finish();
}

}  // namespace

bool is_proxy_peer(int pe) {
  const Runtime& r = rt();
  return r.proxy && pe >= 0 && pe < r.n_pes && r.heap->peer_base(pe) == nullptr;
}

bool put(const char* call, int pe, uint64_t offset, size_t rpitch, const void* local, size_t lpitch, size_t nelems,
         size_t elem, bool blocking, const Signal* sig) {
  if (nelems == 0 || elem == 0) return sig ? signal(call, pe, *sig, blocking) : true;
  return transfer(call, GSHMEMI_PROXY_OP_PUT, pe, offset, rpitch, local, lpitch, nelems, elem, blocking, sig);
}

bool get(const char* call, int pe, uint64_t offset, size_t rpitch, void* local, size_t lpitch, size_t nelems,
         size_t elem, bool blocking) {
  if (nelems == 0 || elem == 0) return true;
  return transfer(call, GSHMEMI_PROXY_OP_GET, pe, offset, rpitch, local, lpitch, nelems, elem, blocking, nullptr);
}

bool signal(const char* call, int pe, const Signal& sig, bool blocking) {
  Issuer is(call, pe, blocking);
  proxy::ProxyOp op;
  op.op = GSHMEMI_PROXY_OP_SIGNAL;
  op.flags = sig.add ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0;
  op.sig_offset = sig.offset;
  op.sig_value = sig.value;
  is.push(op);
  return is.finish();
}

bool amo(const char* call, int pe, uint64_t offset, unsigned opcode, unsigned width, uint64_t operand, uint64_t compare,
         uint64_t* fetched) {
  Issuer is(call, pe, true);
  proxy::ProxyOp op;
  op.op = static_cast<uint8_t>(opcode);
  op.flags = width_flags(width) | (fetched ? GSHMEMI_PROXY_F_FETCH : 0);
  op.offset = offset;
  op.size = width;
  op.operand = operand;
  op.compare = compare;
  uint64_t value = 0;
  is.push(op, fetched ? &value : nullptr);
  if (!is.finish()) return false;
  if (fetched) *fetched = value;
  return true;
}

void quiet() {
  const Runtime& r = rt();
  if (r.proxy) r.proxy->wait_host(r.proxy->host_pushed());
}

bool unsupported_on_stream(const char* call, int pe) {
  GSHMEM_LOG_ERROR(
      "%s: PE %d is on another node (reached through the proxy), and strided on-stream transfers to such a PE are "
      "not supported yet; use a contiguous on-stream transfer per row, or the host or device form",
      call, pe);
  return false;
}

}  // namespace gshmem::hproxy
