// SPDX-License-Identifier: BSD-3-Clause
// sanitizer_nvtx (issue 56, item 6): the symmetric heap as compute-sanitizer sees it through the
// NVTX memory API (src/host/mem/sanitizer_nvtx.h). Run under memcheck by sanitizer_nvtx.sh, which
// reads memcheck's report. A Release build: the library's own device checks are off, so only
// memcheck can see the bad writes below.
//
// The heap of every PE: `a` (1,000 bytes: 24 bytes of padding behind it), `gone` (4,096 bytes,
// freed), `after` (a live block behind `gone`), and `big` (GROW_BYTES, past GSHMEM_SYMMETRIC_SIZE
// on the VMM heap: the heap grows for it, so it lies across two chunks).
//   clean  every PE puts into the next PE (and itself) at the ends of a, after and big, whole
//          blocks and last bytes, through the library's device puts, then checks every byte it
//          received (memcheck must report no error)
//   bad    PE 0 runs three kernels, each one bad write, then checks it is still alive:
//            nvtx_overrun_padding     a put into its own a, 4 bytes past its end (the padding)
//            nvtx_put_into_freed_peer a put into `gone` on PE 1 (its window mapped here)
//            nvtx_overrun_grown       a put into big on PE 1, 4 bytes past its end
//          each must be reported by memcheck naming the kernel (--destroy-on-device-error
//          kernel keeps the context; the driver asks for it). PE 1 waits in a barrier.
// Exits 77 without a GPU (2 PEs may share one: GT_SHARE_GPUS=1).
#include <cstring>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr size_t kA = 1000, kGone = 4096, kAfter = 300;

__global__ void nvtx_clean_puts(char* a, char* after, char* big, size_t big_bytes, const char* src, int pe) {
  gshmem_putmem(a, src, kA, pe);                          // all of a
  gshmem_putmem(after + kAfter - 1, src + 7, 1, pe);      // the last byte of after
  gshmem_putmem(big + big_bytes - 64, src + 64, 64, pe);  // the last 64 bytes of big (second chunk)
  gshmem_putmem(big, src, 64, pe);                        // its first 64 (first chunk)
}

__global__ void nvtx_overrun_padding(char* a, const char* src, int pe) { gshmem_putmem(a + kA - 4, src, 8, pe); }
__global__ void nvtx_put_into_freed_peer(char* gone, const char* src, int pe) { gshmem_putmem(gone + 16, src, 8, pe); }
__global__ void nvtx_overrun_grown(char* big, size_t big_bytes, const char* src, int pe) {
  gshmem_putmem(big + big_bytes - 4, src, 8, pe);
}

char value(size_t i, int pe) { return static_cast<char>(1 + (i * 7 + static_cast<size_t>(pe) * 13) % 251); }

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "clean") != 0 && strcmp(mode, "bad") != 0) {
    emit(stderr, "usage: %s clean|bad (run by sanitizer_nvtx.sh under compute-sanitizer)\n", argv[0]);
    return 2;
  }
  test_main_prologue(2, 2);
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), next = (me + 1) % n;
  const size_t big_bytes = static_cast<size_t>(env_int("GROW_BYTES", 40 << 20)) + 3;  // odd: padding behind it
  char* a = static_cast<char*>(gshmem_malloc(kA));
  char* gone = static_cast<char*>(gshmem_malloc(kGone));
  char* after = static_cast<char*>(gshmem_malloc(kAfter));
  char* big = static_cast<char*>(gshmem_malloc(big_bytes));
  GT_CHECK(a && gone && after && big);
  gshmem_free(gone);
  emit(stdout, "PE %d: a %p, freed %p, after %p, big %p (%zu bytes)\n", me, static_cast<void*>(a),
       static_cast<void*>(gone), static_cast<void*>(after), static_cast<void*>(big), big_bytes);

  std::vector<char> pattern(kA + 128);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = value(i, me);
  char* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, pattern.size()));
  CUDA_CHECK(cudaMemcpy(src, pattern.data(), pattern.size(), cudaMemcpyHostToDevice));
  // Poison what the puts write, so that every received byte is checked to come from them.
  CUDA_CHECK(cudaMemset(a, kPoison, kA));
  CUDA_CHECK(cudaMemset(after, kPoison, kAfter));
  CUDA_CHECK(cudaMemset(big, kPoison, 64));
  CUDA_CHECK(cudaMemset(big + big_bytes - 64, kPoison, 64));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();

  if (strcmp(mode, "clean") == 0) {
    nvtx_clean_puts<<<1, 1>>>(a, after, big, big_bytes, src, next);
    KERNEL_CHECK();
    gshmem_barrier_all();
    const int from = (me + n - 1) % n;  // the PE that put into this one
    std::vector<char> got(kA);
    CUDA_CHECK(cudaMemcpy(got.data(), a, kA, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < kA; ++i) GT_CHECK_EQ(static_cast<int>(value(i, from)), static_cast<int>(got[i]));
    char last = 0;
    CUDA_CHECK(cudaMemcpy(&last, after + kAfter - 1, 1, cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(static_cast<int>(value(7, from)), static_cast<int>(last));
    std::vector<char> head(64), tail(64);
    CUDA_CHECK(cudaMemcpy(head.data(), big, 64, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(tail.data(), big + big_bytes - 64, 64, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < 64; ++i) {
      GT_CHECK_EQ(static_cast<int>(value(i, from)), static_cast<int>(head[i]));
      GT_CHECK_EQ(static_cast<int>(value(64 + i, from)), static_cast<int>(tail[i]));
    }
  } else if (me == 0) {
    // Each kernel's error ends that kernel only (--destroy-on-device-error kernel): the next runs.
    nvtx_overrun_padding<<<1, 1>>>(a, src, me);
    emit(stdout, "PE 0: nvtx_overrun_padding: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    nvtx_put_into_freed_peer<<<1, 1>>>(gone, src, 1);
    emit(stdout, "PE 0: nvtx_put_into_freed_peer: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    nvtx_overrun_grown<<<1, 1>>>(big, big_bytes, src, 1);
    emit(stdout, "PE 0: nvtx_overrun_grown: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaGetLastError();
  }
  gshmem_barrier_all();
  emit(stdout, "PE %d: %s run done\n", me, mode);
  gshmem_free(big);
  gshmem_free(after);
  gshmem_free(a);
  CUDA_CHECK(cudaFree(src));
  return test_main_epilogue("sanitizer_nvtx");
}
