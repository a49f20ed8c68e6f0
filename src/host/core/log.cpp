// SPDX-License-Identifier: BSD-3-Clause
#include "log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
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
  char host[64] = "?";
  gethostname(host, sizeof(host) - 1);
  char who[160];
  int pe = g_pe.load();
  if (pe >= 0)
    snprintf(who, sizeof(who), "PE %d/%d %s:%d", pe, g_npes.load(), host, (int)getpid());
  else
    snprintf(who, sizeof(who), "PE ? %s:%d", host, (int)getpid());
  // One write(2) per line, so lines of PEs sharing a terminal never interleave.
  char line[2400];
  int n = snprintf(line, sizeof(line), "gshmem %s [%s]: %s\n", level_name(level), who, msg);
  if (n < 0) return;
  if (n >= (int)sizeof(line)) n = sizeof(line) - 1, line[n - 1] = '\n';
  std::lock_guard<std::mutex> lock(g_mutex);
  FILE* out = g_file ? g_file : stderr;
  fflush(out);
  if (::write(fileno(out), line, n) < 0) return;
  if (g_file && level == Level::error && ::write(STDERR_FILENO, line, n) < 0) return;  // errors reach the terminal too
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
