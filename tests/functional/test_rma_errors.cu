// SPDX-License-Identifier: BSD-3-Clause
// Bad RMA arguments and the messages they produce. Compiled with GSHMEM_DEBUG_CHECKS=1 (device
// checks on); host calls are always checked. One case per process: `test_rma_errors <case>`,
// run under gshmrun by rma_errors.sh, which checks the exit status and greps the output.
//   dev_*   a kernel makes the bad call on every PE: one line naming the call, the PE, the
//           cause and the remedy, then the kernel traps (the process exits non-zero).
//   host_*  the host call logs the same kind of line and does nothing; the process goes on
//           and exits 0 after checking that the destination was not touched.
//   ok      valid calls at the edges of what the checks allow produce no message.
#include <string>

#include "common.cuh"

using namespace gt;

namespace {

constexpr size_t kElems = 64;

struct Bufs {
  int* sym;         // symmetric, kElems ints
  int* local;       // cudaMalloc, kElems ints
  char* sym_bytes;  // symmetric, 256 bytes
};

__global__ void k_dev_case(int which, Bufs b, int me, int npes) {
  const int next = (me + 1) % npes;
  // Thread-scope calls from one thread (one message per PE); warp/block calls from all.
  const bool collective = which == 5 || which == 7 || which == 10;
  if (!collective && threadIdx.x != 0) return;
  switch (which) {
    case 0:
      gshmem_int_p(b.sym, 1, npes);
      break;  // PE == n_pes
    case 1:
      (void)gshmem_double_g(reinterpret_cast<double*>(b.sym), -1);
      break;  // PE < 0
    case 2:
      gshmemx_putmem_block(b.local, b.sym, 64, next);
      break;  // dest not symmetric
    case 3:
      gshmem_int_put(b.sym, b.local, size_t(1) << 40, next);
      break;  // range past the heap
    case 4:
      gshmem_putmem(b.sym_bytes + 8, b.sym_bytes, 64, me);
      break;  // overlap on self
    case 5:
      gshmemx_int_iput_warp(b.sym, b.local, 0, 1, 10, next);
      break;  // dst stride 0
    case 6:
      gshmem_long_iget(reinterpret_cast<long*>(b.local), reinterpret_cast<long*>(b.sym), 1, -2, 10, next);
      break;  // sst < 0
    case 7:
      gshmemx_int_iget_block(b.local, b.sym, 1, ptrdiff_t(1) << 62, 5, next);
      break;  // span overflow
    case 8:
      gshmem_iput32(b.sym_bytes + 1, b.local, 1, 1, 4, next);
      break;  // misaligned
    case 9:
      gshmem_int_iput(b.sym + 2, b.sym, 2, 2, 8, me);
      break;  // strided overlap on self
    case 10:
      gshmem::iget<gshmem::block_scope>(b.sym, b.sym + 4, 1, 1, 8, me);
      break;  // C++ template, overlap
    default:
      break;
  }
  gshmem_quiet();
}

// Valid calls the checks must accept: the last bytes of an allocation, interleaved strided
// copies on self (element ranges overlap but no element does), unequal strides, empty ranges.
__global__ void k_dev_ok(Bufs b, int me, int npes) {
  const int next = (me + 1) % npes;
  gshmem_int_p(b.sym + kElems - 1, 7, next);
  (void)gshmem_int_g(b.sym + kElems - 1, next);
  gshmem_putmem(b.sym_bytes + 255, b.local, 1, next);
  gshmem_int_iput(b.sym, b.sym + 1, 2, 2, kElems / 2, me);  // even <- odd elements
  gshmemx_int_iget_block(b.sym + 1, b.sym, 2, 2, 16, me);   // odd <- even elements
  gshmem_int_iput(b.sym, b.local, 1, 1, 0, next);           // empty
  gshmem_putmem(b.sym, b.local, 0, next);
  gshmem_iput64(b.sym, b.local, 1, 1, kElems / 2, next);
  gshmem_quiet();
}

int dev_case_index(const std::string& c) {
  const char* names[] = {"dev_pe_range",   "dev_pe_negative",     "dev_not_symmetric",  "dev_past_heap",
                         "dev_overlap",    "dev_bad_dst_stride",  "dev_bad_sst_stride", "dev_span_overflow",
                         "dev_misaligned", "dev_strided_overlap", "dev_cxx_overlap"};
  for (int i = 0; i < static_cast<int>(sizeof(names) / sizeof(names[0])); ++i)
    if (c == names[i]) return i;
  return -1;
}

// Host cases: the call must log and leave the destination untouched.
bool host_case(const std::string& c, Bufs& b, int me, int npes) {
  const int next = (me + 1) % npes;
  std::vector<int> h(kElems, 42);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  if (c == "host_pe_range")
    gshmem_int_put(b.sym, h.data(), 4, npes);
  else if (c == "host_not_symmetric")
    gshmem_putmem(b.local, h.data(), 16, next);
  else if (c == "host_overlap")
    gshmem_getmem(b.sym_bytes + 8, b.sym_bytes, 64, me);
  else if (c == "host_bad_stride")
    gshmem_int_iput(b.sym, h.data(), 1, 0, 4, next);
  else if (c == "host_on_stream_pe")
    gshmemx_int_iget_on_stream(b.local, b.sym, 1, 1, 4, -3, s);
  else if (c == "host_p_on_stream_local")
    gshmemx_double_p_on_stream(reinterpret_cast<double*>(b.local), 1.5, next, s);
  else if (c == "host_past_heap")
    gshmem_iget64(b.local, b.sym, 1, ptrdiff_t(1) << 40, 2, next);
  else {
    CUDA_CHECK(cudaStreamDestroy(s));
    return false;
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamDestroy(s));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <case>\n", argv[0]);
    return 2;
  }
  const std::string c = argv[1];
  test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  Bufs b;
  b.sym = static_cast<int*>(gshmem_malloc(kElems * sizeof(int)));
  b.sym_bytes = static_cast<char*>(gshmem_malloc(256));
  CUDA_CHECK(cudaMalloc(&b.local, kElems * sizeof(int)));
  GT_CHECK(b.sym != nullptr && b.sym_bytes != nullptr);
  CUDA_CHECK(cudaMemset(b.sym, 0x11, kElems * sizeof(int)));
  CUDA_CHECK(cudaMemset(b.sym_bytes, 0x22, 256));
  CUDA_CHECK(cudaMemset(b.local, 0x33, kElems * sizeof(int)));
  gshmem_barrier_all();

  const int dev = dev_case_index(c);
  if (dev >= 0) {
    emit(stdout, "PE %d: case %s: launching the bad call\n", me, c.c_str());
    k_dev_case<<<1, 64>>>(dev, b, me, npes);
    const cudaError_t e = cudaDeviceSynchronize();
    // The call must have trapped; reaching here without an error is a failure.
    emit(stdout, "PE %d: case %s: kernel returned %s\n", me, c.c_str(), cudaGetErrorName(e));
    return e == cudaSuccess ? 3 : 1;
  }
  if (c == "ok") {
    k_dev_ok<<<1, 64>>>(b, me, npes);
    KERNEL_CHECK();
    gshmem_barrier_all();
  } else if (!host_case(c, b, me, npes)) {
    fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  } else {
    gshmem_barrier_all();
    // Nothing was written: every byte still holds its initial value.
    constexpr size_t kIntBytes = kElems * sizeof(int);
    std::vector<unsigned char> h(256);
    CUDA_CHECK(cudaMemcpy(h.data(), b.sym, kIntBytes, cudaMemcpyDeviceToHost));
    GT_VERIFY("symmetric ints", h.data(), kIntBytes, [](size_t) { return static_cast<unsigned char>(0x11); });
    CUDA_CHECK(cudaMemcpy(h.data(), b.sym_bytes, 256, cudaMemcpyDeviceToHost));
    GT_VERIFY("symmetric bytes", h.data(), 256, [](size_t) { return static_cast<unsigned char>(0x22); });
    CUDA_CHECK(cudaMemcpy(h.data(), b.local, kIntBytes, cudaMemcpyDeviceToHost));
    GT_VERIFY("local ints", h.data(), kIntBytes, [](size_t) { return static_cast<unsigned char>(0x33); });
  }
  emit(stdout, "PE %d: case %s: done\n", me, c.c_str());
  CUDA_CHECK(cudaFree(b.local));
  gshmem_free(b.sym_bytes);
  gshmem_free(b.sym);
  return test_main_epilogue("rma_errors");
}
