// SPDX-License-Identifier: BSD-3-Clause
// What a benchmark's run function works with: this PE, the stream, buffers that
// survive between the points of one benchmark, cross-PE helpers and NCCL.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "options.h"

namespace perf {

namespace nccl {
struct Comm;
}

struct Ctx {
  Options opt;
  int me = 0, npes = 1;
  int device = 0;
  cudaStream_t stream = nullptr;  // the benchmark stream (non-blocking)
  std::string gpu_name;
  int sm_clock_khz = 0;
  std::string bench_name;  // the benchmark being run
  bool failed = false;     // a check failed or an operation reported an error on this PE

  // Symmetric buffer `slot` (gshmem_malloc; collective: every PE calls with the same
  // slot and size, in the same order). Grows on demand, keeps its size otherwise;
  // contents are undefined after growth. Released when the benchmark ends.
  void* sym(int slot, size_t bytes);
  // Local device buffer `slot` of this GPU (cudaMalloc); not collective.
  void* local(int slot, size_t bytes);
  // Frees every buffer (collective).
  void release();

  // gshmem_barrier_all from the host.
  void barrier();
  // Every PE's `bytes` (<= 256) bytes, in PE order (collective, host-side, small).
  std::vector<unsigned char> allgather(const void* mine, size_t bytes);
  // Logical AND over the PEs (collective).
  bool all(bool mine);

  // NCCL communicator over all PEs, created at first use (collective); nullptr when
  // NCCL is unavailable (--no-nccl, library not found, init failed: nccl_note says why).
  nccl::Comm* nccl();
  std::string nccl_note;

  // One line to stdout/stderr in a single write (PEs share the terminal).
  void emit(FILE* f, const std::string& line) const;
  // Ends the process when a CUDA call failed (message names the call and the PE).
  void cuda(cudaError_t e, const char* what) const;

  ~Ctx();

 private:
  struct Buf {
    void* p = nullptr;
    size_t bytes = 0;
  };
  std::vector<Buf> sym_, local_;
  void* gather_buf_ = nullptr;  // symmetric [npes][256]
  nccl::Comm* nccl_ = nullptr;
  bool nccl_tried_ = false;
  friend void finalize_ctx(Ctx& ctx);
};

// Destroys the NCCL communicator and the helper buffers (before gshmem_finalize).
void finalize_ctx(Ctx& ctx);

}  // namespace perf
