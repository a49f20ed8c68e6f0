// SPDX-License-Identifier: BSD-3-Clause
// Ping-pong latency (pingpong.cuh) with signals:
//   pingpong_put_signal  putmem_signal<Scope>(data, size, sig = k, SET) / signal_wait_until(sig >= k)
//   pingpong_signal      signal_op(sig = k, SET)                        / signal_wait_until(sig >= k)
#include "pingpong.cuh"

namespace perf {
namespace {

template <class S>
__device__ __forceinline__ void wait_signal(const PingArgs& p, uint64_t k) {
  if (S::rank() == 0) gshmem::signal_wait_until(p.flag, gshmem::cmp::ge, k);
  S::sync();
}

struct ProtoPutSignal {
  template <class S>
  static __device__ void send(const PingArgs& p, uint64_t k) {
    gshmem::putmem_signal<S>(p.data, p.src, p.bytes, p.flag, k, GSHMEM_SIGNAL_SET, p.peer);
  }
  template <class S>
  static __device__ void wait(const PingArgs& p, uint64_t k) {
    wait_signal<S>(p, k);
  }
};

struct ProtoSignal {
  template <class S>
  static __device__ void send(const PingArgs& p, uint64_t k) {
    gshmem::signal_op(p.flag, k, GSHMEM_SIGNAL_SET, p.peer);
  }
  template <class S>
  static __device__ void wait(const PingArgs& p, uint64_t k) {
    wait_signal<S>(p, k);
  }
};

void run_put_signal(Ctx& ctx, const Case& c, Result& r) {
  run_pingpong<ProtoPutSignal>(ctx, c, r, "pingpong_put_signal", true);
}
void run_signal(Ctx& ctx, const Case& c, Result& r) { run_pingpong<ProtoSignal>(ctx, c, r, "pingpong_signal", false); }

Bench describe_put_signal() {
  Bench b = pingpong_bench("pingpong_put_signal",
                           "one-way latency (RTT/2) of putmem_signal<scope> + signal_wait_until, PE 0 <-> PE 1", true);
  b.run = run_put_signal;
  return b;
}

Bench describe_signal() {
  Bench b = pingpong_bench("pingpong_signal", "one-way latency (RTT/2) of signal_op + signal_wait_until, PE 0 <-> PE 1",
                           false);
  b.run = run_signal;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_put_signal);
PERF_REGISTER(perf::describe_signal);
