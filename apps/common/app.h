// SPDX-License-Identifier: BSD-3-Clause
// What every program under apps/ needs besides its algorithm, kept out of the way so that each
// app's main.cu reads as the algorithm: flags, a CUDA error check that names the PE, the GPU check
// that makes ctest report "skipped" (exit 77) on a machine without enough GPUs, CUDA-event
// timing, and the few whole-job reductions a table needs (slowest PE's time, "did every PE pass").
// Host code only; the kernels never see any of it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace app {

// Ends the process with "<prog>: PE <me>: <what>: <CUDA error>" when e is an error.
void cuda_check(cudaError_t e, const char* what);
#define APP_CUDA(call) ::app::cuda_check((call), #call)

// Exits 77 ("skipped" to ctest) unless this node has one GPU per local PE, or at least one with
// GT_SHARE_GPUS=1 (the test suite's knob: PEs share GPUs, e.g. under CUDA MPS; the checks hold, the
// times then mean nothing). Call before gshmem_init.
void require_gpus(const char* prog);

// After gshmem_init: records the program's name for messages and allocates the reductions'
// symmetric scratch (collective). finish() frees it (collective, before gshmem_finalize).
void start(const char* prog);
void finish();
const char* prog();
int me();
int npes();

// --name value / --name=value flags; --help prints `usage` and the flags asked for so far. An
// unknown flag, or a value that does not parse, ends the process naming the flag.
class Flags {
 public:
  Flags(int argc, char** argv, const char* usage);
  int64_t num(const char* name, int64_t def, const char* help);  // accepts K / M / G suffixes
  std::string str(const char* name, const char* def, const char* help);
  bool flag(const char* name, const char* help);  // present or not
  // Call after the last num/str/flag: rejects leftovers, handles --help.
  void done();

 private:
  std::vector<std::string> args_;
  std::vector<bool> used_;
  std::string usage_, help_;
  bool want_help_ = false;
  const std::string* find(const char* name, bool* present);
};

// Over every PE (collective, through the library's on-stream reductions): the largest value, the
// sum, and whether every PE passed `ok`.
double max_over_pes(double mine);
int64_t sum_over_pes(int64_t mine);
bool all_pes(bool ok);

// Milliseconds that `work` (which enqueues on `stream`) takes on the GPU, by CUDA events, after
// a barrier that lines the PEs up. Synchronises the stream.
double time_ms(cudaStream_t stream, const std::function<void()>& work);

// printf on PE 0 only.
void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace app

namespace app {

// How many of the n 8-byte words at `got` differ from those at `want` (both device memory), bit
// for bit, and the index of the first (n when none). Synchronises the stream.
struct Diff {
  uint64_t bad = 0, first = 0;
};
Diff diff_words(const void* got, const void* want, size_t n, cudaStream_t stream);

// The median of the samples (0 for none).
double median(std::vector<double> v);

// The stream the helpers above use (created by start()).
cudaStream_t stream();

}  // namespace app
