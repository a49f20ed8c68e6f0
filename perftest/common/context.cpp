// SPDX-License-Identifier: BSD-3-Clause
// Ctx: buffers, cross-PE helpers and output (context.h).
#include "context.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <gshmem/gshmem.h>

#include "nccl.h"

namespace perf {

namespace {
constexpr size_t kGatherSlot = 256;
}

void Ctx::emit(FILE* f, const std::string& line) const {
  fflush(f);
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t w = write(fileno(f), p, left);
    if (w <= 0) break;
    p += w;
    left -= static_cast<size_t>(w);
  }
}

void Ctx::cuda(cudaError_t e, const char* what) const {
  if (e == cudaSuccess) return;
  char line[512];
  snprintf(line, sizeof(line), "gshmem-perf: PE %d: %s failed: %s (%s)%s%s\n", me, what, cudaGetErrorName(e),
           cudaGetErrorString(e), bench_name.empty() ? "" : " in benchmark ", bench_name.c_str());
  emit(stderr, line);
  exit(1);
}

void* Ctx::sym(int slot, size_t bytes) {
  if (slot < 0) slot = 0;
  if (sym_.size() <= static_cast<size_t>(slot)) sym_.resize(slot + 1);
  Buf& b = sym_[slot];
  if (bytes == 0) bytes = 1;
  if (b.p && b.bytes >= bytes) return b.p;
  if (b.p) gshmem_free(b.p);
  // Round up (1 MiB granularity above 1 MiB) so that a sweep does not reallocate each step.
  size_t want =
      bytes < (1u << 20) ? ((bytes + 255) & ~size_t(255)) : ((bytes + (1u << 20) - 1) & ~size_t((1u << 20) - 1));
  b.p = gshmem_malloc(want);
  b.bytes = want;
  if (!b.p) {
    char line[512];
    snprintf(line, sizeof(line),
             "gshmem-perf: PE %d: gshmem_malloc(%zu) for %s returned NULL: the symmetric heap is too small "
             "(raise GSHMEM_SYMMETRIC_SIZE / GSHMEM_SYMMETRIC_SIZE_MAX or lower -e)\n",
             me, want, bench_name.c_str());
    emit(stderr, line);
    exit(1);
  }
  return b.p;
}

void* Ctx::local(int slot, size_t bytes) {
  if (slot < 0) slot = 0;
  if (local_.size() <= static_cast<size_t>(slot)) local_.resize(slot + 1);
  Buf& b = local_[slot];
  if (bytes == 0) bytes = 1;
  if (b.p && b.bytes >= bytes) return b.p;
  if (b.p) cuda(cudaFree(b.p), "cudaFree");
  b.p = nullptr;
  cuda(cudaMalloc(&b.p, bytes), "cudaMalloc (benchmark buffer)");
  b.bytes = bytes;
  return b.p;
}

void Ctx::release() {
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  for (Buf& b : sym_)
    if (b.p) gshmem_free(b.p);
  for (Buf& b : local_)
    if (b.p) cuda(cudaFree(b.p), "cudaFree");
  sym_.clear();
  local_.clear();
}

void Ctx::barrier() { gshmem_barrier_all(); }

std::vector<unsigned char> Ctx::allgather(const void* mine, size_t bytes) {
  if (bytes > kGatherSlot) {
    emit(stderr, "gshmem-perf: internal error: allgather of more than 256 bytes\n");
    exit(1);
  }
  if (!gather_buf_) {
    gather_buf_ = gshmem_malloc(kGatherSlot * static_cast<size_t>(npes));
    if (!gather_buf_) {
      emit(stderr, "gshmem-perf: gshmem_malloc of the result-gathering buffer failed\n");
      exit(1);
    }
  }
  char* slot = static_cast<char*>(gather_buf_) + kGatherSlot * static_cast<size_t>(me);
  for (int pe = 0; pe < npes; ++pe) gshmem_putmem(slot, mine, bytes, pe);
  barrier();  // every PE's puts are complete and visible
  std::vector<unsigned char> all(kGatherSlot * static_cast<size_t>(npes));
  cuda(cudaMemcpy(all.data(), gather_buf_, all.size(), cudaMemcpyDeviceToHost), "cudaMemcpy (gather)");
  barrier();  // nobody overwrites the table before everyone read it
  std::vector<unsigned char> out(bytes * static_cast<size_t>(npes));
  for (int pe = 0; pe < npes; ++pe) memcpy(&out[bytes * pe], &all[kGatherSlot * pe], bytes);
  return out;
}

bool Ctx::all(bool mine) {
  const unsigned char v = mine ? 1 : 0;
  std::vector<unsigned char> all_v = allgather(&v, 1);
  for (unsigned char x : all_v)
    if (!x) return false;
  return true;
}

nccl::Comm* Ctx::nccl() {
  if (nccl_tried_) return nccl_;
  nccl_tried_ = true;
  if (opt.no_nccl) {
    nccl_note = "NCCL skipped (--no-nccl)";
    return nullptr;
  }
  nccl_ = nccl::create(*this, &nccl_note);
  return nccl_;
}

void finalize_ctx(Ctx& ctx) {
  ctx.release();
  if (ctx.nccl_) nccl::destroy(ctx.nccl_);
  ctx.nccl_ = nullptr;
  if (ctx.gather_buf_) gshmem_free(ctx.gather_buf_);
  ctx.gather_buf_ = nullptr;
}

Ctx::~Ctx() = default;

}  // namespace perf
