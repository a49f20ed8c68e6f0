// SPDX-License-Identifier: BSD-3-Clause
// pingpong_atomic: one-way latency (RTT/2) of a ping-pong carried by AMOs
// (pingpong.cuh): atomic_add(flag, 1) on the peer / wait_until(flag >= k).
#include "pingpong.cuh"

namespace perf {
namespace {

struct ProtoAtomic {
  template <class S>
  static __device__ void send(const PingArgs& p, uint64_t) {
    gshmem::atomic_add<uint64_t>(p.flag, 1, p.peer);
  }
  template <class S>
  static __device__ void wait(const PingArgs& p, uint64_t k) {
    wait_flag<S>(p, k);
  }
};

void run(Ctx& ctx, const Case& c, Result& r) { run_pingpong<ProtoAtomic>(ctx, c, r, "pingpong_atomic", false); }

Bench describe() {
  Bench b = pingpong_bench("pingpong_atomic",
                           "one-way latency (RTT/2) of atomic_add + wait_until ping-pong, PE 0 <-> PE 1", false);
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);
