// SPDX-License-Identifier: BSD-3-Clause
// Test-harness helpers of the compat programs (tests/compat). Deliberately free of gshmem:
// the programs themselves speak only the NVSHMEM / OpenSHMEM dialect, and this file only
// counts checks, prints failures and decides "skip" (exit 77) before any SHMEM call.
//   compat_skip_without_gpus(name)   exit 77 unless this node has a GPU per local process
//                                     (local count from gshmrun's or Open MPI's variables), or
//                                     one GPU and GT_SHARE_GPUS=1 (the test suite's knob: PEs
//                                     share GPUs, e.g. side by side under CUDA MPS)
//   compat_gpu_count()                the GPUs this process sees (0 if none)
//   COMPAT_CHECK(cond, fmt, ...)      one check; a failure prints PE, line and the message
//   compat_summary(pe, name)          "PE x: N checks passed (name)"; returns the exit code
#pragma once

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

static long long compat_checks = 0, compat_failures = 0;
static int compat_pe = -1;

static inline int compat_local_size(void) {
  const char* vars[] = {"GSHMEM_LOCAL_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"};
  for (unsigned i = 0; i < sizeof(vars) / sizeof(vars[0]); ++i) {
    const char* v = getenv(vars[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 1;
}

static inline int compat_gpu_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  return count;
}

static inline int compat_share_gpus(void) {
  const char* v = getenv("GT_SHARE_GPUS");
  return v && atoi(v) == 1;
}

// Returns 1 (after printing why) when the node lacks a GPU per local process (with
// GT_SHARE_GPUS=1: any GPU); the caller then exits 77 (after MPI_Finalize, in MPI programs).
// Every process decides alike.
static inline int compat_lacks_gpus(const char* name) {
  const int count = compat_gpu_count();
  const int needed = compat_local_size();
  if (count > 0 && (count >= needed || compat_share_gpus())) return 0;
  printf("SKIP: %s needs %d GPUs on this node, found %d (GT_SHARE_GPUS=1 lets processes share them)\n", name, needed,
         count);
  fflush(stdout);
  return 1;
}

static inline void compat_skip_without_gpus(const char* name) {
  if (compat_lacks_gpus(name)) exit(77);
}

#define COMPAT_CHECK(cond, ...)                                                           \
  do {                                                                                    \
    ++compat_checks;                                                                      \
    if (!(cond)) {                                                                        \
      if (++compat_failures <= 20) {                                                      \
        fprintf(stderr, "PE %d: FAIL %s:%d: %s: ", compat_pe, __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                              \
      }                                                                                   \
    }                                                                                     \
  } while (0)

#define COMPAT_CUDA(call)                                                                  \
  do {                                                                                     \
    cudaError_t compat_e_ = (call);                                                        \
    if (compat_e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "PE %d: FAIL %s:%d: %s: %s\n", compat_pe, __FILE__, __LINE__, #call, \
              cudaGetErrorString(compat_e_));                                              \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static inline int compat_summary(const char* name) {
  if (compat_failures == 0)
    printf("PE %d: %lld checks passed (%s)\n", compat_pe, compat_checks, name);
  else
    printf("PE %d: %lld of %lld checks FAILED (%s)\n", compat_pe, compat_failures, compat_checks, name);
  fflush(stdout);
  return compat_failures == 0 && compat_checks > 0 ? 0 : 1;
}
