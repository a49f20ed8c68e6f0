// SPDX-License-Identifier: BSD-3-Clause
// Bad calls for p2p_debug_checks.sh: each mode makes one wrong atomic, signal
// or wait call; the script runs every mode in its own gshmrun job and checks
// the message that names the call, the PE and the cause. Compiled with
// GSHMEM_DEBUG_CHECKS (device checks); host checks are always on for PE and
// sig_op/cmp and with GSHMEM_DEBUG_CHECKS=1 for local symmetric variables.
//   device-* modes trap in a kernel: the program exits 1 after the message.
//   host-freed / host-past-end: a put into a freed block / past its allocation's end, refused
//   against the live allocation (GSHMEM_DEBUG_CHECKS=1).
//   host-* modes log the error and return; the program prints
//   "HOST CALL RETURNED" and exits 0, but for host-timeout: its wait's kernel
//   traps (the host and on-stream set waits' warp scan, src/host/amo/wait_warp.cuh)
//   and the call returns with the error; the program exits 1.
#include <cstring>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

__global__ void k_bad(int mode, long* x, uint64_t* sym_sig, uint64_t* local_sig, int* ivar) {
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
    default:
      break;
  }
}

int device_mode(const char* m) {
  const char* modes[] = {"device-pe", "device-cmp", "device-sigop", "device-sym", "device-timeout", "device-align"};
  for (int i = 0; i < 6; ++i)
    if (strcmp(m, modes[i]) == 0) return i;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    emit(stderr,
         "usage: %s device-pe|device-cmp|device-sigop|device-sym|device-timeout|device-align|host-pe|"
         "host-sigop|host-cmp|host-sym|host-timeout|host-freed|host-past-end\n",
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
  const int dm = device_mode(mode);
  if (dm >= 0) {
    emit(stdout, "PE %d: running bad device call %s\n", gshmem_my_pe(), mode);
    k_bad<<<1, 1>>>(dm, x, sig, local_sig, ivar);
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
