// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_cumodule_init / gshmemx_cumodule_finalize: kernels of a module loaded through the CUDA
// driver API (cuModuleLoad of a cubin built by nvcc -cubin, cumodule_kernel.cu) call gshmem
// after gshmemx_cumodule_init, and keep working after a heap growth republishes the state.
//
//   test_cumodule <cumodule_gshmem.cubin> <cumodule_plain.cubin> <cumodule_wrong_size.cubin>
//
// Checks, on every PE: the module's copy is empty before init (n_pes 0) and holds this PE's
// state after; a ring of puts + quiet + flag (odd size, poisoned destination with a tail that
// must stay poisoned) delivers every element, and the data read right after the flag is
// complete; after a gshmem_malloc larger than the initial heap (so the heap grows), the same
// kernel into the end of the new block works and its gshmem_ptr sees the grown heap; the error
// cases (before gshmem_init, NULL, a module without gshmem's state, one with a state of another
// size, finalize of an unknown module or twice) return non-zero with the expected message.
// The driver API is reached through cudaGetDriverEntryPointByVersion, so that the binary does
// not link libcuda and still exits 77 on a machine without a GPU.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common.h"

namespace {

struct Driver {
  PFN_cuInit_v2000 Init;
  PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;
  PFN_cuCtxSynchronize_v2000 CtxSynchronize;
  PFN_cuModuleLoad_v2000 ModuleLoad;
  PFN_cuModuleUnload_v2000 ModuleUnload;
  PFN_cuModuleGetFunction_v2000 ModuleGetFunction;
  PFN_cuLaunchKernel_v4000 LaunchKernel;
  PFN_cuGetErrorString_v6000 GetErrorString;
};
Driver cu;

template <class F>
void load_entry(const char* name, F* out) {
  cudaDriverEntryPointQueryResult q;
  void* fn = nullptr;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == nullptr) {
    gt::emit(stderr, "PE %d: FAIL cannot load CUDA driver function %s (%s)\n", gt::log_pe(), name,
             e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
    exit(1);
  }
  *out = reinterpret_cast<F>(fn);
}

void load_driver() {
  load_entry("cuInit", &cu.Init);
  load_entry("cuCtxGetCurrent", &cu.CtxGetCurrent);
  load_entry("cuCtxSynchronize", &cu.CtxSynchronize);
  load_entry("cuModuleLoad", &cu.ModuleLoad);
  load_entry("cuModuleUnload", &cu.ModuleUnload);
  load_entry("cuModuleGetFunction", &cu.ModuleGetFunction);
  load_entry("cuLaunchKernel", &cu.LaunchKernel);
  load_entry("cuGetErrorString", &cu.GetErrorString);
}

void cu_fail(CUresult r, const char* expr, const char* file, int line) {
  const char* msg = nullptr;
  if (cu.GetErrorString == nullptr || cu.GetErrorString(r, &msg) != CUDA_SUCCESS || msg == nullptr) msg = "?";
  fflush(stdout);
  gt::emit(stderr, "PE %d: FAIL %s:%d [%s] CUDA driver error %d (%s) from %s\n", gt::log_pe(), file, line,
           gt::stats().context, static_cast<int>(r), msg, expr);
  exit(1);
}
#define CU_CHECK(call)                                                        \
  do {                                                                        \
    CUresult cu_err_ = (call);                                                \
    if (cu_err_ != CUDA_SUCCESS) cu_fail(cu_err_, #call, __FILE__, __LINE__); \
  } while (0)

// Runs `fn` with stderr going to a temporary file; returns what was written there (and echoes
// it, so that the log still shows the library's messages).
template <class Fn>
std::string capture_stderr(Fn fn) {
  fflush(stderr);
  FILE* tmp = tmpfile();
  const int saved = dup(STDERR_FILENO);
  if (tmp == nullptr || saved < 0 || dup2(fileno(tmp), STDERR_FILENO) < 0) {
    gt::emit(stderr, "PE %d: FAIL cannot redirect stderr\n", gt::log_pe());
    exit(1);
  }
  fn();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string text;
  rewind(tmp);
  char buf[1024];
  for (size_t got; (got = fread(buf, 1, sizeof(buf), tmp)) > 0;) text.append(buf, got);
  fclose(tmp);
  if (!text.empty()) gt::emit(stderr, "PE %d: (expected) %s", gt::log_pe(), text.c_str());
  return text;
}

// One call that must fail with `status` and log a message containing `needle`.
template <class Fn>
void expect_error(const char* what, int status, const char* needle, Fn fn) {
  gt::set_context("%s", what);
  int rc = GSHMEM_SUCCESS;
  const std::string text = capture_stderr([&] { rc = fn(); });
  GT_CHECK_EQ(status, rc);
  if (!GT_CHECK(text.find(needle) != std::string::npos))
    gt::emit(stderr, "PE %d: the message lacks \"%s\"\n", gt::log_pe(), needle);
}

constexpr int kN = 1001;   // odd element count
constexpr int kTail = 37;  // elements after dst[0..kN) that must stay poisoned
constexpr int kThreads = 128;

std::vector<int> to_host(const int* d, size_t n) {
  std::vector<int> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}

// The module's view of the state: {my_pe, n_pes}.
std::vector<int> query(CUfunction f, int* d_out) {
  CUDA_CHECK(cudaMemset(d_out, 0xff, 2 * sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  void* args[] = {&d_out};
  CU_CHECK(cu.LaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cu.CtxSynchronize());
  return to_host(d_out, 2);
}

// One round of cumodule_ring into dst[0..kN + kTail) and *flag (symmetric), checked on this PE.
void ring_round(CUfunction f, int* dst, int* flag, int round, const char* where) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  gt::set_context("%s: ring round %d, %d ints from PE %d", where, round, kN, prev);
  int *src = nullptr, *seen = nullptr, *info = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kN * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&seen, kN * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&info, 4 * sizeof(int)));
  std::vector<int> h(kN);
  for (int i = 0; i < kN; ++i) h[i] = gt::value<int>(me, i, round);
  CUDA_CHECK(cudaMemcpy(src, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, gt::kPoison, (kN + kTail) * sizeof(int)));
  CUDA_CHECK(cudaMemset(seen, gt::kPoison, kN * sizeof(int)));
  CUDA_CHECK(cudaMemset(flag, 0, sizeof(int)));
  CUDA_CHECK(cudaMemset(info, 0xff, 4 * sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();  // every PE's destination is poisoned before any put arrives

  int n = kN;
  void* args[] = {&dst, &src, &n, &flag, &round, &seen, &info};
  CU_CHECK(cu.LaunchKernel(f, 1, 1, 1, kThreads, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cu.CtxSynchronize());
  gshmem_barrier_all();

  const auto expected = [&](size_t i) { return gt::value<int>(prev, i, static_cast<uint64_t>(round)); };
  const std::vector<int> got = to_host(dst, kN + kTail);
  GT_VERIFY("dst", got.data(), kN, expected);
  gt::verify_poison("dst tail", reinterpret_cast<const unsigned char*>(got.data() + kN), kTail * sizeof(int), __FILE__,
                    __LINE__);
  const std::vector<int> saw = to_host(seen, kN);
  GT_VERIFY("seen right after the flag", saw.data(), kN, expected);
  GT_CHECK_EQ(round, to_host(flag, 1)[0]);
  const std::vector<int> inf = to_host(info, 4);
  GT_CHECK_EQ(me, inf[0]);
  GT_CHECK_EQ(npes, inf[1]);
  GT_CHECK_EQ(1, inf[2]);  // gshmem_ptr(dst, next) in the module
  GT_CHECK_EQ(1, inf[3]);  // gshmem_ptr(dst + kN - 1, me): inside the heap the module knows
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(seen));
  CUDA_CHECK(cudaFree(info));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <cumodule_gshmem.cubin> <cumodule_plain.cubin> <cumodule_wrong_size.cubin>\n", argv[0]);
    return 2;
  }
  gt::require_gpus(2, 0);

  expect_error("init before gshmem_init", GSHMEM_ERROR_NOT_INITIALIZED, "not initialized",
               [] { return gshmemx_cumodule_init(nullptr); });

  gshmem_init();
  gt::stats().me = gshmem_my_pe();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();

  load_driver();
  CUDA_CHECK(cudaFree(nullptr));  // the PE's primary context, current on this thread
  CU_CHECK(cu.Init(0));
  CUcontext ctx = nullptr;
  CU_CHECK(cu.CtxGetCurrent(&ctx));
  if (ctx == nullptr) {
    gt::emit(stderr, "PE %d: FAIL no CUDA context is current after gshmem_init and cudaFree(0)\n", me);
    return 1;
  }

  CUmodule mod = nullptr, plain = nullptr, wrong = nullptr;
  CU_CHECK(cu.ModuleLoad(&mod, argv[1]));
  CU_CHECK(cu.ModuleLoad(&plain, argv[2]));
  CU_CHECK(cu.ModuleLoad(&wrong, argv[3]));
  CUfunction f_query = nullptr, f_ring = nullptr;
  CU_CHECK(cu.ModuleGetFunction(&f_query, mod, "cumodule_query"));
  CU_CHECK(cu.ModuleGetFunction(&f_ring, mod, "cumodule_ring"));
  int* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, 2 * sizeof(int)));

  // Loaded, not initialised: the module's copy is the zero-initialised __constant__ block.
  gt::set_context("before gshmemx_cumodule_init");
  std::vector<int> q = query(f_query, d_out);
  GT_CHECK_EQ(0, q[0]);
  GT_CHECK_EQ(0, q[1]);

  // Refusals: nothing is registered, every call says why.
  expect_error("init(NULL)", GSHMEM_ERROR_INVALID_VALUE, "the module is NULL",
               [] { return gshmemx_cumodule_init(nullptr); });
  expect_error("init(module without gshmem)", GSHMEM_ERROR_INVALID_VALUE, "was not compiled with gshmem's headers",
               [&] { return gshmemx_cumodule_init(plain); });
  expect_error("init(module with another state size)", GSHMEM_ERROR_INVALID_VALUE,
               "compiled against other gshmem headers", [&] { return gshmemx_cumodule_init(wrong); });
  expect_error("finalize(unknown module)", GSHMEM_ERROR_INVALID_VALUE, "was not initialised with gshmemx_cumodule_init",
               [&] { return gshmemx_cumodule_finalize(plain); });
  expect_error("finalize(NULL)", GSHMEM_ERROR_INVALID_VALUE, "the module is NULL",
               [] { return gshmemx_cumodule_finalize(nullptr); });

  // Filled: the module sees this PE. A second init refills it and is no error.
  gt::set_context("gshmemx_cumodule_init");
  GT_CHECK_STATUS(gshmemx_cumodule_init(mod));
  q = query(f_query, d_out);
  GT_CHECK_EQ(me, q[0]);
  GT_CHECK_EQ(npes, q[1]);
  GT_CHECK_STATUS(gshmemx_cumodule_init(mod));

  // Round 1: in the heap as it was at init.
  int* dst1 = static_cast<int*>(gshmem_malloc((kN + kTail) * sizeof(int)));
  int* flag1 = static_cast<int*>(gshmem_malloc(sizeof(int)));
  gt::set_context("round 1 allocation");
  if (GT_CHECK(dst1 != nullptr && flag1 != nullptr)) ring_round(f_ring, dst1, flag1, 1, "initial heap");

  // Round 2: a block larger than the initial heap makes it grow (the state is republished);
  // the destination and flag at the block's end lie beyond the initial heap size, where the
  // module's gshmem_ptr returns NULL unless its copy was refilled.
  const size_t initial = static_cast<size_t>(gt::env_size("GSHMEM_SYMMETRIC_SIZE", 1ull << 30));
  const size_t big_bytes = initial + (32u << 20);
  char* big = static_cast<char*>(gshmem_malloc(big_bytes));
  gt::set_context("heap growth: gshmem_malloc(%zu) with an initial heap of %zu bytes", big_bytes, initial);
  if (GT_CHECK(big != nullptr)) {
    int* dst2 = reinterpret_cast<int*>(big + big_bytes) - (kN + kTail);
    int* flag2 = dst2 - 16;
    ring_round(f_ring, dst2, flag2, 2, "grown heap");
  }

  // Finalised: a second finalize is an unknown module again.
  gt::set_context("gshmemx_cumodule_finalize");
  GT_CHECK_STATUS(gshmemx_cumodule_finalize(mod));
  expect_error("finalize twice", GSHMEM_ERROR_INVALID_VALUE, "finalised already",
               [&] { return gshmemx_cumodule_finalize(mod); });

  gshmem_barrier_all();
  if (big) gshmem_free(big);
  if (flag1) gshmem_free(flag1);
  if (dst1) gshmem_free(dst1);
  CUDA_CHECK(cudaFree(d_out));
  CU_CHECK(cu.ModuleUnload(mod));
  CU_CHECK(cu.ModuleUnload(plain));
  CU_CHECK(cu.ModuleUnload(wrong));
  return gt::test_main_epilogue("cumodule");
}
