// SPDX-License-Identifier: BSD-3-Clause
// Bad team / collective arguments and the messages they produce. Compiled with
// GSHMEM_DEBUG_CHECKS=1 (device checks on); host calls are always checked, and
// the cross-PE comparison of arguments runs when the environment sets
// GSHMEM_DEBUG_CHECKS=1 (the driver does for the *_agree cases). One case per
// process: `test_coll_errors <case>`, run under gshmrun by coll_errors.sh, which
// checks the exit status and greps the output.
//   dev_*   a kernel makes the bad call on every PE: one line naming the call, the
//           PE, the cause and the remedy, then the kernel traps (exit non-zero).
//   host_*  the host call logs the line and returns nonzero on every PE without
//           moving data (checked here); the process exits 0.
//   late_*  every PE but the last calls one LL collective (the driver sets
//           GSHMEM_WAIT_TIMEOUT=2) and the last never does: each waiting PE names the
//           last PE and traps (thread, warp and block scope, the warp with fewer
//           elements than lanes, so its wait is the vote's). The reductions' waits
//           end in their debug check of the members' first words.
//   ok      valid calls at the edges of the checks print no error.
#include <unistd.h>

#include <string>

#include "coll_test.cuh"

using namespace gt;

namespace {

constexpr size_t kBytes = 4096;

struct Bufs {
  char* dest;   // symmetric, kBytes
  char* src;    // symmetric, kBytes
  char* local;  // cudaMalloc, kBytes
};

__global__ void k_dev_case(int which, Bufs b) {
  // Thread-scope calls from one thread (one message per PE); warp/block calls from all.
  if ((which == 1 || which == 2) && threadIdx.x != 0) return;
  switch (which) {
    case 0:
      gshmemx_int_broadcast_block(GSHMEM_TEAM_WORLD, (int*)b.dest, (int*)b.src, 4, 99);
      break;
    case 1:
      gshmem_int_alltoall(7777, (int*)b.dest, (int*)b.src, 4);
      break;
    case 2:
      gshmem_fcollectmem(GSHMEM_TEAM_WORLD, b.dest, b.dest + 8, 64);
      break;
    case 3:
      gshmemx_alltoallsmem_warp(GSHMEM_TEAM_WORLD, b.dest, b.src, 0, 1, 4);
      break;
    case 4:
      gshmemx_broadcastmem_block(GSHMEM_TEAM_WORLD, b.local, b.src, 64, 0);
      break;
    case 5:
      gshmemx_team_sync_block(GSHMEM_TEAM_INVALID);
      break;
    default:
      break;
  }
}

__global__ void k_late_case(int which, Bufs b) {
  const bool lone = threadIdx.x == 0, warp = threadIdx.x < 32;
  float* df = reinterpret_cast<float*>(b.dest);
  const float* sf = reinterpret_cast<const float*>(b.src);
  switch (which) {
    case 0:
      if (lone) gshmem_float_sum_reduce(GSHMEM_TEAM_WORLD, df, sf, 3);
      break;
    case 1:
      if (warp) gshmemx_float_sum_reduce_warp(GSHMEM_TEAM_WORLD, df, sf, 5);
      break;
    case 2:
      gshmemx_double_max_reducescatter_block(GSHMEM_TEAM_WORLD, (double*)b.dest, (const double*)b.src, 3);
      break;
    case 3:
      if (warp) gshmemx_alltoallmem_warp(GSHMEM_TEAM_WORLD, b.dest, b.src, 4);
      break;
    case 4:
      gshmemx_fcollectmem_block(GSHMEM_TEAM_WORLD, b.dest, b.src, 12);
      break;
    case 5:
      if (lone) gshmem_broadcastmem(GSHMEM_TEAM_WORLD, b.dest, b.src, 40, 0);
      break;
    default:
      break;
  }
}

// Poisons dest, runs the bad host call on every PE, checks it failed and left dest alone.
template <class F>
void host_case(const Bufs& b, F call) {
  CUDA_CHECK(cudaMemset(b.dest, kPoison, kBytes));
  gshmem_barrier_all();
  const int rc = call();
  GT_CHECK(rc != 0);
  gshmem_barrier_all();
  std::vector<unsigned char> h(kBytes);
  CUDA_CHECK(cudaMemcpy(h.data(), b.dest, kBytes, cudaMemcpyDeviceToHost));
  GT_VERIFY("dest after a rejected call", h.data(), kBytes, [](size_t) { return kPoison; });
}

int run_case(const std::string& c, const Bufs& b) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const char* dev[] = {"dev_bad_root", "dev_invalid_team",  "dev_overlap",
                       "dev_stride",   "dev_not_symmetric", "dev_team_sync_invalid"};
  for (int i = 0; i < 6; ++i)
    if (c == dev[i]) {
      gshmem_barrier_all();
      k_dev_case<<<1, 64>>>(i, b);
      KERNEL_CHECK();  // the trap ends the process here
      return 0;
    }
  const char* late[] = {"late_reduce_thread", "late_reduce_warp",    "late_reducescatter_block",
                        "late_alltoall_warp", "late_fcollect_block", "late_broadcast_thread"};
  for (int i = 0; i < 6; ++i)
    if (c == late[i]) {
      gshmem_barrier_all();
      if (me == npes - 1) {  // never calls; gshmrun ends it once a waiting PE has failed
        sleep(60);
        return 3;
      }
      k_late_case<<<1, 64>>>(i, b);
      KERNEL_CHECK();  // the trap ends the process here
      return 0;
    }
  int* di = reinterpret_cast<int*>(b.dest);
  const int* si = reinterpret_cast<const int*>(b.src);
  if (c == "host_bad_root") {
    host_case(b, [&] { return gshmem_int_broadcast(GSHMEM_TEAM_WORLD, di, si, 4, npes); });
  } else if (c == "host_invalid_team") {
    host_case(b, [&] { return gshmem_long_fcollect(GSHMEM_TEAM_INVALID, (long*)di, (const long*)si, 4); });
  } else if (c == "host_overlap") {
    host_case(b, [&] {
      const int r = gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, b.dest, b.dest + 8, 16, test_stream());
      CUDA_CHECK(cudaStreamSynchronize(test_stream()));
      return r;
    });
  } else if (c == "host_not_symmetric") {
    host_case(b, [&] { return gshmem_collectmem(GSHMEM_TEAM_WORLD, b.local, b.src, 16); });
  } else if (c == "host_stride") {
    host_case(b, [&] { return gshmem_int_alltoalls(GSHMEM_TEAM_WORLD, di, si, 1, -1, 2); });
  } else if (c == "host_nelems_agree") {  // GSHMEM_DEBUG_CHECKS=1: PE 1 passes one more
    host_case(b, [&] { return gshmem_int_fcollect(GSHMEM_TEAM_WORLD, di, si, me == 1 ? 11 : 10); });
  } else if (c == "host_root_agree") {
    host_case(b, [&] { return gshmem_broadcastmem(GSHMEM_TEAM_WORLD, b.dest, b.src, 64, me == 0 ? 0 : 1); });
  } else if (c == "host_op_agree") {
    host_case(b, [&] {
      return me == 0 ? gshmem_fcollectmem(GSHMEM_TEAM_WORLD, b.dest, b.src, 8)
                     : gshmem_alltoallmem(GSHMEM_TEAM_WORLD, b.dest, b.src, 8);
    });
  } else if (c == "host_rejected_agree") {  // only PE 1's arguments are bad; every PE fails
    host_case(b, [&] { return gshmem_fcollectmem(GSHMEM_TEAM_WORLD, me == 1 ? b.local : b.dest, b.src, 8); });
  } else if (c == "host_sync_invalid") {
    GT_CHECK(gshmem_barrier(4242) != 0);
    GT_CHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_INVALID, test_stream()) != 0);
  } else if (c == "split_bad") {
    gshmem_team_t t = 0;
    GT_CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 0, 2, nullptr, 0, &t) != 0);
    GT_CHECK_EQ(GSHMEM_TEAM_INVALID, t);
  } else if (c == "exhaust") {  // GSHMEM_MAX_TEAMS=5: two teams fit
    gshmem_team_t t[3];
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &t[0]));
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &t[1]));
    GT_CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &t[2]) != 0);
    GT_CHECK_EQ(GSHMEM_TEAM_INVALID, t[2]);
    gshmem_team_destroy(t[0]);
    gshmem_team_destroy(t[1]);
  } else if (c == "destroy_predefined") {
    gshmem_team_destroy(GSHMEM_TEAM_WORLD);
    GT_CHECK_EQ(me, gshmem_team_my_pe(GSHMEM_TEAM_WORLD));
  } else if (c == "ok") {  // valid edges: in-place broadcast, empty collectives, size-1 team
    GT_CHECK_EQ(0, gshmem_broadcastmem(GSHMEM_TEAM_WORLD, b.dest, b.dest, 64, npes - 1));
    GT_CHECK_EQ(0, gshmem_fcollectmem(GSHMEM_TEAM_WORLD, b.dest, b.src, 0));
    GT_CHECK_EQ(0, gshmem_int_alltoalls(GSHMEM_TEAM_WORLD, di, si, 2, 3, 0));
    GT_CHECK_EQ(0, gshmem_collectmem(GSHMEM_TEAM_WORLD, b.dest, b.src, me == 0 ? 0 : 3));
    gshmem_team_t one = GSHMEM_TEAM_INVALID;
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, 1, 1, nullptr, 0, &one));
    if (one != GSHMEM_TEAM_INVALID) GT_CHECK_EQ(0, gshmem_int_fcollect(one, di, si, 4));
    gshmem_team_destroy(one);
  } else {
    emit(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  gshmem_barrier_all();
  emit(stdout, "case %s: done\n", c.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  test_main_prologue(2, 0);
  Bufs b;
  b.dest = static_cast<char*>(gshmem_malloc(kBytes));
  b.src = static_cast<char*>(gshmem_malloc(kBytes));
  CUDA_CHECK(cudaMalloc(&b.local, kBytes));
  CUDA_CHECK(cudaMemset(b.src, 1, kBytes));
  const int rc = run_case(argc > 1 ? argv[1] : "ok", b);
  gshmem_free(b.src);
  gshmem_free(b.dest);
  CUDA_CHECK(cudaFree(b.local));
  const int e = test_main_epilogue("coll_errors");
  return rc ? rc : e;
}
