// SPDX-License-Identifier: BSD-3-Clause
// Rows, table and JSON lines (report.h).
#include "report.h"

#include <unistd.h>

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <cuda_runtime_api.h>
#include <gshmem/gshmem.h>

#include "context.h"
#include "nccl.h"
#include "options.h"
#include "stats.h"

namespace perf {
namespace {

// Minimal JSON object writer (one line).
class Json {
 public:
  Json& str(const char* k, const std::string& v) {
    key(k);
    s_ += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') {
        s_ += '\\';
        s_ += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char b[8];
        snprintf(b, sizeof(b), "\\u%04x", c);
        s_ += b;
      } else
        s_ += c;
    }
    s_ += '"';
    return *this;
  }
  Json& num(const char* k, double v) {
    key(k);
    char b[64];
    if (!std::isfinite(v))
      snprintf(b, sizeof(b), "null");
    else if (v == std::floor(v) && std::fabs(v) < 1e15)
      snprintf(b, sizeof(b), "%.0f", v);
    else
      snprintf(b, sizeof(b), "%.6g", v);
    s_ += b;
    return *this;
  }
  Json& u64(const char* k, uint64_t v) {
    key(k);
    s_ += std::to_string(v);
    return *this;
  }
  Json& boolean(const char* k, bool v) {
    key(k);
    s_ += v ? "true" : "false";
    return *this;
  }
  Json& null(const char* k) {
    key(k);
    s_ += "null";
    return *this;
  }
  std::string done() const { return s_ + "}\n"; }

 private:
  void key(const char* k) {
    s_ += s_.size() > 1 ? ",\"" : "\"";
    s_ += k;
    s_ += "\":";
  }
  std::string s_ = "{";
};

std::string driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(f, line)) return "";
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159  <date>" or
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159  Release Build ...":
  // the first token after "Module" that starts with a digit and has a dot.
  const char* p = strstr(line.c_str(), "Module");
  if (!p) return line;
  std::istringstream words(p + 6);
  std::string w;
  while (words >> w)
    if (isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos) return w;
  return line;
}

// The library a run timed: gshmem, or what perftest/nvshmem's shim defines.
#ifndef GSHMEM_PERF_LIB
#define GSHMEM_PERF_LIB "gshmem"
#endif
std::string lib_version() {
#ifdef GSHMEM_PERF_LIB_VERSION
  int maj = 0, min = 0, patch = 0;
  GSHMEM_PERF_LIB_VERSION(&maj, &min, &patch);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(patch);
#else
  return GSHMEM_VERSION_STRING;  // the library's version (gshmem_info_get_version gives the spec's)
#endif
}

std::string fmt(const char* f, double v) {
  char b[64];
  snprintf(b, sizeof(b), f, v);
  return b;
}

}  // namespace

PeSummary summarize(const Case& c, const Result& r) {
  PeSummary s;
  memset(&s, 0, sizeof(s));
  s.timed = r.timed && !r.us.empty();
  s.nccl_timed = r.nccl_timed && !r.nccl_us.empty();
  s.ceiling_timed = r.ceiling_timed && !r.ceiling_us.empty();
  s.skip = r.skip;
  s.med = median(r.us);
  s.p99 = percentile(r.us, 99);
  s.nccl_med = median(r.nccl_us);
  s.nccl_p99 = percentile(r.nccl_us, 99);
  s.ceiling_med = median(r.ceiling_us);
  s.ops_per_iter = r.ops_per_iter;
  s.size = r.size ? r.size : c.size;
  s.checked = r.checked;
  s.bad = r.bad;
  s.nccl_bad = r.nccl_bad;
  return s;
}

Row aggregate(const Bench& b, const Case& c, const std::vector<PeSummary>& pes, int npes) {
  Row row;
  row.size = pes.empty() ? c.size : pes[0].size;
  for (const PeSummary& s : pes) {
    row.skip = row.skip || s.skip;
    row.checked += s.checked;
    row.bad += s.bad;
    row.nccl_bad += s.nccl_bad;
    if (s.timed) {
      row.has_lat = true;
      row.med = std::max(row.med, s.med);
      row.p99 = std::max(row.p99, s.p99);
      row.mops = std::max(row.mops, s.ops_per_iter);  // ops per iteration for now
    }
    if (s.nccl_timed) {
      row.has_nccl = true;
      row.nccl_med = std::max(row.nccl_med, s.nccl_med);
      row.nccl_p99 = std::max(row.nccl_p99, s.nccl_p99);
    }
    if (s.ceiling_timed) {
      row.has_ceiling = true;
      row.ceiling = std::max(row.ceiling, s.ceiling_med);  // the slowest PE's time, for now
    }
  }
  const double bytes = b.bytes ? b.bytes(c, row.size, npes) : 0.0;
  const double f = busbw_factor(b.bus, npes);
  if (row.has_lat && bytes > 0) {
    row.algbw = gbps(bytes, row.med);
    row.busbw = row.algbw * f;
  }
  row.mops = (row.has_lat && row.mops > 0 && row.med > 0) ? row.mops / row.med : 0;
  if (row.has_nccl && bytes > 0) {
    row.nccl_algbw = gbps(bytes, row.nccl_med);
    row.nccl_busbw = row.nccl_algbw * f;
  }
  if (row.has_nccl && row.has_lat && row.med > 0) row.ratio = row.nccl_med / row.med;
  if (row.has_ceiling) {
    const double t = row.ceiling;
    row.ceiling_us = t;
    row.ceiling = bytes > 0 ? gbps(bytes, t) : 0;
    row.ceiling_ratio = row.ceiling > 0 ? row.algbw / row.ceiling : 0;
  }
  return row;
}

std::string header_json(const Ctx& ctx) {
  int drv = 0, rtv = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rtv);
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  char date[64];
  time_t now = time(nullptr);
  struct tm tmv;
  gmtime_r(&now, &tmv);
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tmv);
  int ngpus = 0;
  if (cudaGetDeviceCount(&ngpus) != cudaSuccess) ngpus = 0;
  Json j;
  j.str("type", "header").str("cmd", ctx.opt.command).num("pes", ctx.npes).str("gpu", ctx.gpu_name);
  j.num("gpus_visible", ngpus).str("driver", driver_version()).num("cuda_driver", drv).num("cuda_runtime", rtv);
  j.str("lib", GSHMEM_PERF_LIB).str("lib_version", lib_version()).str("host", host).str("date", date);
  for (const char* v :
       {"NCCL_LIB", "NCCL_NVLS_ENABLE", "GSHMEM_SYMMETRIC_SIZE", "GSHMEM_DISABLE_VMM", "CUDA_VISIBLE_DEVICES"}) {
    const char* e = getenv(v);
    if (e) j.str(v, e);
  }
  return j.done();
}

std::string bench_title(const Ctx& ctx, const Bench& b, const Case& c) {
  char buf[512];
  snprintf(buf, sizeof(buf), "# %s: %s  [pes=%d ctas=%d threads=%d iters=%d warmup=%d reps=%d%s%s]\n", b.name, b.what,
           ctx.npes, c.ctas, c.threads, c.iters, c.warmup, c.reps, c.bidir ? " bidir" : "", c.graph ? " graph" : "");
  return buf;
}

std::string table_header(const Bench&) {
  char buf[512];
  snprintf(buf, sizeof(buf), "# %10s %-6s %-6s %-9s %11s %11s %10s %10s | %11s %10s %6s | %-18s %s\n", "size", "scope",
           "dtype", "op", "lat_med_us", "lat_p99_us", "algbw_GBps", "busbw_GBps", "nccl_med_us", "nccl_busbw", "ratio",
           "extra", "check");
  return buf;
}

std::string table_row(const Bench& b, const Case& c, const Row& r) {
  const bool sized = b.max_size > 0 || r.size > 0;
  const bool bw = b.bytes != nullptr;
  std::string extra = "-";
  if (r.has_ceiling)
    extra = "ceil " + (b.ceiling_is_latency ? fmt("%.3f", r.ceiling_us) + "us" : fmt("%.1f", r.ceiling)) + " (" +
            fmt("%.2f", r.ceiling_ratio) + ")";
  else if (r.mops > 0)
    extra = fmt("%.2f Mops", r.mops);
  std::string check;
  if (r.bad || r.nccl_bad)
    check = "FAILED (" + std::to_string(r.bad) + (r.nccl_bad ? "+nccl " + std::to_string(r.nccl_bad) : "") + " wrong)";
  else
    check = r.checked ? "ok" : "-";
  char buf[640];
  snprintf(buf, sizeof(buf), "  %10s %-6s %-6s %-9s %11s %11s %10s %10s | %11s %10s %6s | %-18s %s\n",
           sized ? format_size(r.size).c_str() : "-", b.kind == Kind::host ? "-" : name_of(c.scope),
           b.dtypes ? name_of(c.dtype) : "-", c.op.empty() ? "-" : c.op.c_str(),
           r.has_lat ? fmt("%.3f", r.med).c_str() : "-", r.has_lat ? fmt("%.3f", r.p99).c_str() : "-",
           r.has_lat && bw ? fmt("%.2f", r.algbw).c_str() : "-", r.has_lat && bw ? fmt("%.2f", r.busbw).c_str() : "-",
           r.has_nccl ? fmt("%.3f", r.nccl_med).c_str() : "-",
           r.has_nccl && bw ? fmt("%.2f", r.nccl_busbw).c_str() : "-",
           r.has_nccl && r.has_lat ? fmt("%.2f", r.ratio).c_str() : "-", extra.c_str(), check.c_str());
  return buf;
}

std::string result_json(const Ctx& ctx, const Bench& b, const Case& c, const Result& r0, const Row& r) {
  Json j;
  j.str("type", "result").str("lib", GSHMEM_PERF_LIB).str("bench", b.name);
  j.str("kind", b.kind == Kind::device ? "device" : "host");
  j.num("pes", ctx.npes).u64("size", r.size);
  if (b.kind == Kind::device)
    j.str("scope", name_of(c.scope));
  else
    j.null("scope");
  if (b.dtypes)
    j.str("dtype", name_of(c.dtype));
  else
    j.null("dtype");
  if (!c.op.empty())
    j.str("op", c.op);
  else
    j.null("op");
  j.num("ctas", c.ctas).num("threads", c.threads).num("iters", c.iters).num("warmup", c.warmup).num("reps", c.reps);
  j.boolean("bidir", c.bidir).boolean("graph", c.graph).str("timer", r0.timer);
  if (r.has_lat) {
    j.num("lat_us_median", r.med).num("lat_us_p99", r.p99);
    if (b.bytes) j.num("algbw_GBps", r.algbw).num("busbw_GBps", r.busbw);
  } else {
    j.null("lat_us_median").null("lat_us_p99");
  }
  if (b.nccl) {
    if (r.has_nccl) {
      j.num("nccl_lat_us_median", r.nccl_med).num("nccl_lat_us_p99", r.nccl_p99);
      if (b.bytes) j.num("nccl_algbw_GBps", r.nccl_algbw).num("nccl_busbw_GBps", r.nccl_busbw);
      j.str("nccl_version", nccl::version());
      if (r.has_lat) j.num("ratio", r.ratio);
      j.boolean("nccl_verified", r.nccl_bad == 0);
    } else {
      j.null("nccl_lat_us_median").null("ratio");
    }
  }
  if (r.has_ceiling)
    j.num("ceiling_GBps", r.ceiling).num("ceiling_us_median", r.ceiling_us).num("ceiling_ratio", r.ceiling_ratio);
  if (r.mops > 0) j.num("mops", r.mops);
  j.boolean("verified", r.bad == 0 && r.nccl_bad == 0 && r.checked > 0).u64("checked", r.checked);
  if (!r0.note.empty()) j.str("note", r0.note);
  return j.done();
}

}  // namespace perf
