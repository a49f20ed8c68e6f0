// SPDX-License-Identifier: BSD-3-Clause
// Host forms of wait_until / test and their _all/_any/_some(_vector) variants,
// and gshmemx_<type>_wait_until[_all[_vector]]_on_stream: a one-warp kernel (see amo_host.h for
// why a kernel), the single-variable forms by the device implementation, the set forms by a
// warp-wide scan with the same contract (wait_warp.cuh). Host forms run on the internal
// stream and wait for it, their inputs and results passing through the library's pinned and
// device memory for such calls (call_memory.h); the stream forms allocate theirs on the stream.
// Status masks and comparison values in host memory are read during the call, those in device
// memory in stream order (copy_inputs).
#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "host/core/runtime.h"
#include "host/launch/done_word.h"
#include "host/launch/preload.h"
#include "host/amo/amo_host.h"
#include "host/amo/wait_warp.cuh"

namespace gshmem::amo {
namespace {

// The call, done by one warp (kWaitThreads): the single-variable forms by lane 0 with the
// device API's wait and test, the set forms by the whole warp (wait_warp.cuh).
constexpr int kWaitThreads = 32;

// Host forms: the result, then the done word (host/launch/done_word.h), stored last by lane 0
// once the indices the other lanes wrote are ordered before it (__syncwarp).
template <class T>
__device__ void wait_body(int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                          const T* values, size_t* result, DoneWord done) {
  const gshmem::cmp cc = static_cast<gshmem::cmp>(c);
  size_t r = 0;
  if (op == GSHMEMI_WAIT_UNTIL || op == GSHMEMI_TEST) {
    if (warp_wait::lane() == 0) {
      if (op == GSHMEMI_WAIT_UNTIL)
        gshmem::wait_until(ivars, cc, value);
      else
        r = gshmem::test(ivars, cc, value) ? 1 : 0;
    }
  } else if (values) {
    r = warp_wait::run(op, ivars, n, indices, status, cc, gshmem::detail::cmp_vector<T>{values}, true);
  } else {
    r = warp_wait::run(op, ivars, n, indices, status, cc, gshmem::detail::cmp_scalar<T>{value}, false);
  }
  __syncwarp();
  if (warp_wait::lane() != 0) return;
  if (result) *result = r;
  store_done(done);
}

template <class T>
__global__ void wait_kernel(int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                            const T* values, size_t* result, DoneWord done) {
  wait_body(op, ivars, n, indices, status, c, value, values, result, done);
}

// A status mask and comparison values small enough to travel in the kernel's parameters, which
// the launch copies: read when the call is made, with no memory to take, fill or give back.
// Arrays in device memory do not: the stream form reads those in stream order. Three sizes, so
// that a few elements do not copy a launch's worth of parameters: kInlineMax elements of 4 + 8
// bytes (30 KB) stay under the 32 KB a launch may carry (kParamBytes). A launch costs the host
// more the more it carries: the stream forms, which otherwise allocate, take all three sizes;
// the host forms, whose memory is at hand, stage arrays of more than kInlineLarge elements
// through it instead.
constexpr size_t kParamBytes = 32764;  // CUDA 12.1 and later, Volta and later
constexpr size_t kInlineSmall = 32, kInlineLarge = 320, kInlineMax = 2560;
template <class T, size_t N>
struct InlineArrays {
  int status[N];
  T values[N];
};
static_assert(sizeof(InlineArrays<uint64_t, kInlineMax>) + 128 <= kParamBytes);

// __grid_constant__: the arrays are read where the launch put them. A copy in local memory
// (what taking a parameter's address costs otherwise) made the launch of a 320-element form,
// 3.8 KB a thread, enlarge the GPU's local memory, which waits for the kernels running.
template <class T, size_t N>
__global__ void wait_inline_kernel(int op, T* ivars, size_t n, size_t* indices, bool has_status, int c, T value,
                                   bool has_values, const __grid_constant__ InlineArrays<T, N> a, size_t* result,
                                   DoneWord done) {
  wait_body<T>(op, ivars, n, indices, has_status ? a.status : nullptr, c, value, has_values ? a.values : nullptr,
               result, done);
}

bool fits_inline(size_t n, const int* status, const void* cmp_values, size_t max) {
  return (status || cmp_values) && n <= max && (!status || in_host_memory(status)) &&
         (!cmp_values || in_host_memory(cmp_values));
}

template <class T, size_t N>
void launch_inline(cudaStream_t s, int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                   const void* cmp_values, size_t* result, DoneWord done) {
  InlineArrays<T, N> a;  // the kernel reads the first n entries only
  if (status) memcpy(a.status, status, n * sizeof(int));
  if (cmp_values) memcpy(a.values, cmp_values, n * sizeof(T));
  wait_inline_kernel<T, N><<<1, kWaitThreads, 0, s>>>(op, ivars, n, indices, status != nullptr, c, value,
                                                      cmp_values != nullptr, a, result, done);
}

// The wait with its arrays (fits_inline) in its parameters.
template <class T>
void launch_inline(cudaStream_t s, int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                   const void* cmp_values, size_t* result, DoneWord done) {
  const auto launch = n <= kInlineSmall   ? launch_inline<T, kInlineSmall>
                      : n <= kInlineLarge ? launch_inline<T, kInlineLarge>
                                          : launch_inline<T, kInlineMax>;
  launch(s, op, ivars, n, indices, status, c, value, cmp_values, result, done);
}

size_t align16(size_t x) { return (x + 15) & ~size_t(15); }

// Host bytes carried into device memory in a kernel's parameters, which the launch copies: read
// at the call, with nothing to allocate or wait for, which stream capture does not allow.
constexpr unsigned kCarryBytes = 32000;
struct alignas(16) Carried {
  unsigned char bytes[kCarryBytes];
};
static_assert(sizeof(Carried) + 64 <= kParamBytes);

// dst: 16-byte aligned (the call's device memory, align16 layout).
__global__ void carry_kernel(unsigned char* dst, unsigned n, const __grid_constant__ Carried c) {
  const unsigned words = n / 16;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(c.bytes)[i];
  for (unsigned i = 16 * words + threadIdx.x; i < n; i += blockDim.x) dst[i] = c.bytes[i];
}

bool carry(const char* call, char* dst, const void* src, size_t bytes, cudaStream_t s) {
  Carried c;
  for (size_t done = 0; done < bytes; done += kCarryBytes) {
    const auto n = static_cast<unsigned>(std::min<size_t>(kCarryBytes, bytes - done));
    memcpy(c.bytes, static_cast<const char*>(src) + done, n);
    carry_kernel<<<1, 256, 0, s>>>(reinterpret_cast<unsigned char*>(dst + done), n, c);
    if (!cuda_ok(call, "launch of the copy of an input array", cudaGetLastError())) return false;
  }
  return true;
}

// An input array of a call (a wait's status mask or comparison values): `bytes` from `src` to
// `offset` in the call's device memory. src nullptr: none.
struct Input {
  const void* src;
  size_t bytes;
  size_t offset;
};
constexpr int kInputs = 2;  // the status mask, the comparison values

// Fills the call's device memory `dev` with `inputs`, in order on `stream`. Inputs in host
// memory, pageable or pinned, are read now, so the caller may change them as soon as the call
// returns (a copy straight from pinned memory would read them when the stream gets to it; one
// from pageable memory may wait for the stream): copied into `staging` (pinned memory of the
// library, laid out like `dev`) and from there in one copy, or with `staging` nullptr into a
// buffer of this call, carried from there (carry). Inputs in device or managed memory are
// copied on the stream: read after the work before them.
bool copy_inputs(const char* call, char* dev, char* staging, const Input (&inputs)[kInputs], cudaStream_t stream) {
  bool host[kInputs] = {};
  size_t lo = SIZE_MAX, hi = 0;  // the span of the host inputs
  int i = 0;
  for (const Input& in : inputs) {
    host[i] = in.src && in.bytes && in_host_memory(in.src);
    if (host[i++]) {
      lo = std::min(lo, in.offset);
      hi = std::max(hi, in.offset + in.bytes);
    }
  }
  if (hi > lo) {
    std::vector<char> carried(staging ? 0 : hi);
    char* buf = staging ? staging : carried.data();
    i = 0;
    for (const Input& in : inputs)
      if (host[i++]) memcpy(buf + in.offset, in.src, in.bytes);
    if (staging ? !cuda_ok(call, "copy of the input arrays",
                           cudaMemcpyAsync(dev + lo, buf + lo, hi - lo, cudaMemcpyHostToDevice, stream))
                : !carry(call, dev + lo, buf + lo, hi - lo, stream))
      return false;
  }
  i = 0;
  for (const Input& in : inputs) {  // after the span, which may cover their places
    if (host[i++] || !in.src || !in.bytes) continue;
    if (!cuda_ok(call, "copy of an input array in device memory",
                 cudaMemcpyAsync(dev + in.offset, in.src, in.bytes, cudaMemcpyDefault, stream)))
      return false;
  }
  return true;
}

// Host form: the inputs travel in the kernel's parameters (up to kInlineLarge elements in host
// memory, fits_inline), or are staged in the library's pinned memory and copied to its device
// memory (the kernel reads them on every poll); the kernel writes the result and the indices
// straight into the pinned memory, read once the kernel is done (its done word, or the stream
// synchronised: host/launch/done_word.h, call_memory.h). Layouts, each part 16-byte aligned:
//   pinned  [result][indices: n][status: n][values: n]
//   device                      [status: n][values: n]   (at the same offsets less kHead + indices)
template <class T>
size_t run(const char* call, int op, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
           const void* cmp_value, const void* cmp_values) {
  const bool some = op == GSHMEMI_WAIT_UNTIL_SOME || op == GSHMEMI_TEST_SOME;
  const size_t failed = (op == GSHMEMI_WAIT_UNTIL_ANY || op == GSHMEMI_TEST_ANY) ? SIZE_MAX : 0;
  T value = T();
  if (cmp_value) memcpy(&value, cmp_value, sizeof(T));
  const bool in_params = fits_inline(n, status, cmp_values, kInlineLarge);
  constexpr size_t kHead = 16;  // the result
  const size_t idx_bytes = some ? align16(n * sizeof(size_t)) : 0;
  const size_t status_bytes = status && !in_params ? align16(n * sizeof(int)) : 0;
  const size_t values_bytes = cmp_values && !in_params ? n * sizeof(T) : 0;
  const size_t dev_bytes = status_bytes + values_bytes;
  CallMemory& m = rt().call_memory;
  char* host = static_cast<char*>(m.pinned(call, kHead + idx_bytes + dev_bytes));
  char* dev = dev_bytes ? static_cast<char*>(m.device(call, dev_bytes)) : nullptr;
  if (!host || (dev_bytes && !dev)) return failed;
  const cudaStream_t s = internal_stream();
  auto* result = reinterpret_cast<size_t*>(host);
  size_t* host_indices = some ? reinterpret_cast<size_t*>(host + kHead) : nullptr;
  const DoneWord done = next_done_word();
  if (in_params) {
    launch_inline<T>(s, op, ivars, n, host_indices, status, cmp, value, cmp_values, result, done);
  } else {
    if (!copy_inputs(call, dev, host + kHead + idx_bytes,
                     {{status, status_bytes ? n * sizeof(int) : 0, 0}, {cmp_values, values_bytes, status_bytes}}, s))
      return failed;
    wait_kernel<T><<<1, kWaitThreads, 0, s>>>(
        op, ivars, n, host_indices, status ? reinterpret_cast<const int*>(dev) : nullptr, cmp, value,
        cmp_values ? reinterpret_cast<const T*>(dev + status_bytes) : nullptr, result, done);
  }
  if (!finish(call, s, done)) return failed;
  const size_t r = *result;
  if (some && r > 0 && r <= n) {
    if (in_host_memory(indices)) {
      memcpy(indices, host_indices, r * sizeof(size_t));
    } else if (!cuda_ok(call, "copy of the indices to device memory",
                        cudaMemcpyAsync(indices, host_indices, r * sizeof(size_t), cudaMemcpyHostToDevice, s)) ||
               !finish(call, s, true)) {
      return failed;
    }
  }
  return r;
}

// Comparisons depend on size and signedness: one instantiation per pair.
size_t run_any_type(const char* call, int op, int kind, size_t size, void* ivars, size_t n, size_t* indices,
                    const int* status, int cmp, const void* cmp_value, const void* cmp_values) {
  const bool sgn = kind == GSHMEMI_KIND_SIGNED;
#define P2P_RUN_AS(T) run(call, op, static_cast<T*>(ivars), n, indices, status, cmp, cmp_value, cmp_values)
  if (size == 2) return sgn ? P2P_RUN_AS(int16_t) : P2P_RUN_AS(uint16_t);
  if (size == 4) return sgn ? P2P_RUN_AS(int32_t) : P2P_RUN_AS(uint32_t);
  return sgn ? P2P_RUN_AS(int64_t) : P2P_RUN_AS(uint64_t);
#undef P2P_RUN_AS
}

// Stream form. Arrays of up to kInlineMax elements in host memory travel in the wait
// kernel's parameters (fits_inline). Otherwise they go to device memory allocated on `stream` and
// freed there after the wait: from host memory read before the call returns - carried in
// kernel parameters up to kCarryMaxBytes or in stream capture, else through pinned memory of
// the library that is free again once the stream has copied it; from device memory in stream
// order (copy_inputs).
constexpr size_t kCarryMaxBytes = 4 * kCarryBytes;

template <class T>
void wait_on_stream(const char* call, int op, T* ivars, size_t n, const int* status, int cmp, const void* cmp_value,
                    const void* cmp_values, cudaStream_t stream) {
  T value = T();
  if (cmp_value) memcpy(&value, cmp_value, sizeof(T));
  if (fits_inline(n, status, cmp_values, kInlineMax)) {
    launch_inline<T>(stream, op, ivars, n, nullptr, status, cmp, value, cmp_values, nullptr, DoneWord{});
    finish(call, stream, false);
    return;
  }
  const size_t off_values = status ? align16(n * sizeof(int)) : 0;
  const size_t bytes = off_values + (cmp_values ? n * sizeof(T) : 0);
  StreamScratch scratch(call, StreamScratch::Kind::device, bytes, stream);
  if (!scratch.ok()) return;
  if (bytes) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (!cuda_ok(call, "cudaStreamIsCapturing", cudaStreamIsCapturing(stream, &capture))) return;
    const bool staged = bytes > kCarryMaxBytes && capture == cudaStreamCaptureStatusNone;
    StreamScratch staging(call, StreamScratch::Kind::pinned, staged ? bytes : 0, stream);
    if (!staging.ok() ||
        !copy_inputs(call, scratch.at<char>(0), staging.at<char>(0),
                     {{status, status ? n * sizeof(int) : 0, 0}, {cmp_values, bytes - off_values, off_values}}, stream))
      return;
  }  // staging: free again once the stream has passed the copy
  wait_kernel<T><<<1, kWaitThreads, 0, stream>>>(op, ivars, n, nullptr, status ? scratch.at<int>(0) : nullptr, cmp,
                                                 value, cmp_values ? scratch.at<T>(off_values) : nullptr, nullptr,
                                                 DoneWord{});
  finish(call, stream, false);
}

bool valid_type(const char* call, int kind, size_t size) {
  if (kind != GSHMEMI_KIND_FLOAT && (size == 2 || size == 4 || size == 8)) return true;
  GSHMEM_LOG_ERROR("%s: internal error: no wait for %zu-byte kind-%d variables", call, size, kind);
  return false;
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
template <class T>
cudaError_t load_for() {
  return preload::load({preload::K(wait_kernel<T>), preload::K(wait_inline_kernel<T, kInlineSmall>),
                        preload::K(wait_inline_kernel<T, kInlineLarge>),
                        preload::K(wait_inline_kernel<T, kInlineMax>)});
}

const preload::Entry kPreload(+[] {
  for (auto load : {load_for<int16_t>, load_for<uint16_t>, load_for<int32_t>, load_for<uint32_t>, load_for<int64_t>,
                    load_for<uint64_t>})
    if (const cudaError_t e = load(); e != cudaSuccess) return e;
  return preload::load({preload::K(carry_kernel)});
});

}  // namespace
}  // namespace gshmem::amo

extern "C" GSHMEM_API size_t gshmemi_host_wait(const char* call, int op, int kind, size_t size, void* ivars,
                                               size_t nelems, size_t* indices, const int* status, int cmp,
                                               const void* cmp_value, const void* cmp_values) {
  using namespace gshmem::amo;
  const size_t failed = (op == GSHMEMI_WAIT_UNTIL_ANY || op == GSHMEMI_TEST_ANY) ? SIZE_MAX : 0;
  if (!check_init(call) || !check_cmp(call, cmp) || !valid_type(call, kind, size)) return failed;
  if (!check_local(call, ivars, nelems * size)) return failed;
  if (nelems && !ivars) {
    GSHMEM_LOG_ERROR("%s: ivars is NULL with nelems %zu", call, nelems);
    return failed;
  }
  if ((op == GSHMEMI_WAIT_UNTIL_SOME || op == GSHMEMI_TEST_SOME) && nelems && !indices) {
    GSHMEM_LOG_ERROR("%s: indices is NULL; it must have room for nelems (%zu) entries", call, nelems);
    return failed;
  }
  return run_any_type(call, op, kind, size, ivars, nelems, indices, status, cmp, cmp_value, cmp_values);
}

extern "C" GSHMEM_API void gshmemi_host_wait_on_stream(const char* call, int op, int kind, size_t size, void* ivars,
                                                       size_t nelems, const int* status, int cmp, const void* cmp_value,
                                                       const void* cmp_values, cudaStream_t stream) {
  using namespace gshmem::amo;
  if (!check_init(call) || !check_cmp(call, cmp) || !valid_type(call, kind, size)) return;
  if (!check_local(call, ivars, nelems * size)) return;
  if (nelems && !ivars) {
    GSHMEM_LOG_ERROR("%s: ivars is NULL with nelems %zu", call, nelems);
    return;
  }
  const bool sgn = kind == GSHMEMI_KIND_SIGNED;
#define P2P_WAIT_AS(T) \
  wait_on_stream(call, op, static_cast<T*>(ivars), nelems, status, cmp, cmp_value, cmp_values, stream)
  if (size == 2)
    sgn ? P2P_WAIT_AS(int16_t) : P2P_WAIT_AS(uint16_t);
  else if (size == 4)
    sgn ? P2P_WAIT_AS(int32_t) : P2P_WAIT_AS(uint32_t);
  else
    sgn ? P2P_WAIT_AS(int64_t) : P2P_WAIT_AS(uint64_t);
#undef P2P_WAIT_AS
}
