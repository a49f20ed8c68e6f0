// SPDX-License-Identifier: BSD-3-Clause
// host_copy_probe: a blocking host put (or get) of 8 B - 4 MiB from PE 0 to PE 1's heap
// (or from it), one at a time, by the library and by the other ways it could be done: the
// floor under the suite's host_put_latency / host_get_latency, and where its time goes.
//   lib       gshmem_putmem / gshmem_getmem (the internal stream; a copy-engine copy)
//   ce        cudaMemcpyAsync on a stream of the probe's, then cudaStreamSynchronize
//   ce x2/x4  the same bytes as 2 or 4 pieces on as many streams, joined by events (from
//             64 KiB): whether more than one copy engine takes part
//   sm auto   a kernel copying 16-byte units, one CTA of 512 threads per 32 KiB (at most
//             one per SM), then cudaStreamSynchronize: the SMs instead of the copy engines
//   sm all    the same with one CTA per SM
// Each with PE 1 waiting two ways while PE 0 times:
//   kernel    in gshmem_barrier_all, a kernel polling GPU 1's memory (as in the suite)
//   stream    in cuStreamWaitValue32 on a flag in its heap: nothing runs on GPU 1's SMs
// Per cell: the median of 100 calls (after 10 not timed), microseconds.
//   gshmrun -n 2 bin/gshmem-host-copy-probe
// Every cell's destination is poisoned first and each of its bytes checked after.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr int kIters = 100, kWarmup = 10, kThreads = 512, kPieces = 4;
constexpr size_t kMax = size_t{4} << 20;
constexpr size_t kSizes[] = {8, 256, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};

enum Variant { v_lib, v_ce, v_ce2, v_ce4, v_sm_auto, v_sm_all, v_count };
const char* const kNames[v_count] = {"lib", "ce", "ce x2", "ce x4", "sm auto", "sm all"};

#define PROBE_CU(x)                                                                     \
  do {                                                                                  \
    CUresult r_ = (x);                                                                  \
    if (r_ != CUDA_SUCCESS) {                                                           \
      const char* s_ = nullptr;                                                         \
      cuGetErrorString(r_, &s_);                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?"); \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

// 16-byte units grid-stride (both pointers 16-byte aligned), the last bytes one by one.
__global__ void __launch_bounds__(kThreads) k_copy(char* dst, const char* src, size_t bytes) {
  const size_t n = bytes / 16, stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t me = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (size_t i = me; i < n; i += stride) reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
  for (size_t i = n * 16 + me; i < bytes; i += stride) dst[i] = src[i];
}

unsigned char pattern(size_t i, unsigned seed) { return static_cast<unsigned char>((i * 131u + seed * 29u + 7u) >> 1); }

struct Probe {
  int sms = 0;
  cudaStream_t s[kPieces] = {};
  cudaEvent_t fork = nullptr, join[kPieces] = {};  // join[k]: piece k > 0 done

  Probe() {
    int dev = 0;
    PROBE_CHECK(cudaGetDevice(&dev));
    PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    for (int k = 0; k < kPieces; ++k) PROBE_CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    PROBE_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (int k = 1; k < kPieces; ++k) PROBE_CHECK(cudaEventCreateWithFlags(&join[k], cudaEventDisableTiming));
  }

  // `pieces` copies of 16-byte-aligned parts on as many streams, the first joined by the rest.
  void ce(char* dst, const char* src, size_t bytes, int pieces) {
    if (pieces > 1) PROBE_CHECK(cudaEventRecord(fork, s[0]));
    const size_t part = (bytes / pieces + 15) / 16 * 16;
    for (int k = 0; k < pieces; ++k) {
      const size_t at = k * part, len = at >= bytes ? 0 : std::min(part, bytes - at);
      if (k > 0) PROBE_CHECK(cudaStreamWaitEvent(s[k], fork, 0));
      if (len) PROBE_CHECK(cudaMemcpyAsync(dst + at, src + at, len, cudaMemcpyDefault, s[k]));
      if (k > 0) PROBE_CHECK(cudaEventRecord(join[k], s[k]));
    }
    for (int k = 1; k < pieces; ++k) PROBE_CHECK(cudaStreamWaitEvent(s[0], join[k], 0));
    PROBE_CHECK(cudaStreamSynchronize(s[0]));
  }

  void sm(char* dst, const char* src, size_t bytes, bool all) {
    const size_t per = size_t{32} << 10;
    const int ctas = all ? sms : static_cast<int>(std::min<size_t>(sms, (bytes + per - 1) / per));
    k_copy<<<ctas, kThreads, 0, s[0]>>>(dst, src, bytes);
    PROBE_CHECK(cudaGetLastError());
    PROBE_CHECK(cudaStreamSynchronize(s[0]));
  }

  // One blocking transfer of `bytes` by variant v; put: local -> PE 1's sym, get: the reverse.
  void one(Variant v, bool put, char* sym, char* remote, char* local, size_t bytes) {
    char* dst = put ? remote : local;
    const char* src = put ? local : remote;
    switch (v) {
      case v_lib:
        put ? gshmem_putmem(sym, local, bytes, 1) : gshmem_getmem(local, sym, bytes, 1);
        break;
      case v_ce:
        ce(dst, src, bytes, 1);
        break;
      case v_ce2:
        ce(dst, src, bytes, 2);
        break;
      case v_ce4:
        ce(dst, src, bytes, 4);
        break;
      case v_sm_auto:
        sm(dst, src, bytes, false);
        break;
      case v_sm_all:
        sm(dst, src, bytes, true);
        break;
      default:
        break;
    }
  }
};

double now_us() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if (npes != 2) {
    if (me == 0) fprintf(stderr, "host_copy_probe: needs exactly 2 PEs (PE 0 copies to and from PE 1)\n");
    gshmem_finalize();
    return 77;
  }
  PROBE_CU(cuInit(0));
  // sym: [put destination: kMax][get source: kMax][flag]
  char* sym = static_cast<char*>(gshmem_malloc(2 * kMax + 64));
  char* get_src = sym + kMax;
  int* flag = reinterpret_cast<int*>(sym + 2 * kMax);
  char* remote = me == 0 ? static_cast<char*>(gshmem_ptr(sym, 1)) : nullptr;
  if (me == 0 && !remote) {
    fprintf(stderr, "host_copy_probe: PE 1's heap is not mapped here (gshmem_ptr returned NULL)\n");
    gshmem_global_exit(1);
  }
  char* local = nullptr;
  PROBE_CHECK(cudaMalloc(&local, kMax));
  std::vector<unsigned char> put_ref(kMax), get_ref(kMax), got(kMax);
  for (size_t i = 0; i < kMax; ++i) put_ref[i] = pattern(i, 1), get_ref[i] = pattern(i, 2);
  if (me == 1) PROBE_CHECK(cudaMemcpy(get_src, get_ref.data(), kMax, cudaMemcpyHostToDevice));
  PROBE_CHECK(cudaMemset(flag, 0, sizeof(int)));
  PROBE_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  Probe p;
  cudaStream_t wait_stream;
  PROBE_CHECK(cudaStreamCreateWithFlags(&wait_stream, cudaStreamNonBlocking));
  int epoch = 0, bad = 0;

  for (int stream_wait = 0; stream_wait < 2; ++stream_wait) {
    for (int put = 1; put >= 0; --put) {
      if (me == 0) {
        printf("\n%s, PE 1 waiting in %s: median us of %d blocking calls\n%8s", put ? "put" : "get",
               stream_wait ? "cuStreamWaitValue32 (no kernel)" : "gshmem_barrier_all (a kernel)", kIters, "size");
        for (const char* n : kNames) printf(" %9s", n);
        printf("\n");
      }
      for (size_t bytes : kSizes) {
        if (me == 0) printf("%8zu", bytes);
        for (int v = 0; v < v_count; ++v) {
          const bool applies = !((v == v_ce2 || v == v_ce4) && bytes < (64 << 10));
          if (me == 0 && applies) {  // poison the destination, set the put's source
            PROBE_CHECK(cudaMemset(put ? remote : local, 0xA5, kMax));
            if (put) PROBE_CHECK(cudaMemcpy(local, put_ref.data(), bytes, cudaMemcpyHostToDevice));
            PROBE_CHECK(cudaDeviceSynchronize());
          }
          ++epoch;
          gshmem_barrier_all();
          if (me == 1 && applies && stream_wait) {
            PROBE_CU(cuStreamWaitValue32(wait_stream, reinterpret_cast<CUdeviceptr>(flag),
                                         static_cast<cuuint32_t>(epoch), CU_STREAM_WAIT_VALUE_GEQ));
            PROBE_CHECK(cudaStreamSynchronize(wait_stream));
          }
          std::vector<double> us;
          if (me == 0 && applies) {
            for (int i = 0; i < kWarmup + kIters; ++i) {
              const double t0 = now_us();
              p.one(static_cast<Variant>(v), put, put ? sym : get_src, put ? remote : remote + kMax, local, bytes);
              if (i >= kWarmup) us.push_back(now_us() - t0);
            }
            if (stream_wait) {
              gshmem_int_p(flag, epoch, 1);
              gshmem_quiet();
            }
          }
          gshmem_barrier_all();
          if (me != 0) continue;
          if (!applies) {
            printf(" %9s", "-");
            continue;
          }
          // Every byte: the copied ones and the poison after them.
          PROBE_CHECK(cudaMemcpy(got.data(), put ? remote : local, kMax, cudaMemcpyDefault));
          const std::vector<unsigned char>& ref = put ? put_ref : get_ref;
          size_t wrong = 0;
          for (size_t i = 0; i < kMax; ++i) wrong += got[i] != (i < bytes ? ref[i] : 0xA5);
          if (wrong) {
            fprintf(stderr, "host_copy_probe: %s %s, %zu B: %zu bytes wrong\n", put ? "put" : "get", kNames[v], bytes,
                    wrong);
            bad = 1;
          }
          printf(" %9.3f", probe_median(us));
        }
        if (me == 0) printf("\n");
        fflush(stdout);
      }
    }
  }
  gshmem_barrier_all();
  if (me == 0) printf("\n%s\n", bad ? "host_copy_probe: WRONG DATA (see above)" : "all destinations checked: ok");
  PROBE_CHECK(cudaFree(local));
  gshmem_free(sym);
  gshmem_finalize();
  return bad;
}
