// SPDX-License-Identifier: BSD-3-Clause
// Command line of every perftest run (the same flags for every benchmark):
//
//   gshmem-perf [bench ...] [flags]        no bench names: every registered benchmark
//   -b, --minbytes SIZE    smallest size (K/M/G suffixes, powers of 1024)
//   -e, --maxbytes SIZE    largest size
//   -f, --stepfactor F     multiply the size by F each step (default 2)
//   -n, --iters N          timed iterations (per repetition for event-timed benchmarks)
//   -w, --warmup N         warm-up iterations
//   -r, --reps N           repetitions (event-timed benchmarks: one sample each)
//   -c, --ctas N           CTAs of the benchmark kernel
//   -t, --threads N        threads per CTA
//   -s, --scope LIST       thread|warp|block, comma separated, or all
//   -d, --datatype LIST    int32|int64|uint32|uint64|float|double, or all
//   -o, --op LIST          reduction (sum|prod|min|max|and|or|xor) or atomic operation, or all
//   --root PE              broadcast root (team PE), default 0
//   --bidir                both PEs transfer at once (point-to-point bandwidth)
//   --graph                capture the on-stream operations in a CUDA graph, time replays
//   --json FILE            append the JSON lines to FILE too (PE 0)
//   --no-nccl              do not load NCCL
//   --list                 list the benchmarks and exit
//   -h, --help
// Unset flags take each benchmark's defaults.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace perf {

struct Options {
  std::vector<std::string> benches;
  size_t min_bytes = 0, max_bytes = 0;  // 0: benchmark default
  double factor = 2.0;
  int iters = 0, warmup = -1, reps = 0;          // 0 / -1: benchmark default
  int ctas = 0, threads = 0;                     // 0: benchmark default
  std::vector<std::string> scopes, dtypes, ops;  // empty: benchmark default; {"all"}: all
  int root = 0;
  bool bidir = false, graph = false, no_nccl = false, list = false, help = false;
  std::string json_path;
  std::string command;  // the command line, shell-quoted
};

// Parses argv. Returns false and sets *error (one line) on a bad command line.
bool parse_options(int argc, char** argv, Options* out, std::string* error);
// "64K" -> 65536; false if not a size.
bool parse_size(const char* text, size_t* out);
// "65536" -> "64K" style for tables.
std::string format_size(size_t bytes);
void print_usage(FILE* f);

}  // namespace perf
