// SPDX-License-Identifier: BSD-3-Clause
#include "memcpy_stager.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "gshmem/detail/proxy_abi.h"

namespace gshmem::proxy {

MemcpyStager::MemcpyStager(uint8_t* heap, uint64_t heap_size, uint64_t seed, bool lag)
    : heap_(heap), heap_size_(heap_size), lag_(lag), rng_(seed) {}

MemcpyStager::~MemcpyStager() {
  if (!copier_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  copier_.join();
}

void MemcpyStager::set_async_copies() {
  if (copier_.joinable() || lag_) return;
  copier_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || !copies_.empty(); });
      if (copies_.empty()) return;  // stopping
      const Copy c = copies_.front();
      lock.unlock();
      if (c.size) std::memcpy(c.to, c.from, c.size);
      lock.lock();
      copies_.pop_front();  // after the copy: start_copy appends only at the back
      async_done_.fetch_add(1, std::memory_order_release);
    }
  });
}

void MemcpyStager::submit(const ApplyOp& op) { queue_.push_back(op); }

void MemcpyStager::poll(std::vector<Done>& done) {
  if (stalled_) return;
  size_t n = queue_.size();
  if (lag_ && n > 0) n = std::min<size_t>(n, rng_() % 5);
  for (size_t i = 0; i < n; ++i) {
    done.push_back(apply(queue_.front()));
    queue_.pop_front();
    ++applied_;
  }
}

bool MemcpyStager::start_copy(uint64_t addr, uint64_t size, uint8_t* to, std::string*) {
  const Copy c{reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(addr)), to, elide_ ? 0 : size};
  if (copier_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      copies_.push_back(c);
    }
    cv_.notify_one();
    return true;
  }
  copies_.push_back(c);
  return true;
}

uint64_t MemcpyStager::copies_done() {
  if (copier_.joinable()) return async_done_.load(std::memory_order_acquire);  // the slot's bytes with it
  size_t n = copies_.size();
  if (lag_ && n > 0) n = std::min<size_t>(n, rng_() % 3);
  for (size_t i = 0; i < n; ++i) {
    const Copy& c = copies_.front();
    if (c.size) std::memcpy(c.to, c.from, c.size);
    copies_.pop_front();
    ++copies_done_;
  }
  return copies_done_;
}

bool MemcpyStager::in_heap(uint64_t offset, uint64_t size, unsigned align, std::string* why) const {
  if (offset <= heap_size_ && size <= heap_size_ - offset && offset % align == 0) return true;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "offset 0x%" PRIx64 " + %" PRIu64 " B (aligned to %u) is outside the heap of %" PRIu64 " B", offset,
                size, align, heap_size_);
  *why = buf;
  return false;
}

void MemcpyStager::note(Change::Kind kind, const ApplyOp& op, uint64_t offset, uint64_t size) {
  if (observer_) observer_({kind, op.kind == ApplyOp::kTarget ? op.src_pe : -1, op.seq, offset, size});
}

namespace {

template <typename T>
uint64_t amo(T* p, const ApplyOp& op) {
  const T v = static_cast<T>(op.operand);
  switch (op.op) {
    case GSHMEMI_PROXY_OP_AMO_SET:
      __atomic_store_n(p, v, __ATOMIC_RELAXED);
      return 0;
    case GSHMEMI_PROXY_OP_AMO_ADD:
      return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    case GSHMEMI_PROXY_OP_AMO_AND:
      return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);
    case GSHMEMI_PROXY_OP_AMO_OR:
      return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
    case GSHMEMI_PROXY_OP_AMO_XOR:
      return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED);
    case GSHMEMI_PROXY_OP_AMO_SWAP:
      return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
    case GSHMEMI_PROXY_OP_AMO_CSWAP: {
      T expected = static_cast<T>(op.compare);
      __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      return expected;  // the old value either way
    }
    default:  // GSHMEMI_PROXY_OP_AMO_FETCH
      return __atomic_load_n(p, __ATOMIC_RELAXED);
  }
}

}  // namespace

Stager::Done MemcpyStager::apply(const ApplyOp& op) {
  Done d;
  if (op.kind == ApplyOp::kLocalWrite) {
    std::memcpy(op.local, op.data, op.size);
    note(Change::kLocalWrite, op, op.offset, op.size);
    return d;
  }
  const unsigned width = 1u << ((op.flags & GSHMEMI_PROXY_F_WIDTH_MASK) >> GSHMEMI_PROXY_F_WIDTH_SHIFT);
  const bool signal = op.op == GSHMEMI_PROXY_OP_SIGNAL || (op.flags & GSHMEMI_PROXY_F_HAS_SIGNAL);
  if (signal && !in_heap(op.sig_offset, 8, 8, &d.error)) return d;
  switch (op.op) {
    case GSHMEMI_PROXY_OP_PUT:
      if (!in_heap(op.offset, op.size, 1, &d.error)) return d;
      if (!(elide_ && op.staged)) std::memcpy(heap_ + op.offset, op.data, op.size);
      note(Change::kData, op, op.offset, op.size);
      break;
    case GSHMEMI_PROXY_OP_GET:
      if (!in_heap(op.offset, op.size, 1, &d.error)) return d;
      if (op.flags & GSHMEMI_PROXY_F_FETCH) {
        uint64_t v = 0;
        std::memcpy(&v, heap_ + op.offset, op.size);
        d.value = v;
      } else {
        std::memcpy(op.local, heap_ + op.offset, op.size);
      }
      return d;
    case GSHMEMI_PROXY_OP_SIGNAL:
      break;
    default:
      if (!in_heap(op.offset, width, width, &d.error)) return d;
      d.value = width == 4 ? amo(reinterpret_cast<uint32_t*>(heap_ + op.offset), op)
                           : amo(reinterpret_cast<uint64_t*>(heap_ + op.offset), op);
      note(Change::kAmo, op, op.offset, width);
      return d;
  }
  if (signal) {
    // After the data, with release: what the apply kernel's st.release.sys / red.add.release.sys
    // give a waiter that acquires the signal.
    auto* s = reinterpret_cast<uint64_t*>(heap_ + op.sig_offset);
    if (op.flags & GSHMEMI_PROXY_F_SIGNAL_ADD)
      __atomic_fetch_add(s, op.sig_value, __ATOMIC_RELEASE);
    else
      __atomic_store_n(s, op.sig_value, __ATOMIC_RELEASE);
    note(Change::kSignal, op, op.sig_offset, 8);
  }
  return d;
}

}  // namespace gshmem::proxy
