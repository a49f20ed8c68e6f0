// SPDX-License-Identifier: BSD-3-Clause
// nordc_main: a plain C++ program (no CUDA device code of its own) linking
// libnordc_a.so and libnordc_b.so, whose kernels use the gshmem device API
// without relocatable device code, and loading libnordc_c.so with dlopen after
// gshmem_init. Rounds of "A puts, B checks" verify that kernels of separately
// built libraries see the same device state (PE numbers, heap mapping, barrier
// sequence); C checks late registration; dlclose before gshmem_finalize checks
// that an unloaded library is no longer written to.
#include <dlfcn.h>

#include <vector>

#include "common.h"
#include "nordc.h"

#ifndef NORDC_C_PATH
#error "NORDC_C_PATH (the path of libnordc_c.so) must be defined by the build"
#endif

namespace {

void check_report(const nordc_report& r, int me, int npes, bool with_remote, const char* who) {
  gt::set_context("%s", who);
  GT_CHECK_EQ(me, r.my_pe);
  GT_CHECK_EQ(npes, r.n_pes);
  GT_CHECK_EQ(0ull, r.local_bad);
  if (with_remote) {
    GT_CHECK_EQ(0ull, r.g_bad);
    GT_CHECK_EQ(0ull, r.ptr_bad);
    GT_CHECK_EQ(0, r.ptr_null);
  }
  if (r.local_bad || r.g_bad || r.ptr_bad)
    gt::emit(stderr, "PE %d: %s: first wrong element %llu holds %d\n", me, who, r.first_bad_index, r.first_bad_value);
}

void host_verify(const int* dst, size_t n, int from, int salt) {
  std::vector<int> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), dst, n * sizeof(int), cudaMemcpyDeviceToHost));
  GT_VERIFY("buffer", h.data(), n, [&](size_t i) { return gt::value<int>(from, i, static_cast<uint64_t>(salt)); });
}

}  // namespace

int main() {
  gt::test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  constexpr size_t n = 100003;
  int* dst = static_cast<int*>(gshmem_malloc(n * sizeof(int)));
  int* src = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&src), n * sizeof(int)));
  GT_CHECK(dst != nullptr);
  if (!dst) return gt::test_main_epilogue("nordc");

  for (int round = 0; round < 3; ++round) {
    const int salt = 100 + round;
    gt::set_context("round %d: libnordc_a put, libnordc_b check", round);
    CUDA_CHECK(cudaMemset(dst, gt::kPoison, n * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();  // host barrier (libgshmem) between the libraries' device barriers
    GT_CHECK_EQ(0, nordc_a_put(dst, src, n, salt));
    nordc_report r{};
    GT_CHECK_EQ(0, nordc_b_check(dst, n, salt, &r));
    check_report(r, me, npes, true, "libnordc_b's kernel");
    host_verify(dst, n, prev, salt);
  }

  // A library loaded after gshmem_init.
  gt::set_context("dlopen(%s) after gshmem_init", NORDC_C_PATH);
  void* lib = dlopen(NORDC_C_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!GT_CHECK(lib != nullptr)) gt::emit(stderr, "PE %d: dlopen: %s\n", me, dlerror());
  if (lib) {
    nordc_c_run_fn run = reinterpret_cast<nordc_c_run_fn>(dlsym(lib, "nordc_c_run"));
    GT_CHECK(run != nullptr);
    if (run) {
      for (int round = 0; round < 2; ++round) {
        const int salt = 200 + round;
        nordc_report r{};
        gt::set_context("round %d: dlopen'ed libnordc_c", round);
        GT_CHECK_EQ(0, run(dst, n, salt, &r));
        check_report(r, me, npes, false, "libnordc_c's kernel (loaded after gshmem_init)");
        host_verify(dst, n, prev, salt);
      }
    }
    gshmem_barrier_all();
    GT_CHECK_EQ(0, dlclose(lib));
  }

  // After the unload: the heap changes state (allocations) and A/B still work;
  // finalize then publishes the state once more - never into the unloaded library.
  void* more = gshmem_malloc(3 << 20);
  GT_CHECK(more != nullptr);
  gt::set_context("after dlclose: libnordc_a put, libnordc_b check");
  CUDA_CHECK(cudaMemset(dst, gt::kPoison, n * sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  GT_CHECK_EQ(0, nordc_a_put(dst, src, n, 300));
  nordc_report r{};
  GT_CHECK_EQ(0, nordc_b_check(dst, n, 300, &r));
  check_report(r, me, npes, true, "libnordc_b's kernel after dlclose");
  host_verify(dst, n, prev, 300);
  gshmem_free(more);

  CUDA_CHECK(cudaFree(src));
  gshmem_free(dst);
  return gt::test_main_epilogue("nordc");
}
