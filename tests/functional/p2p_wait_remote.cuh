// SPDX-License-Identifier: BSD-3-Clause
// Parts 2 and 3 of test_wait.cu (included there, after the type tags):
// waits satisfied by another PE's updates, from a device thread and from the
// host forms, and gshmemx_<type>_wait_until_on_stream.
#pragma once

namespace {

// Sets of N variables: 3 (read one by one with acquire loads), 9 (one batch of relaxed
// loads and a partial one, then a fence) and 41 (several batches) for the device forms
// (impl/wait.cuh); for the host forms, whose kernel scans with a warp 256 variables a round
// (src/host/amo/wait_warp.cuh), also kHostMaxN (two rounds and a partial one).
constexpr int kRemoteRounds = 40;
constexpr unsigned kPauseNs = 2000;

__host__ __device__ inline long long rstamp(int src, int round, int i) {
  return static_cast<long long>(value<uint64_t>(src, static_cast<uint64_t>(i), 7000 + round) >> 1);
}
// Which elements the writer sets in each phase (both sides compute them), spread over the set.
template <int N>
__host__ __device__ inline int any_index(int round, int src) {
  return (round * 5 + src) * 97 % N;
}
template <int N>
__host__ __device__ inline int some_index(int round, int src, int k) {
  return ((round * 3 + src) * 97 % N + k * (N / 2 + 1)) % N;
}

// data[i] = stamp; fence; flag[i] = v, on PE `to`.
template <class T>
__device__ void publish(T* flags, long long* data, int i, T v, long long stamp, int to) {
  gshmem_longlong_p(&data[i], stamp, to);
  gshmem_fence();
  if constexpr (sizeof(T) >= 4)
    gshmem::atomic_set(&flags[i], v, to);  // an AMO as the flag
  else
    gshmem::p(&flags[i], v, to);  // (no 2-byte AMOs)
}

// One phase's writes to PE `to` (round r, phase r % 4), with pauses between them.
template <int N, class T>
__device__ void write_phase(T* flags, long long* data, int r, int me, int to) {
  const T v = static_cast<T>(r + 1);
  switch (r % 4) {
    case 0:  // all (odd elements are masked out and never set)
      for (int i = 0; i < N; i += 2) {
        __nanosleep(kPauseNs);
        publish(flags, data, i, v, rstamp(me, r, i), to);
      }
      break;
    case 1:
      publish(flags, data, any_index<N>(r, me), v, rstamp(me, r, any_index<N>(r, me)), to);
      break;
    case 2:
      for (int k = 0; k < 2; ++k) {
        __nanosleep(kPauseNs);
        publish(flags, data, some_index<N>(r, me, k), v, rstamp(me, r, some_index<N>(r, me, k)), to);
      }
      break;
    default:  // vector: element i becomes i + 1 + r, in a scrambled order
      for (int k = 0; k < N; ++k) {
        const int i = (k * 4 + r) % N;  // N odd: a permutation
        __nanosleep(kPauseNs / 4);
        publish(flags, data, i, static_cast<T>(i + 1 + r), rstamp(me, r, i), to);
      }
      break;
  }
}

// The waiting side of phase r % 4 through the ops Ops (C names, on host or device).
// err(i, expected, got) reports a mismatch; data_at(i) reads data[i] after the wait.
#pragma nv_exec_check_disable
template <int N, class Ops, class Err, class Data>
GT_HD void wait_phase(typename Ops::T* flags, int r, int src, int* status, Err& err, Data& data_at) {
  using T = typename Ops::T;
  const T v = static_cast<T>(r + 1);
  size_t idx[N];
  T cmpv[N];
  switch (r % 4) {
    case 0:
      for (int i = 0; i < N; ++i) status[i] = i & 1;
      Ops::wait_all(flags, N, status, GSHMEM_CMP_EQ, v);
      for (int i = 0; i < N; i += 2) err(i, rstamp(src, r, i), data_at(i));
      break;
    case 1: {
      const size_t got = Ops::wait_any(flags, N, nullptr, GSHMEM_CMP_GE, static_cast<T>(1));
      err(100, any_index<N>(r, src), static_cast<long long>(got));
      if (got < N) err(static_cast<int>(got), rstamp(src, r, static_cast<int>(got)), data_at(static_cast<int>(got)));
      break;
    }
    case 2: {
      for (int i = 0; i < N; ++i) status[i] = 0;
      int collected = 0;
      while (collected < 2) {
        const size_t n = Ops::wait_some(flags, N, idx, status, GSHMEM_CMP_NE, static_cast<T>(0));
        if (n == 0 || n > 2) {
          err(200, 1, static_cast<long long>(n));
          break;
        }
        for (size_t k = 0; k < n; ++k) {
          const int i = static_cast<int>(idx[k]);
          const bool expected = i == some_index<N>(r, src, 0) || i == some_index<N>(r, src, 1);
          err(201, 1, expected && status[i] == 0 ? 1 : 0);
          status[i] = 1;
          ++collected;
          err(i, rstamp(src, r, i), data_at(i));
        }
      }
      break;
    }
    default: {
      for (int i = 0; i < N; ++i) cmpv[i] = static_cast<T>(i + 1 + r);
      Ops::wait_all_v(flags, N, nullptr, GSHMEM_CMP_GE, cmpv);
      const size_t any = Ops::wait_any_v(flags, N, nullptr, GSHMEM_CMP_EQ, cmpv);
      err(300, 1, any < N ? 1 : 0);
      err(301, N, static_cast<long long>(Ops::wait_some_v(flags, N, idx, nullptr, GSHMEM_CMP_EQ, cmpv)));
      for (int i = 0; i < N; ++i) err(i, rstamp(src, r, i), data_at(i));
      break;
    }
  }
}

struct DevErr {
  DevErrors* e;
  int r;
  __device__ void operator()(int what, long long expected, long long got) {
    if (expected != got)
      dev_fail(e, static_cast<unsigned long long>(r), static_cast<unsigned long long>(what),
               static_cast<unsigned long long>(expected), static_cast<unsigned long long>(got));
  }
};
struct DevData {
  const long long* data;
  __device__ long long operator()(int i) { return gshmem::detail::ld_volatile(data + i); }
};

// Thread 0 waits (on flags written by the previous PE), thread 32 writes to the next PE.
template <class Ty, int N>
__global__ void k_remote(typename Ty::T* flags, long long* data, DevErrors* e) {
  __shared__ int status[N];
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  for (int r = 0; r < kRemoteRounds; ++r) {
    __syncthreads();
    if (threadIdx.x == 0) {
      gshmem_barrier_all();  // the previous round is over everywhere
      for (int i = 0; i < N; ++i) {
        flags[i] = 0;
        data[i] = 0;
      }
      gshmem_barrier_all();  // every PE's reset is done before anyone writes
    }
    __syncthreads();
    if (threadIdx.x == 32) write_phase<N>(flags, data, r, me, (me + 1) % npes);
    if (threadIdx.x == 0) {
      DevErr err{e, r};
      DevData d{data};
      wait_phase<N, Ty>(flags, r, (me + npes - 1) % npes, status, err, d);
    }
  }
}

template <int N, class T>
__global__ void k_writer(T* flags, long long* data, int r) {
  write_phase<N>(flags, data, r, gshmem_my_pe(), (gshmem_my_pe() + 1) % gshmem_n_pes());
}

struct HostErr {
  int r;
  void operator()(int what, long long expected, long long got) {
    if (expected != got) {
      GT_CHECK_EQ(expected, got);
      emit(stderr, "PE %d:   (round %d, check %d)\n", log_pe(), r, what);
    } else {
      ++stats().checks;
    }
  }
};
struct HostData {
  const long long* data;
  long long operator()(int i) {
    long long v = 0;
    CUDA_CHECK(cudaMemcpy(&v, data + i, sizeof(v), cudaMemcpyDeviceToHost));
    return v;
  }
};

// The device waiter (unless host_only), then the host waiter, on sets of N (odd) variables.
template <class Ty, int N, bool host_only = false>
void remote_type(void* flags_sym, long long* data) {
  using T = typename Ty::T;
  T* flags = static_cast<T*>(flags_sym);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if constexpr (!host_only) {
    DevErrorsHost err;
    set_context("%s: device waiter, remote writer, sets of %d, %d rounds (all/any/some/vector)", Ty::name, N,
                kRemoteRounds);
    gshmem_barrier_all();
    DevErrors* e = err.d;
    void* args[] = {&flags, &data, &e};
    GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_remote<Ty, N>, dim3(1), dim3(64), args, 0, 0));
    KERNEL_CHECK();
    err.check("round", "check", __FILE__, __LINE__);
  }

  cudaStream_t ws;
  CUDA_CHECK(cudaStreamCreateWithFlags(&ws, cudaStreamNonBlocking));
  int status[N];
  for (int r = 0; r < 8; ++r) {
    set_context("%s: host waiter (host forms), remote device writer, sets of %d, round %d", Ty::name, N, r);
    gshmem_barrier_all();
    CUDA_CHECK(cudaMemset(flags, 0, N * sizeof(T)));
    CUDA_CHECK(cudaMemset(data, 0, N * sizeof(long long)));
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    k_writer<N><<<1, 1, 0, ws>>>(flags, data, r);
    CUDA_CHECK(cudaGetLastError());
    HostErr herr{r};
    HostData hd{data};
    wait_phase<N, Ty>(flags, r, (me + npes - 1) % npes, status, herr, hd);
    CUDA_CHECK(cudaStreamSynchronize(ws));
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(ws));
}

void remote_updates() {
  constexpr int kMaxN = 41, kHostMaxN = 601;
  void* flags = gshmem_calloc(kHostMaxN, sizeof(uint64_t));
  long long* data = static_cast<long long*>(gshmem_calloc(kHostMaxN, sizeof(long long)));
  GT_CHECK(flags != nullptr && data != nullptr);
  if (!flags || !data) return;
  remote_type<w_int, 9>(flags, data);
  remote_type<w_uint64, 9>(flags, data);
  remote_type<w_short, 9>(flags, data);
  remote_type<w_int, 3>(flags, data);
  remote_type<w_uint64, kMaxN>(flags, data);
  remote_type<w_short, kMaxN>(flags, data);
  remote_type<w_uint64, kHostMaxN, true>(flags, data);
  remote_type<w_short, kHostMaxN, true>(flags, data);
  gshmem_free(data);
  gshmem_free(flags);
}

// ------------------------------------------------------------------ 3. wait_until_on_stream
constexpr int kStreamRounds = 50;

// Round r: wait for the ack of round r-1 from the next PE, then data; fence; flag = r.
__global__ void k_stream_writer(int* flag, int* ack, long long* data, int r) {
  const int me = gshmem_my_pe(), next = (me + 1) % gshmem_n_pes();
  gshmem_int_wait_until(ack, GSHMEM_CMP_GE, r - 1);
  __nanosleep(kPauseNs);
  gshmem_longlong_p(data, rstamp(me, r, 0), next);
  gshmem_fence();
  gshmem_int_p(flag, r, next);
}
// Runs after gshmemx_int_wait_until_on_stream(flag, GE, r) on the same stream.
__global__ void k_stream_check(const int* flag, int* ack, const long long* data, int r, DevErrors* e) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), prev = (me + npes - 1) % npes;
  const int f = gshmem::detail::ld_volatile(flag);
  const long long d = gshmem::detail::ld_volatile(data);
  const long long want = rstamp(prev, r, 0);
  if (f < r) dev_fail(e, r, 0, r, static_cast<unsigned long long>(f));
  if (d != want) dev_fail(e, r, 1, static_cast<unsigned long long>(want), static_cast<unsigned long long>(d));
  gshmem_int_p(ack, r, prev);
}

// Every type's gshmemx_<type>_wait_until[_all[_vector]]_on_stream: the stream
// must stay blocked until copies on another stream store the awaited values
// into the local variables (for _all: into every element of the set).
template <class T>
void store_local(T* p, T v, cudaStream_t st2) {
  CUDA_CHECK(cudaMemcpyAsync(p, &v, sizeof(T), cudaMemcpyHostToDevice, st2));
  CUDA_CHECK(cudaStreamSynchronize(st2));
}
inline bool still_blocked(cudaEvent_t e) {
  usleep(2000);  // give a wrong implementation time to run ahead
  return cudaEventQuery(e) == cudaErrorNotReady;
}

template <class Ty>
void stream_every_type(void* sym, cudaStream_t st, cudaStream_t st2) {
  using T = typename Ty::T;
  T* iv = static_cast<T*>(sym);
  const T zeros[3] = {0, 0, 0};
  const int status[3] = {0, 1, 0};  // element 1 excluded
  T targets[3] = {8, 99, 9};
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  for (int form = 0; form < 3; ++form) {
    set_context("gshmemx_%s_wait_until%s_on_stream, released by copies on another stream", Ty::name,
                form == 0   ? ""
                : form == 1 ? "_all"
                            : "_all_vector");
    CUDA_CHECK(cudaMemcpy(iv, zeros, sizeof(zeros), cudaMemcpyHostToDevice));
    if (form == 0)
      Ty::wait_until_on_stream(iv, GSHMEM_CMP_EQ, static_cast<T>(7), st);
    else if (form == 1)
      Ty::wait_all_on_stream(iv, 3, status, GSHMEM_CMP_EQ, static_cast<T>(7), st);
    else
      Ty::wait_all_vector_on_stream(iv, 3, status, GSHMEM_CMP_GE, targets, st);
    CUDA_CHECK(cudaEventRecord(done, st));
    GT_CHECK(still_blocked(done));  // nobody stored the values yet
    if (form == 0) {
      store_local(iv, static_cast<T>(7), st2);
    } else {
      store_local(iv, form == 1 ? static_cast<T>(7) : targets[0], st2);
      GT_CHECK(still_blocked(done));  // element 2 of the set is still missing
      store_local(iv + 2, form == 1 ? static_cast<T>(7) : static_cast<T>(targets[2] + 1), st2);
    }
    CUDA_CHECK(cudaStreamSynchronize(st));
  }
  CUDA_CHECK(cudaEventDestroy(done));
}

// Where stream-ordered allocation fails (a GPU without memory pools, or an application's capped
// pool), the on-stream waits with status or comparison arrays of more than 2560 elements take the
// library's own blocks (smaller ones travel in the kernel's parameters). The call must not
// synchronise the stream at its end, or it would never return while its wait is unmet. Here
// the device's current pool is swapped for a capped one filled by the test, so
// cudaMallocAsync fails.
class FullMemPool {
 public:
  FullMemPool() {
    int dev = 0, supported = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev));
    if (!supported) return;  // the library falls back anyway
    dev_ = dev;
    CUDA_CHECK(cudaDeviceGetMemPool(&old_, dev));
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    props.maxSize = size_t{2} << 20;
    CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
    CUDA_CHECK(cudaDeviceSetMemPool(dev, pool_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking));
    for (size_t s = props.maxSize; s >= 16; s /= 2)
      for (void* p = nullptr; cudaMallocAsync(&p, s, st_) == cudaSuccess;) hogs_.push_back(p);
    cudaGetLastError();
    void* p = nullptr;
    full_ = cudaMallocAsync(&p, 16, st_) != cudaSuccess;
    cudaGetLastError();
    if (!full_) cudaFreeAsync(p, st_);
  }
  ~FullMemPool() {
    if (!pool_) return;
    for (void* p : hogs_) CUDA_CHECK(cudaFreeAsync(p, st_));
    CUDA_CHECK(cudaStreamSynchronize(st_));
    CUDA_CHECK(cudaStreamDestroy(st_));
    CUDA_CHECK(cudaDeviceSetMemPool(dev_, old_));
    CUDA_CHECK(cudaMemPoolDestroy(pool_));
  }
  // cudaMallocAsync fails now (or the GPU has no pools at all).
  bool full() const { return !pool_ || full_; }

 private:
  int dev_ = 0;
  cudaMemPool_t old_ = nullptr, pool_ = nullptr;
  cudaStream_t st_ = nullptr;
  std::vector<void*> hogs_;
  bool full_ = false;
};

// Whether the work before `e` finishes within `seconds` (a wrong wait fails here, not by a hang).
inline bool finishes(cudaEvent_t e, double seconds) {
  for (double waited = 0; waited < seconds; waited += 0.001) {
    if (cudaEventQuery(e) != cudaErrorNotReady) return true;
    usleep(1000);
  }
  return false;
}

// The ways a stream wait's host arrays (a status mask and uint64_t values here) reach the GPU, by
// size: 3, kParams, kParamsLarge and kParamsMax elements in the wait kernel's parameters (its
// three sizes: 3 in the 32-element form, kParams and kParamsLarge, its edge, in the 320-element
// one, kParamsMax at the edge of the largest); kCarried (36 KB) carried in the parameters of copy
// kernels into memory allocated for the call (two of them); kLarge (144 KB) staged in the
// library's pinned memory, except in stream capture, where they are carried too.
constexpr size_t kParams = 41, kParamsLarge = 320, kParamsMax = 2560, kCarried = 3001, kLarge = 12000;
constexpr size_t kSizes[] = {3, kParams, kParamsLarge, kParamsMax, kCarried, kLarge};

// Stores vals into iv[0, vals.size()) from the host, through stream st2.
void store_all(uint64_t* iv, const std::vector<uint64_t>& vals, cudaStream_t st2) {
  CUDA_CHECK(cudaMemcpyAsync(iv, vals.data(), vals.size() * sizeof(uint64_t), cudaMemcpyHostToDevice, st2));
  CUDA_CHECK(cudaStreamSynchronize(st2));
}

enum class ArrayMem { pageable, pinned, device };
void arrays_read_when(uint64_t* iv, size_t n, uint64_t* gate, ArrayMem mem, cudaStream_t st, cudaStream_t st2);

// sym: kLarge uint64_t. The 3-element waits of stream_every_type need no memory; the others
// (kCarried elements) take the library's device blocks, and for kLarge its pinned blocks too.
void waits_without_stream_pool(void* sym, uint64_t* gate, cudaStream_t st, cudaStream_t st2) {
  FullMemPool full;
  set_context("on-stream waits with cudaMallocAsync failing (device pool capped and filled)");
  GT_CHECK(full.full());
  stream_every_type<w_short>(sym, st, st2);
  stream_every_type<w_int>(sym, st, st2);
  stream_every_type<w_uint64>(sym, st, st2);
  // Two waits in flight at once must not share memory: each keeps its own comparison values.
  uint64_t* iv = static_cast<uint64_t*>(sym);
  cudaStream_t sa, sb;
  cudaEvent_t da, db;
  CUDA_CHECK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&da, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&db, cudaEventDisableTiming));
  std::vector<uint64_t> fives(kCarried, 5), nines(kCarried, 9);
  store_all(iv, std::vector<uint64_t>(kCarried, 0), st2);
  gshmemx_uint64_wait_until_all_vector_on_stream(iv, kCarried, nullptr, GSHMEM_CMP_EQ, fives.data(), sa);
  CUDA_CHECK(cudaEventRecord(da, sa));
  gshmemx_uint64_wait_until_all_vector_on_stream(iv, kCarried, nullptr, GSHMEM_CMP_GE, nines.data(), sb);
  CUDA_CHECK(cudaEventRecord(db, sb));
  GT_CHECK(still_blocked(da) && still_blocked(db));
  store_all(iv, fives, st2);
  GT_CHECK(finishes(da, 10));   // released by its own values (5), not the other wait's (9)
  GT_CHECK(still_blocked(db));  // 5 < 9
  store_all(iv, nines, st2);
  GT_CHECK(finishes(db, 10));
  // Blocks are handed out again once their waits are done: every round's arrays are its own.
  for (int r = 1; r <= 64; ++r) {
    set_context("on-stream waits with cudaMallocAsync failing, reuse round %d", r);
    const size_t skip = r % kCarried, last = (skip + 1) % kCarried;
    std::vector<int> status(kCarried, 0);
    status[skip] = 1;
    std::vector<uint64_t> want(kCarried);
    for (size_t i = 0; i < kCarried; ++i) want[i] = 1000u * r + i;
    gshmemx_uint64_wait_until_all_vector_on_stream(iv, kCarried, status.data(), GSHMEM_CMP_EQ, want.data(),
                                                   r % 2 ? sa : sb);
    CUDA_CHECK(cudaEventRecord(da, r % 2 ? sa : sb));
    std::vector<uint64_t> partial = want;
    partial[skip] = partial[last] = 0;
    store_all(iv, partial, st2);
    GT_CHECK(still_blocked(da));  // element `last` is still missing
    store_local(iv + last, want[last], st2);
    GT_CHECK(finishes(da, 10));
    store_all(iv, want, st2);  // releases a wrong wait too
  }
  CUDA_CHECK(cudaStreamSynchronize(sa));
  CUDA_CHECK(cudaStreamSynchronize(sb));
  CUDA_CHECK(cudaEventDestroy(db));
  CUDA_CHECK(cudaEventDestroy(da));
  CUDA_CHECK(cudaStreamDestroy(sb));
  CUDA_CHECK(cudaStreamDestroy(sa));
  arrays_read_when(iv, kLarge, gate, ArrayMem::pinned, st, st2);
}

// When an on-stream wait reads its status mask and comparison values, for each of kSizes (each
// way to the GPU, above). An earlier
// stream wait on `gate` holds the stream, so nothing the call put on it runs before the arrays
// change. In host memory (pageable or pinned) the arrays at the call count: the test overwrites
// them right after it. In device memory the arrays at the stream's turn count: a kernel before
// the call on the stream writes them. The wait must take the first ones - element 1 excluded,
// values 1000 + i - not the others (nothing excluded, values 2000 + i).
__global__ void k_want_arrays(int* status, uint64_t* cmp, size_t n) {
  for (size_t i = 0; i < n; ++i) status[i] = i == 1, cmp[i] = 1000 + i;
}

void arrays_read_when(uint64_t* iv, size_t n, uint64_t* gate, ArrayMem mem, cudaStream_t st, cudaStream_t st2) {
  const char* what = mem == ArrayMem::pageable ? "pageable" : mem == ArrayMem::pinned ? "pinned" : "device";
  set_context("gshmemx_uint64_wait_until_all_vector_on_stream, %zu elements, arrays in %s memory", n, what);
  std::vector<int> want_status(n, 0), other_status(n, 0);
  want_status[1] = 1;
  std::vector<uint64_t> want(n), other(n);
  for (size_t i = 0; i < n; ++i) want[i] = 1000 + i, other[i] = 2000 + i;
  int* status = nullptr;
  uint64_t* cmp = nullptr;
  std::vector<int> pageable_status(n);
  std::vector<uint64_t> pageable_cmp(n);
  if (mem == ArrayMem::pageable) {
    status = pageable_status.data();
    cmp = pageable_cmp.data();
  } else if (mem == ArrayMem::pinned) {
    CUDA_CHECK(cudaMallocHost(&status, n * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&cmp, n * sizeof(uint64_t)));
  } else {
    CUDA_CHECK(cudaMalloc(&status, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&cmp, n * sizeof(uint64_t)));
  }
  const bool dev = mem == ArrayMem::device;
  // Loaded now: with lazy loading, a kernel's first launch waits for the kernels running (the
  // gate's wait below, which only this host releases).
  cudaFuncAttributes attr;
  CUDA_CHECK(cudaFuncGetAttributes(&attr, k_want_arrays));
  // At the call: host arrays hold the wanted values, device arrays the others.
  CUDA_CHECK(cudaMemcpy(status, (dev ? other_status : want_status).data(), n * sizeof(int), cudaMemcpyDefault));
  CUDA_CHECK(cudaMemcpy(cmp, (dev ? other : want).data(), n * sizeof(uint64_t), cudaMemcpyDefault));
  store_all(iv, std::vector<uint64_t>(n, 0), st2);
  store_local(gate, uint64_t{0}, st2);
  gshmemx_uint64_wait_until_on_stream(gate, GSHMEM_CMP_EQ, 1, st);
  if (dev) {  // the stream's turn: the wanted values
    k_want_arrays<<<1, 1, 0, st>>>(status, cmp, n);
    CUDA_CHECK(cudaGetLastError());
  }
  gshmemx_uint64_wait_until_all_vector_on_stream(iv, n, status, GSHMEM_CMP_EQ, cmp, st);
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(done, st));
  if (!dev) {  // the caller reuses its arrays at once
    memcpy(status, other_status.data(), n * sizeof(int));
    memcpy(cmp, other.data(), n * sizeof(uint64_t));
  }
  store_local(gate, uint64_t{1}, st2);
  GT_CHECK(still_blocked(done));
  std::vector<uint64_t> met = want;
  met[1] = 0;  // excluded: never equal
  store_all(iv, met, st2);
  GT_CHECK(finishes(done, 10));
  store_all(iv, other, st2);  // releases a wrong wait too
  CUDA_CHECK(cudaStreamSynchronize(st));
  CUDA_CHECK(cudaEventDestroy(done));
  if (mem == ArrayMem::pinned) {
    CUDA_CHECK(cudaFreeHost(status));
    CUDA_CHECK(cudaFreeHost(cmp));
  } else if (dev) {
    CUDA_CHECK(cudaFree(status));
    CUDA_CHECK(cudaFree(cmp));
  }
}

// An on-stream wait captured into a CUDA graph, in each capture mode and each of kSizes: the graph
// keeps the arrays of the call (the caller overwrites them after the capture) and waits again
// at every launch.
void captured_wait(uint64_t* iv, size_t n, cudaStreamCaptureMode mode, cudaStream_t st, cudaStream_t st2) {
  const char* how = mode == cudaStreamCaptureModeGlobal        ? "global"
                    : mode == cudaStreamCaptureModeThreadLocal ? "thread-local"
                                                               : "relaxed";
  std::vector<int> status(n, 0);
  status[1] = 1;
  std::vector<uint64_t> cmp(n), met(n);
  for (size_t i = 0; i < n; ++i) cmp[i] = met[i] = 3000 + i;
  met[1] = 0;  // excluded: never equal
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CUDA_CHECK(cudaStreamBeginCapture(st, mode));
  gshmemx_uint64_wait_until_all_vector_on_stream(iv, n, status.data(), GSHMEM_CMP_EQ, cmp.data(), st);
  CUDA_CHECK(cudaStreamEndCapture(st, &g));
  CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
  std::fill(status.begin(), status.end(), 0);
  std::fill(cmp.begin(), cmp.end(), 0);
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  for (int launch = 0; launch < 2; ++launch) {
    set_context("gshmemx_uint64_wait_until_all_vector_on_stream captured (%s mode), %zu elements, launch %d", how, n,
                launch);
    store_all(iv, std::vector<uint64_t>(n, 0), st2);
    CUDA_CHECK(cudaGraphLaunch(ge, st));
    CUDA_CHECK(cudaEventRecord(done, st));
    GT_CHECK(still_blocked(done));
    store_all(iv, met, st2);
    GT_CHECK(finishes(done, 10));
    CUDA_CHECK(cudaStreamSynchronize(st));
  }
  CUDA_CHECK(cudaEventDestroy(done));
  CUDA_CHECK(cudaGraphExecDestroy(ge));
  CUDA_CHECK(cudaGraphDestroy(g));
}

// The host forms with n = 3, kParams and kParamsLarge (arrays in the kernel's parameters),
// kParamsMax and kCarried (through the library's memory), their status mask, comparison values and indices in
// host or in device memory (the host forms must not take them for host memory): values
// 5 + i, element 1 excluded (its comparison value 99 is never met).
void host_waits_arrays(uint64_t* iv, size_t n, bool on_device) {
  set_context("host wait/test forms, %zu elements, arrays in %s memory", n, on_device ? "device" : "host");
  std::vector<uint64_t> values(n), cmp(n);
  std::vector<int> status(n, 0);
  for (size_t i = 0; i < n; ++i) values[i] = cmp[i] = 5 + i;
  cmp[1] = 99;
  status[1] = 1;
  CUDA_CHECK(cudaMemcpy(iv, values.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  std::vector<size_t> host_idx(n, ~size_t{0});
  int* st = status.data();
  uint64_t* cv = cmp.data();
  size_t* idx = host_idx.data();
  if (on_device) {
    CUDA_CHECK(cudaMalloc(&st, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&cv, n * sizeof(uint64_t)));
    CUDA_CHECK(cudaMalloc(&idx, n * sizeof(size_t)));
    CUDA_CHECK(cudaMemcpy(st, status.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(cv, cmp.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(idx, 0xFF, n * sizeof(size_t)));
  }
  auto indices = [&](size_t count) {  // the first `count` indices, sorted
    if (on_device) CUDA_CHECK(cudaMemcpy(host_idx.data(), idx, n * sizeof(size_t), cudaMemcpyDeviceToHost));
    std::vector<size_t> got(host_idx.begin(), host_idx.begin() + std::min(count, n));
    std::sort(got.begin(), got.end());
    GT_CHECK(count == n || host_idx[count] == ~size_t{0});  // nothing written past them
    return got;
  };
  std::vector<size_t> want;
  for (size_t i = 0; i < n; ++i)
    if (i != 1) want.push_back(i);
  const size_t some = gshmem_uint64_test_some_vector(iv, n, idx, st, GSHMEM_CMP_EQ, cv);
  GT_CHECK_EQ(static_cast<unsigned long long>(n - 1), static_cast<unsigned long long>(some));
  GT_CHECK(indices(some) == want);
  GT_CHECK_EQ(1, gshmem_uint64_test_all_vector(iv, n, st, GSHMEM_CMP_EQ, cv));
  gshmem_uint64_wait_until_all_vector(iv, n, st, GSHMEM_CMP_EQ, cv);  // returns: met
  GT_CHECK_EQ(static_cast<unsigned long long>(n - 1),
              static_cast<unsigned long long>(gshmem_uint64_wait_until_any(iv, n, st, GSHMEM_CMP_EQ, 4 + n)));
  GT_CHECK_EQ(0, gshmem_uint64_test_all(iv, n, st, GSHMEM_CMP_EQ, 5));  // only element 0 is 5
  if (on_device) {
    CUDA_CHECK(cudaFree(idx));
    CUDA_CHECK(cudaFree(cv));
    CUDA_CHECK(cudaFree(st));
  }
}

void wait_on_stream() {
  int* flags = static_cast<int*>(gshmem_calloc(2, sizeof(int)));
  long long* data = static_cast<long long*>(gshmem_calloc(1, sizeof(long long)));
  GT_CHECK(flags != nullptr && data != nullptr);
  if (!flags || !data) return;
  DevErrorsHost err;
  cudaStream_t ws, cs;
  CUDA_CHECK(cudaStreamCreateWithFlags(&ws, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  set_context("gshmemx_int_wait_until_on_stream + checking kernels, %d rounds", kStreamRounds);
  gshmem_barrier_all();
  for (int r = 1; r <= kStreamRounds; ++r) {
    k_stream_writer<<<1, 1, 0, ws>>>(flags, flags + 1, data, r);
    CUDA_CHECK(cudaGetLastError());
    gshmemx_int_wait_until_on_stream(flags, GSHMEM_CMP_GE, r, cs);
    k_stream_check<<<1, 1, 0, cs>>>(flags, flags + 1, data, r, err.d);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaStreamSynchronize(ws));
  CUDA_CHECK(cudaStreamSynchronize(cs));
  err.check("round", "what", __FILE__, __LINE__);
  gshmem_barrier_all();
  void* local = gshmem_calloc(3, sizeof(uint64_t));
  stream_every_type<w_short>(local, cs, ws);
  stream_every_type<w_int>(local, cs, ws);
  stream_every_type<w_long>(local, cs, ws);
  stream_every_type<w_longlong>(local, cs, ws);
  stream_every_type<w_ushort>(local, cs, ws);
  stream_every_type<w_uint>(local, cs, ws);
  stream_every_type<w_ulong>(local, cs, ws);
  stream_every_type<w_ulonglong>(local, cs, ws);
  stream_every_type<w_int32>(local, cs, ws);
  stream_every_type<w_int64>(local, cs, ws);
  stream_every_type<w_uint32>(local, cs, ws);
  stream_every_type<w_uint64>(local, cs, ws);
  stream_every_type<w_size>(local, cs, ws);
  stream_every_type<w_ptrdiff>(local, cs, ws);
  gshmem_barrier_all();
  void* big = gshmem_calloc(kLarge, sizeof(uint64_t));
  auto* gate = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  GT_CHECK(big != nullptr && gate != nullptr);
  if (big && gate) {
    auto* iv = static_cast<uint64_t*>(big);
    waits_without_stream_pool(big, gate, cs, ws);
    for (size_t n : kSizes)
      for (ArrayMem mem : {ArrayMem::pageable, ArrayMem::pinned, ArrayMem::device})
        arrays_read_when(iv, n, gate, mem, cs, ws);
    for (size_t n : {size_t{3}, kParams, kParamsLarge, kParamsMax, kCarried})
      for (bool on_device : {false, true}) host_waits_arrays(iv, n, on_device);
    for (size_t n : kSizes)
      for (auto mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed})
        captured_wait(iv, n, mode, cs, ws);
  }
  gshmem_barrier_all();
  gshmem_free(gate);
  gshmem_free(big);
  gshmem_free(local);
  CUDA_CHECK(cudaStreamDestroy(cs));
  CUDA_CHECK(cudaStreamDestroy(ws));
  gshmem_free(data);
  gshmem_free(flags);
}

}  // namespace
