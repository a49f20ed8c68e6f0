// SPDX-License-Identifier: BSD-3-Clause
// A PE is SIGKILLed while the others are inside a call that needs it (issue 56, item 3).
// usage: kill_matrix SITE, SITE one of
//   barrier      a device gshmem_barrier_all
//   wait         a device gshmem_int_wait_until on a flag only the victim would set
//   stream_coll  gshmemx_int_fcollect_on_stream over the world, then cudaStreamSynchronize
//   host_amo     host gshmem_int_atomic_fetch_add on the victim, over and over
//   heap_grow    gshmem_malloc of 48 MiB beyond a 64 MiB heap (growth: collective)
//   none         no kill: every PE runs every site above to completion and checks the results
//                (the "next test passes" run, and the proof that the sites work without a kill)
// Initialisation: KILL_MATRIX_INIT=uniqueid (the unique id, rank 0 writing it to the file
// KILL_MATRIX_ID_FILE, rank and size from KILL_MATRIX_RANK / KILL_MATRIX_SIZE, no launcher),
// else gshmem_init from the launcher's environment (gshmrun, torchrun-style, mpirun).
// The victim (KILL_MATRIX_VICTIM, default 1) passes the first host barrier, sleeps
// KILL_MATRIX_DELAY_MS (default 500, long enough for the others to be inside the call), prints
// the time and raises SIGKILL. A survivor prints when its call came back and then waits for the
// library to end it (fault.h). Driven by kill_matrix.sh. Exits 77 without a GPU per PE
// (GT_SHARE_GPUS=1: PEs may share GPUs).
#include <cuda_runtime.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"
#include "fault.h"

namespace {

constexpr size_t kGrow = 48u << 20;  // with GSHMEM_SYMMETRIC_SIZE=64M: each allocation grows the heap
constexpr int kColl = 5;             // ints per PE in the collective (odd)

__global__ void k_barrier() { gshmem_barrier_all(); }
__global__ void k_wait(int* flag, int value) { gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, value); }

int env_first(const char* const* names, int dflt) {
  for (; *names != nullptr; ++names)
    if (const char* v = getenv(*names); v != nullptr && *v != '\0') return atoi(v);
  return dflt;
}

// Exits 77 when this node lacks a GPU per local PE (every PE decides alike); GT_SHARE_GPUS=1
// lets the PEs share fewer GPUs (common.h's rule: a check of behaviour, not of speed).
void need_gpus() {
  static const char* const local_names[] = {"KILL_MATRIX_SIZE", "GSHMEM_LOCAL_SIZE", "LOCAL_WORLD_SIZE",
                                            "OMPI_COMM_WORLD_LOCAL_SIZE", nullptr};
  const int local = env_first(local_names, 1);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  if (count < 1 || (count < local && gt::env_int("GT_SHARE_GPUS", 0) != 1)) {
    gt::emit(stdout, "SKIP: needs %d GPUs on this node, found %d\n", local, count);
    exit(77);
  }
}

bool read_file_id(const char* path, gshmemx_uniqueid_t* id) {
  for (int i = 0; i < 6000; ++i) {  // 60 s
    if (FILE* f = fopen(path, "rb")) {
      const size_t n = fread(id, 1, sizeof(*id), f);
      fclose(f);
      if (n == sizeof(*id)) return true;
    }
    usleep(10000);
  }
  return false;
}

// The unique-id bootstrap without a launcher: rank 0 makes the id and writes it (atomically,
// 0600: it holds the job secret) where the others read it.
void init_uniqueid() {
  const int rank = gt::env_int("KILL_MATRIX_RANK", 0), size = gt::env_int("KILL_MATRIX_SIZE", 1);
  const char* path = getenv("KILL_MATRIX_ID_FILE");
  if (path == nullptr) {
    fprintf(stderr, "kill_matrix: KILL_MATRIX_INIT=uniqueid needs KILL_MATRIX_ID_FILE\n");
    exit(2);
  }
  gshmemx_uniqueid_t id = GSHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0) {
    if (gshmemx_get_uniqueid(&id) != 0) exit(3);
    const std::string tmp = std::string(path) + ".tmp";
    FILE* f = fopen(tmp.c_str(), "wb");
    if (f == nullptr || fchmod(fileno(f), 0600) != 0 || fwrite(&id, 1, sizeof(id), f) != sizeof(id) || fclose(f) != 0 ||
        rename(tmp.c_str(), path) != 0) {
      perror("kill_matrix: writing the unique id");
      exit(3);
    }
  } else if (!read_file_id(path, &id)) {
    fprintf(stderr, "kill_matrix: PE %d: no unique id in %s within 60 s\n", rank, path);
    exit(3);
  }
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  if (gshmemx_set_attr_uniqueid_args(rank, size, &id, &attr) != 0) exit(3);
  const int st = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
  if (st != 0) {
    fprintf(stderr, "kill_matrix: PE %d: gshmemx_init_attr: %s\n", rank, gshmemx_status_string(st));
    exit(3);
  }
}

// Every site to completion, with checks (SITE none).
int run_all(int me, int n, int* flag, int* src, int* dest) {
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  // barrier
  k_barrier<<<1, 1>>>();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  // host AMO on the next PE, then a device wait for the previous PE's
  const int old = gshmem_int_atomic_fetch_add(flag, 7, next);
  GT_CHECK_EQ(0, old);
  k_wait<<<1, 1>>>(flag, 7);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  GT_CHECK_EQ(7, gshmem_int_g(flag, me));
  (void)prev;
  // on-stream collective
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  int h[kColl];
  for (int i = 0; i < kColl; ++i) h[i] = gt::value<int>(me, i, 56);
  CUDA_CHECK(cudaMemcpy(src, h, sizeof(h), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, 0xA5, sizeof(int) * kColl * n));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();  // every dest poisoned before anyone pushes into it
  GT_CHECK_EQ(0, gshmemx_int_fcollect_on_stream(GSHMEM_TEAM_WORLD, dest, src, kColl, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamDestroy(s));
  std::vector<int> got(static_cast<size_t>(kColl) * n);
  CUDA_CHECK(cudaMemcpy(got.data(), dest, sizeof(int) * got.size(), cudaMemcpyDeviceToHost));
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < kColl; ++i) GT_CHECK_EQ(gt::value<int>(p, i, 56), got[static_cast<size_t>(p) * kColl + i]);
  // heap growth: two allocations beyond the initial heap, written by the next PE
  for (int k = 0; k < 2; ++k) {
    char* big = static_cast<char*>(gshmem_malloc(kGrow));
    GT_CHECK(big != nullptr);
    if (big == nullptr) break;
    gshmem_barrier_all();
    gshmem_int_p(reinterpret_cast<int*>(big + kGrow - sizeof(int)), 1000 + me, next);
    gshmem_barrier_all();
    GT_CHECK_EQ(1000 + prev, gshmem_int_g(reinterpret_cast<int*>(big + kGrow - sizeof(int)), me));
    gshmem_barrier_all();
    gshmem_free(big);
  }
  return gt::test_main_epilogue("kill_matrix none");
}

}  // namespace

int main(int argc, char** argv) {
  const char* site = argc > 1 ? argv[1] : "";
  static const char* const sites[] = {"barrier", "wait", "stream_coll", "host_amo", "heap_grow", "none"};
  bool known = false;
  for (const char* s : sites) known = known || strcmp(site, s) == 0;
  if (!known) {
    fprintf(stderr, "usage: kill_matrix barrier|wait|stream_coll|host_amo|heap_grow|none\n");
    return 2;
  }
  need_gpus();
  const char* init = getenv("KILL_MATRIX_INIT");
  if (init != nullptr && strcmp(init, "uniqueid") == 0)
    init_uniqueid();
  else
    gshmem_init();
  gt::stats().me = gshmem_my_pe();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int victim = gt::env_int("KILL_MATRIX_VICTIM", 1) % n;
  int* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  int* src = static_cast<int*>(gshmem_malloc(sizeof(int) * kColl));
  int* dest = static_cast<int*>(gshmem_malloc(sizeof(int) * kColl * n));
  if (!flag || !src || !dest) {
    gt::emit(stdout, "kill_matrix: PE %d: allocation failed\n", me);
    return 1;
  }
  gshmem_barrier_all();  // everyone is up
  if (strcmp(site, "none") == 0) return run_all(me, n, flag, src, dest);

  if (me == victim) {
    usleep(static_cast<useconds_t>(gt::env_int("KILL_MATRIX_DELAY_MS", 500)) * 1000u);
    fault::raise_now("kill_matrix", me, SIGKILL, "raising SIGKILL");
    return 3;  // not reached
  }
  gt::emit(stdout, "kill_matrix: PE %d entering %s\n", me, site);
  fflush(nullptr);
  char how[160] = "returned";
  if (strcmp(site, "barrier") == 0 || strcmp(site, "wait") == 0) {
    if (site[0] == 'b')
      k_barrier<<<1, 1>>>();
    else
      k_wait<<<1, 1>>>(flag, 1);
    CUDA_CHECK(cudaGetLastError());
    snprintf(how, sizeof(how), "%s", cudaGetErrorString(cudaDeviceSynchronize()));
  } else if (strcmp(site, "stream_coll") == 0) {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    const int st = gshmemx_int_fcollect_on_stream(GSHMEM_TEAM_WORLD, dest, src, kColl, s);
    snprintf(how, sizeof(how), "status %d, %s", st, cudaGetErrorString(cudaStreamSynchronize(s)));
  } else if (strcmp(site, "host_amo") == 0) {
    // Each call either completes (the victim's memory stays mapped here after its death) or fails
    // once the library knows; the library ends the process either way. Bounded: 30 s.
    long calls = 0;
    const long long until = fault::realtime_ns() + 30000000000LL;
    while (fault::realtime_ns() < until && gshmemx_initialized()) {
      gshmem_int_atomic_fetch_add(flag, 1, victim);
      ++calls;
    }
    snprintf(how, sizeof(how), "%ld calls", calls);
  } else {  // heap_grow
    void* big = gshmem_malloc(kGrow);
    snprintf(how, sizeof(how), "gshmem_malloc returned %p", big);
  }
  return fault::survivor_ended("kill_matrix", me, site, how);
}
