// SPDX-License-Identifier: BSD-3-Clause
// The one logger. Level from GSHMEM_DEBUG (NONE|ERROR|WARN|INFO|TRACE, default WARN);
// errors are always printed (up to the rate limit below, which counts what it drops). Every line reads
//   gshmem <LEVEL> [PE <n>/<N> host:pid]: <message>
// so messages from several PEs interleaved on one terminal stay attributable.
#pragma once

namespace gshmem::log {

enum class Level : int { error = 0, warn = 1, info = 2, trace = 3 };

// Re-read GSHMEM_DEBUG / GSHMEM_DEBUG_FILE (called by config::load).
void configure(int level, const char* file_path);
// Record this process's PE identity once it is known (-1 = not yet known).
void set_identity(int pe, int npes);
bool enabled(Level level);
void write(Level level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Errors this thread logged since its previous take_error: returns how many, and copies the
// last one's message (without the "gshmem ERROR [PE ...]: " prefix; cut to size - 1 bytes)
// into buf when it is not null and the count is not 0. Per thread because a host call logs on
// the thread that made it: a binding asks right after the call which errors were that call's.
int take_error(char* buf, unsigned long size);
// The rate limit of ERROR and WARN lines (per level, per process): a token bucket refilled at
// lines_per_s, holding at most burst. A line over the limit is dropped and counted, and the next
// line of its level that passes (or the process's exit) is preceded by one line
//   gshmem <LEVEL> [PE ...]: N similar lines suppressed in the last T s
// take_error counts dropped errors too. Default 20 lines/s, burst 100; lines_per_s <= 0: off.
void set_rate_limit(double lines_per_s, int burst);

}  // namespace gshmem::log

#define GSHMEM_LOG_ERROR(...) ::gshmem::log::write(::gshmem::log::Level::error, __VA_ARGS__)
#define GSHMEM_LOG_WARN(...)                                         \
  do {                                                               \
    if (::gshmem::log::enabled(::gshmem::log::Level::warn))          \
      ::gshmem::log::write(::gshmem::log::Level::warn, __VA_ARGS__); \
  } while (0)
#define GSHMEM_LOG_INFO(...)                                         \
  do {                                                               \
    if (::gshmem::log::enabled(::gshmem::log::Level::info))          \
      ::gshmem::log::write(::gshmem::log::Level::info, __VA_ARGS__); \
  } while (0)
#define GSHMEM_LOG_TRACE(...)                                         \
  do {                                                                \
    if (::gshmem::log::enabled(::gshmem::log::Level::trace))          \
      ::gshmem::log::write(::gshmem::log::Level::trace, __VA_ARGS__); \
  } while (0)
