// SPDX-License-Identifier: BSD-3-Clause
// Symmetric heap: gshmem_malloc / calloc / align / free and gshmem_ptr.
//   - calloc memory is zero on every PE (checked by kernels, locally and through
//     the neighbour's mapping), also when it reuses dirty memory;
//   - gshmem_align for alignments 256 .. 1 MiB (address aligned, usable remotely);
//   - malloc/free/malloc reuses the offset;
//   - many live allocations of odd sizes: disjoint, each written remotely by the
//     previous PE and verified;
//   - growth: 3 x 48 MiB with GSHMEM_SYMMETRIC_SIZE=64M (set by ctest) forces the
//     heap to grow; every block is written remotely (device and host puts) and
//     verified, and earlier blocks survive the growth;
//   - exhaustion: asking for more than GSHMEM_SYMMETRIC_SIZE_MAX (or, on the
//     fixed-size IPC heap, GSHMEM_SYMMETRIC_SIZE) gives NULL on every PE (checked
//     by exchanging the results), and the heap keeps working afterwards;
//   - gshmem_ptr is non-NULL for every PE of the node and usable for plain stores
//     from a kernel; host and device gshmem_ptr agree; NULL (host and device) for
//     a PE out of range or an address outside the heap; gshmem_team_ptr on the
//     world team and on a strided team equals gshmem_ptr of the translated PE,
//     NULL for an invalid team or team PE (host and device);
//   - gshmem_pe_accessible / gshmem_addr_accessible: 1 for every PE and heap
//     address, 0 for PEs out of range and addresses outside the heap;
//   - gshmem_realloc: growing and shrinking keep the contents (written remotely
//     before, checked on every element) and give a block usable remotely;
//     realloc(NULL, n) allocates, realloc(p, 0) frees, a request beyond the limit
//     gives NULL on every PE and leaves the old block and its contents intact;
//     gshmem_malloc_with_hints with the OpenSHMEM hints gives a usable block;
//   - requests of 0 bytes return NULL without communicating (PE 0 alone makes
//     them); alignments 0, 3 and 4352 give NULL on every PE;
//   - calls that differ between PEs (sizes, calloc or align against malloc, an
//     overflowing calloc against a valid one, free against realloc) give NULL,
//     or free nothing, on every PE; the block stays intact and later offsets agree.
// Registered twice: "heap" (CUDA VMM heap) and "heap_ipc" (GSHMEM_DISABLE_VMM=1).
#include <algorithm>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr size_t kMiB = 1u << 20;
uint64_t g_salt = 20000;

bool env_true(const char* name) {
  const char* v = getenv(name);
  if (!v) return false;
  std::string s(v);
  for (auto& c : s) c = static_cast<char>(tolower(c));
  return s == "1" || s == "yes" || s == "true" || s == "on";
}

// ------------------------------------------------------------------ device helpers
__global__ void k_count_nonzero(const unsigned char* p, size_t n, DevErrors* err) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (p[i] != 0) dev_fail(err, i, 0, 0, p[i]);
}

// Same, reading PE `pe`'s copy of symmetric p through gshmem_ptr on the device.
__global__ void k_count_nonzero_remote(const unsigned char* p, size_t n, int pe, DevErrors* err) {
  const unsigned char* q = static_cast<const unsigned char*>(gshmem_ptr(p, pe));
  if (q == nullptr) {
    if (blockIdx.x == 0 && threadIdx.x == 0) dev_fail(err, ~0ull, static_cast<unsigned long long>(pe), 1, 0);
    return;
  }
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (q[i] != 0) dev_fail(err, i, static_cast<unsigned long long>(pe), 0, q[i]);
}

// Block b puts bytes [b*chunk, ...) of src into dst on pe (block scope), then quiet.
__global__ void k_put_chunks(unsigned char* dst, const unsigned char* src, size_t n, size_t chunk, int pe) {
  for (size_t off = blockIdx.x * chunk; off < n; off += static_cast<size_t>(gridDim.x) * chunk) {
    const size_t len = n - off < chunk ? n - off : chunk;
    gshmemx_putmem_nbi_block(dst + off, src + off, len, pe);
  }
  gshmem::quiet<gshmem::block_scope>();
}

template <class T>
__global__ void k_check_pattern(const T* p, size_t n, int pe, uint64_t salt, DevErrors* err) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const T e = value<T>(pe, i, salt);
    if (p[i] != e) dev_fail(err, i, static_cast<unsigned long long>(pe), e, p[i]);
  }
}

unsigned grid_for(size_t n) {
  const size_t b = (n + 255) / 256;
  return static_cast<unsigned>(b > 2048 ? 2048 : (b ? b : 1));
}

// Collective: every PE writes value<uint32_t>(me, i, salt) into `block` (n bytes,
// symmetric) on the next PE with a device put (or a host put), then every PE checks
// its own copy against the previous PE's pattern on the device (and the first and
// last KiB on the host too).
void remote_write_verify(void* block, size_t n, bool host_put, const char* what) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const uint64_t salt = ++g_salt;
  const size_t words = n / sizeof(uint32_t);
  set_context("%s: %zu bytes at %p written by a %s put from the previous PE", what, n, block,
              host_put ? "host" : "device");
  unsigned char* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, n ? n : 1));
  fill_device(reinterpret_cast<uint32_t*>(src), words, me, salt);
  if (n % 4) CUDA_CHECK(cudaMemset(src + words * 4, 0x3C, n % 4));
  poison_device(block, n);
  gshmem_barrier_all();
  if (host_put) {
    gshmem_putmem(block, src, n, next);
  } else if (n) {
    constexpr size_t kChunk = 256 * 1024;
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>(64, (n + kChunk - 1) / kChunk));
    k_put_chunks<<<blocks, 256>>>(static_cast<unsigned char*>(block), src, n, kChunk, next);
    KERNEL_CHECK();
  }
  gshmem_barrier_all();
  DevErrorsHost err;
  if (words) {
    k_check_pattern<uint32_t><<<grid_for(words), 256>>>(static_cast<const uint32_t*>(block), words, prev, salt, err.d);
    KERNEL_CHECK();
  }
  err.check("word", "from PE", __FILE__, __LINE__);
  // Host view of the edges (first and last KiB, and the odd tail bytes).
  const size_t edge = std::min<size_t>(words, 256);
  std::vector<uint32_t> h(edge);
  if (edge) {
    CUDA_CHECK(cudaMemcpy(h.data(), block, edge * 4, cudaMemcpyDeviceToHost));
    GT_VERIFY("first words", h.data(), edge, [&](size_t i) { return value<uint32_t>(prev, i, salt); });
    CUDA_CHECK(cudaMemcpy(h.data(), static_cast<uint32_t*>(block) + (words - edge), edge * 4, cudaMemcpyDeviceToHost));
    GT_VERIFY("last words", h.data(), edge, [&](size_t i) { return value<uint32_t>(prev, words - edge + i, salt); });
  }
  if (n % 4) {
    unsigned char tail[4];
    CUDA_CHECK(cudaMemcpy(tail, static_cast<unsigned char*>(block) + words * 4, n % 4, cudaMemcpyDeviceToHost));
    GT_VERIFY("tail bytes", tail, n % 4, [](size_t) { return static_cast<unsigned char>(0x3C); });
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(src));
}

// ------------------------------------------------------------------ calloc
void calloc_is_zero(size_t count, size_t size, bool dirty_first) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const size_t n = count * size;
  set_context("gshmem_calloc(%zu, %zu)%s", count, size, dirty_first ? " over dirty memory" : "");
  void* dirty = nullptr;
  if (dirty_first) {
    // Leave non-zero bytes where the calloc block will most likely go (best fit: the same place).
    dirty = gshmem_malloc(n);
    GT_CHECK(dirty != nullptr);
    if (dirty) {
      CUDA_CHECK(cudaMemset(dirty, 0xFF, n));
      CUDA_CHECK(cudaDeviceSynchronize());
      gshmem_free(dirty);
    }
  }
  unsigned char* p = static_cast<unsigned char*>(gshmem_calloc(count, size));
  GT_CHECK(p != nullptr);
  if (!p) return;
  if (dirty_first) GT_CHECK_EQ(dirty, static_cast<void*>(p));  // the freed block was reused (so it was dirty)
  DevErrorsHost err;
  k_count_nonzero<<<grid_for(n), 256>>>(p, n, err.d);
  KERNEL_CHECK();
  err.check("byte", "-", __FILE__, __LINE__);
  gshmem_barrier_all();
  for (int k = 1; k < npes; ++k) {  // every other PE's copy, through its mapping
    err.reset();
    k_count_nonzero_remote<<<grid_for(n), 256>>>(p, n, (me + k) % npes, err.d);
    KERNEL_CHECK();
    err.check("byte", "of PE", __FILE__, __LINE__);
  }
  gshmem_barrier_all();
  gshmem_free(p);
}

void calloc_tests() {
  calloc_is_zero(1, 1, false);
  calloc_is_zero(7, 13, true);
  calloc_is_zero(1000, 8, true);
  calloc_is_zero(2 * kMiB + 333, 1, true);
  calloc_is_zero(3, kMiB, true);
  set_context("gshmem_calloc overflow");
  void* p = gshmem_calloc(SIZE_MAX / 2, 4);  // count * size overflows: NULL on every PE
  GT_CHECK(p == nullptr);
}

// ------------------------------------------------------------------ align
void align_tests() {
  std::vector<void*> blocks;
  std::vector<size_t> sizes;
  int k = 0;
  for (size_t a = 256; a <= kMiB; a *= 2, ++k) {
    // Push the next block off any natural alignment first.
    void* pad = gshmem_malloc(777 + 1000 * k);
    GT_CHECK(pad != nullptr);
    const size_t size = a / 2 + 13 + k;
    set_context("gshmem_align(%zu, %zu)", a, size);
    void* p = gshmem_align(a, size);
    GT_CHECK(p != nullptr);
    GT_CHECK_EQ(static_cast<uintptr_t>(0), reinterpret_cast<uintptr_t>(p) % a);
    if (p) {
      blocks.push_back(p);
      sizes.push_back(size);
    }
    if (pad) blocks.push_back(pad), sizes.push_back(777 + 1000 * k);
  }
  // All live at once: every aligned block is usable remotely and none overlaps another.
  for (size_t i = 0; i < blocks.size(); ++i) remote_write_verify(blocks[i], sizes[i], i % 2 == 1, "aligned block");
  set_context("aligned blocks do not overlap");
  std::vector<std::pair<uintptr_t, size_t>> r;
  for (size_t i = 0; i < blocks.size(); ++i) r.emplace_back(reinterpret_cast<uintptr_t>(blocks[i]), sizes[i]);
  std::sort(r.begin(), r.end());
  for (size_t i = 1; i < r.size(); ++i) GT_CHECK(r[i - 1].first + r[i - 1].second <= r[i].first);
  for (void* p : blocks) gshmem_free(p);
  set_context("gshmem_align(3, 100): alignment not a power of two");
  void* bad = gshmem_align(3, 100);
  GT_CHECK(bad == nullptr);
}

// ------------------------------------------------------------------ reuse
void reuse_tests() {
  set_context("malloc/free/malloc reuses the offset");
  void* p1 = gshmem_malloc(12345);
  GT_CHECK(p1 != nullptr);
  gshmem_free(p1);
  void* p2 = gshmem_malloc(12345);
  GT_CHECK_EQ(p1, p2);
  set_context("malloc/free/malloc reuses a hole between live blocks");
  void* a = gshmem_malloc(1000);
  void* b = gshmem_malloc(5000);
  gshmem_free(a);
  void* c = gshmem_malloc(1000);
  GT_CHECK_EQ(a, c);
  remote_write_verify(c, 1000, false, "reused block");
  remote_write_verify(b, 5000, true, "neighbour of the reused block");
  gshmem_free(b);
  gshmem_free(c);
  gshmem_free(p2);
}

// ------------------------------------------------------------------ many odd sizes
void many_tests() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  constexpr int kBlocks = 160;
  std::vector<unsigned char*> p(kBlocks, nullptr);
  std::vector<size_t> sz(kBlocks);
  for (int i = 0; i < kBlocks; ++i) {
    const uint64_t h = hash3(0, i, 4242);  // same sizes on every PE
    sz[i] = (i % 5 == 0) ? 1 + h % 7 : 1 + h % (i % 3 == 0 ? 200000 : 3000);
    p[i] = static_cast<unsigned char*>(gshmem_malloc(sz[i]));
    set_context("many: block %d of %zu bytes", i, sz[i]);
    GT_CHECK(p[i] != nullptr);
    if (i % 4 == 3) {  // free some along the way: later blocks fill the holes
      gshmem_free(p[i - 2]);
      p[i - 2] = static_cast<unsigned char*>(gshmem_malloc(sz[i - 2]));
      GT_CHECK(p[i - 2] != nullptr);
    }
  }
  set_context("many: live blocks are disjoint");
  std::vector<std::pair<uintptr_t, size_t>> r;
  for (int i = 0; i < kBlocks; ++i)
    if (p[i]) r.emplace_back(reinterpret_cast<uintptr_t>(p[i]), sz[i]);
  std::sort(r.begin(), r.end());
  for (size_t i = 1; i < r.size(); ++i) GT_CHECK(r[i - 1].first + r[i - 1].second <= r[i].first);

  // Every block written by the previous PE (all of them first, then all checked: overlaps would show).
  const uint64_t salt = ++g_salt;
  for (int i = 0; i < kBlocks; ++i)
    if (p[i]) poison_device(p[i], sz[i]);
  gshmem_barrier_all();
  unsigned char* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, 200001));
  for (int i = 0; i < kBlocks; ++i) {
    if (!p[i]) continue;
    fill_device(src, sz[i], me, salt + i);
    if (i % 2)
      gshmem_putmem(p[i], src, sz[i], next);
    else {
      k_put_chunks<<<4, 128>>>(p[i], src, sz[i], 4096, next);
      KERNEL_CHECK();
    }
  }
  gshmem_barrier_all();
  std::vector<unsigned char> h(200001);
  for (int i = 0; i < kBlocks; ++i) {
    if (!p[i]) continue;
    set_context("many: block %d of %zu bytes at %p, written by the previous PE", i, sz[i], p[i]);
    CUDA_CHECK(cudaMemcpy(h.data(), p[i], sz[i], cudaMemcpyDeviceToHost));
    GT_VERIFY("block", h.data(), sz[i], [&](size_t j) { return value<unsigned char>(prev, j, salt + i); });
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(src));
  // Free in a scrambled order; then everything coalesces into one big block again.
  for (int k = 0; k < kBlocks; ++k) {
    const int i = (k * 37) % kBlocks;  // 37 is coprime with 160: a permutation
    gshmem_free(p[i]);
  }
  size_t total = 0;
  for (size_t s : sz) total += s;
  set_context("many: one block as large as all of them after freeing them");
  void* big = gshmem_malloc(total);
  GT_CHECK(big != nullptr);
  if (big) remote_write_verify(big, total, false, "block after coalescing");
  gshmem_free(big);
}

// ------------------------------------------------------------------ gshmem_ptr
__global__ void k_store_through_ptr(int* buf, size_t n, int pe, uint64_t salt, void* host_view, DevErrors* err) {
  int* q = static_cast<int*>(gshmem_ptr(buf, pe));
  if (q == nullptr || q != host_view) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      dev_fail(err, reinterpret_cast<uintptr_t>(q), static_cast<unsigned long long>(pe),
               reinterpret_cast<uintptr_t>(host_view), reinterpret_cast<uintptr_t>(q));
    return;
  }
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    q[i] = value<int>(gshmem_my_pe(), i, salt);  // plain stores
}

// Plain kernel (no gshmem call) storing through an address the host got from gshmem_ptr.
__global__ void k_plain_store(int* q, size_t n, int me, uint64_t salt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    q[i] = value<int>(me, i, salt);
}

void ptr_tests() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  constexpr size_t n = 100003;
  Guarded g = make_symmetric(n * sizeof(int));
  int* buf = g.at<int>(0);
  set_context("gshmem_ptr on the host");
  std::vector<void*> views(npes);
  for (int pe = 0; pe < npes; ++pe) {
    views[pe] = gshmem_ptr(buf, pe);
    GT_CHECK(views[pe] != nullptr);  // every PE of this job is on this node
  }
  GT_CHECK_EQ(static_cast<void*>(buf), views[me]);
  for (int pe = 0; pe < npes; ++pe)
    for (int q = pe + 1; q < npes; ++q) GT_CHECK(views[pe] != views[q]);

  DevErrorsHost err;
  for (int round = 0; round < 2; ++round) {
    const uint64_t salt = ++g_salt;
    set_context("stores through %s gshmem_ptr(buf, next)", round == 0 ? "device" : "host");
    poison_device(g.base, g.bytes);
    gshmem_barrier_all();
    if (round == 0)
      k_store_through_ptr<<<64, 256>>>(buf, n, next, salt, views[next], err.d);
    else
      k_plain_store<<<64, 256>>>(static_cast<int*>(views[next]), n, me, salt);
    KERNEL_CHECK();
    err.check("pointer", "pe", __FILE__, __LINE__);
    gshmem_barrier_all();
    GT_VERIFY_GUARDED(int, g, 0, n, [&](size_t i) { return value<int>(prev, i, salt); });
    gshmem_barrier_all();
  }
  release(g);
}

// ------------------------------------------------------------------ ptr / team_ptr bounds
// out[0..3]: ptr(buf, npes), ptr(outside, next), team_ptr(team, buf, i) for i = 0,
// team_ptr(GSHMEM_TEAM_INVALID, buf, 0); out[4 + i]: team_ptr(team, buf, i), i < team size + 1.
__global__ void k_ptr_answers(const int* buf, const int* outside, int npes, int next, gshmem_team_t team, int tsize,
                              void** out) {
  out[0] = gshmem_ptr(buf, npes);
  out[1] = gshmem_ptr(outside, next);
  out[2] = gshmem_ptr(buf, -1);
  out[3] = gshmem_team_ptr(GSHMEM_TEAM_INVALID, buf, 0);
  for (int i = 0; i <= tsize; ++i) out[4 + i] = gshmem_team_ptr(team, buf, i);
}

void ptr_bounds_tests() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes;
  Guarded g = make_symmetric(4099 * sizeof(int));
  int* buf = g.at<int>(0);
  int* outside = nullptr;
  CUDA_CHECK(cudaMalloc(&outside, 64));
  set_context("gshmem_pe_accessible / gshmem_addr_accessible");
  for (int pe = 0; pe < npes; ++pe) {
    GT_CHECK_EQ(1, gshmem_pe_accessible(pe));
    GT_CHECK_EQ(1, gshmem_addr_accessible(buf, pe));
    GT_CHECK_EQ(1, gshmem_addr_accessible(buf + 4098, pe));
    GT_CHECK_EQ(0, gshmem_addr_accessible(outside, pe));
  }
  GT_CHECK_EQ(0, gshmem_pe_accessible(-1));
  GT_CHECK_EQ(0, gshmem_pe_accessible(npes));
  GT_CHECK_EQ(0, gshmem_addr_accessible(buf, npes));

  set_context("gshmem_ptr / gshmem_team_ptr out of range (host)");
  GT_CHECK(gshmem_ptr(outside, next) == nullptr);
  // Team of the even world PEs (stride 2): team PE i is world PE 2i.
  gshmem_team_t even = GSHMEM_TEAM_INVALID;
  const int tsize = (npes + 1) / 2;
  GT_CHECK_STATUS(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, tsize, nullptr, 0, &even));
  for (int pe = 0; pe < npes; ++pe) GT_CHECK_EQ(gshmem_ptr(buf, pe), gshmem_team_ptr(GSHMEM_TEAM_WORLD, buf, pe));
  GT_CHECK(gshmem_team_ptr(GSHMEM_TEAM_WORLD, buf, npes) == nullptr);
  GT_CHECK(gshmem_team_ptr(GSHMEM_TEAM_WORLD, buf, -1) == nullptr);
  GT_CHECK(gshmem_team_ptr(GSHMEM_TEAM_INVALID, buf, 0) == nullptr);
  GT_CHECK(gshmem_team_ptr(GSHMEM_TEAM_WORLD, outside, 0) == nullptr);
  if (me % 2 == 0) {
    for (int i = 0; i < tsize; ++i) GT_CHECK_EQ(gshmem_ptr(buf, 2 * i), gshmem_team_ptr(even, buf, i));
    GT_CHECK(gshmem_team_ptr(even, buf, tsize) == nullptr);
  } else {
    GT_CHECK(gshmem_team_ptr(even, buf, 0) == nullptr);  // not a member: invalid team here
  }

  set_context("gshmem_ptr / gshmem_team_ptr out of range (device, same answers as the host)");
  void** d_out = nullptr;
  const int nout = 4 + tsize + 1;
  CUDA_CHECK(cudaMalloc(&d_out, nout * sizeof(void*)));
  CUDA_CHECK(cudaMemset(d_out, 0x5A, nout * sizeof(void*)));  // poison: not NULL, not a pointer we expect
  k_ptr_answers<<<1, 1>>>(buf, outside, npes, next, me % 2 == 0 ? even : GSHMEM_TEAM_WORLD, tsize, d_out);
  KERNEL_CHECK();
  std::vector<void*> h(nout);
  CUDA_CHECK(cudaMemcpy(h.data(), d_out, nout * sizeof(void*), cudaMemcpyDeviceToHost));
  GT_CHECK(h[0] == nullptr);
  GT_CHECK(h[1] == nullptr);
  GT_CHECK(h[2] == nullptr);
  GT_CHECK(h[3] == nullptr);
  for (int i = 0; i <= tsize; ++i) {
    void* expect = me % 2 == 0 ? gshmem_team_ptr(even, buf, i) : gshmem_team_ptr(GSHMEM_TEAM_WORLD, buf, i);
    GT_CHECK_EQ(expect, h[4 + i]);
  }
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(outside));
  if (even != GSHMEM_TEAM_INVALID) gshmem_team_destroy(even);
  release(g);
}

// ------------------------------------------------------------------ realloc / hints
// The first n bytes of `block` hold the pattern remote_write_verify left (uint32 words of
// the previous PE with salt `salt`, then 0x3C bytes for an odd tail of the original size).
void check_kept(const void* block, size_t n, uint64_t salt, const char* what) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  set_context("%s: the first %zu bytes kept their contents", what, n);
  const size_t words = n / sizeof(uint32_t);
  DevErrorsHost err;
  if (words) {
    k_check_pattern<uint32_t><<<grid_for(words), 256>>>(static_cast<const uint32_t*>(block), words, prev, salt, err.d);
    KERNEL_CHECK();
  }
  err.check("word", "from PE", __FILE__, __LINE__);
}

void realloc_tests(bool fixed_heap, uint64_t initial, uint64_t max) {
  constexpr size_t n1 = 100003 * 4, n2 = 3 * n1 + 20, n3 = 4097 * 4;
  set_context("gshmem_realloc(NULL, %zu) allocates", n1);
  void* p = gshmem_realloc(nullptr, n1);
  GT_CHECK(p != nullptr);
  if (!p) return;
  remote_write_verify(p, n1, false, "block from realloc(NULL)");
  const uint64_t s1 = g_salt;

  set_context("gshmem_realloc grows %zu -> %zu bytes", n1, n2);
  void* q = gshmem_realloc(p, n2);
  GT_CHECK(q != nullptr);
  if (!q) return;
  check_kept(q, n1, s1, "realloc grow");
  remote_write_verify(q, n2, true, "grown block");
  const uint64_t s2 = g_salt;

  const uint64_t limit = fixed_heap ? initial : max;
  set_context("gshmem_realloc beyond the limit (%llu bytes) fails on every PE", (unsigned long long)limit);
  void* big = gshmem_realloc(q, limit + 64 * kMiB);
  GT_CHECK(big == nullptr);
  check_kept(q, n2, s2, "realloc that failed");

  set_context("gshmem_realloc shrinks %zu -> %zu bytes", n2, n3);
  void* r = gshmem_realloc(q, n3);
  GT_CHECK(r != nullptr);
  if (!r) return;
  check_kept(r, n3, s2, "realloc shrink");
  remote_write_verify(r, n3, false, "shrunk block");

  set_context("gshmem_realloc(p, 0) frees and returns NULL");
  GT_CHECK(gshmem_realloc(r, 0) == nullptr);
  // The freed space is reused: the next allocation of that size succeeds and works.
  void* again = gshmem_malloc(n3);
  GT_CHECK(again != nullptr);
  if (again) remote_write_verify(again, n3, true, "block after realloc(p, 0)");
  gshmem_free(again);

  set_context("gshmem_malloc_with_hints");
  for (long hints : {0L, GSHMEM_MALLOC_ATOMICS_REMOTE, GSHMEM_MALLOC_SIGNAL_REMOTE,
                     GSHMEM_MALLOC_ATOMICS_REMOTE | GSHMEM_MALLOC_SIGNAL_REMOTE}) {
    void* h = gshmem_malloc_with_hints(65537, hints);
    GT_CHECK(h != nullptr);
    if (h) remote_write_verify(h, 65537, hints % 2 == 0, "block from malloc_with_hints");
    gshmem_free(h);
  }
}

// ------------------------------------------------------------------ calls that return NULL
// Every PE got NULL (`got_null` on this PE): the results are exchanged through a fresh
// (small) allocation.
void every_pe_got_null(bool got_null, const char* what) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  int* votes = static_cast<int*>(gshmem_calloc(npes, sizeof(int)));
  GT_CHECK(votes != nullptr);
  if (!votes) return;
  for (int pe = 0; pe < npes; ++pe) gshmem_int_p(&votes[me], got_null ? 1 : 2, pe);
  gshmem_barrier_all();
  std::vector<int> h(npes);
  CUDA_CHECK(cudaMemcpy(h.data(), votes, npes * sizeof(int), cudaMemcpyDeviceToHost));
  set_context("%s: every PE got NULL (1 = NULL, 2 = a pointer, 0 = no vote)", what);
  GT_VERIFY("vote of PE", h.data(), static_cast<size_t>(npes), [](size_t) { return 1; });
  gshmem_free(votes);
}

// A request of 0 bytes performs no action and returns NULL (OpenSHMEM): PE 0 alone makes
// such calls, and the collective calls after them still pair up. An alignment that is not
// a power of two gives NULL on every PE.
void zero_and_bad_alignment_tests() {
  set_context("zero-size requests on PE 0 alone: NULL, no communication");
  if (gshmem_my_pe() == 0) {
    GT_CHECK(gshmem_malloc(0) == nullptr);
    GT_CHECK(gshmem_calloc(0, 8) == nullptr);
    GT_CHECK(gshmem_calloc(8, 0) == nullptr);
    GT_CHECK(gshmem_align(256, 0) == nullptr);
    GT_CHECK(gshmem_realloc(nullptr, 0) == nullptr);
    GT_CHECK(gshmem_malloc_with_hints(0, GSHMEM_MALLOC_SIGNAL_REMOTE) == nullptr);
  }
  void* p = gshmem_malloc(4099);
  GT_CHECK(p != nullptr);
  if (p) remote_write_verify(p, 4099, false, "block after zero-size requests on PE 0");
  gshmem_free(p);
  for (size_t alignment : {size_t{0}, size_t{3}, size_t{4096 + 256}}) {
    set_context("gshmem_align(%zu, 64)", alignment);
    every_pe_got_null(gshmem_align(alignment, 64) == nullptr, "alignment not a power of two");
  }
}

// Symmetric allocation calls that differ between PEs (odd PEs against even ones): NULL,
// or nothing freed, on every PE - never a hang or offsets that differ afterwards.
void mismatch_tests() {
  const bool odd = gshmem_my_pe() % 2 == 1;
  set_context("mismatch: gshmem_malloc(4096) on odd PEs, gshmem_malloc(4097) on even ones");
  every_pe_got_null(gshmem_malloc(odd ? 4096 : 4097) == nullptr, "sizes differ");
  set_context("mismatch: gshmem_calloc(1, 8192) on odd PEs, gshmem_malloc(8192) on even ones");
  every_pe_got_null((odd ? gshmem_calloc(1, 8192) : gshmem_malloc(8192)) == nullptr, "calloc against malloc");
  set_context("mismatch: gshmem_align(4096, 8192) on odd PEs, gshmem_malloc(8192) on even ones");
  every_pe_got_null((odd ? gshmem_align(4096, 8192) : gshmem_malloc(8192)) == nullptr, "align against malloc");
  set_context("mismatch: gshmem_calloc whose count x size overflows on odd PEs, gshmem_calloc(1, 64) on even ones");
  every_pe_got_null((odd ? gshmem_calloc(SIZE_MAX / 2, 4) : gshmem_calloc(1, 64)) == nullptr, "calloc overflow");
  set_context("gshmem_calloc whose count x size overflows on every PE");
  every_pe_got_null(gshmem_calloc(SIZE_MAX / 2, 4) == nullptr, "calloc overflow everywhere");

  constexpr size_t n = 65536 + 12;
  void* p = gshmem_malloc(n);
  GT_CHECK(p != nullptr);
  if (!p) return;
  remote_write_verify(p, n, true, "block before the free/realloc mismatch");
  const uint64_t salt = g_salt;
  set_context("mismatch: gshmem_free(p) on odd PEs, gshmem_realloc(p, 2n) on even ones");
  if (odd)
    gshmem_free(p);
  else
    every_pe_got_null(gshmem_realloc(p, 2 * n) == nullptr, "free against realloc (even PEs)");
  if (odd) every_pe_got_null(true, "free against realloc (even PEs)");  // the same collective calls
  check_kept(p, n, salt, "block after the free/realloc mismatch");
  remote_write_verify(p, n, false, "block after the free/realloc mismatch");
  gshmem_free(p);
  // Offsets still agree: a new block is written remotely and verified where each PE has it.
  void* q = gshmem_malloc(3 * n);
  GT_CHECK(q != nullptr);
  if (q) remote_write_verify(q, 3 * n, true, "block allocated after the mismatches");
  gshmem_free(q);
}

// ------------------------------------------------------------------ growth
void growth_tests(bool fixed_heap, uint64_t initial) {
  constexpr size_t kBlock = 48 * kMiB;
  std::vector<void*> blocks;
  for (int i = 0; i < 3; ++i) {
    set_context("growth: block %d of 48 MiB (initial heap %llu bytes%s)", i, (unsigned long long)initial,
                fixed_heap ? ", fixed size" : "");
    void* p = gshmem_malloc(kBlock);
    GT_CHECK(p != nullptr);
    if (!p) break;
    blocks.push_back(p);
    remote_write_verify(p, kBlock, false, "new 48 MiB block");
    remote_write_verify(static_cast<char*>(p) + 12344, 1 * kMiB + 3, true, "inside the new block");
    // Earlier blocks survived the growth and are still reachable.
    for (size_t j = 0; j + 1 < blocks.size(); ++j) remote_write_verify(blocks[j], kBlock, j % 2 == 0, "older block");
  }
  // The last 48 MiB block is reachable to its last byte from the device of the other PEs.
  if (!blocks.empty())
    remote_write_verify(static_cast<char*>(blocks.back()) + kBlock - 4096, 4096, false, "last page of the heap block");
  for (void* p : blocks) gshmem_free(p);
}

// ------------------------------------------------------------------ exhaustion
void exhaustion_tests(bool fixed_heap, uint64_t initial, uint64_t max) {
  const uint64_t limit = fixed_heap ? initial : max;
  const uint64_t request = limit + 64 * kMiB;
  set_context("exhaustion: gshmem_malloc(%llu) beyond the limit %llu", (unsigned long long)request,
              (unsigned long long)limit);
  void* p = gshmem_malloc(request);
  GT_CHECK(p == nullptr);
  void* q = gshmem_calloc(request / 8, 8);
  GT_CHECK(q == nullptr);
  void* r = gshmem_align(4096, request);
  GT_CHECK(r == nullptr);
  every_pe_got_null(p == nullptr && q == nullptr && r == nullptr, "exhaustion");
  // The heap still works, and memory up to the limit can still be used.
  set_context("after exhaustion: the heap still works");
  void* s = gshmem_malloc(kMiB + 17);
  GT_CHECK(s != nullptr);
  if (s) remote_write_verify(s, kMiB + 17, false, "block allocated after exhaustion");
  gshmem_free(s);
  if (limit >= 256 * kMiB) {
    set_context("after exhaustion: a 96 MiB block");
    void* big = gshmem_malloc(96 * kMiB);
    GT_CHECK(big != nullptr);
    if (big) remote_write_verify(big, 96 * kMiB, true, "96 MiB block after exhaustion");
    gshmem_free(big);
  }
  if (fixed_heap) {
    set_context("fixed-size heap: no growth beyond GSHMEM_SYMMETRIC_SIZE");
    void* t = gshmem_malloc(initial);  // the internal objects already use part of it
    GT_CHECK(t == nullptr);
    gshmem_free(t);
  }
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  const bool fixed_heap = env_true("GSHMEM_DISABLE_VMM");
  const uint64_t initial = env_size("GSHMEM_SYMMETRIC_SIZE", 1ull << 30);
  const uint64_t max = env_size("GSHMEM_SYMMETRIC_SIZE_MAX", 64ull << 30);
  if (gshmem_my_pe() == 0)
    emit(stdout, "heap test: %s heap, GSHMEM_SYMMETRIC_SIZE=%llu, GSHMEM_SYMMETRIC_SIZE_MAX=%llu\n",
         fixed_heap ? "fixed-size (IPC)" : "growable (VMM)", (unsigned long long)initial, (unsigned long long)max);

  calloc_tests();
  align_tests();
  reuse_tests();
  many_tests();
  ptr_tests();
  ptr_bounds_tests();
  realloc_tests(fixed_heap, initial, max);
  zero_and_bad_alignment_tests();
  mismatch_tests();
  if (!fixed_heap || initial >= 160 * kMiB) growth_tests(fixed_heap, initial);
  exhaustion_tests(fixed_heap, initial, max);
  return test_main_epilogue(fixed_heap ? "heap_ipc" : "heap");
}
