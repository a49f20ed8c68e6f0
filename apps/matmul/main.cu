// SPDX-License-Identifier: BSD-3-Clause
// gshmem-matmul: C = A x B by circular shift of B's row blocks (matmul.cuh), checked and timed:
//   one GPU      the whole product on this GPU alone: the reference every PE's rows of C must
//                equal bit for bit, and (its time / PEs) the ideal a distributed form can reach.
//   bulk         the ring, each shift all rows at once (one putmem_signal<block> per CTA).
//   rows         the ring, each shift row by row (one putmem<scope> per row, then quiet<block> and
//                one signal_op per CTA), as the textbook loop writes it.
//   bulk/rows shift   the npes - 1 shifts of one product alone (2 PEs or more): what the two ways
//                of moving the same bytes cost without the multiply to hide them.
//   gshmrun -n 2 build/default/bin/gshmem-matmul --n 4096
// Exit status 0 only when every check on every PE passed.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../common/app.h"
#include "matmul.cuh"

int main(int argc, char** argv) {
  app::require_gpus("matmul");
  gshmem_init();
  app::start("matmul");
  app::Flags f(argc, argv, "gshmrun -n PES gshmem-matmul [flags]");
  const int n = static_cast<int>(f.num("n", 2048, "matrix side N (N x N doubles)"));
  const int iters = static_cast<int>(f.num("iters", 3, "products per sample"));
  const int reps = static_cast<int>(f.num("reps", 5, "samples (the median is printed)"));
  const int ctas = static_cast<int>(f.num("ctas", 32, "CTAs of the shift kernels"));
  const int threads = static_cast<int>(f.num("threads", 1024, "threads per CTA of the shift kernels"));
  const std::string scope = f.str("scope", "block", "who puts a row in the row form: thread | warp | block");
  f.done();
  const int me = app::me(), npes = app::npes();
  if (n < npes || iters < 1 || reps < 1 || ctas < 1 || threads < 32 || threads > matmul::kMaxThreads ||
      (scope != "thread" && scope != "warp" && scope != "block")) {
    app::say("matmul: bad flags: every PE needs a row (--n >= PEs), --threads 32..1024, --scope thread|warp|block\n");
    return 2;
  }
  cudaStream_t st = app::stream();
  const size_t mat = static_cast<size_t>(n) * n * sizeof(double);

  // A and B whole on every PE (generated from their coordinates, no communication): each PE
  // multiplies its rows of A and starts the ring with its own block of B.
  double *a = nullptr, *b = nullptr, *want = nullptr, *c = nullptr;
  APP_CUDA(cudaMalloc(&a, mat));
  APP_CUDA(cudaMalloc(&b, mat));
  APP_CUDA(cudaMalloc(&want, mat));
  matmul::k_fill<<<264, 256, 0, st>>>(a, n, 1);
  matmul::k_fill<<<264, 256, 0, st>>>(b, n, 2);
  APP_CUDA(cudaGetLastError());

  // 1. The one-GPU product.
  matmul::Gemm whole;
  whole.a = a;
  whole.b = b;
  whole.c = want;
  whole.m = whole.n = whole.k = n;
  APP_CUDA(matmul::launch_gemm(whole, st));
  std::vector<double> us;
  for (int r = 0; r < reps; ++r)
    us.push_back(app::time_ms(st,
                              [&] {
                                for (int k = 0; k < iters; ++k) APP_CUDA(matmul::launch_gemm(whole, st));
                              }) *
                 1e3 / iters);
  const double t_one = app::max_over_pes(app::median(us));

  // 2. The ring. Its buffers and the two signal counters are symmetric (collective allocation).
  const int rows_me = matmul::rows_of(n, npes, me);
  const size_t buf_elems = static_cast<size_t>(matmul::rows_of(n, npes, 0)) * n;
  double* buf[2];
  for (double*& p : buf) p = static_cast<double*>(gshmem_malloc(buf_elems * sizeof(double)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(2, sizeof(uint64_t)));
  APP_CUDA(cudaMalloc(&c, static_cast<size_t>(rows_me) * n * sizeof(double)));
  if (!buf[0] || !buf[1] || !sig) {
    fprintf(stderr, "matmul: PE %d: gshmem_malloc of 2 x %zu bytes failed (raise GSHMEM_SYMMETRIC_SIZE)\n", me,
            buf_elems * sizeof(double));
    return 1;
  }

  // Runs the ring one way: times `reps` samples of `iters` products (or shift rounds), then runs
  // `iters` more from the start state and checks them. Returns the median time per product, us.
  bool ok = true;
  auto run = [&](matmul::Form form, bool compute, const char* what) {
    matmul::Ring g;
    g.n = n;
    g.npes = npes;
    g.me = me;
    g.form = form;
    g.scope = scope == "thread" ? matmul::Scope::thread : scope == "warp" ? matmul::Scope::warp : matmul::Scope::block;
    g.compute = compute;
    g.ctas = ctas;
    g.threads = threads / 32 * 32;
    g.a = a;
    g.c = c;
    g.buf[0] = buf[0];
    g.buf[1] = buf[1];
    g.sig = sig;
    g.buf_elems = buf_elems;
    g.stream = st;
    // The signals count from 0 for each way (t restarts): every PE's stream is idle and the
    // barrier orders the reset before anyone's first shift.
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();
    APP_CUDA(cudaMemsetAsync(sig, 0, 2 * sizeof(uint64_t), st));
    APP_CUDA(g.start(b));  // my block of B, the other buffer and C poisoned; synchronises
    gshmem_barrier_all();
    g.run(1);
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) t.push_back(app::time_ms(st, [&] { g.run(iters); }) * 1e3 / iters);
    APP_CUDA(g.err);
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();  // nobody still shifts into a buffer start() is about to reset
    APP_CUDA(g.start(b));
    gshmem_barrier_all();
    g.run(iters);
    APP_CUDA(g.err);
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();
    app::Diff d;
    size_t words = 0;
    if (compute) {  // my rows of C against the one-GPU product
      words = static_cast<size_t>(rows_me) * n;
      d = app::diff_words(c, want + matmul::first_of(n, npes, me) * n, words, st);
    } else {  // the block I hold after the shifts against B's rows it must be
      const int q = g.held();
      words = static_cast<size_t>(matmul::rows_of(n, npes, q)) * n;
      d = app::diff_words(g.buf[g.t & 1], b + matmul::first_of(n, npes, q) * n, words, st);
    }
    if (d.bad)
      fprintf(stderr, "matmul: PE %d: %s: %llu of %zu entries wrong, the first at %llu\n", me, what,
              static_cast<unsigned long long>(d.bad), words, static_cast<unsigned long long>(d.first));
    ok = app::all_pes(d.bad == 0) && ok;
    return app::max_over_pes(app::median(t));
  };

  const double t_bulk = run(matmul::Form::bulk, true, "bulk product");
  const double t_rows = run(matmul::Form::rows, true, "row product");
  double s_bulk = 0, s_rows = 0;
  if (npes > 1) {
    s_bulk = run(matmul::Form::bulk, false, "bulk shifts");
    s_rows = run(matmul::Form::rows, false, "row shifts");
  }

  // The table: time per product, GFLOP/s (2 n^3 per product), and the strong-scaling efficiency
  // (the one-GPU time / PEs over the form's). The shift rows: time per product's shifts, and the
  // bytes one PE sends per product per second.
  const double flop = 2.0 * n * static_cast<double>(n) * n;
  app::say("matmul: %d x %d doubles, %d PEs, shifts by %d CTAs x %d threads, row puts by %s (median, slowest PE)\n", n,
           n, npes, ctas, threads, scope.c_str());
  app::say("%-12s %12s %10s %10s\n", "form", "us/product", "GFLOP/s", "scaling");
  auto row = [&](const char* name, double t) {
    app::say("%-12s %12.1f %10.1f %9.0f%%\n", name, t, flop / (t * 1e3), 100.0 * t_one / npes / t);
  };
  row("1 GPU/P", t_one / npes);
  row("bulk", t_bulk);
  row("rows", t_rows);
  if (npes > 1) {
    const double gb = static_cast<double>(mat) * (npes - 1) / npes / 1e9;
    app::say("%-12s %12.1f %10s %10s  %.1f GB/s sent per PE\n", "bulk shift", s_bulk, "", "", gb / (s_bulk * 1e-6));
    app::say("%-12s %12.1f %10s %10s  %.1f GB/s sent per PE (bulk %.2fx faster)\n", "rows shift", s_rows, "", "",
             gb / (s_rows * 1e-6), s_rows / s_bulk);
  }
  app::say("matmul: %s\n", ok ? "every PE's rows of C equal the one-GPU product" : "FAILED");

  gshmem_free(sig);
  for (double* p : buf) gshmem_free(p);
  for (double* p : {a, b, want, c}) APP_CUDA(cudaFree(p));
  app::finish();
  gshmem_finalize();
  return ok ? 0 : 1;
}
