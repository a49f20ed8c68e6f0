// SPDX-License-Identifier: BSD-3-Clause
// Part 4 of test_signal.cu (included there): the stream forms.
//   stream_comparisons: for every comparison (and the special operands that
//     select cuStreamWaitValue64's EQ / AND / NOR / GEQ conditions, an
//     always-true wait, and the kernel fallback), a kernel, then
//     gshmemx_signal_wait_until_on_stream, then a checking kernel on one stream,
//     while the previous PE fills a buffer with a kernel and sends it with a
//     put_signal_on_stream form (SET, or ADD + signal_op_on_stream ADD).
//   stream_pipeline: rounds driven by the streams alone (the host waits once):
//     writer stream: wait for the ack, fill kernel, put_signal (ADD 1) on stream;
//     reader stream: wait for the round, check kernel, ack with
//     gshmemx_signal_op_on_stream SET.
// Writer work is always enqueued before the waits that depend on it, so the
// test cannot deadlock even if CUDA maps both streams onto one hardware queue.
#pragma once

namespace {

constexpr size_t kStreamInts = 777;
constexpr uint64_t kTop = 1ull << 63;

struct StreamCase {
  int cmp;
  uint64_t init, cmp_value, write;
  int form;         // 0 putmem_signal_on_stream, 1 putmem_signal_nbi_on_stream, 2 int_put_signal_on_stream, 3 ADD
  bool data_check;  // false when the wait is satisfied without the write
  const char* path;
};
const StreamCase kCases[] = {
    {GSHMEM_CMP_EQ, 0, 5, 5, 0, true, "memop EQ"},
    {GSHMEM_CMP_NE, 0, 0, 9, 1, true, "memop AND (NE 0)"},
    {GSHMEM_CMP_NE, ~0ull, ~0ull, 5, 2, true, "memop NOR (NE ~0)"},
    {GSHMEM_CMP_NE, 7, 7, 9, 0, true, "kernel (NE)"},
    {GSHMEM_CMP_GT, 3, 10, 11, 1, true, "memop GEQ (GT)"},
    {GSHMEM_CMP_GT, 3, 15, 16, 2, true, "memop AND (GT 2^k-1)"},
    {GSHMEM_CMP_GE, 3, 10, 10, 0, true, "memop GEQ"},
    {GSHMEM_CMP_GE, 3, 16, 17, 1, true, "memop AND (GE 2^k)"},
    {GSHMEM_CMP_GE, 3, kTop, kTop + 5, 2, true, "memop AND (GE 2^63)"},
    {GSHMEM_CMP_GT, 3, kTop + 1, kTop + 7, 0, true, "kernel (GE above 2^63)"},
    {GSHMEM_CMP_GE, 0, 0, 4, 1, false, "always true (GE 0)"},
    {GSHMEM_CMP_LT, 20, 10, 9, 2, true, "kernel (LT)"},
    {GSHMEM_CMP_LE, 20, 10, 10, 0, true, "kernel (LE)"},
    {GSHMEM_CMP_GE, 0, 6, 3, 3, true, "memop GEQ after ADD + signal_op ADD"},
};

__host__ __device__ inline bool cmp_holds(uint64_t a, int c, uint64_t b) {
  switch (c) {
    case GSHMEM_CMP_EQ:
      return a == b;
    case GSHMEM_CMP_NE:
      return a != b;
    case GSHMEM_CMP_GT:
      return a > b;
    case GSHMEM_CMP_GE:
      return a >= b;
    case GSHMEM_CMP_LT:
      return a < b;
    case GSHMEM_CMP_LE:
      return a <= b;
  }
  return false;
}

__global__ void k_fill_ints(int* p, size_t n, int pe, uint64_t salt) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) p[i] = value<int>(pe, i, salt);
}
__global__ void k_stream_noop(int* scratch) {
  if (threadIdx.x == 0) atomicAdd(scratch, 1);
}
// After the stream wait: the signal satisfies the comparison and (if asked) the data arrived.
__global__ void k_stream_check(const uint64_t* sig, int cmp, uint64_t cv, const int* data, size_t n, int src,
                               uint64_t salt, bool data_check, DevErrors* err, int tag) {
  const uint64_t s = gshmem::detail::ld_volatile(sig);
  if (threadIdx.x == 0 && !cmp_holds(s, cmp, cv)) dev_fail(err, tag, 0, cv, s);
  if (!data_check) return;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const int v = gshmem::detail::ld_volatile(data + i);
    const int e = value<int>(src, i, salt);
    if (v != e) dev_fail(err, tag, 1 + i, static_cast<unsigned>(e), static_cast<unsigned>(v));
  }
}

void stream_comparisons() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  int* data = static_cast<int*>(gshmem_malloc(kStreamInts * sizeof(int)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  int *src = nullptr, *scratch = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kStreamInts * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&scratch, sizeof(int)));
  cudaStream_t w, s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&w, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  DevErrorsHost err;
  const size_t bytes = kStreamInts * sizeof(int);
  int tag = 0;
  for (const StreamCase& c : kCases) {
    const uint64_t salt = 9100 + tag;
    set_context("gshmemx_signal_wait_until_on_stream cmp %d value 0x%llx: %s", c.cmp,
                static_cast<unsigned long long>(c.cmp_value), c.path);
    err.reset();
    CUDA_CHECK(cudaMemcpy(sig, &c.init, sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(data, 0, kStreamInts * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    // Writer first (see the top of this file).
    k_fill_ints<<<1, 256, 0, w>>>(src, kStreamInts, me, salt);
    CUDA_CHECK(cudaGetLastError());
    switch (c.form) {
      case 0:
        gshmemx_putmem_signal_on_stream(data, src, bytes, sig, c.write, GSHMEM_SIGNAL_SET, next, w);
        break;
      case 1:
        gshmemx_putmem_signal_nbi_on_stream(data, src, bytes, sig, c.write, GSHMEM_SIGNAL_SET, next, w);
        break;
      case 2:
        gshmemx_int_put_signal_on_stream(data, src, kStreamInts, sig, c.write, GSHMEM_SIGNAL_SET, next, w);
        break;
      default:
        gshmemx_put32_signal_on_stream(data, src, kStreamInts, sig, c.write, GSHMEM_SIGNAL_ADD, next, w);
        gshmemx_signal_op_on_stream(sig, c.write, GSHMEM_SIGNAL_ADD, next, w);
        break;
    }
    k_stream_noop<<<1, 32, 0, s>>>(scratch);
    CUDA_CHECK(cudaGetLastError());
    gshmemx_signal_wait_until_on_stream(sig, c.cmp, c.cmp_value, s);
    k_stream_check<<<1, 256, 0, s>>>(sig, c.cmp, c.cmp_value, data, kStreamInts, prev, salt, c.data_check, err.d, tag);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(w));
    CUDA_CHECK(cudaStreamSynchronize(s));
    err.check("case", "element+1", __FILE__, __LINE__);
    // The final signal value: init replaced by the write (SET) or init + 2 * write (ADD).
    uint64_t final_sig = 0;
    gshmem_barrier_all();
    CUDA_CHECK(cudaMemcpy(&final_sig, sig, sizeof(final_sig), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(c.form == 3 ? c.init + 2 * c.write : c.write, final_sig);
    ++tag;
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(w));
  CUDA_CHECK(cudaFree(scratch));
  CUDA_CHECK(cudaFree(src));
  gshmem_free(sig);
  gshmem_free(data);
}

constexpr int kPipeRounds = 64;

void stream_pipeline() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  int* data = static_cast<int*>(gshmem_malloc(kStreamInts * sizeof(int)));
  uint64_t* sigs = static_cast<uint64_t*>(gshmem_calloc(2, sizeof(uint64_t)));  // [0] data rounds, [1] acks
  int* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kStreamInts * sizeof(int)));
  cudaStream_t w, s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&w, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  DevErrorsHost err;
  set_context("stream pipeline: %d rounds of fill, put_signal_on_stream (ADD), wait, check, ack", kPipeRounds);
  gshmem_barrier_all();
  for (int r = 1; r <= kPipeRounds; ++r) {
    const uint64_t salt = 9500 + r;
    gshmemx_signal_wait_until_on_stream(&sigs[1], GSHMEM_CMP_GE, static_cast<uint64_t>(r - 1), w);
    k_fill_ints<<<1, 256, 0, w>>>(src, kStreamInts, me, salt);
    CUDA_CHECK(cudaGetLastError());
    uint64_t* sig = &sigs[0];
    if (r % 3 == 0)
      gshmemx_putmem_signal_on_stream(data, src, kStreamInts * sizeof(int), sig, 1, GSHMEM_SIGNAL_ADD, next, w);
    else if (r % 3 == 1)
      gshmemx_int_put_signal_nbi_on_stream(data, src, kStreamInts, sig, 1, GSHMEM_SIGNAL_ADD, next, w);
    else
      gshmemx_put64_signal_on_stream(data, src, kStreamInts / 2, sig, 1, GSHMEM_SIGNAL_ADD, next, w);
    const size_t n = r % 3 == 2 ? (kStreamInts / 2) * 2 : kStreamInts;
    gshmemx_signal_wait_until_on_stream(&sigs[0], GSHMEM_CMP_GE, static_cast<uint64_t>(r), s);
    k_stream_check<<<1, 256, 0, s>>>(&sigs[0], GSHMEM_CMP_EQ, static_cast<uint64_t>(r), data, n, prev, salt, true,
                                     err.d, r);
    CUDA_CHECK(cudaGetLastError());
    gshmemx_signal_op_on_stream(&sigs[1], static_cast<uint64_t>(r), GSHMEM_SIGNAL_SET, prev, s);
  }
  CUDA_CHECK(cudaStreamSynchronize(w));
  CUDA_CHECK(cudaStreamSynchronize(s));
  err.check("round", "element+1", __FILE__, __LINE__);
  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(w));
  CUDA_CHECK(cudaFree(src));
  gshmem_free(sigs);
  gshmem_free(data);
}

}  // namespace
