// SPDX-License-Identifier: BSD-3-Clause
// Result verification for the benchmarks: every benchmark fills its sources with
// a pattern that depends on the benchmark, the writing PE and the size, poisons
// its destinations before the timed loop and checks them after it, on the GPU
// (so 256 MiB checks cost milliseconds). A mismatch is printed at once by the PE
// that sees it (what, size, first index, expected, got) and makes the run fail.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench.h"

namespace perf {

constexpr unsigned char kPoison = 0xA5;

struct Mismatch {
  uint64_t checked = 0;            // elements (bytes for the byte pattern) checked
  uint64_t bad = 0;                // elements wrong
  uint64_t first = 0;              // index of the first wrong one
  uint64_t expected = 0, got = 0;  // its expected / actual bits
};

// Seed of the pattern that `pe` writes for benchmark `bench` at `size` (+ extra).
uint64_t seed_of(const char* bench, int pe, size_t size, uint64_t extra = 0);

// Byte pattern: byte i of the object is a function of (seed, i).
void fill_bytes(void* p, size_t bytes, uint64_t seed, cudaStream_t s);
Mismatch check_bytes(const void* p, size_t bytes, uint64_t seed, cudaStream_t s);  // synchronises s
void poison(void* p, size_t bytes, cudaStream_t s);

// Typed reduction inputs: element i (global index index0 + i) of PE `pe`, chosen so
// that the reduction over any PE count is exact (small integers for sum/prod,
// signed spread for min/max, full bit patterns for and/or/xor).
void fill_reduce(DType t, const std::string& op, void* p, size_t n, int pe, uint64_t seed, size_t index0,
                 cudaStream_t s);
// dest[i] == op over PEs 0..npes-1 of their element index0 + i.
Mismatch check_reduce(DType t, const std::string& op, const void* p, size_t n, int npes, uint64_t seed, size_t index0,
                      cudaStream_t s);

// Every element of a 4- or 8-byte array = v.
void fill_const(void* p, size_t n, size_t elem_bytes, uint64_t v, cudaStream_t s);
Mismatch check_const(const void* p, size_t n, size_t elem_bytes, uint64_t v, cudaStream_t s);

// got[0 .. n) against want[0 .. n) (both device memory), 8-byte word by word, bit for bit: the
// applications' results against their one-GPU solves. Synchronises s.
Mismatch compare_words(const uint64_t* got, const uint64_t* want, size_t n, cudaStream_t s);

bool is_bitwise(const std::string& op);  // and / or / xor
bool is_float(DType t);

// Adds m to r and prints the first mismatch (PE, benchmark, what, size, index, expected, got).
struct Ctx;
void record_check(Ctx& ctx, Result& r, const Case& c, const char* what, const Mismatch& m);

}  // namespace perf
