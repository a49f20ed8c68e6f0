// SPDX-License-Identifier: BSD-3-Clause
// Ping-pong latency (pingpong.cuh) with plain RMA:
//   pingpong_p    the round number itself travels: p(flag, k) / wait_until(flag >= k)
//   pingpong_put  putmem<Scope>(data, size), fence, p(flag, k) / wait_until(flag >= k)
#include "pingpong.cuh"

namespace perf {
namespace {

struct ProtoP {
  template <class S>
  static __device__ void send(const PingArgs& p, uint64_t k) {
    gshmem::p(p.flag, k, p.peer);
  }
  template <class S>
  static __device__ void wait(const PingArgs& p, uint64_t k) {
    wait_flag<S>(p, k);
  }
};

struct ProtoPut {
  template <class S>
  static __device__ void send(const PingArgs& p, uint64_t k) {
    gshmem::putmem<S>(p.data, p.src, p.bytes, p.peer);  // ends with S::sync()
    if (S::rank() == 0) {
      gshmem::fence();  // the group's data before the flag (cumulative through the sync)
      gshmem::p(p.flag, k, p.peer);
    }
  }
  template <class S>
  static __device__ void wait(const PingArgs& p, uint64_t k) {
    wait_flag<S>(p, k);
  }
};

void run_p(Ctx& ctx, const Case& c, Result& r) { run_pingpong<ProtoP>(ctx, c, r, "pingpong_p", false); }
void run_put(Ctx& ctx, const Case& c, Result& r) { run_pingpong<ProtoPut>(ctx, c, r, "pingpong_put", true); }

Bench describe_p() {
  Bench b = pingpong_bench("pingpong_p", "one-way latency (RTT/2) of p + wait_until ping-pong, PE 0 <-> PE 1", false);
  b.run = run_p;
  return b;
}

Bench describe_put() {
  Bench b = pingpong_bench("pingpong_put",
                           "one-way latency (RTT/2) of putmem<scope> + fence + p(flag) ping-pong, PE 0 <-> PE 1", true);
  b.run = run_put;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_p);
PERF_REGISTER(perf::describe_put);
