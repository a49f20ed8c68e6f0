// SPDX-License-Identifier: BSD-3-Clause
// The memory-ordering primitives of the device API, one per kernel, compiled to PTX only
// (never run): check_ptx.py reads the PTX and checks that each kernel holds the
// instructions docs/memory-model.md promises for it, and none that it rules out. Its
// table names these kernels; a kernel added here needs a row there (the checker fails
// on a kernel without one, and on a row without a kernel).
//
// Each kernel is extern "C" (one unmangled .entry per primitive) and passes the choices
// a caller would make at compile time (sig_op, set size) as constants, so that each
// entry holds one path; where the choice is a run-time value (the C API), the entry
// named *_rt holds every path.
#include <gshmem/gshmem.h>

#include <cstddef>
#include <cstdint>

using gshmem::block_scope;
using gshmem::cmp;
using gshmem::thread_scope;
using gshmem::warp_scope;
namespace gd = gshmem::detail;

#define CG extern "C" __global__ void

// ---- the named wrappers of impl/memops.cuh (everything ordering goes through them) ----
CG cg_ld_acquire_sys(const uint64_t* p, uint64_t* out) { *out = gd::ld_acquire_sys(p); }
CG cg_ld_acquire_sys_global(const uint64_t* p, uint64_t* out) { *out = gd::ld_acquire_sys_global(p); }
CG cg_ld_acquire_b8(const uint8_t* p, uint8_t* out) { *out = gd::ld_acquire(p); }
CG cg_ld_acquire_b16(const uint16_t* p, uint16_t* out) { *out = gd::ld_acquire(p); }
CG cg_ld_acquire_b32(const uint32_t* p, uint32_t* out) { *out = gd::ld_acquire(p); }
CG cg_ld_acquire_b64(const uint64_t* p, uint64_t* out) { *out = gd::ld_acquire(p); }
CG cg_ld_relaxed_sys(const uint64_t* p, uint64_t* out) { *out = gd::ld_relaxed_sys(p); }
CG cg_st_release_sys(uint64_t* p, uint64_t v) { gd::st_release_sys(p, v); }
CG cg_st_relaxed_sys(uint64_t* p, uint64_t v) { gd::st_relaxed_sys(p, v); }
CG cg_ld_relaxed_sys_v2(const uint64_t* p, uint64_t* out) {
  uint64_t a, b;
  gd::ld_relaxed_sys_v2(p, a, b);
  out[0] = a;
  out[1] = b;
}
CG cg_st_relaxed_sys_v2(uint64_t* p, uint64_t a, uint64_t b) { gd::st_relaxed_sys_v2(p, a, b); }
CG cg_red_add_relaxed_sys_u32(uint32_t* p, uint32_t v) { gd::red_add_relaxed_sys(p, v); }
CG cg_red_add_relaxed_sys_u64(uint64_t* p, uint64_t v) { gd::red_add_relaxed_sys(p, v); }
CG cg_red_add_release_sys_u32(uint32_t* p, uint32_t v) { gd::red_add_release_sys(p, v); }
CG cg_red_add_release_sys_u64(uint64_t* p, uint64_t v) { gd::red_add_release_sys(p, v); }
CG cg_fence_acq_rel_sys() { gd::fence_acq_rel_sys(); }
CG cg_fence_sc_sys() { gd::fence_sc_sys(); }

// ---- RMA ----
CG cg_p(int* dest, int v, int pe) { gshmem::p(dest, v, pe); }
CG cg_g(const int* src, int pe, int* out) { *out = gshmem::g(src, pe); }
CG cg_put(int* dest, const int* src, size_t n, int pe) { gshmem::put<thread_scope>(dest, src, n, pe); }
CG cg_putmem_nbi_block(void* dest, const void* src, size_t bytes, int pe) {
  gshmem::putmem_nbi<block_scope>(dest, src, bytes, pe);
}
CG cg_get(int* dest, const int* src, size_t n, int pe) { gshmem::get<thread_scope>(dest, src, n, pe); }

// ---- fence / quiet ----
CG cg_fence() { gshmem::fence(); }
CG cg_quiet() { gshmem::quiet<thread_scope>(); }
CG cg_quiet_warp() { gshmem::quiet<warp_scope>(); }
CG cg_quiet_block() { gshmem::quiet<block_scope>(); }

// ---- AMOs ----
CG cg_atomic_fetch(const int* src, int pe, int* out) { *out = gshmem::atomic_fetch(src, pe); }
CG cg_atomic_set(int* dest, int v, int pe) { gshmem::atomic_set(dest, v, pe); }
CG cg_atomic_swap(int* dest, int v, int pe, int* out) { *out = gshmem::atomic_swap(dest, v, pe); }
CG cg_atomic_compare_swap(long long* dest, long long c, long long v, int pe, long long* out) {
  *out = gshmem::atomic_compare_swap(dest, c, v, pe);
}
CG cg_atomic_fetch_add(int* dest, int v, int pe, int* out) { *out = gshmem::atomic_fetch_add(dest, v, pe); }
CG cg_atomic_fetch_inc(uint64_t* dest, int pe, uint64_t* out) { *out = gshmem::atomic_fetch_inc(dest, pe); }
CG cg_atomic_add(int* dest, int v, int pe) { gshmem::atomic_add(dest, v, pe); }
CG cg_atomic_inc(uint64_t* dest, int pe) { gshmem::atomic_inc(dest, pe); }
CG cg_atomic_fetch_and(unsigned* dest, unsigned v, int pe, unsigned* out) {
  *out = gshmem::atomic_fetch_and(dest, v, pe);
}
CG cg_atomic_fetch_or(unsigned* dest, unsigned v, int pe, unsigned* out) {
  *out = gshmem::atomic_fetch_or(dest, v, pe);
}
CG cg_atomic_fetch_xor(unsigned* dest, unsigned v, int pe, unsigned* out) {
  *out = gshmem::atomic_fetch_xor(dest, v, pe);
}
CG cg_atomic_xor(unsigned* dest, unsigned v, int pe) { gshmem::atomic_xor(dest, v, pe); }
CG cg_atomic_swap_double(double* dest, double v, int pe, double* out) { *out = gshmem::atomic_swap(dest, v, pe); }

// ---- signals ----
CG cg_put_signal_set(int* dest, const int* src, size_t n, uint64_t* sig, uint64_t v, int pe) {
  gshmem::put_signal<thread_scope>(dest, src, n, sig, v, GSHMEM_SIGNAL_SET, pe);
}
CG cg_put_signal_add(int* dest, const int* src, size_t n, uint64_t* sig, uint64_t v, int pe) {
  gshmem::put_signal<thread_scope>(dest, src, n, sig, v, GSHMEM_SIGNAL_ADD, pe);
}
CG cg_putmem_signal_nbi_warp_add(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t v, int pe) {
  gshmem::putmem_signal_nbi<warp_scope>(dest, src, bytes, sig, v, GSHMEM_SIGNAL_ADD, pe);
}
CG cg_putmem_signal_nbi_block_set(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t v, int pe) {
  gshmem::putmem_signal_nbi<block_scope>(dest, src, bytes, sig, v, GSHMEM_SIGNAL_SET, pe);
}
CG cg_putmem_signal_nbi_rt(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t v, int op, int pe) {
  gshmem_putmem_signal_nbi(dest, src, bytes, sig, v, op, pe);
}
CG cg_signal_op_set(uint64_t* sig, uint64_t v, int pe) { gshmem::signal_op(sig, v, GSHMEM_SIGNAL_SET, pe); }
CG cg_signal_op_add(uint64_t* sig, uint64_t v, int pe) { gshmem::signal_op(sig, v, GSHMEM_SIGNAL_ADD, pe); }
CG cg_signal_fetch(const uint64_t* sig, uint64_t* out) { *out = gshmem::signal_fetch(sig); }
CG cg_signal_wait_until(uint64_t* sig, cmp c, uint64_t v, uint64_t* out) {
  *out = gshmem::signal_wait_until(sig, c, v);
}

// ---- waits and tests (a set of 4: acquire loads; of 8: relaxed scan; _rt: n at run time) ----
CG cg_wait_until(int* ivar, cmp c, int v) { gshmem::wait_until(ivar, c, v); }
CG cg_test(int* ivar, cmp c, int v, bool* out) { *out = gshmem::test(ivar, c, v); }
CG cg_wait_until_all_4(int* ivars, const int* status, cmp c, int v) { gshmem::wait_until_all(ivars, 4, status, c, v); }
CG cg_wait_until_any_4(int* ivars, const int* status, cmp c, int v, size_t* out) {
  *out = gshmem::wait_until_any(ivars, 4, status, c, v);
}
CG cg_wait_until_all_8(int* ivars, const int* status, cmp c, int v) { gshmem::wait_until_all(ivars, 8, status, c, v); }
CG cg_wait_until_all_vector_8(int* ivars, const int* status, cmp c, const int* vals) {
  gshmem::wait_until_all_vector(ivars, 8, status, c, vals);
}
CG cg_wait_until_some_8(int* ivars, size_t* idx, const int* status, cmp c, int v, size_t* out) {
  *out = gshmem::wait_until_some(ivars, 8, idx, status, c, v);
}
CG cg_wait_until_any_8(int* ivars, const int* status, cmp c, int v, size_t* out) {
  *out = gshmem::wait_until_any(ivars, 8, status, c, v);
}
CG cg_test_all_8(int* ivars, const int* status, cmp c, int v, bool* out) {
  *out = gshmem::test_all(ivars, 8, status, c, v);
}
CG cg_test_any_8(int* ivars, const int* status, cmp c, int v, size_t* out) {
  *out = gshmem::test_any(ivars, 8, status, c, v);
}
CG cg_wait_until_all_rt(int* ivars, size_t n, const int* status, cmp c, int v) {
  gshmem::wait_until_all(ivars, n, status, c, v);
}

// ---- sync and barriers ----
CG cg_sync_all() { gshmem::sync_all<thread_scope>(); }
CG cg_sync_all_block() { gshmem::sync_all<block_scope>(); }
CG cg_barrier_all() { gshmem::barrier_all<thread_scope>(); }
CG cg_barrier_all_block() { gshmem::barrier_all<block_scope>(); }
CG cg_team_sync(gshmem_team_t team, int* out) { *out = gshmem::team_sync<thread_scope>(team); }
CG cg_barrier(gshmem_team_t team, int* out) { *out = gshmem::barrier<thread_scope>(team); }

// ---- collectives (the message size is a run-time value: the LL path and the larger one) ----
CG cg_reduce(gshmem_team_t team, int* dest, const int* src, size_t n, int* out) {
  *out = gshmem::reduce<gshmem::op::sum, thread_scope>(team, dest, src, n);
}
CG cg_reduce_block(gshmem_team_t team, float* dest, const float* src, size_t n, int* out) {
  *out = gshmem::reduce<gshmem::op::sum, block_scope>(team, dest, src, n);
}
CG cg_broadcast(gshmem_team_t team, int* dest, const int* src, size_t n, int root, int* out) {
  *out = gshmem::broadcast<thread_scope>(team, dest, src, n, root);
}
CG cg_fcollect_warp(gshmem_team_t team, int* dest, const int* src, size_t n, int* out) {
  *out = gshmem::fcollect<warp_scope>(team, dest, src, n);
}
CG cg_alltoall_block(gshmem_team_t team, int* dest, const int* src, size_t n, int* out) {
  *out = gshmem::alltoall<block_scope>(team, dest, src, n);
}

// ---- the C names behind the same calls ----
CG cg_c_fence() { gshmem_fence(); }
CG cg_c_quiet() { gshmem_quiet(); }
CG cg_c_int_wait_until(int* ivar, int c, int v) { gshmem_int_wait_until(ivar, c, v); }
CG cg_c_uint64_atomic_add(uint64_t* dest, uint64_t v, int pe) { gshmem_uint64_atomic_add(dest, v, pe); }
