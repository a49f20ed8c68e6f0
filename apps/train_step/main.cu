// SPDX-License-Identifier: BSD-3-Clause
// gshmem-train_step: the data-parallel training step of train_step.cuh (a backward pass of one GEMM
// per layer, a gradient bucket per layer in reverse layer order, every bucket allreduced while the
// later ones are computed) with its allreduce three ways, on the same buckets and kernels:
//   on-stream  after each layer's GEMM an event; a second stream waits for it and runs
//              gshmemx_<T>_sum_reduce_on_stream of that bucket (in place);
//   device     one allreduce kernel on the second stream for the whole step, started with the
//              step, that reduces each chunk of each bucket as soon as the GEMM has computed its
//              rows (counters the GEMM's CTAs bump), by put_signal and signal waits;
//   NCCL       as on-stream, with ncclAllReduce (the offload model beside which the library is
//              judged; skipped without NCCL).
// Each form is timed per step (compute stream, after a barrier; the step ends when its last
// bucket is reduced), alone (its allreduces without the GEMMs), and checked: after a step with
// its own seed, every element of every bucket on every PE must equal the sum of every PE's
// gradient computed here (exact: see train_step.cuh), bit for bit. The GEMMs alone give the
// compute time, and overlap = (compute + communication - step) / the smaller of the two.
//   gshmrun -n 2 build/default/bin/gshmem-train_step --buckets 8 --bucket 25M --k 64
// Exit status 0 only when every form's result on every PE equals the reference sum.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/app.h"
#include "../common/nccl.h"
#include "train_step.cuh"

namespace {

struct Config {
  int buckets = 8, k = 64, cols = 4096, comm_ctas = 32, steps = 10, reps = 5;
  int64_t bucket_bytes = 25 << 20, chunk_bytes = 256 << 10;
  bool nccl = false;  // NCCL initialised
  std::string why;    // why not
};

template <class T>
struct Type;
template <>
struct Type<float> {
  static constexpr const char* name = "fp32";
  static constexpr app::nccl::Type nccl = app::nccl::float32;
  static int reduce(float* d, const float* s, size_t n, cudaStream_t st) {
    return gshmemx_float_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, d, s, n, st);
  }
};
template <>
struct Type<__nv_bfloat16> {
  static constexpr const char* name = "bf16";
  static constexpr app::nccl::Type nccl = app::nccl::bfloat16;
  static int reduce(__nv_bfloat16* d, const __nv_bfloat16* s, size_t n, cudaStream_t st) {
    return gshmemx_bfloat16_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, d, s, n, st);
  }
};

// acc[i] += v[i]: the reference sum, in fp32 (exact for these values).
__global__ void k_add(float* acc, const float* v, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    acc[i] += v[i];
}

// The bits of a value (4 or 2 bytes).
__device__ __forceinline__ uint32_t bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ uint32_t bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }

// How many got[i] differ from T(want[i]) bit for bit, and the first such i (n when none).
template <class T>
__global__ void k_compare(const T* got, const float* want, int64_t n, unsigned long long* out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (bits(got[i]) != bits(static_cast<T>(want[i]))) {
      atomicAdd(&out[0], 1ull);
      atomicMin(&out[1], static_cast<unsigned long long>(i));
    }
  }
}

enum Form { kOnStream, kDevice, kNccl, kForms };
const char* const kFormName[kForms] = {"on-stream", "device", "NCCL"};

template <class T>
class Step {
 public:
  Step(const Config& c, int64_t n) : c_(c) {
    me_ = app::me();
    npes_ = app::npes();
    n_ = n;
    cols_ = static_cast<int>(std::min<int64_t>(c.cols, n));
    rows_ = train::rows_of(n, cols_);
    pl_ = train::plan(me_, npes_, c.buckets, n, cols_, c.chunk_bytes / static_cast<int64_t>(sizeof(T)));
    cs_ = app::stream();
    APP_CUDA(cudaStreamCreateWithFlags(&xs_, cudaStreamNonBlocking));
    ev_.resize(c.buckets);
    for (cudaEvent_t& e : ev_) APP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    APP_CUDA(cudaEventCreateWithFlags(&ev_start_, cudaEventDisableTiming));
    APP_CUDA(cudaEventCreateWithFlags(&ev_done_, cudaEventDisableTiming));
    // The layers' inputs: this PE's activations and output gradients (a forward pass's leftovers).
    for (int l = 0; l < c.buckets; ++l) {
      float *x = nullptr, *dy = nullptr;
      APP_CUDA(cudaMalloc(&x, static_cast<size_t>(c.k) * rows_ * sizeof(float)));
      APP_CUDA(cudaMalloc(&dy, static_cast<size_t>(c.k) * cols_ * sizeof(float)));
      train::k_inputs<<<512, 256, 0, cs_>>>(x, dy, c.k, rows_, cols_, me_, l);
      APP_CUDA(cudaGetLastError());
      x_.push_back(x);
      dy_.push_back(dy);
    }
    // Symmetric (gshmem_malloc is collective: every PE allocates the same sizes in the same order).
    b_.grad = static_cast<T*>(gshmem_malloc(c.buckets * pl_.stride * sizeof(T)));
    b_.scratch = static_cast<T*>(gshmem_malloc(c.buckets * pl_.scratch_per_bucket() * sizeof(T)));
    b_.ready = static_cast<uint64_t*>(gshmem_calloc(static_cast<size_t>(c.buckets) * pl_.bands, sizeof(uint64_t)));
    b_.rs = static_cast<uint64_t*>(gshmem_calloc(c.buckets * pl_.chunks(), sizeof(uint64_t)));
    b_.ag = static_cast<uint64_t*>(gshmem_calloc(c.buckets * pl_.chunks(), sizeof(uint64_t)));
    if (!b_.grad || !b_.scratch || !b_.ready || !b_.rs || !b_.ag) {
      fprintf(stderr,
              "train_step: PE %d: gshmem_malloc of 2 x %d buckets of %lld elements failed (raise "
              "GSHMEM_SYMMETRIC_SIZE, or lower --buckets / --bucket)\n",
              me_, c.buckets, static_cast<long long>(n));
      exit(1);
    }
    APP_CUDA(cudaStreamSynchronize(cs_));
    gshmem_barrier_all();
  }

  ~Step() {
    APP_CUDA(cudaStreamSynchronize(cs_));
    APP_CUDA(cudaStreamSynchronize(xs_));
    gshmem_barrier_all();
    gshmem_free(b_.ag);
    gshmem_free(b_.rs);
    gshmem_free(b_.ready);
    gshmem_free(b_.scratch);
    gshmem_free(b_.grad);
    for (float* p : x_) APP_CUDA(cudaFree(p));
    for (float* p : dy_) APP_CUDA(cudaFree(p));
    for (cudaEvent_t e : ev_) APP_CUDA(cudaEventDestroy(e));
    APP_CUDA(cudaEventDestroy(ev_start_));
    APP_CUDA(cudaEventDestroy(ev_done_));
    APP_CUDA(cudaStreamDestroy(xs_));
  }

  const train::Plan& plan() const { return pl_; }
  int64_t rows() const { return rows_; }
  int cols() const { return cols_; }
  int comm_ctas() const { return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(c_.comm_ctas, pl_.groups))); }

  // One training step's backward pass and allreduce, the form's way. seed: the gradients' values.
  void step(Form f, uint32_t seed) {
    if (f == kDevice) {
      // The allreduce kernel first (it waits on the GEMMs' counters, never the other way round),
      // started after everything before this step on the compute stream.
      APP_CUDA(cudaEventRecord(ev_start_, cs_));
      APP_CUDA(cudaStreamWaitEvent(xs_, ev_start_, 0));
      allreduce_kernel(train::Round{++comm_round_, ++compute_round_});
      for (int b = 0; b < c_.buckets; ++b) backward(b, seed, true);
    } else {
      for (int b = 0; b < c_.buckets; ++b) {
        backward(b, seed, false);
        APP_CUDA(cudaEventRecord(ev_[b], cs_));
        APP_CUDA(cudaStreamWaitEvent(xs_, ev_[b], 0));
        reduce(f, b);
      }
    }
    // The step ends when its last bucket is reduced: the optimiser would run here.
    APP_CUDA(cudaEventRecord(ev_done_, xs_));
    APP_CUDA(cudaStreamWaitEvent(cs_, ev_done_, 0));
  }

  // The form's allreduces of every bucket alone (the gradients are whatever is there).
  void comm_only(Form f) {
    APP_CUDA(cudaEventRecord(ev_start_, cs_));
    APP_CUDA(cudaStreamWaitEvent(xs_, ev_start_, 0));
    if (f == kDevice)
      allreduce_kernel(train::Round{++comm_round_, 0});
    else
      for (int b = 0; b < c_.buckets; ++b) reduce(f, b);
    APP_CUDA(cudaEventRecord(ev_done_, xs_));
    APP_CUDA(cudaStreamWaitEvent(cs_, ev_done_, 0));
  }

  // The backward pass alone.
  void compute_only(uint32_t seed) {
    for (int b = 0; b < c_.buckets; ++b) backward(b, seed, false);
  }

  // One checked step of form f: gradients and scratch poisoned (NaN in both types) on every PE
  // first, then every element of every bucket compared with the sum of every PE's gradient.
  bool check(Form f, uint32_t seed) {
    APP_CUDA(cudaStreamSynchronize(cs_));
    gshmem_barrier_all();  // nobody is still writing into another PE's buffers
    APP_CUDA(cudaMemsetAsync(b_.grad, 0xFF, c_.buckets * pl_.stride * sizeof(T), cs_));
    APP_CUDA(cudaMemsetAsync(b_.scratch, 0xFF, c_.buckets * pl_.scratch_per_bucket() * sizeof(T), cs_));
    APP_CUDA(cudaStreamSynchronize(cs_));
    gshmem_barrier_all();  // every PE is poisoned before anybody sends
    step(f, seed);
    APP_CUDA(cudaStreamSynchronize(cs_));
    gshmem_barrier_all();

    float *acc = nullptr, *tmp = nullptr, *x = nullptr, *dy = nullptr;
    unsigned long long* d = nullptr;
    APP_CUDA(cudaMalloc(&acc, n_ * sizeof(float)));
    APP_CUDA(cudaMalloc(&tmp, n_ * sizeof(float)));
    APP_CUDA(cudaMalloc(&x, static_cast<size_t>(c_.k) * rows_ * sizeof(float)));
    APP_CUDA(cudaMalloc(&dy, static_cast<size_t>(c_.k) * cols_ * sizeof(float)));
    APP_CUDA(cudaMalloc(&d, 2 * sizeof(*d)));
    bool ok = true;
    for (int b = 0; b < c_.buckets && ok; ++b) {
      const int layer = c_.buckets - 1 - b;
      APP_CUDA(cudaMemsetAsync(acc, 0, n_ * sizeof(float), cs_));
      for (int p = 0; p < npes_; ++p) {  // PE p's gradient of this layer, as PE p computed it
        train::k_inputs<<<512, 256, 0, cs_>>>(x, dy, c_.k, rows_, cols_, p, layer);
        train::k_backward<float><<<grid(), train::kThreads, 0, cs_>>>(gemm(x, dy, seed, nullptr), tmp);
        k_add<<<512, 256, 0, cs_>>>(acc, tmp, n_);
      }
      const unsigned long long init[2] = {0, static_cast<unsigned long long>(n_)};
      APP_CUDA(cudaMemcpyAsync(d, init, sizeof(init), cudaMemcpyHostToDevice, cs_));
      const T* got = b_.grad + b * pl_.stride;
      k_compare<T><<<512, 256, 0, cs_>>>(got, acc, n_, d);
      APP_CUDA(cudaGetLastError());
      unsigned long long h[2];
      APP_CUDA(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, cs_));
      APP_CUDA(cudaStreamSynchronize(cs_));
      if (h[0]) {
        T g;
        float w;
        APP_CUDA(cudaMemcpy(&g, got + h[1], sizeof(T), cudaMemcpyDeviceToHost));
        APP_CUDA(cudaMemcpy(&w, acc + h[1], sizeof(float), cudaMemcpyDeviceToHost));
        fprintf(stderr,
                "train_step: PE %d: %s %s: %llu of %lld elements of bucket %d differ from the sum over the PEs, "
                "the first at %llu (got %g, want %g)\n",
                me_, Type<T>::name, kFormName[f], h[0], static_cast<long long>(n_), b, h[1], static_cast<float>(g), w);
        ok = false;
      }
    }
    APP_CUDA(cudaFree(d));
    APP_CUDA(cudaFree(dy));
    APP_CUDA(cudaFree(x));
    APP_CUDA(cudaFree(tmp));
    APP_CUDA(cudaFree(acc));
    return app::all_pes(ok);
  }

 private:
  dim3 grid() const { return dim3(train::tiles_per_band(cols_), static_cast<unsigned>(pl_.bands)); }

  train::Gemm gemm(const float* x, const float* dy, uint32_t seed, uint64_t* ready) const {
    train::Gemm g;
    g.x = x;
    g.dy = dy;
    g.k = c_.k;
    g.cols = cols_;
    g.rows = rows_;
    g.n = n_;
    g.seed = seed;
    g.ready = ready;
    return g;
  }

  // Bucket b is layer buckets - 1 - b's gradient: the backward pass runs from the last layer.
  void backward(int b, uint32_t seed, bool count) {
    const int layer = c_.buckets - 1 - b;
    uint64_t* ready = count ? b_.ready + static_cast<int64_t>(b) * pl_.bands : nullptr;
    train::k_backward<T>
        <<<grid(), train::kThreads, 0, cs_>>>(gemm(x_[layer], dy_[layer], seed, ready), b_.grad + b * pl_.stride);
    APP_CUDA(cudaGetLastError());
  }

  void reduce(Form f, int b) {
    T* g = b_.grad + b * pl_.stride;
    if (f == kNccl) {
      app::nccl::allreduce_sum(g, g, static_cast<size_t>(n_), Type<T>::nccl, xs_);
    } else if (const int rc = Type<T>::reduce(g, g, static_cast<size_t>(n_), xs_); rc != 0) {
      fprintf(stderr, "train_step: PE %d: gshmemx_%s_sum_reduce_on_stream of bucket %d failed: %s\n", me_,
              Type<T>::name, b, gshmemx_status_string(rc));
      exit(1);
    }
  }

  void allreduce_kernel(train::Round r) {
    train::k_allreduce<T><<<comm_ctas(), train::kCommThreads, 0, xs_>>>(pl_, b_, r);
    APP_CUDA(cudaGetLastError());
  }

  const Config& c_;
  int me_ = 0, npes_ = 1, cols_ = 0;
  int64_t n_ = 0, rows_ = 0;
  train::Plan pl_;
  train::Buffers<T> b_;
  std::vector<float*> x_, dy_;
  cudaStream_t cs_ = nullptr, xs_ = nullptr;
  std::vector<cudaEvent_t> ev_;
  cudaEvent_t ev_start_ = nullptr, ev_done_ = nullptr;
  uint64_t comm_round_ = 0, compute_round_ = 0;
};

// Median milliseconds per call of `one` (reps samples of `count` calls after 2 warm-up calls), the
// slowest PE's.
template <class F>
double ms_per(int count, int reps, F&& one) {
  for (int i = 0; i < 2; ++i) one();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r)
    ms.push_back(app::time_ms(app::stream(),
                              [&] {
                                for (int i = 0; i < count; ++i) one();
                              }) /
                 count);
  return app::max_over_pes(app::median(ms));
}

template <class T>
bool run(const Config& c) {
  const int64_t n = c.bucket_bytes / static_cast<int64_t>(sizeof(T));
  Step<T> s(c, n);
  uint32_t seed = 1;
  bool ok = true;
  double t_step[kForms] = {}, t_comm[kForms] = {};
  bool ran[kForms] = {};
  const double t_comp = ms_per(c.steps, c.reps, [&] { s.compute_only(seed++); });
  for (int f = 0; f < kForms; ++f) {
    if (f == kNccl && !c.nccl) continue;
    const Form form = static_cast<Form>(f);
    t_comm[f] = ms_per(c.steps, c.reps, [&] { s.comm_only(form); });
    t_step[f] = ms_per(c.steps, c.reps, [&] { s.step(form, seed++); });
    ok = s.check(form, seed++) && ok;  // a seed the step before did not use
    ran[f] = true;
  }

  const double mib = c.bucket_bytes / 1048576.0, bytes = static_cast<double>(n) * sizeof(T) * c.buckets;
  const int P = app::npes();
  app::say(
      "train_step: %s, %d buckets x %.2f MiB (%lld elements, %lld x %d), K %d, %d PEs, %d steps x %d samples "
      "(median, slowest PE); device form: %d CTAs, chunks of %lld elements\n",
      Type<T>::name, c.buckets, mib, static_cast<long long>(n), static_cast<long long>(s.rows()), s.cols(), c.k, P,
      c.steps, c.reps, s.comm_ctas(), static_cast<long long>(s.plan().chunk));
  app::say("%-10s %10s %10s %12s %9s %9s\n", "form", "step ms", "comm ms", "comm busbw", "overlap", "vs NCCL");
  app::say("%-10s %10.3f %10s %12s %9s %9s   (the GEMMs alone)\n", "compute", t_comp, "", "", "", "");
  auto overlap = [&](int f) { return 100.0 * (t_comp + t_comm[f] - t_step[f]) / std::min(t_comp, t_comm[f]); };
  for (int f = 0; f < kForms; ++f) {
    if (!ran[f]) {
      app::say("%-10s skipped: %s\n", kFormName[f], c.why.c_str());
      continue;
    }
    char vs[32] = "";
    if (ran[kNccl]) snprintf(vs, sizeof(vs), "%.2fx", t_step[kNccl] / t_step[f]);
    const double busbw = bytes / (t_comm[f] * 1e-3) / 1e9 * (P > 1 ? 2.0 * (P - 1) / P : 0.0);
    app::say("%-10s %10.3f %10.3f %9.1f GB/s %8.0f%% %9s\n", kFormName[f], t_step[f], t_comm[f], busbw, overlap(f), vs);
  }
  // The README's row: step (communication alone) per form, the better gshmem form against NCCL,
  // and the overlap achieved.
  const int best = t_step[kDevice] <= t_step[kOnStream] ? kDevice : kOnStream;
  char nccl[48] = "-", vs[48] = "-", nov[16] = "-";
  if (ran[kNccl]) {
    snprintf(nccl, sizeof(nccl), "%.3f (%.3f)", t_step[kNccl], t_comm[kNccl]);
    snprintf(vs, sizeof(vs), "%.2f x (%s)", t_step[kNccl] / t_step[best], kFormName[best]);
    snprintf(nov, sizeof(nov), "%.0f %%", overlap(kNccl));
  }
  app::say("row: | %d | %s | %d x %.0f MiB | %d | %.3f | %s | %.3f (%.3f) | %.3f (%.3f) | %s | %.0f %% / %s |\n", P,
           Type<T>::name, c.buckets, mib, c.k, t_comp, nccl, t_step[kOnStream], t_comm[kOnStream], t_step[kDevice],
           t_comm[kDevice], vs, overlap(kDevice), nov);
  app::say("train_step: %s: %s\n", Type<T>::name,
           ok ? "every PE's buckets equal the sum over the PEs, every element" : "FAILED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  app::require_gpus("train_step");
  gshmem_init();
  app::start("train_step");
  app::Flags f(argc, argv, "gshmrun -n PES gshmem-train_step [flags]");
  Config c;
  c.buckets = static_cast<int>(f.num("buckets", c.buckets, "layers, one gradient bucket each"));
  c.bucket_bytes = f.num("bucket", c.bucket_bytes, "bytes per bucket (K/M suffixes)");
  c.k = static_cast<int>(f.num("k", c.k, "tokens per micro-batch: each GEMM's inner dimension (compute per bucket)"));
  c.cols = static_cast<int>(f.num("cols", c.cols, "columns of a bucket's matrix (the GEMM's N)"));
  c.chunk_bytes = f.num("chunk", c.chunk_bytes, "device form: bytes per chunk (rounded down to 8 elements)");
  c.comm_ctas = static_cast<int>(f.num("comm-ctas", c.comm_ctas, "device form: CTAs of the allreduce kernel"));
  c.steps = static_cast<int>(f.num("steps", c.steps, "steps timed per sample"));
  c.reps = static_cast<int>(f.num("reps", c.reps, "samples (the median is printed)"));
  const std::string type = f.str("type", "both", "fp32, bf16 or both");
  const bool no_nccl = f.flag("no-nccl", "skip the NCCL form");
  f.done();
  const int npes = app::npes();
  if (c.buckets < 1 || c.k < 1 || c.cols < 1 || c.comm_ctas < 1 || c.steps < 1 || c.reps < 1 || c.bucket_bytes < 16 ||
      c.chunk_bytes < 1 || (type != "fp32" && type != "bf16" && type != "both")) {
    app::say(
        "train_step: --buckets, --k, --cols, --comm-ctas, --steps, --reps, --chunk must be >= 1, --bucket >= 16 "
        "bytes, --type fp32, bf16 or both (--help)\n");
    return 2;
  }
  if (npes > 32) {  // the gradients' sums are exact only up to 32 terms (train_step.cuh)
    app::say("train_step: %d PEs: the exact check needs at most 32 (the sums of the folded gradients)\n", npes);
    return 2;
  }
  c.why = no_nccl ? "--no-nccl" : "";
  c.nccl = !no_nccl && app::nccl::init(&c.why);
  if (const char* ctas = getenv("GSHMEM_REDUCE_CTAS"))
    app::say("train_step: on-stream form with GSHMEM_REDUCE_CTAS=%s\n", ctas);

  bool ok = true;
  if (type != "bf16") ok = run<float>(c) && ok;
  if (type != "fp32") ok = run<__nv_bfloat16>(c) && ok;

  if (c.nccl) app::nccl::fini();
  app::finish();
  gshmem_finalize();
  return ok ? 0 : 1;
}
