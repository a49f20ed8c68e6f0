// SPDX-License-Identifier: BSD-3-Clause
// Host-side harness shared by the GPU tests (functional/, nordc/, kill_in_barrier).
// Usable from C++ and CUDA translation units; common.cuh adds the device parts.
//
//   gt::require_gpus(min, max)      before gshmem_init: exit 77 ("SKIP: ...") when this
//                                   node lacks a GPU per local PE (every PE decides alike)
//   gt::test_main_prologue(min,max) require_gpus + gshmem_init; a PE stopped by SIGTERM or
//                                   SIGINT names the current case (a hung test says where)
//   gt::test_main_epilogue()        summary line "PE x: N checks passed", gshmem_finalize,
//                                   returns the exit code (0 only if every check passed)
//   GT_CHECK(cond), GT_CHECK_EQ(expected, got), gt::verify_array(...)
//                                   record a check; failures print PE, file:line, the
//                                   current case (gt::set_context) and expected vs got
//   CUDA_CHECK(call), KERNEL_CHECK()  any CUDA error ends the process (exit 1) at once
//   gt::value<T>(pe, i, salt)       distinct, non-trivial pattern values (never 0, never i,
//                                   low byte never the poison byte)
#pragma once

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cinttypes>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include <gshmem/gshmem.h>

#if defined(__CUDACC__)
#define GT_HD __host__ __device__
#else
#define GT_HD
#endif

namespace gt {

// Destinations are filled with this byte before every operation; guard zones
// around destination ranges must still hold it afterwards.
constexpr unsigned char kPoison = 0xA5;
// Guard zone size before and after every checked destination range.
constexpr size_t kGuard = 4096;
// Mismatch lines printed per verify call, and in total per process.
constexpr int kMaxPrintedPerCheck = 10;
constexpr int kMaxPrintedTotal = 60;
constexpr int kMaxCountLines = 100;

// ---------------------------------------------------------------- output
// Formats one whole line and hands it to the OS in a single write(2), so the
// lines of PEs sharing one stdout/stderr pipe never interleave mid-line.
inline void emit(FILE* f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline void emit(FILE* f, const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n >= static_cast<int>(sizeof(buf))) {
    n = sizeof(buf) - 1;
    buf[n - 1] = '\n';
  }
  fflush(f);
  for (int done = 0; done < n;) {
    const ssize_t w = write(fileno(f), buf + done, static_cast<size_t>(n - done));
    if (w <= 0) break;
    done += static_cast<int>(w);
  }
}

// ---------------------------------------------------------------- patterns
GT_HD inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

GT_HD inline uint64_t hash3(int pe, uint64_t i, uint64_t salt) {
  return mix64(mix64((static_cast<uint64_t>(pe) + 1) * 0x9E3779B97F4A7C15ull ^ (salt + 0x632BE59BD9B4E019ull)) ^
               (i * 0xD1B54A32D192ED03ull));
}

struct u128 {  // 16-byte element for put128/get128
  uint64_t lo, hi;
};
GT_HD inline bool operator==(const u128& a, const u128& b) { return a.lo == b.lo && a.hi == b.hi; }
GT_HD inline bool operator!=(const u128& a, const u128& b) { return !(a == b); }

// Pattern value of element i written by `pe` in the operation identified by `salt`.
template <class T>
GT_HD inline T value(int pe, uint64_t i, uint64_t salt) {
  const uint64_t h = hash3(pe, i, salt);
  if constexpr (std::is_same<T, float>::value) {
    return static_cast<float>((h >> 42) + 1) + 0.5f;  // exact in float
  } else if constexpr (std::is_same<T, double>::value) {
    return static_cast<double>((h >> 14) + 1) + 0.25;  // exact in double
  } else if constexpr (std::is_same<T, u128>::value) {
    u128 v{h, mix64(h + 1)};
    if ((v.lo & 0xff) == kPoison) v.lo ^= 2;
    if ((v.hi & 0xff) == kPoison) v.hi ^= 2;
    return v;
  } else {
    static_assert(std::is_integral<T>::value, "value<T>: unsupported type");
    T v = static_cast<T>(h);
    if (static_cast<unsigned char>(v) == kPoison) v = static_cast<T>(v ^ static_cast<T>(2));
    if (v == 0) v = static_cast<T>(0x5B);
    return v;
  }
}

// Host-only variant that also covers long double (which device code lacks).
template <class T>
inline T hvalue(int pe, uint64_t i, uint64_t salt) {
  if constexpr (std::is_same<T, long double>::value)
    return static_cast<long double>((hash3(pe, i, salt) >> 14) + 1) + 0.25L;
  else
    return value<T>(pe, i, salt);
}

// ---------------------------------------------------------------- environment
inline int env_int(const char* name, int dflt) {
  const char* s = getenv(name);
  if (!s || !*s) return dflt;
  char* end = nullptr;
  long v = strtol(s, &end, 10);
  return (end && *end == '\0') ? static_cast<int>(v) : dflt;
}

// GT_SIM_QUICK=1 (the tests across simulated nodes, tests/functional/proxy.cmake): sweeps
// trimmed to fewer forms, roots and sizes, each proxy operation costing tens of microseconds.
inline bool sim_quick() {
  static const bool q = env_int("GT_SIM_QUICK", 0) != 0;
  return q;
}

// Sizes as GSHMEM_SYMMETRIC_SIZE takes them: bytes with optional K/M/G/T (powers of 1024).
inline uint64_t parse_size(const char* s, uint64_t dflt) {
  if (!s || !*s) return dflt;
  char* end = nullptr;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s) return dflt;
  switch (*end) {
    case 'k':
    case 'K':
      v <<= 10;
      break;
    case 'm':
    case 'M':
      v <<= 20;
      break;
    case 'g':
    case 'G':
      v <<= 30;
      break;
    case 't':
    case 'T':
      v <<= 40;
      break;
    default:
      break;
  }
  return v;
}
inline uint64_t env_size(const char* name, uint64_t dflt) { return parse_size(getenv(name), dflt); }

// ---------------------------------------------------------------- results
struct Stats {
  long long checks = 0;
  long long failures = 0;
  int printed = 0;
  int me = -1;
  char context[384] = "";
};
inline Stats& stats() {
  static Stats s;
  return s;
}
inline int log_pe() { return stats().me >= 0 ? stats().me : env_int("GSHMEM_RANK", 0); }

// What the following checks are about; printed with every failure.
inline void set_context(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void set_context(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(stats().context, sizeof(stats().context), fmt, ap);
  va_end(ap);
}

inline bool may_print() { return stats().printed < kMaxPrintedTotal; }
// "N of M elements wrong" lines: more of them (one per failing case), still bounded.
inline bool may_print_count() {
  static int count_lines = 0;
  if (count_lines == kMaxCountLines)
    emit(stderr, "PE %d: (further per-case failure counts suppressed; the summary counts them)\n", log_pe());
  return count_lines++ < kMaxCountLines;
}

inline void fail_line(const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
inline void fail_line(const char* file, int line, const char* fmt, ...) {
  if (!may_print()) return;
  ++stats().printed;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  emit(stderr, "PE %d: FAIL %s:%d [%s] %s\n", log_pe(), file, line, stats().context, msg);
  if (stats().printed == kMaxPrintedTotal)
    emit(stderr, "PE %d: (further mismatch lines suppressed; the summary counts them)\n", log_pe());
}

// Printable form of a value: integers in decimal and hex, floats exactly.
template <class T>
inline std::string show(const T& v) {
  char b[96];
  if constexpr (std::is_same<T, u128>::value) {
    snprintf(b, sizeof(b), "{0x%016" PRIx64 ", 0x%016" PRIx64 "}", v.hi, v.lo);
  } else if constexpr (std::is_floating_point<T>::value) {
    snprintf(b, sizeof(b), "%.21Lg", static_cast<long double>(v));
  } else if constexpr (std::is_pointer<T>::value || std::is_null_pointer<T>::value) {
    snprintf(b, sizeof(b), "%p", (const void*)v);
  } else if constexpr (std::is_enum<T>::value) {
    snprintf(b, sizeof(b), "%lld", static_cast<long long>(v));
  } else if constexpr (std::is_same<T, bool>::value) {
    snprintf(b, sizeof(b), "%s", v ? "true" : "false");
  } else if constexpr (std::is_signed<T>::value) {
    const long long x = static_cast<long long>(v);
    snprintf(b, sizeof(b), "%lld (0x%llx)", x,
             static_cast<unsigned long long>(x) & (sizeof(T) >= 8 ? ~0ull : ((1ull << (8 * sizeof(T))) - 1)));
  } else {
    const unsigned long long x = static_cast<unsigned long long>(v);
    snprintf(b, sizeof(b), "%llu (0x%llx)", x, x);
  }
  return b;
}

inline bool check_impl(bool ok, const char* expr, const char* file, int line) {
  ++stats().checks;
  if (!ok) {
    ++stats().failures;
    fail_line(file, line, "expected true: %s", expr);
  }
  return ok;
}

template <class A, class B>
inline bool check_eq_impl(const A& expected, const B& got, const char* e_expr, const char* g_expr, const char* file,
                          int line) {
  ++stats().checks;
  const bool ok = (expected == got);
  if (!ok) {
    ++stats().failures;
    fail_line(file, line, "%s == %s: expected %s, got %s", e_expr, g_expr, show(expected).c_str(), show(got).c_str());
  }
  return ok;
}

// Compares got[0..n) with expected(i); every element is one check. Prints the
// first kMaxPrintedPerCheck mismatches, then a count.
template <class T, class Expected>
inline bool verify_array(const char* what, const T* got, size_t n, Expected expected, const char* file, int line) {
  size_t bad = 0, first = 0;
  int shown = 0;
  for (size_t i = 0; i < n; ++i) {
    const T e = expected(i);
    T g;
    memcpy(&g, got + i, sizeof(T));  // got may be an unaligned view of a byte buffer
    if (g == e) continue;
    if (bad++ == 0) first = i;
    if (shown < kMaxPrintedPerCheck && may_print()) {
      ++shown;
      fail_line(file, line, "%s[%zu]: expected %s, got %s", what, i, show(e).c_str(), show(g).c_str());
    }
  }
  stats().checks += static_cast<long long>(n);
  if (bad) {
    stats().failures += static_cast<long long>(bad);
    if (static_cast<size_t>(shown) < bad && may_print_count()) {
      emit(stderr, "PE %d: FAIL %s:%d [%s] %s: %zu of %zu elements wrong (first at index %zu)\n", log_pe(), file, line,
           stats().context, what, bad, n, first);
    }
  }
  return bad == 0;
}

// Every byte of p[0..n) still holds the poison byte.
inline bool verify_poison(const char* what, const unsigned char* p, size_t n, const char* file, int line) {
  return verify_array(
      what, p, n, [](size_t) { return kPoison; }, file, line);
}

#define GT_CHECK(cond) ::gt::check_impl(static_cast<bool>(cond), #cond, __FILE__, __LINE__)
#define GT_CHECK_EQ(expected, got) ::gt::check_eq_impl((expected), (got), #expected, #got, __FILE__, __LINE__)
#define GT_CHECK_STATUS(call) GT_CHECK_EQ(static_cast<int>(GSHMEM_SUCCESS), static_cast<int>(call))
#define GT_VERIFY(what, got, n, expected_fn) ::gt::verify_array((what), (got), (n), (expected_fn), __FILE__, __LINE__)

// CUDA errors are not recoverable here (they are sticky for kernel faults): report and end the PE.
inline void cuda_fail(cudaError_t e, const char* expr, const char* file, int line) {
  fflush(stdout);
  emit(stderr, "PE %d: FAIL %s:%d [%s] CUDA error %s (%s) from %s\n", log_pe(), file, line, stats().context,
       cudaGetErrorName(e), cudaGetErrorString(e), expr);
  exit(1);
}
#define CUDA_CHECK(call)                                                             \
  do {                                                                               \
    cudaError_t gt_err_ = (call);                                                    \
    if (gt_err_ != cudaSuccess) ::gt::cuda_fail(gt_err_, #call, __FILE__, __LINE__); \
  } while (0)
// After every kernel launch: launch errors and execution errors.
#define KERNEL_CHECK()                   \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)

// ---------------------------------------------------------------- setup / teardown
// Exits 77 (ctest: skipped) unless the job has min_pes..max_pes PEs and this
// node has a GPU per local PE. Call before gshmem_init (which would fail hard).
// GT_SHARE_GPUS=1 runs the PEs on fewer GPUs than PEs instead (they time-share
// them: a check of correctness, slow, not a configuration to time).
inline void require_gpus(int min_pes, int max_pes) {
  const int size = env_int("GSHMEM_SIZE", 1);
  const int local = env_int("GSHMEM_LOCAL_SIZE", 1);
  if (size < min_pes || (max_pes > 0 && size > max_pes)) {
    emit(stdout, "SKIP: needs %d..%d PEs, job has %d\n", min_pes, max_pes, size);
    exit(77);
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  if (count < 1 || (count < local && env_int("GT_SHARE_GPUS", 0) != 1)) {
    emit(stdout, "SKIP: needs %d GPUs, found %d\n", local < 1 ? 1 : local, count);
    exit(77);
  }
}

// A PE stopped by its launcher (gshmrun --timeout, ctest's timeout: SIGTERM; Ctrl-C: SIGINT)
// names the case it was in, so that a hung test says where it hung; then ends as the
// signal would have ended it.
inline void on_stop_signal(int sig) {
  char line[512];
  const int n = snprintf(line, sizeof line, "PE %d: stopped by signal %d during: %s\n", log_pe(), sig,
                         stats().context[0] ? stats().context : "(no case set yet)");
  if (n > 0) (void)!write(2, line, static_cast<size_t>(n) < sizeof line ? static_cast<size_t>(n) : sizeof line - 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

inline void test_main_prologue(int min_pes, int max_pes) {
  require_gpus(min_pes, max_pes);
  gshmem_init();
  stats().me = gshmem_my_pe();
  for (int sig : {SIGTERM, SIGINT})
    if (signal(sig, SIG_IGN) != SIG_IGN) signal(sig, on_stop_signal);  // a signal ignored by the caller stays so
}

// Prints the summary line; with `finalize`, gshmem_finalize() after it.
// Returns the process exit code.
inline int test_main_epilogue(const char* test_name, bool finalize = true) {
  const Stats& s = stats();
  if (s.failures == 0)
    emit(stdout, "PE %d: %lld checks passed (%s)\n", log_pe(), s.checks, test_name);
  else
    emit(stdout, "PE %d: %lld of %lld checks FAILED (%s)\n", log_pe(), s.failures, s.checks, test_name);
  fflush(stderr);
  if (finalize) gshmem_finalize();
  return s.failures == 0 ? 0 : 1;
}

}  // namespace gt
