// SPDX-License-Identifier: BSD-3-Clause
// gshmem-jacobi: the 2D Jacobi solver of jacobi.cuh run five ways on the same grid and kernel,
// checked, and timed (the GTC 2018 talk's stencil variants, beside the offload model):
//   one GPU   the whole grid on this GPU alone: the reference every other form must equal bit
//             for bit, and (its time / PEs) the ideal a distributed form can reach.
//   put+bar   communication only in the kernel: one kernel per iteration puts its boundary rows
//             into the neighbours' halos (putmem<block>); the synchronisation stays on the stream
//             (gshmemx_barrier_all_on_stream after each kernel).
//   signal    communication and neighbour synchronisation in the kernel: one kernel per
//             iteration that waits for its halo rows and sends its own boundary rows
//             (putmem_signal<block>); nothing waits for the whole job.
//   persist   communication and synchronisation in one persistent kernel for all iterations,
//             launched collectively (gshmemx_collective_launch): the signals of `signal` between
//             PEs, a grid-wide barrier between iterations within a PE, no launch per iteration.
//   NCCL      the same kernel without the waits and puts, then the halo rows exchanged by
//             grouped ncclSend/ncclRecv on the same stream: the offload model (skipped without
//             NCCL, or at one PE where there is nothing to exchange).
//   gshmrun -n 2 build/default/bin/gshmem-jacobi --n 8192 --iters 200
// Exit status 0 only when every PE's rows of every form equal the one-GPU solve's.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/app.h"
#include "../common/nccl.h"
#include "jacobi.cuh"

namespace {

// Times `reps` batches of `iters` iterations (after `warmup`); returns the median microseconds
// per iteration, the slowest PE's.
template <class Iterate>
double time_per_iteration(int warmup, int iters, int reps, Iterate&& iterate) {
  iterate(warmup);
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) us.push_back(app::time_ms(app::stream(), [&] { iterate(iters); }) * 1e3 / iters);
  return app::max_over_pes(app::median(us));
}

// My rows of the solver's grid against the same rows of the one-GPU solve.
bool check(const char* form, const jacobi::Solver& s, const double* want) {
  const size_t n = static_cast<size_t>(s.l.n);
  const app::Diff d = app::diff_words(s.result() + n, want + static_cast<size_t>(s.l.first) * n,
                                      static_cast<size_t>(s.l.rows) * n, app::stream());
  if (d.bad)
    fprintf(stderr,
            "jacobi: PE %d: %s: %llu of %zu points differ from the one-GPU solve, the first at row %lld col %zu\n",
            app::me(), form, static_cast<unsigned long long>(d.bad), static_cast<size_t>(s.l.rows) * n,
            static_cast<long long>(s.l.first + static_cast<int64_t>(d.first / n)), static_cast<size_t>(d.first % n));
  return app::all_pes(d.bad == 0);
}

}  // namespace

int main(int argc, char** argv) {
  app::require_gpus("jacobi");
  gshmem_init();
  app::start("jacobi");
  app::Flags f(argc, argv, "gshmrun -n PES gshmem-jacobi [flags]");
  const int n = static_cast<int>(f.num("n", 4096, "grid side N (N x N doubles)"));
  const int iters = static_cast<int>(f.num("iters", 100, "iterations timed per sample, and checked"));
  const int reps = static_cast<int>(f.num("reps", 5, "samples (the median is printed)"));
  const int threads = static_cast<int>(f.num("threads", jacobi::kDefaultThreads, "threads per CTA (at most 512)"));
  const int max_ctas = static_cast<int>(f.num("persist-ctas", 0, "most CTAs of the persistent form (0: all that fit)"));
  const bool no_nccl = f.flag("no-nccl", "skip the NCCL form");
  f.done();
  const int me = app::me(), npes = app::npes();
  if (n < 3 || n - 2 < npes || iters < 1 || reps < 1) {
    app::say("jacobi: --n %d gives %d interior rows for %d PEs: every PE needs one (and --iters, --reps >= 1)\n", n,
             n - 2, npes);
    return 2;
  }
  cudaStream_t st = app::stream();

  // 1. The one-GPU solve, in local memory: the reference, and the ideal time.
  jacobi::Solver ref;
  ref.l = jacobi::layout(0, 1, n);
  ref.sh = jacobi::shape(threads, ref.l.rows, n);
  for (double*& b : ref.buf) APP_CUDA(cudaMalloc(&b, ref.l.buf_elems * sizeof(double)));
  auto iterate_ref = [&](int k) {
    while (k-- > 0) APP_CUDA(ref.step(st));
  };
  APP_CUDA(ref.start(st));
  const double t_one = time_per_iteration(10, iters, reps, iterate_ref);
  APP_CUDA(ref.start(st));
  iterate_ref(iters);
  APP_CUDA(cudaStreamSynchronize(st));
  const double* want = ref.result();

  // 2. signal: the buffers and the two signal counters are symmetric (gshmem_malloc is
  //    collective: every PE allocates the same sizes in the same order).
  const jacobi::Layout l = jacobi::layout(me, npes, n);
  jacobi::Solver g;
  g.l = l;
  g.sh = jacobi::shape(threads, l.rows, n);
  for (double*& b : g.buf) b = static_cast<double*>(gshmem_malloc(l.buf_elems * sizeof(double)));
  g.sig = static_cast<uint64_t*>(gshmem_calloc(2, sizeof(uint64_t)));
  if (!g.buf[0] || !g.buf[1] || !g.sig) {
    fprintf(stderr, "jacobi: PE %d: gshmem_malloc of 2 x %zu bytes failed (raise GSHMEM_SYMMETRIC_SIZE)\n", me,
            l.buf_elems * sizeof(double));
    return 1;
  }
  auto iterate_gshmem = [&](int k) {
    while (k-- > 0) APP_CUDA(g.step(st));
  };
  // start() writes buffers the neighbours put into: every PE must have stopped sending (its
  // stream is idle) before any PE starts, and every PE must have started before any sends.
  auto restart = [&](jacobi::Solver& s) {
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();
    APP_CUDA(s.start(st));
    gshmem_barrier_all();
  };
  restart(g);
  const double t_gshmem = time_per_iteration(10, iters, reps, iterate_gshmem);
  restart(g);
  iterate_gshmem(iters);
  APP_CUDA(cudaStreamSynchronize(st));
  gshmem_barrier_all();
  bool ok = check("signal", g, want);

  // 3. put+bar: the same buffers, the kernel puts without signals, a barrier on the stream after
  //    each iteration (it completes the puts, then lines the PEs up: nobody reads a halo before it
  //    arrived, nobody overwrites one still being read).
  jacobi::Solver pb = g;
  pb.sig = nullptr;
  pb.put_only = true;
  auto iterate_put = [&](int k) {
    while (k-- > 0) {
      APP_CUDA(pb.step(st));
      gshmemx_barrier_all_on_stream(st);
    }
  };
  restart(pb);
  const double t_put = time_per_iteration(10, iters, reps, iterate_put);
  restart(pb);
  iterate_put(iters);
  APP_CUDA(cudaStreamSynchronize(st));
  gshmem_barrier_all();
  ok = check("put+bar", pb, want) && ok;

  // 4. persist: one collective launch runs every iteration of a call; the signals count on from
  //    where the `signal` form left them (Solver::it), so they need no reset.
  jacobi::Solver p = g;
  int ctas = 0;
  {
    jacobi::Step probe = p.next();
    int gx = 0, gy = 0, k = 0;
    void* args[] = {&probe, &gx, &gy, &k};
    int fit = 0;
    if (gshmemx_collective_launch_query_gridsize(reinterpret_cast<const void*>(jacobi::k_persistent),
                                                 dim3(p.sh.threads), args, 0, &fit) != 0 ||
        fit < 1) {
      fprintf(stderr, "jacobi: PE %d: gshmemx_collective_launch_query_gridsize failed (%d CTAs fit)\n", me, fit);
      return 1;
    }
    ctas = std::min(fit, static_cast<int>(p.sh.grid.x * p.sh.grid.y));
    if (max_ctas > 0) ctas = std::min(ctas, max_ctas);
  }
  auto iterate_persistent = [&](int k) {
    if (k <= 0) return;
    jacobi::Step s = p.next();
    int gx = static_cast<int>(p.sh.grid.x), gy = static_cast<int>(p.sh.grid.y);
    void* args[] = {&s, &gx, &gy, &k};
    const int rc = gshmemx_collective_launch(reinterpret_cast<const void*>(jacobi::k_persistent), dim3(ctas),
                                             dim3(p.sh.threads), args, 0, st);
    if (rc != 0) {
      fprintf(stderr, "jacobi: PE %d: gshmemx_collective_launch of k_persistent (%d CTAs x %d threads) failed: %s\n",
              me, ctas, p.sh.threads, gshmemx_status_string(rc));
      exit(1);
    }
    p.it += static_cast<uint64_t>(k);
  };
  restart(p);
  const double t_persist = time_per_iteration(10, iters, reps, iterate_persistent);
  restart(p);
  iterate_persistent(iters);
  APP_CUDA(cudaStreamSynchronize(st));
  gshmem_barrier_all();
  ok = check("persist", p, want) && ok;

  // 5. NCCL: the same buffers and kernel; the halos move after each step, on the same stream.
  double t_nccl = 0;
  std::string why = no_nccl ? "--no-nccl" : npes == 1 ? "one PE: nothing to exchange" : "";
  if (why.empty() && app::nccl::init(&why)) {
    jacobi::Solver x = g;
    x.sig = nullptr;  // the kernel neither waits nor sends
    auto iterate_nccl = [&](int k) {
      while (k-- > 0) {
        APP_CUDA(x.step(st));
        std::vector<const void*> send(npes, nullptr);
        std::vector<void*> recv(npes, nullptr);
        std::vector<size_t> count(npes, 0);
        if (l.up >= 0) send[l.up] = x.first_row(), recv[l.up] = x.top_halo(), count[l.up] = n;
        if (l.down >= 0) send[l.down] = x.last_row(), recv[l.down] = x.bottom_halo(), count[l.down] = n;
        app::nccl::alltoallv(send.data(), recv.data(), count.data(), app::nccl::float64, st);
      }
    };
    restart(x);
    t_nccl = time_per_iteration(10, iters, reps, iterate_nccl);
    restart(x);
    iterate_nccl(iters);
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();
    ok = check("NCCL", x, want) && ok;
    app::nccl::fini();
  }

  // 6. The table: time per iteration, the grid read and written per second, and the
  //    strong-scaling efficiency (the one-GPU time / PEs over the form's).
  const double gb = 2.0 * n * static_cast<double>(n) * sizeof(double) / 1e9;
  app::say("jacobi: %d x %d doubles, %d PEs, %d iterations x %d samples (median, slowest PE)\n", n, n, npes, iters,
           reps);
  app::say("%-8s %12s %10s %12s %10s\n", "form", "us/iter", "GB/s", "vs NCCL", "scaling");
  app::say("%-8s %12.2f %10.1f %12s %9.0f%%\n", "1 GPU/P", t_one / npes, gb / (t_one / npes * 1e-6), "", 100.0);
  auto row = [&](const char* name, double t) {
    char vs[32] = "";
    if (t_nccl > 0) snprintf(vs, sizeof(vs), "%.2fx", t_nccl / t);
    app::say("%-8s %12.2f %10.1f %12s %9.0f%%\n", name, t, gb / (t * 1e-6), vs, 100.0 * t_one / npes / t);
  };
  row("put+bar", t_put);
  row("signal", t_gshmem);
  row("persist", t_persist);
  if (t_nccl > 0)
    row("NCCL", t_nccl);
  else
    app::say("%-8s skipped: %s\n", "NCCL", why.c_str());
  app::say("persist: %d CTAs of %d threads over %u x %u tiles\n", ctas, p.sh.threads, p.sh.grid.x, p.sh.grid.y);
  // The README's row: us/iter of each form, the best gshmem form against NCCL, strong scaling.
  const double best = std::min({t_put, t_gshmem, t_persist});
  const char* best_name = best == t_gshmem ? "signal" : best == t_persist ? "persist" : "put+bar";
  char best_vs[48] = "-", nc[32] = "-", nscale[32] = "";
  if (t_nccl > 0) {
    snprintf(best_vs, sizeof(best_vs), "%.2f x (%s)", t_nccl / best, best_name);
    snprintf(nc, sizeof(nc), "%.2f", t_nccl);
    snprintf(nscale, sizeof(nscale), " (NCCL %.0f %%)", 100.0 * t_one / npes / t_nccl);
  }
  app::say("row: | %d | %d | %.2f | %.2f | %.2f | %.2f | %s | %s | %.0f %%%s |\n", npes, n, t_one / npes, t_put,
           t_gshmem, t_persist, nc, best_vs, 100.0 * t_one / npes / best, nscale);
  app::say("jacobi: %s\n", ok ? "every PE's rows equal the one-GPU solve" : "FAILED");

  for (double* b : ref.buf) APP_CUDA(cudaFree(b));
  gshmem_free(g.sig);
  for (double* b : g.buf) gshmem_free(b);
  app::finish();
  gshmem_finalize();
  return ok ? 0 : 1;
}
