// SPDX-License-Identifier: BSD-3-Clause
// Synchronisation and ordering.
//   1. Stamped rounds: in round `it` every PE p's into slot[it%2][me] of every PE
//      a value stamped with (me, it), then barrier_all (or quiet + sync_all), then
//      checks it sees exactly each PE's stamp for `it`. A barrier that lets a PE
//      leave early shows up as a stale stamp (it-2) or a future one (it+2); one
//      that does not complete puts shows up as a stale stamp. Rounds run in
//      phases that use different barriers - device (thread / warp / block scope,
//      C names and C++ templates, in long kernels started with
//      gshmemx_collective_launch), host gshmem_barrier_all / gshmem_sync_all and
//      gshmemx_barrier_all_on_stream / quiet_on_stream + sync_all_on_stream
//      (behind kernels that put late or leave their puts to them to complete,
//      and behind host putmem / putmem_nbi still in flight on the library's
//      internal stream) - interleaved in one run: they share one sequence, so
//      the mix must neither hang nor run ahead.
//   2. Message passing: putmem, gshmem_fence, gshmem_int_p(flag) to the next PE;
//      the receiver waits (gshmem_int_wait_until EQ / gshmem_int_test) and checks
//      the data; 10000 messages of varying length. A block-scope variant uses
//      putmem_block + quiet instead of fence.
//   3. wait_until / test for every type that has them and every comparison.
#include <vector>

#include "common.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

constexpr uint64_t kStampSalt = 0x57A3F;

__host__ __device__ inline uint64_t stamp(int pe, long it) {
  return value<uint64_t>(pe, static_cast<uint64_t>(it), kStampSalt);
}

// ------------------------------------------------------------------ 1. stamped rounds
// slots: symmetric uint64_t[2][n_pes]
template <class S>
__global__ void k_rounds(uint64_t* slots, long it0, long it1, int use_barrier, int api, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int r = S::rank(), sz = S::size();
  for (long it = it0; it < it1; ++it) {
    uint64_t* slot = slots + (it & 1) * npes;
    for (int k = r; k < npes; k += sz) {
      const int pe = (me + k) % npes;
      if (api == 0)
        gshmem_uint64_p(&slot[me], stamp(me, it), pe);
      else
        gshmem::p(&slot[me], stamp(me, it), pe);
    }
    if (use_barrier) {
      barrier_all_scope<S>(api);
    } else {
      gshmem_quiet();  // sync_all orders but does not complete puts
      sync_all_scope<S>(api);
    }
    for (int src = r; src < npes; src += sz) {
      const uint64_t v = *static_cast<volatile uint64_t*>(&slot[src]);
      if (v != stamp(src, it)) dev_fail(err, static_cast<unsigned long long>(it), src, stamp(src, it), v);
    }
  }
}

// Stream phase pieces: one round's puts (after `delay_ns` of spinning, so that a
// barrier behind it on the stream that started early would run ahead of them;
// with `quiet` 0 the kernel leaves its puts to the stream-ordered quiet or barrier
// after it to complete), and one round's check.
__global__ void k_round_put(uint64_t* slots, long it, unsigned long long delay_ns, int quiet) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if (delay_ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < delay_ns);
  }
  uint64_t* slot = slots + (it & 1) * npes;
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x) gshmem_uint64_p(&slot[me], stamp(me, it), pe);
  if (quiet) gshmem_quiet();
}
__global__ void k_round_check(const uint64_t* slots, long it, DevErrors* err) {
  const int npes = gshmem_n_pes();
  const uint64_t* slot = slots + (it & 1) * npes;
  for (int src = threadIdx.x; src < npes; src += blockDim.x) {
    const uint64_t v = *static_cast<const volatile uint64_t*>(&slot[src]);
    if (v != stamp(src, it)) dev_fail(err, static_cast<unsigned long long>(it), src, stamp(src, it), v);
  }
}

struct Rounds {
  uint64_t* slots;
  long it = 0;  // next round number (identical on every PE)
  DevErrorsHost err;
  cudaStream_t stream;
};

template <class S>
void device_phase(Rounds& R, long count, bool barrier, int api) {
  const int threads = is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256;
  set_context("rounds %ld..%ld: device %s at %s scope (%s)", R.it, R.it + count - 1,
              barrier ? "barrier_all" : "quiet+sync_all", scope_name<S>(), api ? "C++" : "C names");
  R.err.reset();
  long it0 = R.it, it1 = R.it + count;
  int use_barrier = barrier ? 1 : 0;
  DevErrors* e = R.err.d;
  void* args[] = {&R.slots, &it0, &it1, &use_barrier, &api, &e};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_rounds<S>, dim3(1), dim3(threads), args, 0, 0));
  KERNEL_CHECK();
  R.err.check("round", "from PE", __FILE__, __LINE__);
  R.it = it1;
}

void host_phase(Rounds& R, long count, bool barrier) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  set_context("rounds %ld..%ld: host %s", R.it, R.it + count - 1,
              barrier ? "gshmem_barrier_all" : "gshmem_quiet+gshmem_sync_all");
  std::vector<uint64_t> seen(npes);
  for (long end = R.it + count; R.it < end; ++R.it) {
    uint64_t* slot = R.slots + (R.it & 1) * npes;
    for (int k = 0; k < npes; ++k) gshmem_uint64_p(&slot[me], stamp(me, R.it), (me + k) % npes);
    if (barrier) {
      gshmem_barrier_all();
    } else {
      gshmem_quiet();
      gshmem_sync_all();
    }
    CUDA_CHECK(cudaMemcpy(seen.data(), slot, npes * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    const long it = R.it;
    GT_VERIFY("slot", seen.data(), static_cast<size_t>(npes),
              [&](size_t src) { return stamp(static_cast<int>(src), it); });
  }
}

// Everything enqueued on one stream; the host waits once, at the end.
void stream_phase(Rounds& R, long count, bool barrier) {
  set_context("rounds %ld..%ld: %s", R.it, R.it + count - 1,
              barrier ? "gshmemx_barrier_all_on_stream" : "gshmemx_sync_all_on_stream");
  R.err.reset();
  for (long end = R.it + count; R.it < end; ++R.it) {
    k_round_put<<<1, 32, 0, R.stream>>>(R.slots, R.it, R.it % 4 == 1 ? 40000ull : 0ull, R.it % 3 == 0 ? 1 : 0);
    CUDA_CHECK(cudaGetLastError());
    if (barrier) {
      gshmemx_barrier_all_on_stream(R.stream);
    } else {
      gshmemx_quiet_on_stream(R.stream);
      gshmemx_sync_all_on_stream(R.stream);
    }
    k_round_check<<<1, 32, 0, R.stream>>>(R.slots, R.it, R.err.d);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaStreamSynchronize(R.stream));
  CUDA_CHECK(cudaDeviceSynchronize());
  R.err.check("round", "from PE", __FILE__, __LINE__);
}

// Host-initiated puts, then a barrier on a user stream. The barrier must order
// after the host operations still in flight on the library's internal stream:
// each round (every other one behind an 8 MiB putmem_nbi that keeps that stream
// busy for about 20 us) puts this round's stamps with putmem_nbi, or with a
// blocking putmem, or with putmem_nbi and gshmem_quiet; then
// barrier_all_on_stream and the check kernel go on R.stream. Waiting for R.stream
// before the next round's puts keeps them from landing in a slot that a slower
// PE's check of two rounds back has not read yet.
void host_ops_stream_phase(Rounds& R, long count, char* bulk_dst, const char* bulk_src, size_t bulk_bytes) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  set_context("rounds %ld..%ld: host putmem(_nbi) + gshmemx_barrier_all_on_stream", R.it, R.it + count - 1);
  std::vector<uint64_t> h(count);
  for (long k = 0; k < count; ++k) h[k] = stamp(me, R.it + k);
  uint64_t* stage = nullptr;  // this PE's stamps, device memory (the puts' source)
  CUDA_CHECK(cudaMalloc(&stage, count * sizeof(uint64_t)));
  CUDA_CHECK(cudaMemcpy(stage, h.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice));
  R.err.reset();
  for (long k = 0; k < count; ++k, ++R.it) {
    CUDA_CHECK(cudaStreamSynchronize(R.stream));
    uint64_t* slot = R.slots + (R.it & 1) * npes;
    const int how = static_cast<int>(k % 3);  // 0: nbi, 1: blocking, 2: nbi + quiet
    if (k % 2 == 0) gshmem_putmem_nbi(bulk_dst, bulk_src, bulk_bytes, (me + 1) % npes);
    for (int j = 0; j < npes; ++j) {
      const int pe = (me + j) % npes;
      if (how == 1)
        gshmem_putmem(&slot[me], stage + k, sizeof(uint64_t), pe);
      else
        gshmem_putmem_nbi(&slot[me], stage + k, sizeof(uint64_t), pe);
    }
    if (how == 2) gshmem_quiet();
    gshmemx_barrier_all_on_stream(R.stream);
    k_round_check<<<1, 32, 0, R.stream>>>(R.slots, R.it, R.err.d);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaStreamSynchronize(R.stream));
  CUDA_CHECK(cudaDeviceSynchronize());
  R.err.check("round", "from PE", __FILE__, __LINE__);
  CUDA_CHECK(cudaFree(stage));
  // The bulk copies landed too: the previous PE's pattern.
  std::vector<uint32_t> got(bulk_bytes / sizeof(uint32_t));
  CUDA_CHECK(cudaMemcpy(got.data(), bulk_dst, bulk_bytes, cudaMemcpyDeviceToHost));
  const int prev = (me + npes - 1) % npes;
  GT_VERIFY("bulk putmem_nbi destination", got.data(), got.size(),
            [&](size_t i) { return value<uint32_t>(prev, i, kStampSalt); });
}

void stamped_rounds() {
  const int npes = gshmem_n_pes();
  Rounds R;
  R.slots = static_cast<uint64_t*>(gshmem_calloc(2 * npes, sizeof(uint64_t)));
  GT_CHECK(R.slots != nullptr);
  if (!R.slots) return;
  CUDA_CHECK(cudaStreamCreateWithFlags(&R.stream, cudaStreamNonBlocking));
  constexpr size_t kBulkBytes = 8u << 20;
  char* bulk = static_cast<char*>(gshmem_malloc(2 * kBulkBytes));  // [dst | src]
  GT_CHECK(bulk != nullptr);
  if (!bulk) return;
  fill_device(reinterpret_cast<uint32_t*>(bulk + kBulkBytes), kBulkBytes / sizeof(uint32_t), gshmem_my_pe(),
              kStampSalt);
  poison_device(bulk, kBulkBytes);
  gshmem_barrier_all();
  constexpr long kDev = 125, kHost = 30, kStream = 40;
  for (int round = 0; round < 2; ++round) {
    device_phase<thread_scope>(R, kDev, true, 0);
    host_phase(R, kHost, true);
    device_phase<warp_scope>(R, kDev, true, 0);
    stream_phase(R, kStream, true);
    device_phase<block_scope>(R, kDev, true, 0);
    device_phase<thread_scope>(R, kDev, false, 1);
    host_phase(R, kHost, false);
    device_phase<warp_scope>(R, kDev, false, 0);
    stream_phase(R, kStream, false);
    host_ops_stream_phase(R, kStream, bulk, bulk + kBulkBytes, kBulkBytes);
    device_phase<block_scope>(R, kDev, false, 1);
    device_phase<thread_scope>(R, kDev, true, 1);
    device_phase<warp_scope>(R, kDev, true, 1);
    device_phase<block_scope>(R, kDev, true, 1);
    device_phase<thread_scope>(R, kDev, false, 0);
    device_phase<block_scope>(R, kDev, false, 0);
    device_phase<warp_scope>(R, kDev, false, 1);
  }
  emit(stdout, "PE %d: %ld stamped rounds done\n", gshmem_my_pe(), R.it);
  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(R.stream));
  gshmem_free(bulk);
  gshmem_free(R.slots);
}

// ------------------------------------------------------------------ 2. message passing
constexpr int kMsgMaxInts = 301;

__host__ __device__ inline int msg_len(int it) { return 1 + (it * 37) % kMsgMaxInts; }

// One thread. data: symmetric int[kMsgMaxInts]; flag, ack: symmetric int; scratch: local int[kMsgMaxInts].
__global__ void k_messages(int* data, int* flag, int* ack, int* scratch, int iters, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (int it = 1; it <= iters; ++it) {
    // The next PE has checked message it-1 (so its buffer may be overwritten).
    if (it > 1) gshmem_int_wait_until(ack, GSHMEM_CMP_GE, it - 1);
    const int len = msg_len(it);
    for (int i = 0; i < len; ++i) scratch[i] = value<int>(me, i, static_cast<uint64_t>(it));
    gshmem_putmem(data, scratch, len * sizeof(int), next);
    gshmem_fence();
    gshmem_int_p(flag, it, next);
    // Receive message `it` from the previous PE.
    if (it & 1) {
      gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, it);
    } else {
      while (!gshmem_int_test(flag, GSHMEM_CMP_EQ, it)) {
      }
    }
    const int rlen = msg_len(it);
    for (int i = rlen - 1; i >= 0; --i) {  // last element first: the one most likely to be late
      const int v = *static_cast<volatile int*>(&data[i]);
      const int e = value<int>(prev, i, static_cast<uint64_t>(it));
      if (v != e)
        dev_fail(err, static_cast<unsigned long long>(it), i, static_cast<unsigned>(e), static_cast<unsigned>(v));
    }
    gshmem_int_p(ack, it, prev);
  }
  gshmem_quiet();
}

// Block-scope variant: the whole block puts, quiet at block scope, thread 0 signals.
constexpr int kBlockMsgMaxInts = 16411;
__global__ void k_messages_block(int* data, int* flag, int* ack, int* scratch, int iters, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (int it = 1; it <= iters; ++it) {
    if (threadIdx.x == 0 && it > 1) gshmem::wait_until(ack, gshmem::cmp::ge, it - 1);
    __syncthreads();
    const int len = 1 + (it * 7919) % kBlockMsgMaxInts;
    for (int i = threadIdx.x; i < len; i += blockDim.x) scratch[i] = value<int>(me, i, static_cast<uint64_t>(it) + 77);
    // The block's threads copy each other's scratch elements: the _nbi block forms
    // do not synchronise the block on entry (the blocking forms do).
    __syncthreads();
    gshmemx_int_put_nbi_block(data, scratch, len, next);
    gshmem::quiet<block_scope>();
    if (threadIdx.x == 0) {
      gshmem::p(flag, it, next);
      gshmem::wait_until(flag, gshmem::cmp::eq, it);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
      const int v = *static_cast<volatile int*>(&data[i]);
      const int e = value<int>(prev, i, static_cast<uint64_t>(it) + 77);
      if (v != e)
        dev_fail(err, static_cast<unsigned long long>(it), i, static_cast<unsigned>(e), static_cast<unsigned>(v));
    }
    __syncthreads();
    if (threadIdx.x == 0) gshmem::p(ack, it, prev);
  }
  gshmem::quiet<block_scope>();
}

void message_passing() {
  int* data = static_cast<int*>(gshmem_malloc(kBlockMsgMaxInts * sizeof(int)));
  int* flags = static_cast<int*>(gshmem_calloc(4, sizeof(int)));
  int* scratch = nullptr;
  GT_CHECK(data != nullptr && flags != nullptr);
  if (!data || !flags) return;
  CUDA_CHECK(cudaMalloc(&scratch, kBlockMsgMaxInts * sizeof(int)));
  DevErrorsHost err;

  int iters = 10000;
  set_context("message passing: putmem + fence + int_p, %d messages", iters);
  gshmem_barrier_all();
  int* flag = flags;
  int* ack = flags + 1;
  DevErrors* e = err.d;
  void* args[] = {&data, &flag, &ack, &scratch, &iters, &e};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_messages, dim3(1), dim3(1), args, 0, 0));
  KERNEL_CHECK();
  err.check("message", "element", __FILE__, __LINE__);

  iters = 2000;
  set_context("message passing: putmem_nbi_block + quiet<block> + p, %d messages", iters);
  err.reset();
  gshmem_barrier_all();
  flag = flags + 2;
  ack = flags + 3;
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_messages_block, dim3(1), dim3(512), args, 0, 0));
  KERNEL_CHECK();
  err.check("message", "element", __FILE__, __LINE__);

  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(scratch));
  gshmem_free(flags);
  gshmem_free(data);
}

// ------------------------------------------------------------------ 3. wait_until / test
// For ivar == 5: whether `5 cmp v` holds for v in {4, 5, 6}.
__host__ __device__ inline bool cmp_truth(int cmp, int v) {
  switch (cmp) {
    case GSHMEM_CMP_EQ:
      return 5 == v;
    case GSHMEM_CMP_NE:
      return 5 != v;
    case GSHMEM_CMP_GT:
      return 5 > v;
    case GSHMEM_CMP_GE:
      return 5 >= v;
    case GSHMEM_CMP_LT:
      return 5 < v;
    case GSHMEM_CMP_LE:
      return 5 <= v;
  }
  return false;
}

#define GT_CMP_TYPE(NAME, TYPE, IDX)                                                                \
  {                                                                                                 \
    TYPE* iv = reinterpret_cast<TYPE*>(ivars) + 0;                                                  \
    *iv = static_cast<TYPE>(5);                                                                     \
    for (int c = 0; c < 6; ++c)                                                                     \
      for (int v = 4; v <= 6; ++v) {                                                                \
        const int got = gshmem_##NAME##_test(iv, c, static_cast<TYPE>(v));                          \
        if ((got != 0) != cmp_truth(c, v)) dev_fail(err, IDX, c * 10 + v, cmp_truth(c, v), got);    \
        if (cmp_truth(c, v)) gshmem_##NAME##_wait_until(iv, c, static_cast<TYPE>(v)); /* returns */ \
        if (gshmem::test(iv, static_cast<gshmem::cmp>(c), static_cast<TYPE>(v)) != cmp_truth(c, v)) \
          dev_fail(err, 100 + IDX, c * 10 + v, cmp_truth(c, v), !cmp_truth(c, v));                  \
      }                                                                                             \
  }

__global__ void k_cmp_local(void* ivars, DevErrors* err){
    // one thread
    GT_CMP_TYPE(int, int, 0) GT_CMP_TYPE(long, long, 1) GT_CMP_TYPE(longlong, long long, 2)
        GT_CMP_TYPE(uint, unsigned int, 3) GT_CMP_TYPE(ulong, unsigned long, 4)
            GT_CMP_TYPE(ulonglong, unsigned long long, 5) GT_CMP_TYPE(int32, int32_t, 6) GT_CMP_TYPE(int64, int64_t, 7)
                GT_CMP_TYPE(uint32, uint32_t, 8) GT_CMP_TYPE(uint64, uint64_t, 9) GT_CMP_TYPE(size, size_t, 10)
                    GT_CMP_TYPE(ptrdiff, ptrdiff_t, 11) GT_CMP_TYPE(short, short, 12)
                        GT_CMP_TYPE(ushort, unsigned short, 13)}

// Remote: for each comparison the previous PE stores a value that satisfies it
// into my ivar (which starts at 100); I wait_until it holds.
__global__ void k_cmp_remote(long long* ivar, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes;
  const int cmps[] = {GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE, GSHMEM_CMP_EQ};
  const long long writes[] = {7, 150, 100, 50, 100, 4242};    // value the writer stores
  const long long waits[] = {100, 100, 100, 100, 100, 4242};  // comparison operand
  for (int k = 0; k < 6; ++k) {
    *static_cast<volatile long long*>(ivar) =
        (cmps[k] == GSHMEM_CMP_GE || cmps[k] == GSHMEM_CMP_LE) ? 99 + 2 * (cmps[k] == GSHMEM_CMP_LE) : 100;
    gshmem_barrier_all();  // initial values in place everywhere
    gshmem_longlong_p(ivar, writes[k], next);
    gshmem_quiet();
    gshmem_longlong_wait_until(ivar, cmps[k], waits[k]);
    const long long v = *static_cast<volatile long long*>(ivar);
    if (v != writes[k])
      dev_fail(err, k, 0, static_cast<unsigned long long>(writes[k]), static_cast<unsigned long long>(v));
    gshmem_barrier_all();
  }
}

void wait_and_test() {
  DevErrorsHost err;
  void* ivars = gshmem_calloc(4, sizeof(long long));
  GT_CHECK(ivars != nullptr);
  if (!ivars) return;
  set_context("gshmem_<type>_test / wait_until, every type and comparison, local ivar");
  k_cmp_local<<<1, 1>>>(ivars, err.d);
  KERNEL_CHECK();
  err.check("type", "cmp*10+value", __FILE__, __LINE__);
  err.reset();
  set_context("gshmem_longlong_wait_until, each comparison satisfied by a remote p");
  gshmem_barrier_all();
  long long* iv = static_cast<long long*>(ivars);
  DevErrors* e = err.d;
  void* args[] = {&iv, &e};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_cmp_remote, dim3(1), dim3(1), args, 0, 0));
  KERNEL_CHECK();
  err.check("comparison", "-", __FILE__, __LINE__);
  gshmem_barrier_all();
  gshmem_free(ivars);
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  stamped_rounds();
  message_passing();
  wait_and_test();
  return test_main_epilogue("sync");
}
