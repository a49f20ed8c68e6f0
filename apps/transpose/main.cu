// SPDX-License-Identifier: BSD-3-Clause
// gshmem-transpose: the distributed N x N transpose of transpose.cuh, every form on the same
// matrix, each checked element by element on every PE and timed:
//   thread, warp, block  in place: one kernel transposes tiles in shared memory and puts them
//                        straight into the owners' B (p / putmem<warp> / putmem<block>), then
//                        barrier_all_on_stream completes every PE's puts.
//   alltoall             pack, gshmemx_<T>_alltoall_on_stream, unpack (the library, packed).
//   NCCL                 pack, ncclSend/ncclRecv to every PE, unpack: the offload version (skipped
//                        without NCCL).
//   gshmrun -n 2 build/default/bin/gshmem-transpose --n 8192 --type float
// Exit status 0 only when every element of B on every PE equals A^T for every form.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/app.h"
#include "../common/nccl.h"
#include "transpose.cuh"

namespace {

using transpose::Form;

int alltoall_on_stream(float* dest, const float* source, size_t n, cudaStream_t s) {
  return gshmemx_float_alltoall_on_stream(GSHMEM_TEAM_WORLD, dest, source, n, s);
}
int alltoall_on_stream(double* dest, const double* source, size_t n, cudaStream_t s) {
  return gshmemx_double_alltoall_on_stream(GSHMEM_TEAM_WORLD, dest, source, n, s);
}

template <class T>
bool run(int n, int iters, int reps, bool no_nccl, const char* type) {
  const int me = app::me(), npes = app::npes();
  cudaStream_t st = app::stream();
  const transpose::Dist d{n, npes};
  const size_t m = d.max_rows(), blk = m * m;  // the packed forms' block: m x m, padded

  // My rows of A (local); B and the packed forms' buffers symmetric (collective allocations,
  // the same sizes on every PE). The send and receive buffers are doubled: transpose k uses
  // buffer k % 2, so a PE one transpose ahead never writes into a block another PE still reads.
  T* a = nullptr;
  APP_CUDA(cudaMalloc(&a, std::max<size_t>(1, static_cast<size_t>(d.rows(me)) * n) * sizeof(T)));
  transpose::k_fill<T><<<264, 256, 0, st>>>(a, d, me);
  APP_CUDA(cudaGetLastError());
  T* b = static_cast<T*>(gshmem_malloc(m * n * sizeof(T)));
  T *send[2], *recv[2];
  for (int k = 0; k < 2; ++k) {
    send[k] = static_cast<T*>(gshmem_malloc(npes * blk * sizeof(T)));
    recv[k] = static_cast<T*>(gshmem_malloc(npes * blk * sizeof(T)));
  }
  if (!b || !send[0] || !send[1] || !recv[0] || !recv[1]) {
    fprintf(stderr, "transpose: PE %d: gshmem_malloc of %zu bytes failed\n", me, (m * n + 4 * npes * blk) * sizeof(T));
    exit(1);
  }
  unsigned long long* counts = nullptr;
  APP_CUDA(cudaMalloc(&counts, 2 * sizeof(*counts)));

  transpose::Args x;
  x.a = a;
  x.b = b;
  x.d = d;
  x.me = me;
  std::string why = no_nccl ? "--no-nccl" : "";
  const bool nccl = why.empty() && app::nccl::init(&why);

  // One whole transpose, form f, the k-th of a run.
  auto once = [&](const std::string& f, int k) {
    if (f == "thread" || f == "warp" || f == "block") {
      if (f == "thread") APP_CUDA((transpose::launch_transpose<T, Form::thread>(x, st)));
      if (f == "warp") APP_CUDA((transpose::launch_transpose<T, Form::warp>(x, st)));
      if (f == "block") APP_CUDA((transpose::launch_transpose<T, Form::block>(x, st)));
      // Every PE's puts are complete and visible (quiet + barrier) before anyone reads its B.
      gshmemx_barrier_all_on_stream(st);
      return;
    }
    transpose::Args px = x;
    px.send = send[k & 1];
    APP_CUDA((transpose::launch_transpose<T, Form::pack>(px, st)));
    if (f == "alltoall") {
      if (alltoall_on_stream(recv[k & 1], send[k & 1], blk, st) != 0) {
        fprintf(stderr, "transpose: PE %d: alltoall_on_stream failed\n", me);
        exit(1);
      }
    } else {  // NCCL: the same exchange, one grouped send/recv per PE pair
      std::vector<const void*> s(npes);
      std::vector<void*> r(npes);
      std::vector<size_t> c(npes, blk);
      for (int q = 0; q < npes; ++q) s[q] = send[k & 1] + q * blk, r[q] = recv[k & 1] + q * blk;
      app::nccl::alltoallv(s.data(), r.data(), c.data(), sizeof(T) == 4 ? app::nccl::float32 : app::nccl::float64, st);
    }
    APP_CUDA(transpose::launch_unpack<T>(recv[k & 1], b, d, me, st));
  };

  // Checked: B poisoned on every PE before any PE writes into it, one transpose, every
  // element of my rows of B against the formula.
  bool ok = true;
  auto check = [&](const std::string& f) {
    APP_CUDA(cudaMemsetAsync(b, 0xA5, m * n * sizeof(T), st));
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();
    once(f, 0);
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();  // the packed forms: nobody's next transpose writes my buffers yet
    const unsigned long long init[2] = {0, ~0ull};
    APP_CUDA(cudaMemcpyAsync(counts, init, sizeof(init), cudaMemcpyHostToDevice, st));
    transpose::k_check<T><<<264, 256, 0, st>>>(b, d, me, counts);
    APP_CUDA(cudaGetLastError());
    unsigned long long got[2];
    APP_CUDA(cudaMemcpyAsync(got, counts, sizeof(got), cudaMemcpyDeviceToHost, st));
    APP_CUDA(cudaStreamSynchronize(st));
    if (got[0])
      fprintf(stderr, "transpose: PE %d: %s: %llu of %zu elements of B wrong, the first at row %llu col %llu\n", me,
              f.c_str(), got[0], static_cast<size_t>(d.rows(me)) * n, d.first(me) + got[1] / n, got[1] % n);
    ok = app::all_pes(got[0] == 0) && ok;
  };
  auto time_us = [&](const std::string& f) {
    int k = 0;
    once(f, k++);  // warm-up
    std::vector<double> us;
    for (int r = 0; r < reps; ++r)
      us.push_back(app::time_ms(st,
                                [&] {
                                  for (int i = 0; i < iters; ++i) once(f, k++);
                                }) *
                   1e3 / iters);
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();
    return app::max_over_pes(app::median(us));
  };

  std::vector<std::string> forms = {"thread", "warp", "block", "alltoall"};
  if (nccl) forms.push_back("NCCL");
  std::vector<double> t;
  for (const std::string& f : forms) {
    check(f);
    t.push_back(time_us(f));
  }
  if (nccl) app::nccl::fini();

  // The table. Bytes: a PE's share of the matrix (N^2 x sizeof(T) / P) per transpose; bus
  // bandwidth counts the (P - 1) / P of it that crosses to other GPUs, as nccl-tests' alltoall.
  const double share = static_cast<double>(n) * n * sizeof(T) / npes;
  const double t_off = nccl ? t.back() : 0;
  app::say("transpose: %d x %d %s, %d PEs, %d transposes x %d samples (median, slowest PE)\n", n, n, type, npes, iters,
           reps);
  app::say("%-9s %12s %12s %12s %12s\n", "form", "us", "algbw GB/s", "busbw GB/s", "vs offload");
  for (size_t i = 0; i < forms.size(); ++i) {
    char vs[32] = "";
    if (t_off > 0) snprintf(vs, sizeof(vs), "%.2fx", t_off / t[i]);
    const double alg = share / (t[i] * 1e3);
    app::say("%-9s %12.1f %12.1f %12.1f %12s\n", forms[i].c_str(), t[i], alg, alg * (npes - 1) / npes, vs);
  }
  if (!nccl) app::say("%-9s skipped: %s\n", "NCCL", why.c_str());
  app::say("transpose: %s\n", ok ? "every element of B on every PE equals A^T, every form" : "FAILED");

  for (int k = 0; k < 2; ++k) {
    gshmem_free(recv[k]);
    gshmem_free(send[k]);
  }
  gshmem_free(b);
  APP_CUDA(cudaFree(counts));
  APP_CUDA(cudaFree(a));
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  app::require_gpus("transpose");
  gshmem_init();
  app::start("transpose");
  app::Flags f(argc, argv, "gshmrun -n PES gshmem-transpose [flags]");
  const int n = static_cast<int>(f.num("n", 8192, "matrix side N (any N >= PEs)"));
  const std::string type = f.str("type", "float", "element type: float | double");
  const int iters = static_cast<int>(f.num("iters", 10, "transposes per sample"));
  const int reps = static_cast<int>(f.num("reps", 5, "samples (the median is printed)"));
  const bool no_nccl = f.flag("no-nccl", "skip the NCCL (offload) form");
  f.done();
  if (n < app::npes() || iters < 1 || reps < 1 || (type != "float" && type != "double")) {
    app::say("transpose: bad flags: every PE needs a row (--n >= PEs), --type float|double, --iters/--reps >= 1\n");
    return 2;
  }
  const bool ok =
      type == "float" ? run<float>(n, iters, reps, no_nccl, "floats") : run<double>(n, iters, reps, no_nccl, "doubles");
  app::finish();
  gshmem_finalize();
  return ok ? 0 : 1;
}
