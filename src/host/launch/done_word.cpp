// SPDX-License-Identifier: BSD-3-Clause
#include "host/launch/done_word.h"

#include <chrono>

#include "host/core/runtime.h"
#include "host/core/config.h"
#include "host/core/log.h"

namespace gshmem {
namespace {

int spin_us = 0;
unsigned long long last_seq = 0;  // host calls are serialised (runtime.h)

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace

int host_spin_us() { return spin_us; }

void tune_host_spin(const Runtime& r) {
  long long us = config::get().host_spin_us;
  const char* why = "GSHMEM_HOST_SPIN_US";
  if (us < 0) {
    unsigned flags = 0;
    if (cudaGetDeviceFlags(&flags) != cudaSuccess) cudaGetLastError();
    const unsigned sched = flags & cudaDeviceScheduleMask;
    if (sched == cudaDeviceScheduleBlockingSync || sched == cudaDeviceScheduleYield) {
      us = 0;
      why = "the application's blocking or yielding synchronisation";
    } else {
      us = cpus_to_spin(r) ? 100 : 0;
      why = "the CPUs per PE on this node";
    }
  }
  spin_us = static_cast<int>(us);  // at most 1000000 (config_table.h)
  GSHMEM_LOG_INFO("blocking host calls poll their kernel's completion word for %d us before they synchronise (%s)",
                  spin_us, why);
}

DoneWord next_done_word() {
  unsigned long long* word = spin_us > 0 ? rt().call_memory.done_word() : nullptr;
  return word ? DoneWord{word, ++last_seq} : DoneWord{nullptr, 0};
}

cudaError_t await_done(cudaStream_t stream, DoneWord d) {
  if (d.word) {
    using clock = std::chrono::steady_clock;
    const clock::time_point end = clock::now() + std::chrono::microseconds(spin_us);
    for (unsigned i = 1;; ++i) {
      if (__atomic_load_n(d.word, __ATOMIC_ACQUIRE) == d.seq) return cudaSuccess;
      if (i % 64 == 0 && clock::now() >= end) break;
      cpu_relax();
    }
  }
  const cudaError_t e = cudaStreamSynchronize(stream);
  // The kernel ran to its end, so its word is stored - unless it does not store it, which
  // would cost every such call the whole polling time: say so, once.
  static bool told = false;
  if (e == cudaSuccess && d.word && !told && __atomic_load_n(d.word, __ATOMIC_ACQUIRE) != d.seq) {
    told = true;
    GSHMEM_LOG_ERROR(
        "gshmem: internal error: a blocking host call's kernel completed without storing its completion "
        "word (call %llu, word %llu); such calls still complete, each after polling for %d us. Please "
        "report it; GSHMEM_HOST_SPIN_US=0 avoids the polling",
        d.seq, __atomic_load_n(d.word, __ATOMIC_ACQUIRE), spin_us);
  }
  return e;
}

}  // namespace gshmem
