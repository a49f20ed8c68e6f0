// SPDX-License-Identifier: BSD-3-Clause
// Would a blocking host put or get (a copy on the internal stream, then cudaStreamSynchronize)
// return sooner on a word written after the copy by the stream itself (cuStreamWriteValue64 into
// mapped pinned memory, the host spinning on it)? Rows: an 8-byte device-to-device and
// device-to-pinned copy waited for either way, and the library's gshmem_putmem / gshmem_getmem /
// gshmem_uint64_g of 8 bytes on the own PE. Median and p90 of 11 runs of 2000 calls, host time
// per call, in us. One PE. Built by hand against the build tree:
//   nvcc -arch=sm_90 -O2 -I include copy_word.cu -L lib -lgshmem -lcuda -Xlinker -rpath,'$ORIGIN/../lib'
#include <cuda.h>
#include <gshmem/gshmem.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
using clk = std::chrono::steady_clock;
constexpr int kCalls = 2000;

template <class F>
void time_it(const char* what, F&& f) {
  for (int i = 0; i < 200; ++i) f(i);
  std::vector<double> per_call;
  for (int run = 0; run < 11; ++run) {
    const auto t0 = clk::now();
    for (int i = 0; i < kCalls; ++i) f(i);
    per_call.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / kCalls);
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("%-58s median %7.3f us  p90 %7.3f us\n", what, per_call[5], per_call[9]);
  std::fflush(stdout);
}
}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe();
  auto* sym = static_cast<uint64_t*>(gshmem_malloc(64 * sizeof(uint64_t)));
  uint64_t* local = nullptr;
  cudaMalloc(&local, 64 * sizeof(uint64_t));
  cudaMemset(local, 0, 64 * sizeof(uint64_t));
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  uint64_t* pinned = nullptr;  // [0]: the word, [8]: copy target
  cudaHostAlloc(reinterpret_cast<void**>(&pinned), 256, cudaHostAllocMapped | cudaHostAllocPortable);
  uint64_t* dpinned = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&dpinned), pinned, 0);
  uint64_t seq = 0, host_value = 42;
  cudaDeviceSynchronize();
  int bad = 0;

  auto spin = [&](uint64_t s) {
    while (__atomic_load_n(pinned, __ATOMIC_ACQUIRE) != s) {
    }
  };
  time_it("memcpy D2D 8 B + cudaStreamSynchronize", [&](int) {
    cudaMemcpyAsync(sym, local, 8, cudaMemcpyDeviceToDevice, st);
    cudaStreamSynchronize(st);
  });
  time_it("memcpy D2D 8 B + cuStreamWriteValue64 word + spin", [&](int) {
    cudaMemcpyAsync(sym, local, 8, cudaMemcpyDeviceToDevice, st);
    cuStreamWriteValue64(st, reinterpret_cast<CUdeviceptr>(dpinned), ++seq, CU_STREAM_WRITE_VALUE_DEFAULT);
    spin(seq);
  });
  time_it("memcpy D2pinned 8 B + cudaStreamSynchronize", [&](int) {
    cudaMemcpyAsync(pinned + 8, sym, 8, cudaMemcpyDeviceToHost, st);
    cudaStreamSynchronize(st);
  });
  time_it("memcpy D2pinned 8 B + cuStreamWriteValue64 word + spin", [&](int i) {
    cudaMemcpyAsync(pinned + 8, sym + (i & 1), 8, cudaMemcpyDeviceToHost, st);
    cuStreamWriteValue64(st, reinterpret_cast<CUdeviceptr>(dpinned), ++seq, CU_STREAM_WRITE_VALUE_DEFAULT);
    spin(seq);
  });
  // The copy's data must be there when the word is: values i, checked after each wait.
  for (int i = 0; i < 2000; ++i) {
    const uint64_t v = 1000 + i;
    cudaMemcpyAsync(local + 1, &v, 8, cudaMemcpyHostToDevice, st);  // pageable: staged, in order
    cudaMemcpyAsync(pinned + 8, local + 1, 8, cudaMemcpyDeviceToHost, st);
    cuStreamWriteValue64(st, reinterpret_cast<CUdeviceptr>(dpinned), ++seq, CU_STREAM_WRITE_VALUE_DEFAULT);
    spin(seq);
    if (static_cast<volatile uint64_t*>(pinned)[8] != v) ++bad;
  }
  std::printf("copy data seen with the word: %d of 2000 late\n", bad);
  time_it("gshmem_putmem 8 B (host, own PE)", [&](int) { gshmem_putmem(sym, &host_value, 8, me); });
  time_it("gshmem_getmem 8 B (host, own PE)", [&](int) { gshmem_getmem(&host_value, sym, 8, me); });
  time_it("gshmem_uint64_g (host, own PE)", [&](int) { (void)gshmem_uint64_g(sym, me); });
  time_it("gshmem_uint64_p (host, own PE)", [&](int i) { gshmem_uint64_p(sym + 2, i, me); });
  gshmem_finalize();
  return bad ? 1 : 0;
}
