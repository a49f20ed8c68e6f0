// SPDX-License-Identifier: BSD-3-Clause
// bad_rma_corpus (issue 56, item 6): with GSHMEM_DEBUG_CHECKS=1, seeded bad host calls of every
// class must be refused - nothing written, nothing read, no CUDA error - and a matching good
// corpus must be carried out exactly.
// The heap: 48 blocks of seeded sizes (the same on every PE), every other one freed after it was
// poisoned. Classes, kPerClass calls each, on this PE and on the next one:
//   freed      gshmem_putmem into a freed block (from inside it, any length)
//   past_end   gshmem_putmem starting inside a live block and running 1..4096 bytes past its end
//   get_freed  gshmem_getmem from a freed block (the local destination must stay poisoned)
//   amo_align  gshmem_int_atomic_add at an address 1..3 bytes off an int's alignment
//   amo_freed  gshmem_int_atomic_add on an aligned int of a freed block
// Caught: the target range still holds its poison afterwards (each call on this PE checked at
// once; the next PE's after a barrier, all together), and the CUDA context is intact. Good:
// puts inside live blocks (whole blocks, last bytes, random ranges) and aligned AMOs, each
// checked to have happened. Prints the counts and the time per good call (the checks' cost).
// Exits 77 without a GPU per PE.
#include <chrono>
#include <random>
#include <vector>

#include "common.h"

namespace {

constexpr int kBlocks = 48;
constexpr int kPerClass = 1000;
constexpr unsigned char kPoison = 0x5A;

struct Block {
  char* p;
  size_t size;
  bool live;
};

std::vector<unsigned char> read_dev(const void* p, size_t n) {
  std::vector<unsigned char> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), p, n, cudaMemcpyDeviceToHost));
  return h;
}

bool all_poison(const std::vector<unsigned char>& v) {
  for (unsigned char c : v)
    if (c != kPoison) return false;
  return true;
}

}  // namespace

int main() {
  gt::test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), next = (me + 1) % n;
  if (!gt::env_int("GSHMEM_DEBUG_CHECKS", 0)) {
    gt::emit(stdout, "bad_rma_corpus: needs GSHMEM_DEBUG_CHECKS=1\n");
    return 2;
  }
  std::mt19937_64 rng(56);  // the same sizes on every PE (allocation is collective)
  std::vector<Block> blocks;
  for (int i = 0; i < kBlocks; ++i) {
    const size_t size = 1 + rng() % (96 * 1024);
    char* p = static_cast<char*>(gshmem_malloc(size));
    GT_CHECK(p != nullptr);
    if (p == nullptr) return gt::test_main_epilogue("bad_rma_corpus");
    CUDA_CHECK(cudaMemset(p, kPoison, size));
    blocks.push_back({p, size, true});
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  for (int i = 0; i < kBlocks; i += 2) {
    gshmem_free(blocks[i].p);
    blocks[i].live = false;
  }
  std::vector<const Block*> live, freed;
  for (const Block& b : blocks) (b.live ? live : freed).push_back(&b);

  std::mt19937_64 r(1000 + me);  // each PE's own corpus
  std::vector<unsigned char> src(128 * 1024 + 4096, 0xC3), dst(128 * 1024 + 4096);
  const char* names[] = {"freed", "past_end", "get_freed", "amo_align", "amo_freed"};
  int caught[5] = {}, tried[5] = {};
  auto pick = [&](const std::vector<const Block*>& v) { return v[r() % v.size()]; };

  for (int i = 0; i < kPerClass; ++i) {
    const int pe = i % 4 == 3 ? next : me;  // a quarter go to the next PE, checked at the end
    // freed
    {
      const Block* b = pick(freed);
      const size_t in = r() % b->size, len = 1 + r() % (b->size - in + 256);
      gshmem_putmem(b->p + in, src.data(), len, pe);
      ++tried[0];
      if (pe != me || all_poison(read_dev(b->p + in, std::min(len, b->size - in)))) ++caught[0];
    }
    // past_end
    {
      const Block* b = pick(live);
      const size_t in = r() % b->size, len = b->size - in + 1 + r() % 4096;
      gshmem_putmem(b->p + in, src.data(), len, pe);
      ++tried[1];
      if (pe != me || all_poison(read_dev(b->p + in, b->size - in))) ++caught[1];
    }
    // get_freed (the local buffer must stay as it was)
    {
      const Block* b = pick(freed);
      const size_t in = r() % b->size, len = 1 + r() % (b->size - in + 256);
      std::fill(dst.begin(), dst.begin() + len, 0x11);
      gshmem_getmem(dst.data(), b->p + in, len, pe);
      ++tried[2];
      bool same = true;
      for (size_t k = 0; k < len; ++k) same = same && dst[k] == 0x11;
      if (same) ++caught[2];
    }
    // amo_align
    {
      const Block* b = pick(live);
      if (b->size >= 8) {
        const size_t in = (r() % (b->size / 4 - 1)) * 4 + 1 + r() % 3;
        gshmem_int_atomic_add(reinterpret_cast<int*>(b->p + in), 1, pe);
        ++tried[3];
        if (pe != me || all_poison(read_dev(b->p + (in & ~size_t{3}), 8))) ++caught[3];
      }
    }
    // amo_freed
    {
      const Block* b = pick(freed);
      if (b->size >= 4) {
        const size_t in = (r() % (b->size / 4)) * 4;
        gshmem_int_atomic_add(reinterpret_cast<int*>(b->p + in), 1, pe);
        ++tried[4];
        if (pe != me || all_poison(read_dev(b->p + in, 4))) ++caught[4];
      }
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());  // no call may have broken the context
  gshmem_barrier_all();
  // The calls from the previous PE: every freed block and every live block still poisoned.
  bool intact = true;
  for (const Block& b : blocks) intact = intact && all_poison(read_dev(b.p, b.size));
  GT_CHECK(intact);
  for (int c = 0; c < 5; ++c) {
    gt::emit(stdout, "bad_rma_corpus: PE %d: %s: caught %d of %d\n", me, names[c], caught[c], tried[c]);
    GT_CHECK_EQ(tried[c], caught[c]);
    GT_CHECK(tried[c] >= (c >= 3 ? kPerClass / 2 : kPerClass));
  }
  gshmem_barrier_all();

  // The good corpus: puts inside live blocks and aligned AMOs, on this PE (checked at once).
  int good = 0, refused = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kPerClass; ++i) {
    const Block* b = pick(live);
    size_t in = r() % b->size, len = 1 + r() % (b->size - in);
    if (i % 10 == 0) in = 0, len = b->size;
    if (i % 10 == 1) in = b->size - 1, len = 1;
    const unsigned char v = static_cast<unsigned char>(0x80 + i % 64);
    std::fill(src.begin(), src.begin() + len, v);
    gshmem_putmem(b->p + in, src.data(), len, me);
    const std::vector<unsigned char> got = read_dev(b->p + in, len);
    bool ok = true;
    for (unsigned char c : got) ok = ok && c == v;
    ++good;
    if (!ok) ++refused;
    if (b->size >= 4) {
      int* word = reinterpret_cast<int*>(b->p + (r() % (b->size / 4)) * 4);
      const int before = gshmem_int_g(word, me);
      gshmem_int_atomic_add(word, 3, me);
      ++good;
      if (gshmem_int_g(word, me) != before + 3) ++refused;
    }
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  gt::emit(stdout,
           "bad_rma_corpus: PE %d: good corpus: %d of %d calls refused; %.1f us per call (with its check-back)\n", me,
           refused, good, us / good);
  GT_CHECK_EQ(0, refused);
  for (const Block* b : live) gshmem_free(b->p);
  return gt::test_main_epilogue("bad_rma_corpus");
}
