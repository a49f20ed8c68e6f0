// SPDX-License-Identifier: BSD-3-Clause
#include "log.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gshmem::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::warn)};
std::atomic<int> g_pe{-1};
std::atomic<int> g_npes{-1};
std::mutex g_mutex;
FILE* g_file = nullptr;  // nullptr = stderr
// The calling thread's errors since its last take_error (take_error says why per thread).
thread_local int t_error_count = 0;
thread_local char t_error_msg[2048];

// The rate limit (log.h). 20 lines/s keeps a terminal readable and a log file of a day-long
// flood under ~150 MB, while a burst of 100 lets through everything a normal failure prints at
// once (a failing init, a dying job's per-PE reports) before anything is dropped. Per level, so
// that a flood of warnings never takes the room of an error. INFO and TRACE are not limited:
// they are only printed when a user asked for them, to see everything. Guarded by g_mutex.
struct Bucket {
  double tokens = 0;
  int64_t last_ns = -1;  // -1: full, never used
  long long dropped = 0;
  int64_t first_drop_ns = 0;
};
double g_rate = 20;
double g_burst = 100;
Bucket g_buckets[2];  // error, warn
bool g_atexit_set = false;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char* level_name(Level l);

// "gshmem <LEVEL> [PE ...]: " for this process.
int prefix(char* out, size_t size, Level level) {
  char host[64] = "?";
  gethostname(host, sizeof(host) - 1);
  const int pe = g_pe.load();
  if (pe >= 0)
    return snprintf(out, size, "gshmem %s [PE %d/%d %s:%d]: ", level_name(level), pe, g_npes.load(), host,
                    (int)getpid());
  return snprintf(out, size, "gshmem %s [PE ? %s:%d]: ", level_name(level), host, (int)getpid());
}

// Writes one whole line; the caller holds g_mutex.
void emit_locked(Level level, const char* line, int n) {
  FILE* out = g_file ? g_file : stderr;
  fflush(out);
  if (::write(fileno(out), line, n) < 0) return;
  if (g_file && level == Level::error && ::write(STDERR_FILENO, line, n) < 0) return;  // errors reach the terminal too
}

// The summary of the lines `level` dropped, if any; the caller holds g_mutex.
void flush_dropped_locked(Level level, int64_t now) {
  if (level != Level::error && level != Level::warn) return;  // not limited: no bucket
  Bucket& b = g_buckets[static_cast<int>(level)];
  if (!b.dropped) return;
  char line[400];
  int n = prefix(line, sizeof(line), level);
  n += snprintf(line + n, sizeof(line) - n,
                "%lld similar lines suppressed in the last %.1f s (rate limit: %g lines/s, burst %g)\n", b.dropped,
                (now - b.first_drop_ns) / 1e9, g_rate, g_burst);
  if (n >= (int)sizeof(line)) n = sizeof(line) - 1, line[n - 1] = '\n';
  emit_locked(level, line, n);
  b.dropped = 0;
}

void flush_all_at_exit() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const int64_t now = now_ns();
  flush_dropped_locked(Level::error, now);
  flush_dropped_locked(Level::warn, now);
}

// Whether a line of `level` may be written now; counts it when not. The caller holds g_mutex.
bool admit_locked(Level level, int64_t now) {
  if (level != Level::error && level != Level::warn) return true;
  if (g_rate <= 0) return true;
  Bucket& b = g_buckets[static_cast<int>(level)];
  if (b.last_ns < 0) b.tokens = g_burst, b.last_ns = now;
  b.tokens = std::min(g_burst, b.tokens + (now - b.last_ns) / 1e9 * g_rate);
  b.last_ns = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return true;
  }
  if (!b.dropped++) b.first_drop_ns = now;
  if (!g_atexit_set) g_atexit_set = atexit(flush_all_at_exit) == 0;  // a flood that ends the process
  return false;
}

const char* level_name(Level l) {
  switch (l) {
    case Level::error:
      return "ERROR";
    case Level::warn:
      return "WARN";
    case Level::info:
      return "INFO";
    case Level::trace:
      return "TRACE";
  }
  return "?";
}

}  // namespace

void configure(int level, const char* file_path) {
  g_level.store(level);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_file) {
    fclose(g_file);
    g_file = nullptr;
  }
  if (file_path && *file_path) {
    // "%p" in the path is replaced by the process id, so each PE gets its own file.
    char path[4096];
    size_t o = 0;
    for (const char* c = file_path; *c && o + 24 < sizeof(path); ++c) {
      if (c[0] == '%' && c[1] == 'p') {
        o += snprintf(path + o, sizeof(path) - o, "%d", (int)getpid());
        ++c;
      } else {
        path[o++] = *c;
      }
    }
    path[o] = '\0';
    g_file = fopen(path, "a");
  }
}

void set_identity(int pe, int npes) {
  g_pe.store(pe);
  g_npes.store(npes);
}

bool enabled(Level level) { return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed); }

void write(Level level, const char* fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (level == Level::error) {
    ++t_error_count;
    memcpy(t_error_msg, msg, sizeof(msg));
  }
  // One write(2) per line, so lines of PEs sharing a terminal never interleave.
  char line[2400];
  int n = prefix(line, sizeof(line), level);
  if (n < 0) return;
  n += snprintf(line + n, sizeof(line) - n, "%s\n", msg);
  if (n >= (int)sizeof(line)) n = sizeof(line) - 1, line[n - 1] = '\n';
  std::lock_guard<std::mutex> lock(g_mutex);
  const int64_t now = now_ns();
  if (!admit_locked(level, now)) return;
  flush_dropped_locked(level, now);  // the flood is over (or a token came back): say what was lost
  emit_locked(level, line, n);
}

void set_rate_limit(double lines_per_s, int burst) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const int64_t now = now_ns();
  flush_dropped_locked(Level::error, now);
  flush_dropped_locked(Level::warn, now);
  g_rate = lines_per_s;
  g_burst = burst < 1 ? 1 : burst;
  for (Bucket& b : g_buckets) b = Bucket{};
}

int take_error(char* buf, unsigned long size) {
  int n = t_error_count;
  if (n && buf && size) {
    strncpy(buf, t_error_msg, size - 1);
    buf[size - 1] = '\0';
  }
  t_error_count = 0;
  return n;
}

}  // namespace gshmem::log
