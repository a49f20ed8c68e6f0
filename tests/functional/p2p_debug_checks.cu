// SPDX-License-Identifier: BSD-3-Clause
// Bad calls for p2p_debug_checks.sh: each mode makes one wrong atomic, signal
// or wait call; the script runs every mode in its own gshmrun job and checks
// the message that names the call, the PE and the cause. Compiled with
// GSHMEM_DEBUG_CHECKS (device checks); host checks are always on for PE and
// sig_op/cmp and with GSHMEM_DEBUG_CHECKS=1 for local symmetric variables.
//   device-* modes trap in a kernel: the program exits 1 after the message.
//   host-freed / host-past-end: a put into a freed block / past its allocation's end, refused
//   against the live allocation (GSHMEM_DEBUG_CHECKS=1).
//   device-freed / device-past-end / device-amo-freed / device-signal-past-end: the same for
//   device calls, against the device's table of live allocations (detail/live_table.h): trap.
//   device-wait-freed / device-coll-freed / device-reduce-past-end: a wait on a freed variable, an
//   fcollect into a freed dest, a reduction's dest past its allocation's end: trap.
//   device-good: in-bounds device puts, AMOs, signals, a reduction and a wait at the ends of live allocations, next
//   to freed blocks and in more blocks than the table's first room: no report, the program
//   prints "DEVICE CALLS PASSED" once every value read back is right, and exits 0.
//   host-* modes log the error and return; the program prints
//   "HOST CALL RETURNED" and exits 0, but for host-timeout: its wait's kernel
//   traps (the host and on-stream set waits' warp scan, src/host/amo/wait_warp.cuh)
//   and the call returns with the error; the program exits 1.
#include <cstring>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

__global__ void k_bad(int mode, long* x, uint64_t* sym_sig, uint64_t* local_sig, int* ivar, char* y) {
  const int npes = gshmem_n_pes();
  switch (mode) {
    case 0:
      gshmem_long_atomic_fetch_add(x, 1, npes);
      break;  // PE out of range
    case 1:
      gshmem_int_wait_until(ivar, 42, 0);
      break;  // invalid cmp
    case 2:
      gshmem_putmem_signal(x, x + 1, 8, sym_sig, 1, 7, 0);
      break;  // invalid sig_op
    case 3:
      gshmemx_signal_op(local_sig, 1, GSHMEM_SIGNAL_SET, 0);
      break;  // not symmetric
    case 4:
      gshmem_int_wait_until(ivar, GSHMEM_CMP_EQ, 12345);
      break;  // never satisfied: timeout
    case 5:
      gshmem_long_atomic_fetch_add(reinterpret_cast<long*>(reinterpret_cast<char*>(x) + 4), 1, 0);
      break;  // misaligned
    case 6:
      gshmem_putmem(y + 8, x, 8, npes - 1);
      break;  // y was freed
    case 7:
      gshmem_putmem(y + 60, x, 8, npes - 1);
      break;  // y holds 64 bytes: 4 past its end
    case 8:
      gshmem_long_atomic_add(reinterpret_cast<long*>(y + 16), 1, npes - 1);
      break;  // y was freed
    case 9:
      gshmem_putmem_signal(y + 32, x, 40, sym_sig, 1, GSHMEM_SIGNAL_SET, npes - 1);
      break;  // 8 past the end of y's 64 bytes
    case 10:
      gshmem_int_wait_until(reinterpret_cast<int*>(y + 12), GSHMEM_CMP_EQ, 5);
      break;  // y was freed
    case 11:
      gshmem_fcollectmem(GSHMEM_TEAM_WORLD, y + 8, x, 16);
      break;  // y was freed
    case 12:
      gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, reinterpret_cast<int*>(y + 48), reinterpret_cast<int*>(x), 5);
      break;  // 20 bytes at y + 48: 4 past the end of y's 64
    default:
      break;
  }
}

int device_mode(const char* m) {
  const char* modes[] = {
      "device-pe",         "device-cmp",        "device-sigop",          "device-sym",       "device-timeout",
      "device-align",      "device-freed",      "device-past-end",       "device-amo-freed", "device-signal-past-end",
      "device-wait-freed", "device-coll-freed", "device-reduce-past-end"};
  for (int i = 0; i < 13; ++i)
    if (strcmp(m, modes[i]) == 0) return i;
  return -1;
}

// In-bounds device calls at the edges of live allocations, next to freed blocks, and in more
// blocks than the device table's first room (64 ranges): none may report (a false positive
// traps the kernel). Every value is read back.
__global__ void k_good(char* a, long* b, uint64_t* sig, const char* src, int n_blocks, char** blocks, int* c,
                       const int* c_src) {
  const int last = gshmem_n_pes() - 1;
  gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, c, c_src, 5);  // c: 5 ints, all of it (one PE: c = c_src)
  gshmem_int_wait_until(c + 4, GSHMEM_CMP_EQ, 104);       // its last element
  gshmem_putmem(a, src, 24, last);                        // a: 24 bytes (its padding up to 256 is not live)
  gshmem_putmem(a + 23, src + 5, 1, last);                // its last byte
  gshmem_long_atomic_add(b + 2, 5, last);                 // b: 3 longs, its last one
  gshmem_long_p(b, 7, last);
  gshmem_putmem_signal(a + 8, src, 15, sig, 9, GSHMEM_SIGNAL_SET, last);
  for (int i = 0; i < n_blocks; ++i) gshmem_putmem(blocks[i] + 99, src + (i % 8), 1, last);  // 100-byte blocks
}

// device-good: the number of wrong values read back (0: every call did what it should).
int run_good() {
  char* freed_before = static_cast<char*>(gshmem_malloc(4096));
  char* a = static_cast<char*>(gshmem_calloc(24, 1));
  char* freed_after = static_cast<char*>(gshmem_malloc(512));
  long* b = static_cast<long*>(gshmem_calloc(3, sizeof(long)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  int* c = static_cast<int*>(gshmem_calloc(5, sizeof(int)));
  int* c_src = static_cast<int*>(gshmem_malloc(5 * sizeof(int)));
  const int c_want[5] = {100, 101, 102, 103, 104};
  CUDA_CHECK(cudaMemcpy(c_src, c_want, sizeof(c_want), cudaMemcpyHostToDevice));
  gshmem_free(freed_before);
  gshmem_free(freed_after);
  constexpr int kBlocks = 80;
  std::vector<char*> blocks(kBlocks);
  for (auto& p : blocks) p = static_cast<char*>(gshmem_calloc(100, 1));
  char** d_blocks = nullptr;
  char* src = nullptr;
  CUDA_CHECK(cudaMalloc(&d_blocks, sizeof(char*) * kBlocks));
  CUDA_CHECK(cudaMemcpy(d_blocks, blocks.data(), sizeof(char*) * kBlocks, cudaMemcpyHostToDevice));
  char pattern[24];
  for (int i = 0; i < 24; ++i) pattern[i] = static_cast<char>(11 + 3 * i);
  CUDA_CHECK(cudaMalloc(&src, sizeof(pattern)));
  CUDA_CHECK(cudaMemcpy(src, pattern, sizeof(pattern), cudaMemcpyHostToDevice));
  k_good<<<1, 1>>>(a, b, sig, src, kBlocks, d_blocks, c, c_src);
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  int wrong = 0;
  char got_a[24];
  long got_b[3];
  uint64_t got_sig = 0;
  CUDA_CHECK(cudaMemcpy(got_a, a, sizeof(got_a), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_b, b, sizeof(got_b), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&got_sig, sig, sizeof(got_sig), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 24; ++i) {  // a[0..7] and a[23] from the first puts, a[8..22] from the signal's put
    const char want = i == 23 ? pattern[5] : i >= 8 ? pattern[i - 8] : pattern[i];
    wrong += got_a[i] != want;
  }
  wrong += got_b[0] != 7 || got_b[1] != 0 || got_b[2] != 5 || got_sig != 9;
  int got_c[5];
  CUDA_CHECK(cudaMemcpy(got_c, c, sizeof(got_c), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 5; ++i) wrong += got_c[i] != c_want[i];
  for (int i = 0; i < kBlocks; ++i) {
    char last = 0;
    CUDA_CHECK(cudaMemcpy(&last, blocks[i] + 99, 1, cudaMemcpyDeviceToHost));
    wrong += last != pattern[i % 8];
  }
  emit(stdout, "PE %d: device-good: %d wrong values (a[23]=%d b={%ld,%ld,%ld} sig=%llu)\n", gshmem_my_pe(), wrong,
       got_a[23], got_b[0], got_b[1], got_b[2], static_cast<unsigned long long>(got_sig));
  for (auto& p : blocks) gshmem_free(p);
  gshmem_free(c_src);
  gshmem_free(c);
  gshmem_free(sig);
  gshmem_free(b);
  gshmem_free(a);
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(d_blocks));
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    emit(stderr,
         "usage: %s device-pe|device-cmp|device-sigop|device-sym|device-timeout|device-align|device-freed|"
         "device-past-end|device-amo-freed|device-signal-past-end|device-wait-freed|device-coll-freed|"
         "device-reduce-past-end|device-good|host-pe|host-sigop|host-cmp|"
         "host-sym|host-timeout|host-freed|host-past-end\n",
         argv[0]);
    return 2;
  }
  test_main_prologue(1, 0);
  const char* mode = argv[1];
  long* x = static_cast<long*>(gshmem_calloc(4, sizeof(long)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  int* ivar = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  uint64_t* local_sig = nullptr;
  CUDA_CHECK(cudaMalloc(&local_sig, sizeof(uint64_t)));
  if (strcmp(mode, "device-good") == 0) {
    const int wrong = run_good();
    if (wrong == 0) emit(stdout, "DEVICE CALLS PASSED\n");
    CUDA_CHECK(cudaFree(local_sig));
    gshmem_free(ivar);
    gshmem_free(sig);
    gshmem_free(x);
    const int rc = test_main_epilogue("p2p_debug_checks");
    return wrong != 0 ? 1 : rc;
  }
  const int dm = device_mode(mode);
  if (dm >= 0) {
    // y: 64 live bytes (modes 7, 9, 12) or a freed block (6, 8, 10, 11); the block after it keeps the freed
    // range below the heap's top, between live blocks.
    char* y = static_cast<char*>(gshmem_malloc(64));
    char* after = static_cast<char*>(gshmem_malloc(64));
    if (dm == 6 || dm == 8 || dm == 10 || dm == 11) gshmem_free(y);
    emit(stdout, "PE %d: running bad device call %s (y %p, next block %p)\n", gshmem_my_pe(), mode,
         static_cast<void*>(y), static_cast<void*>(after));
    k_bad<<<1, 1>>>(dm, x, sig, local_sig, ivar, y);
    const cudaError_t e = cudaDeviceSynchronize();
    emit(stdout, "PE %d: kernel ended: %s\n", gshmem_my_pe(), cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;  // no finalize: the context is gone after a trap
  }
  size_t idx[1];
  if (strcmp(mode, "host-timeout") == 0) {  // elements 0-259 met, 260 (the second round's first) never
    constexpr size_t kN = 300, kMet = 260;
    int* ivars = static_cast<int*>(gshmem_calloc(kN, sizeof(int)));
    std::vector<int> met(kMet, 12345);
    CUDA_CHECK(cudaMemcpy(ivars, met.data(), kMet * sizeof(int), cudaMemcpyHostToDevice));
    gshmem_int_wait_until_all(ivars, kN, nullptr, GSHMEM_CMP_EQ, 12345);
    emit(stdout, "HOST CALL RETURNED\n");
    return 1;  // no finalize: the context is gone after a trap
  }
  if (strcmp(mode, "host-pe") == 0)
    gshmem_long_atomic_fetch_add(x, 1, gshmem_n_pes() + 98);
  else if (strcmp(mode, "host-sigop") == 0)
    gshmemx_signal_op(sig, 1, 5, 0);
  else if (strcmp(mode, "host-cmp") == 0)
    gshmem_int_wait_until_some(ivar, 1, idx, nullptr, 9, 0);
  else if (strcmp(mode, "host-sym") == 0)
    gshmem_putmem_signal(local_sig, x, 8, sig, 1, GSHMEM_SIGNAL_SET, 0);
  else if (strcmp(mode, "host-freed") == 0 || strcmp(mode, "host-past-end") == 0) {
    // GSHMEM_DEBUG_CHECKS=1: the live allocation, not only the heap (host/mem/query.cpp)
    char* y = static_cast<char*>(gshmem_malloc(64));
    const long v[2] = {1, 2};
    if (mode[5] == 'f') {
      gshmem_free(y);
      gshmem_putmem(y + 8, v, 8, 0);
    } else {
      gshmem_putmem(y + 60, v, 8, 0);
      gshmem_free(y);
    }
  } else {
    emit(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  emit(stdout, "HOST CALL RETURNED\n");
  CUDA_CHECK(cudaFree(local_sig));
  gshmem_free(ivar);
  gshmem_free(sig);
  gshmem_free(x);
  return test_main_epilogue("p2p_debug_checks");
}
