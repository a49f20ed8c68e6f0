// SPDX-License-Identifier: BSD-3-Clause
#include "host/core/abort.h"

#include <atomic>
#include <cstdio>

#include "gshmem/detail/device_state.h"

namespace gshmem::abort_word {
namespace {
std::atomic<uint64_t*> g_word{nullptr};
}

void attach(uint64_t* word) { g_word.store(word, std::memory_order_release); }

bool raise(uint32_t kind, int32_t arg) {
  uint64_t* w = g_word.load(std::memory_order_acquire);
  if (w == nullptr) return false;
  uint64_t expected = 0;
  // A sequentially consistent store to pinned memory: the GPU's next system-scope load sees it.
  return __atomic_compare_exchange_n(w, &expected, GSHMEMI_ABORT_VALUE(kind, arg), false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
}

uint64_t value() {
  const uint64_t* w = g_word.load(std::memory_order_acquire);
  return w != nullptr ? __atomic_load_n(w, __ATOMIC_SEQ_CST) : 0;
}

Status status() {
  const uint64_t v = value();
  if (v == 0) return GSHMEM_SUCCESS;
  return static_cast<uint32_t>(v >> 32) == GSHMEMI_ABORT_USER ? GSHMEM_ERROR_ABORTED : GSHMEM_ERROR_PEER_FAILURE;
}

const char* reason(char* buf, unsigned size) {
  const uint64_t v = value();
  const int arg = static_cast<int32_t>(static_cast<uint32_t>(v));
  if (v == 0)
    snprintf(buf, size, "%s", "");
  else if (static_cast<uint32_t>(v >> 32) == GSHMEMI_ABORT_USER)
    snprintf(buf, size, "gshmemx_abort(%d) was called on this PE", arg);
  else
    snprintf(buf, size, "PE %d failed", arg);
  return buf;
}

}  // namespace gshmem::abort_word
