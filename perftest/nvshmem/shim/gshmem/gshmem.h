// SPDX-License-Identifier: BSD-3-Clause
// NOT gshmem: the part of gshmem's API that the perftest sources use, written on
// top of NVIDIA NVSHMEM's public API, so that the very same benchmark files build
// into gshmem-perf-nvshmem and time NVSHMEM with gshmem's methodology (same
// kernels, loops, sizes, timers and checks). Only perftest/nvshmem's target puts
// this directory on its include path, ahead of everything else; nothing here is
// part of the library. NVSHMEM's own headers and libraries come from the machine
// (GSHMEM_NVSHMEM_HOME); none of NVSHMEM's code is in this repository.
//
// Mapping (scope S = thread / warp / block picks NVSHMEM's plain / _warp / _block
// form): putmem, getmem, their _nbi forms, p, g, AMOs, signals, wait_until, fence;
// quiet<S>: the group synchronises, one thread calls nvshmem_quiet (which completes
// every operation of the PE), the group synchronises again; barrier_all, sync_all, barrier,
// team_sync, broadcast, fcollect, alltoall, reduce, reducescatter on a team;
// on-stream collectives and puts; collective launch; host RMA, malloc and init.
#pragma once

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

// ---- host ------------------------------------------------------------------------
typedef nvshmem_team_t gshmem_team_t;
#define GSHMEM_TEAM_WORLD NVSHMEM_TEAM_WORLD
#define GSHMEM_SIGNAL_SET NVSHMEM_SIGNAL_SET
#define GSHMEM_SIGNAL_ADD NVSHMEM_SIGNAL_ADD
// What report.cpp writes as the library of a run, and how it asks for its version.
#define GSHMEM_PERF_LIB "nvshmem"
#define GSHMEM_PERF_LIB_VERSION nvshmemx_vendor_get_version_info

// Initialises NVSHMEM from gshmrun's variables (GSHMEM_RANK / SIZE / LOCAL_RANK /
// UNIQUEID; or Open MPI's / torchrun's rank variables): PE 0 writes NVSHMEM's unique
// id to a file named after the job, the others read it (runtime.cpp). Exits with a
// message on failure.
void gshmem_init();
void gshmem_finalize();
const char* gshmemx_status_string(int status);

inline int gshmem_my_pe() { return nvshmem_my_pe(); }
inline int gshmem_n_pes() { return nvshmem_n_pes(); }
inline void* gshmem_malloc(size_t bytes) { return nvshmem_malloc(bytes); }
inline void gshmem_free(void* p) { nvshmem_free(p); }
inline void* gshmem_ptr(const void* p, int pe) { return nvshmem_ptr(p, pe); }
inline void gshmem_barrier_all() { nvshmem_barrier_all(); }
inline void gshmem_quiet() { nvshmem_quiet(); }
inline void gshmem_putmem(void* d, const void* s, size_t n, int pe) { nvshmem_putmem(d, s, n, pe); }
inline void gshmem_getmem(void* d, const void* s, size_t n, int pe) { nvshmem_getmem(d, s, n, pe); }
inline void gshmem_putmem_nbi(void* d, const void* s, size_t n, int pe) { nvshmem_putmem_nbi(d, s, n, pe); }
inline void gshmem_getmem_nbi(void* d, const void* s, size_t n, int pe) { nvshmem_getmem_nbi(d, s, n, pe); }
inline void gshmem_info_get_version(int* major, int* minor) { nvshmem_info_get_version(major, minor); }
inline int gshmemx_collective_launch(const void* k, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t s) {
  return nvshmemx_collective_launch(k, grid, block, args, shmem, s);
}

inline void gshmemx_putmem_on_stream(void* d, const void* s, size_t n, int pe, cudaStream_t st) {
  nvshmemx_putmem_on_stream(d, s, n, pe, st);
}
inline void gshmemx_float_put_on_stream(float* d, const float* s, size_t n, int pe, cudaStream_t st) {
  nvshmemx_float_put_on_stream(d, s, n, pe, st);
}

inline int gshmemx_barrier_all_on_stream(cudaStream_t s) { return nvshmemx_barrier_all_on_stream(s), 0; }
inline int gshmemx_sync_all_on_stream(cudaStream_t s) { return nvshmemx_sync_all_on_stream(s), 0; }
inline int gshmemx_quiet_on_stream(cudaStream_t s) { return nvshmemx_quiet_on_stream(s), 0; }
inline int gshmemx_barrier_on_stream(gshmem_team_t t, cudaStream_t s) { return nvshmemx_barrier_on_stream(t, s); }
inline int gshmemx_team_sync_on_stream(gshmem_team_t t, cudaStream_t s) { return nvshmemx_team_sync_on_stream(t, s); }

#define GSHMEM_SHIM_STREAM_COLL(NAME, T)                                                                         \
  inline int gshmemx_##NAME##_broadcast_on_stream(gshmem_team_t t, T* d, const T* s, size_t n, int root,         \
                                                  cudaStream_t st) {                                             \
    return nvshmemx_##NAME##_broadcast_on_stream(t, d, s, n, root, st);                                          \
  }                                                                                                              \
  inline int gshmemx_##NAME##_fcollect_on_stream(gshmem_team_t t, T* d, const T* s, size_t n, cudaStream_t st) { \
    return nvshmemx_##NAME##_fcollect_on_stream(t, d, s, n, st);                                                 \
  }                                                                                                              \
  inline int gshmemx_##NAME##_alltoall_on_stream(gshmem_team_t t, T* d, const T* s, size_t n, cudaStream_t st) { \
    return nvshmemx_##NAME##_alltoall_on_stream(t, d, s, n, st);                                                 \
  }
#define GSHMEM_SHIM_STREAM_REDUCE(NAME, T, OP)                                                                        \
  inline int gshmemx_##NAME##_##OP##_reduce_on_stream(gshmem_team_t t, T* d, const T* s, size_t n, cudaStream_t st) { \
    return nvshmemx_##NAME##_##OP##_reduce_on_stream(t, d, s, n, st);                                                 \
  }                                                                                                                   \
  inline int gshmemx_##NAME##_##OP##_reducescatter_on_stream(gshmem_team_t t, T* d, const T* s, size_t n,             \
                                                             cudaStream_t st) {                                       \
    return nvshmemx_##NAME##_##OP##_reducescatter_on_stream(t, d, s, n, st);                                          \
  }
#define GSHMEM_SHIM_STREAM_REDUCE_ARITH(NAME, T) \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, sum)        \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, prod)       \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, min)        \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, max)
#define GSHMEM_SHIM_STREAM_REDUCE_BITS(NAME, T) \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, and)       \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, or)        \
  GSHMEM_SHIM_STREAM_REDUCE(NAME, T, xor)
GSHMEM_SHIM_STREAM_COLL(int32, int32_t)
GSHMEM_SHIM_STREAM_COLL(int64, int64_t)
GSHMEM_SHIM_STREAM_COLL(float, float)
GSHMEM_SHIM_STREAM_COLL(double, double)
GSHMEM_SHIM_STREAM_REDUCE_ARITH(int32, int32_t)
GSHMEM_SHIM_STREAM_REDUCE_ARITH(int64, int64_t)
GSHMEM_SHIM_STREAM_REDUCE_ARITH(float, float)
GSHMEM_SHIM_STREAM_REDUCE_ARITH(double, double)
GSHMEM_SHIM_STREAM_REDUCE_BITS(int32, int32_t)
GSHMEM_SHIM_STREAM_REDUCE_BITS(int64, int64_t)

// ---- device ----------------------------------------------------------------------
#ifdef __CUDACC__
namespace gshmem {

namespace detail {
__device__ __forceinline__ int block_thread_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ __forceinline__ int block_thread_count() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }
}  // namespace detail

struct thread_scope {
  static __device__ int rank() { return 0; }
  static __device__ int size() { return 1; }
  static __device__ void sync() {}
};
struct warp_scope {
  static __device__ int rank() { return detail::block_thread_rank() & 31; }
  static __device__ int size() { return 32; }
  static __device__ void sync() { __syncwarp(); }
};
struct block_scope {
  static __device__ int rank() { return detail::block_thread_rank(); }
  static __device__ int size() { return detail::block_thread_count(); }
  static __device__ void sync() { __syncthreads(); }
};

namespace cmp {
constexpr int eq = NVSHMEM_CMP_EQ, ne = NVSHMEM_CMP_NE, gt = NVSHMEM_CMP_GT, ge = NVSHMEM_CMP_GE, lt = NVSHMEM_CMP_LT,
              le = NVSHMEM_CMP_LE;
}
namespace op {
struct sum {};
struct prod {};
struct min {};
struct max {};
struct and_ {};
struct or_ {};
struct xor_ {};
}  // namespace op

__device__ __forceinline__ int my_pe() { return nvshmem_my_pe(); }
__device__ __forceinline__ int n_pes() { return nvshmem_n_pes(); }
__device__ __forceinline__ void fence() { nvshmem_fence(); }
__device__ __forceinline__ void quiet() { nvshmem_quiet(); }
template <class S>
__device__ __forceinline__ void quiet() {
  if constexpr (std::is_same<S, thread_scope>::value) {
    nvshmem_quiet();
  } else {
    S::sync();  // the group's operations are issued; one quiet completes the PE's
    if (S::rank() == 0) nvshmem_quiet();
    S::sync();
  }
}

// Returns the call for scope S: NVSHMEM's plain, _warp or _block form.
#define GSHMEM_SHIM_SCOPED(S, THREAD_CALL, WARP_CALL, BLOCK_CALL) \
  if constexpr (std::is_same<S, thread_scope>::value)             \
    return THREAD_CALL;                                           \
  else if constexpr (std::is_same<S, warp_scope>::value)          \
    return WARP_CALL;                                             \
  else                                                            \
    return BLOCK_CALL

// putmem, getmem, putmem_nbi, getmem_nbi<S>(dest, source, bytes, pe).
#define GSHMEM_SHIM_MEM(OP)                                                             \
  template <class S>                                                                    \
  __device__ __forceinline__ void OP(void* d, const void* s, size_t n, int pe) {        \
    GSHMEM_SHIM_SCOPED(S, nvshmem_##OP(d, s, n, pe), nvshmemx_##OP##_warp(d, s, n, pe), \
                       nvshmemx_##OP##_block(d, s, n, pe));                             \
  }
GSHMEM_SHIM_MEM(putmem)
GSHMEM_SHIM_MEM(getmem)
GSHMEM_SHIM_MEM(putmem_nbi)
GSHMEM_SHIM_MEM(getmem_nbi)

template <class S>
__device__ __forceinline__ void putmem_signal(void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op,
                                              int pe) {
  GSHMEM_SHIM_SCOPED(S, nvshmem_putmem_signal(d, s, n, sig, v, op, pe),
                     nvshmemx_putmem_signal_warp(d, s, n, sig, v, op, pe),
                     nvshmemx_putmem_signal_block(d, s, n, sig, v, op, pe));
}
template <class S>
__device__ __forceinline__ void putmem_signal_nbi(void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op,
                                                  int pe) {
  GSHMEM_SHIM_SCOPED(S, nvshmem_putmem_signal_nbi(d, s, n, sig, v, op, pe),
                     nvshmemx_putmem_signal_nbi_warp(d, s, n, sig, v, op, pe),
                     nvshmemx_putmem_signal_nbi_block(d, s, n, sig, v, op, pe));
}
__device__ __forceinline__ void signal_op(uint64_t* sig, uint64_t v, int op, int pe) {
  nvshmemx_signal_op(sig, v, op, pe);
}
__device__ __forceinline__ uint64_t signal_wait_until(uint64_t* sig, int cmp, uint64_t v) {
  return nvshmem_signal_wait_until(sig, cmp, v);
}
__device__ __forceinline__ void wait_until(uint64_t* ivar, int cmp, uint64_t v) {
  nvshmem_uint64_wait_until(ivar, cmp, v);
}

template <class S>
__device__ __forceinline__ void barrier_all() {
  GSHMEM_SHIM_SCOPED(S, nvshmem_barrier_all(), nvshmemx_barrier_all_warp(), nvshmemx_barrier_all_block());
}
template <class S>
__device__ __forceinline__ void sync_all() {
  GSHMEM_SHIM_SCOPED(S, nvshmem_sync_all(), nvshmemx_sync_all_warp(), nvshmemx_sync_all_block());
}
template <class S>
__device__ __forceinline__ int barrier(gshmem_team_t t) {
  GSHMEM_SHIM_SCOPED(S, nvshmem_barrier(t), nvshmemx_barrier_warp(t), nvshmemx_barrier_block(t));
}
template <class S>
__device__ __forceinline__ int team_sync(gshmem_team_t t) {
  GSHMEM_SHIM_SCOPED(S, nvshmem_team_sync(t), nvshmemx_team_sync_warp(t), nvshmemx_team_sync_block(t));
}

// Typed operations: one specialisation per datatype (NVSHMEM's TYPENAME), and per
// (datatype, operation) for the reductions.
template <class T>
struct typed;
template <class T, class Op>
struct reducer;

#define GSHMEM_SHIM_RMA(NAME, T)                                                         \
  __device__ __forceinline__ void p(T* d, T v, int pe) { nvshmem_##NAME##_p(d, v, pe); } \
  __device__ __forceinline__ T g(const T* s, int pe) { return nvshmem_##NAME##_g(s, pe); }
GSHMEM_SHIM_RMA(int32, int32_t)
GSHMEM_SHIM_RMA(int64, int64_t)
GSHMEM_SHIM_RMA(uint32, uint32_t)
GSHMEM_SHIM_RMA(uint64, uint64_t)
GSHMEM_SHIM_RMA(float, float)
GSHMEM_SHIM_RMA(double, double)

#define GSHMEM_SHIM_COLL(NAME, T)                                                                               \
  template <>                                                                                                   \
  struct typed<T> {                                                                                             \
    template <class S>                                                                                          \
    static __device__ int broadcast(gshmem_team_t t, T* d, const T* s, size_t n, int root) {                    \
      GSHMEM_SHIM_SCOPED(S, nvshmem_##NAME##_broadcast(t, d, s, n, root),                                       \
                         nvshmemx_##NAME##_broadcast_warp(t, d, s, n, root),                                    \
                         nvshmemx_##NAME##_broadcast_block(t, d, s, n, root));                                  \
    }                                                                                                           \
    template <class S>                                                                                          \
    static __device__ int fcollect(gshmem_team_t t, T* d, const T* s, size_t n) {                               \
      GSHMEM_SHIM_SCOPED(S, nvshmem_##NAME##_fcollect(t, d, s, n), nvshmemx_##NAME##_fcollect_warp(t, d, s, n), \
                         nvshmemx_##NAME##_fcollect_block(t, d, s, n));                                         \
    }                                                                                                           \
    template <class S>                                                                                          \
    static __device__ int alltoall(gshmem_team_t t, T* d, const T* s, size_t n) {                               \
      GSHMEM_SHIM_SCOPED(S, nvshmem_##NAME##_alltoall(t, d, s, n), nvshmemx_##NAME##_alltoall_warp(t, d, s, n), \
                         nvshmemx_##NAME##_alltoall_block(t, d, s, n));                                         \
    }                                                                                                           \
  };
GSHMEM_SHIM_COLL(int32, int32_t)
GSHMEM_SHIM_COLL(int64, int64_t)
GSHMEM_SHIM_COLL(float, float)
GSHMEM_SHIM_COLL(double, double)

#define GSHMEM_SHIM_REDUCE(NAME, T, OP, TAG)                                           \
  template <>                                                                          \
  struct reducer<T, op::TAG> {                                                         \
    template <class S>                                                                 \
    static __device__ int reduce(gshmem_team_t t, T* d, const T* s, size_t n) {        \
      GSHMEM_SHIM_SCOPED(S, nvshmem_##NAME##_##OP##_reduce(t, d, s, n),                \
                         nvshmemx_##NAME##_##OP##_reduce_warp(t, d, s, n),             \
                         nvshmemx_##NAME##_##OP##_reduce_block(t, d, s, n));           \
    }                                                                                  \
    template <class S>                                                                 \
    static __device__ int reducescatter(gshmem_team_t t, T* d, const T* s, size_t n) { \
      GSHMEM_SHIM_SCOPED(S, nvshmem_##NAME##_##OP##_reducescatter(t, d, s, n),         \
                         nvshmemx_##NAME##_##OP##_reducescatter_warp(t, d, s, n),      \
                         nvshmemx_##NAME##_##OP##_reducescatter_block(t, d, s, n));    \
    }                                                                                  \
  };
#define GSHMEM_SHIM_REDUCE_ARITH(NAME, T) \
  GSHMEM_SHIM_REDUCE(NAME, T, sum, sum)   \
  GSHMEM_SHIM_REDUCE(NAME, T, prod, prod) \
  GSHMEM_SHIM_REDUCE(NAME, T, min, min)   \
  GSHMEM_SHIM_REDUCE(NAME, T, max, max)
#define GSHMEM_SHIM_REDUCE_BITS(NAME, T) \
  GSHMEM_SHIM_REDUCE(NAME, T, and, and_) \
  GSHMEM_SHIM_REDUCE(NAME, T, or, or_)   \
  GSHMEM_SHIM_REDUCE(NAME, T, xor, xor_)
GSHMEM_SHIM_REDUCE_ARITH(int32, int32_t)
GSHMEM_SHIM_REDUCE_ARITH(int64, int64_t)
GSHMEM_SHIM_REDUCE_ARITH(float, float)
GSHMEM_SHIM_REDUCE_ARITH(double, double)
GSHMEM_SHIM_REDUCE_BITS(int32, int32_t)
GSHMEM_SHIM_REDUCE_BITS(int64, int64_t)

template <class S, class T>
__device__ __forceinline__ int broadcast(gshmem_team_t t, T* d, const T* s, size_t n, int root) {
  return typed<T>::template broadcast<S>(t, d, s, n, root);
}
template <class S, class T>
__device__ __forceinline__ int fcollect(gshmem_team_t t, T* d, const T* s, size_t n) {
  return typed<T>::template fcollect<S>(t, d, s, n);
}
template <class S, class T>
__device__ __forceinline__ int alltoall(gshmem_team_t t, T* d, const T* s, size_t n) {
  return typed<T>::template alltoall<S>(t, d, s, n);
}
template <class Op, class S, class T>
__device__ __forceinline__ int reduce(gshmem_team_t t, T* d, const T* s, size_t n) {
  return reducer<T, Op>::template reduce<S>(t, d, s, n);
}
template <class Op, class S, class T>
__device__ __forceinline__ int reducescatter(gshmem_team_t t, T* d, const T* s, size_t n) {
  return reducer<T, Op>::template reducescatter<S>(t, d, s, n);
}

// Atomics: the standard and bitwise AMOs of the fixed-width integer types. ADD names
// the type for add / fetch_add / inc / fetch_inc, which NVSHMEM's device library has
// for int64_t only under its standard name, long.
template <class T>
struct amo;
#define GSHMEM_SHIM_AMO(NAME, ADD, T)                                                                        \
  template <>                                                                                                \
  struct amo<T> {                                                                                            \
    static __device__ T fetch(T* d, int pe) { return nvshmem_##NAME##_atomic_fetch(d, pe); }                 \
    static __device__ void set(T* d, T v, int pe) { nvshmem_##NAME##_atomic_set(d, v, pe); }                 \
    static __device__ T swap(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_swap(d, v, pe); }           \
    static __device__ T compare_swap(T* d, T c, T v, int pe) {                                               \
      return nvshmem_##NAME##_atomic_compare_swap(d, c, v, pe);                                              \
    }                                                                                                        \
    static __device__ void inc(T* d, int pe) { nvshmem_##ADD##_atomic_inc(d, pe); }                          \
    static __device__ T fetch_inc(T* d, int pe) { return nvshmem_##ADD##_atomic_fetch_inc(d, pe); }          \
    static __device__ void add(T* d, T v, int pe) { nvshmem_##ADD##_atomic_add(d, v, pe); }                  \
    static __device__ T fetch_add(T* d, T v, int pe) { return nvshmem_##ADD##_atomic_fetch_add(d, v, pe); }  \
    static __device__ void and_(T* d, T v, int pe) { nvshmem_##NAME##_atomic_and(d, v, pe); }                \
    static __device__ T fetch_and(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_and(d, v, pe); } \
    static __device__ void or_(T* d, T v, int pe) { nvshmem_##NAME##_atomic_or(d, v, pe); }                  \
    static __device__ T fetch_or(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_or(d, v, pe); }   \
    static __device__ void xor_(T* d, T v, int pe) { nvshmem_##NAME##_atomic_xor(d, v, pe); }                \
    static __device__ T fetch_xor(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_xor(d, v, pe); } \
  };
GSHMEM_SHIM_AMO(int32, int32, int32_t)
GSHMEM_SHIM_AMO(int64, long, int64_t)
GSHMEM_SHIM_AMO(uint32, uint32, uint32_t)
GSHMEM_SHIM_AMO(uint64, uint64, uint64_t)

// clang-format off
template <class T> __device__ __forceinline__ T atomic_fetch(T* d, int pe) { return amo<T>::fetch(d, pe); }
template <class T> __device__ __forceinline__ void atomic_set(T* d, T v, int pe) { amo<T>::set(d, v, pe); }
template <class T> __device__ __forceinline__ T atomic_swap(T* d, T v, int pe) { return amo<T>::swap(d, v, pe); }
template <class T> __device__ __forceinline__ T atomic_compare_swap(T* d, T c, T v, int pe) {
  return amo<T>::compare_swap(d, c, v, pe);
}
template <class T> __device__ __forceinline__ void atomic_inc(T* d, int pe) { amo<T>::inc(d, pe); }
template <class T> __device__ __forceinline__ T atomic_fetch_inc(T* d, int pe) { return amo<T>::fetch_inc(d, pe); }
template <class T> __device__ __forceinline__ void atomic_add(T* d, T v, int pe) { amo<T>::add(d, v, pe); }
template <class T> __device__ __forceinline__ T atomic_fetch_add(T* d, T v, int pe) {
  return amo<T>::fetch_add(d, v, pe);
}
template <class T> __device__ __forceinline__ void atomic_and(T* d, T v, int pe) { amo<T>::and_(d, v, pe); }
template <class T> __device__ __forceinline__ T atomic_fetch_and(T* d, T v, int pe) {
  return amo<T>::fetch_and(d, v, pe);
}
template <class T> __device__ __forceinline__ void atomic_or(T* d, T v, int pe) { amo<T>::or_(d, v, pe); }
template <class T> __device__ __forceinline__ T atomic_fetch_or(T* d, T v, int pe) {
  return amo<T>::fetch_or(d, v, pe);
}
template <class T> __device__ __forceinline__ void atomic_xor(T* d, T v, int pe) { amo<T>::xor_(d, v, pe); }
template <class T> __device__ __forceinline__ T atomic_fetch_xor(T* d, T v, int pe) {
  return amo<T>::fetch_xor(d, v, pe);
}
// clang-format on

}  // namespace gshmem
#endif  // __CUDACC__
