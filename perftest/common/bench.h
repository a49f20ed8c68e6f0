// SPDX-License-Identifier: BSD-3-Clause
// The perftest harness: what a benchmark is.
//
// Each benchmark is one small file that fills a Bench descriptor and registers it
// (PERF_REGISTER). The harness (main.cpp) parses the uniform flags, walks every
// (scope, datatype, op, size) point the descriptor accepts, calls `run` for each
// point on every PE, gathers the per-PE results on PE 0 and prints one table row
// and one JSON line per point (report.h). `run` times the operation, verifies
// the data of at least the last iteration, and, for on-stream collectives, runs
// NCCL on the same buffers, sizes and stream (nccl.h).
//
// Sizes follow nccl-tests (PERFORMANCE.md):
//   broadcast, reduction        size = bytes of the array
//   fcollect (allgather)        size = bytes of the gathered result (N x per-PE part)
//   alltoall                    size = bytes of one PE's send (= receive) buffer
//   reducescatter               size = bytes of one PE's input (N x output)
// algbw = bytes(size) / time, busbw = algbw x factor (busbw_factor below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace perf {

enum class Kind { device, host };
enum class Scope { thread = 0, warp = 1, block = 2 };
enum class DType { int32, int64, uint32, uint64, float32, float64 };
// Bus-bandwidth classes (nccl-tests): allreduce 2(n-1)/n; allgather, reducescatter
// and alltoall (n-1)/n; broadcast and point-to-point 1; none: no bandwidth column.
enum class Bus { none, p2p, allreduce, allgather, reducescatter, alltoall, broadcast };

// Most threads per CTA a benchmark kernel is built for (-t at most this): every
// kernel declares it in __launch_bounds__, so a 1024-thread launch never fails
// for lack of registers.
constexpr int kMaxThreads = 1024;

constexpr unsigned scope_bit(Scope s) { return 1u << static_cast<int>(s); }
constexpr unsigned kAllScopes = 7u;
constexpr unsigned dtype_bit(DType d) { return 1u << static_cast<int>(d); }
constexpr unsigned kAllDTypes = 63u;

const char* name_of(Scope s);
const char* name_of(DType d);
size_t size_of(DType d);
double busbw_factor(Bus b, int npes);
// The side of the largest square matrix of elem_bytes elements within `bytes` (the applications'
// sizes).
int square_side(size_t bytes, size_t elem_bytes);

// One measurement point.
struct Case {
  size_t size = 0;  // as the benchmark defines it (see above); 0 for size-less ones
  Scope scope = Scope::thread;
  DType dtype = DType::int32;
  std::string op;  // reduction or atomic operation; empty when unused
  int ctas = 1, threads = 1;
  int iters = 1, warmup = 0, reps = 1;
  bool bidir = false, graph = false;
  int root = 0;
};

// What one PE measured at one point. Samples are microseconds per operation.
struct Result {
  bool timed = false;            // this PE timed the operation (p2p: the initiator)
  std::vector<double> us;        // gshmem samples
  const char* timer = "events";  // "events" | "clock64" | "host"
  size_t size = 0;               // the size really used (rounded to whole elements); 0: Case::size
  // NCCL on the same buffers / stream (on-stream collectives).
  bool nccl_timed = false;
  std::vector<double> nccl_us;
  uint64_t nccl_bad = 0;
  // Copy-engine peer copy (cudaMemcpyAsync between the two GPUs): the ceiling of bandwidth
  // tests, and of host latency tests (one lone copy + stream synchronisation a sample).
  bool ceiling_timed = false;
  std::vector<double> ceiling_us;
  // Operations per iteration for a message rate (Mops = ops / median time); 0: none.
  double ops_per_iter = 0;
  // Verification: elements checked and elements wrong (this PE).
  uint64_t checked = 0, bad = 0;
  std::string note;   // printed once under the row (e.g. "NCCL skipped: ...")
  bool skip = false;  // the point does not apply (no row printed)
};

struct Ctx;

struct Bench {
  const char* name = "";
  const char* what = "";  // one line for --list and the table title
  Kind kind = Kind::device;
  int min_pes = 2, max_pes = 0;  // max 0: any number
  // Default sweep for -b/-e; min_size == max_size == 0: a size-less benchmark (one row).
  size_t min_size = 0, max_size = 0;
  unsigned scopes = scope_bit(Scope::thread);  // scopes the benchmark accepts
  Scope default_scope = Scope::thread;
  unsigned dtypes = 0;  // accepted datatypes; 0: -d does not apply
  DType default_dtype = DType::int32;
  std::vector<std::string> ops;  // accepted -o values; empty: -o does not apply
  std::vector<std::string> default_ops;
  int ctas = 1, threads = 1;                // defaults for -c / -t
  int iters = 100, warmup = 10, reps = 10;  // defaults for -n / -w / -r
  Bus bus = Bus::none;
  bool nccl = false;                // compares with NCCL (on-stream collectives)
  bool graph = false;               // honours --graph
  bool bidir = false;               // honours --bidir
  bool ceiling_is_latency = false;  // the table shows the ceiling as a time, not GB/s
  // Bytes moved per operation for algbw (nullptr: no bandwidth).
  double (*bytes)(const Case& c, size_t size, int npes) = nullptr;
  // Whether the point applies (e.g. xor on float does not); nullptr: always.
  bool (*valid)(const Case& c, int npes) = nullptr;
  void (*run)(Ctx& ctx, const Case& c, Result& r) = nullptr;
};

void register_bench(const Bench& b);
const std::vector<Bench>& registry();

}  // namespace perf

// In a benchmark file: static perf::Bench describe() { ... } PERF_REGISTER(describe);
#define PERF_REGISTER_CAT2(a, b) a##b
#define PERF_REGISTER_CAT(a, b) PERF_REGISTER_CAT2(a, b)
#define PERF_REGISTER(fn) \
  static const int PERF_REGISTER_CAT(perf_registered_, __LINE__) = (::perf::register_bench(fn()), 0)
