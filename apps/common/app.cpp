// SPDX-License-Identifier: BSD-3-Clause
#include "app.h"

#include <gshmem/gshmem.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace app {
namespace {
const char* g_prog = "app";
int g_me = 0, g_npes = 1;
cudaStream_t g_stream = nullptr;
void* g_scratch = nullptr;  // symmetric: [0] source, [1] result (8 bytes each)
}  // namespace

void cuda_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "%s: PE %d: %s failed: %s\n", g_prog, g_me, what, cudaGetErrorString(e));
  exit(1);
}

void require_gpus(const char* prog) {
  int count = 0;
  const char* local = getenv("GSHMEM_LOCAL_SIZE");
  const int needed = local ? atoi(local) : 1;
  const char* share = getenv("GT_SHARE_GPUS");
  const bool shared = share && atoi(share) == 1;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1 || (count < needed && !shared)) {
    fprintf(
        stderr,
        "%s: SKIP: needs one CUDA GPU per PE (%d on this node) but %d %s visible (GT_SHARE_GPUS=1 lets PEs share)\n",
        prog, needed, count, count == 1 ? "is" : "are");
    exit(77);
  }
}

void start(const char* prog) {
  g_prog = prog;
  g_me = gshmem_my_pe();
  g_npes = gshmem_n_pes();
  APP_CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  g_scratch = gshmem_malloc(16);
  if (!g_scratch) {
    fprintf(stderr, "%s: PE %d: gshmem_malloc(16) failed\n", g_prog, g_me);
    exit(1);
  }
}

void finish() {
  gshmem_barrier_all();
  gshmem_free(g_scratch);
  APP_CUDA(cudaStreamDestroy(g_stream));
}

const char* prog() { return g_prog; }
cudaStream_t stream() { return g_stream; }
int me() { return g_me; }
int npes() { return g_npes; }

// ---- flags
Flags::Flags(int argc, char** argv, const char* usage) : usage_(usage) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      want_help_ = true;
      continue;
    }
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      args_.push_back(a.substr(0, eq));
      args_.push_back(a.substr(eq + 1));
    } else {
      args_.push_back(a);
    }
  }
  used_.assign(args_.size(), false);
}

const std::string* Flags::find(const char* name, bool* present) {
  const std::string key = std::string("--") + name;
  *present = false;
  for (size_t i = 0; i < args_.size(); ++i) {
    if (used_[i] || args_[i] != key) continue;
    used_[i] = true;
    *present = true;
    if (i + 1 < args_.size() && !used_[i + 1]) {
      used_[i + 1] = true;
      return &args_[i + 1];
    }
    fprintf(stderr, "%s: %s needs a value (--help)\n", g_prog, key.c_str());
    exit(2);
  }
  return nullptr;
}

int64_t Flags::num(const char* name, int64_t def, const char* help) {
  help_ += "  --" + std::string(name) + " N  " + help + " (default " + std::to_string(def) + ")\n";
  bool present = false;
  const std::string* v = find(name, &present);
  if (!v) return def;
  char* end = nullptr;
  double x = strtod(v->c_str(), &end);
  if (end && (*end == 'K' || *end == 'k'))
    x *= 1024, ++end;
  else if (end && (*end == 'M' || *end == 'm'))
    x *= 1024 * 1024, ++end;
  else if (end && (*end == 'G' || *end == 'g'))
    x *= 1024.0 * 1024 * 1024, ++end;
  if (v->empty() || !end || *end) {
    fprintf(stderr, "%s: --%s %s: not a number (--help)\n", g_prog, name, v->c_str());
    exit(2);
  }
  return static_cast<int64_t>(x);
}

std::string Flags::str(const char* name, const char* def, const char* help) {
  help_ += "  --" + std::string(name) + " S  " + help + " (default " + def + ")\n";
  bool present = false;
  const std::string* v = find(name, &present);
  return v ? *v : std::string(def);
}

bool Flags::flag(const char* name, const char* help) {
  help_ += "  --" + std::string(name) + "  " + help + "\n";
  const std::string key = std::string("--") + name;
  for (size_t i = 0; i < args_.size(); ++i) {
    if (!used_[i] && args_[i] == key) {
      used_[i] = true;
      return true;
    }
  }
  return false;
}

void Flags::done() {
  if (want_help_) {
    if (g_me == 0) printf("usage: %s\n%s", usage_.c_str(), help_.c_str());
    exit(0);
  }
  for (size_t i = 0; i < args_.size(); ++i) {
    if (!used_[i]) {
      fprintf(stderr, "%s: unknown argument '%s' (--help lists the flags)\n", g_prog, args_[i].c_str());
      exit(2);
    }
  }
}

// ---- whole-job reductions: one element through the library's on-stream reductions
double max_over_pes(double mine) {
  double* s = static_cast<double*>(g_scratch);
  APP_CUDA(cudaMemcpyAsync(s, &mine, sizeof(mine), cudaMemcpyHostToDevice, g_stream));
  gshmemx_double_max_reduce_on_stream(GSHMEM_TEAM_WORLD, s + 1, s, 1, g_stream);
  double out = 0;
  APP_CUDA(cudaMemcpyAsync(&out, s + 1, sizeof(out), cudaMemcpyDeviceToHost, g_stream));
  APP_CUDA(cudaStreamSynchronize(g_stream));
  return out;
}

int64_t sum_over_pes(int64_t mine) {
  int64_t* s = static_cast<int64_t*>(g_scratch);
  APP_CUDA(cudaMemcpyAsync(s, &mine, sizeof(mine), cudaMemcpyHostToDevice, g_stream));
  gshmemx_int64_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, s + 1, s, 1, g_stream);
  int64_t out = 0;
  APP_CUDA(cudaMemcpyAsync(&out, s + 1, sizeof(out), cudaMemcpyDeviceToHost, g_stream));
  APP_CUDA(cudaStreamSynchronize(g_stream));
  return out;
}

bool all_pes(bool ok) { return sum_over_pes(ok ? 0 : 1) == 0; }

double time_ms(cudaStream_t stream, const std::function<void()>& work) {
  cudaEvent_t a, b;
  APP_CUDA(cudaEventCreate(&a));
  APP_CUDA(cudaEventCreate(&b));
  APP_CUDA(cudaStreamSynchronize(stream));
  gshmem_barrier_all();  // every PE starts together: the slowest PE's time is the job's
  APP_CUDA(cudaEventRecord(a, stream));
  work();
  APP_CUDA(cudaEventRecord(b, stream));
  APP_CUDA(cudaEventSynchronize(b));
  float ms = 0;
  APP_CUDA(cudaEventElapsedTime(&ms, a, b));
  APP_CUDA(cudaEventDestroy(a));
  APP_CUDA(cudaEventDestroy(b));
  return ms;
}

void say(const char* fmt, ...) {
  if (g_me != 0) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

}  // namespace app
