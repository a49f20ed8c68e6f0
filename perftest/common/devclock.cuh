// SPDX-License-Identifier: BSD-3-Clause
// Per-iteration timing inside a kernel, for latency benchmarks: the recording
// thread reads the SM cycle counter (clock64) around each iteration and stores
// the difference; the whole loop is also timed with %globaltimer (ns) so cycles
// convert to time at the clock the SM really ran at. Kernel launch overhead is
// therefore not in these samples.
//
//   DevClock clk(ctx);                          host
//   kernel<<<...>>>(..., clk.args(warmup, iters));
//   r.us = clk.samples_us();  r.timer = "clock64";
//
//   in the kernel (rec: this thread records):
//     clock_start(a, rec);
//     for (int i = 0; i < a.warmup + a.iters; ++i) {
//       const long long t0 = read_clock();
//       ... operation; its result goes through consume() so t1 waits for it ...
//       clock_record(a, rec, i, read_clock() - t0);
//     }
//     clock_stop(a, rec);
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "context.h"

namespace perf {

struct ClockArgs {
  long long* cycles;        // [iters]
  unsigned long long* cal;  // globaltimer start, clock start, globaltimer end, clock end
  int warmup;
  int iters;
};

// Cycle counter; "memory" keeps the compiler from moving memory accesses across it.
__device__ __forceinline__ long long read_clock() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned long long read_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

// A value the timed operation produced is stored (volatile) before the clock is read
// again: in-order issue makes that store, and so the clock read after it, wait for it.
static __device__ unsigned long long perf_sink;  // one per translation unit (no -rdc)
template <class T>
__device__ __forceinline__ void consume(T v) {
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T) < sizeof(b) ? sizeof(T) : sizeof(b));
  *const_cast<volatile unsigned long long*>(&perf_sink) = b;
}

__device__ __forceinline__ void clock_start(const ClockArgs& a, bool rec) {
  if (!rec) return;
  a.cal[0] = read_globaltimer();
  a.cal[1] = static_cast<unsigned long long>(read_clock());
}
__device__ __forceinline__ void clock_stop(const ClockArgs& a, bool rec) {
  if (!rec) return;
  a.cal[3] = static_cast<unsigned long long>(read_clock());
  a.cal[2] = read_globaltimer();
}
__device__ __forceinline__ void clock_record(const ClockArgs& a, bool rec, int i, long long cycles) {
  if (rec && i >= a.warmup) a.cycles[i - a.warmup] = cycles;
}

class DevClock {
 public:
  explicit DevClock(Ctx& ctx) : ctx_(ctx) {}
  ~DevClock() {
    if (cycles_) cudaFree(cycles_);
    if (cal_) cudaFree(cal_);
  }
  DevClock(const DevClock&) = delete;
  DevClock& operator=(const DevClock&) = delete;

  ClockArgs args(int warmup, int iters) {
    if (iters > cap_) {
      if (cycles_) ctx_.cuda(cudaFree(cycles_), "cudaFree");
      ctx_.cuda(cudaMalloc(&cycles_, sizeof(long long) * iters), "cudaMalloc (clock samples)");
      cap_ = iters;
    }
    if (!cal_) ctx_.cuda(cudaMalloc(&cal_, 4 * sizeof(unsigned long long)), "cudaMalloc (clock calibration)");
    ctx_.cuda(cudaMemsetAsync(cal_, 0, 4 * sizeof(unsigned long long), ctx_.stream), "cudaMemsetAsync");
    iters_ = iters;
    return ClockArgs{cycles_, cal_, warmup, iters};
  }

  // Waits for the stream; the recorded iterations in microseconds.
  std::vector<double> samples_us() {
    ctx_.cuda(cudaStreamSynchronize(ctx_.stream), "timed kernel");
    std::vector<long long> c(iters_);
    unsigned long long cal[4];
    ctx_.cuda(cudaMemcpy(c.data(), cycles_, sizeof(long long) * iters_, cudaMemcpyDeviceToHost), "cudaMemcpy");
    ctx_.cuda(cudaMemcpy(cal, cal_, sizeof(cal), cudaMemcpyDeviceToHost), "cudaMemcpy");
    // ns per cycle from the loop's own globaltimer / clock64 pair when the loop ran long
    // enough for the timer's resolution; the nominal SM clock otherwise.
    double ns_per_cycle = ctx_.sm_clock_khz > 0 ? 1e6 / ctx_.sm_clock_khz : 1.0;
    const double dns = static_cast<double>(cal[2] - cal[0]), dcyc = static_cast<double>(cal[3] - cal[1]);
    if (cal[2] > cal[0] && dns >= 50000.0 && dcyc > 0) ns_per_cycle = dns / dcyc;
    std::vector<double> us(iters_);
    for (int i = 0; i < iters_; ++i) us[i] = static_cast<double>(c[i]) * ns_per_cycle * 1e-3;
    return us;
  }

 private:
  Ctx& ctx_;
  long long* cycles_ = nullptr;
  unsigned long long* cal_ = nullptr;
  int cap_ = 0, iters_ = 0;
};

}  // namespace perf
