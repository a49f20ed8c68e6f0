// SPDX-License-Identifier: BSD-3-Clause
// Host forms of wait_until / test and their _all/_any/_some(_vector) variants,
// and gshmemx_<type>_wait_until[_all[_vector]]_on_stream: the device
// implementation in a one-thread kernel (see p2p_host.h for why). Host forms run on the internal
// stream and wait for it, their inputs and results passing through the library's pinned and
// device memory for such calls (call_memory.h); the stream forms allocate theirs on the stream.
// Status masks and comparison values in host memory are read during the call, those in device
// memory in stream order (copy_inputs).
#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "host/init/runtime.h"
#include "host/launch/preload.h"
#include "host/p2p/p2p_host.h"

namespace gshmem::p2p {
namespace {

template <class T>
__device__ void wait_body(int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                          const T* values, size_t* result) {
  const gshmem::cmp cc = static_cast<gshmem::cmp>(c);
  const bool vec = values != nullptr;
  size_t r = 0;
  switch (op) {
    case GSHMEMI_WAIT_UNTIL: gshmem::wait_until(ivars, cc, value); break;
    case GSHMEMI_WAIT_UNTIL_ALL:
      if (vec) gshmem::wait_until_all_vector(ivars, n, status, cc, values);
      else gshmem::wait_until_all(ivars, n, status, cc, value);
      break;
    case GSHMEMI_WAIT_UNTIL_ANY:
      r = vec ? gshmem::wait_until_any_vector(ivars, n, status, cc, values)
              : gshmem::wait_until_any(ivars, n, status, cc, value);
      break;
    case GSHMEMI_WAIT_UNTIL_SOME:
      r = vec ? gshmem::wait_until_some_vector(ivars, n, indices, status, cc, values)
              : gshmem::wait_until_some(ivars, n, indices, status, cc, value);
      break;
    case GSHMEMI_TEST: r = gshmem::test(ivars, cc, value) ? 1 : 0; break;
    case GSHMEMI_TEST_ALL:
      r = (vec ? gshmem::test_all_vector(ivars, n, status, cc, values) : gshmem::test_all(ivars, n, status, cc, value))
              ? 1 : 0;
      break;
    case GSHMEMI_TEST_ANY:
      r = vec ? gshmem::test_any_vector(ivars, n, status, cc, values) : gshmem::test_any(ivars, n, status, cc, value);
      break;
    case GSHMEMI_TEST_SOME:
      r = vec ? gshmem::test_some_vector(ivars, n, indices, status, cc, values)
              : gshmem::test_some(ivars, n, indices, status, cc, value);
      break;
    default: break;
  }
  if (result) *result = r;
}

template <class T>
__global__ void wait_kernel(int op, T* ivars, size_t n, size_t* indices, const int* status, int c, T value,
                            const T* values, size_t* result) {
  wait_body(op, ivars, n, indices, status, c, value, values, result);
}

// A status mask and comparison values small enough to travel in the kernel's parameters, which
// the launch copies: read when the call is made, with no memory to take, fill or give back.
// Arrays in device memory do not: the stream form reads those in stream order.
constexpr size_t kInlineElems = 32;
template <class T>
struct InlineArrays {
  int status[kInlineElems];
  T values[kInlineElems];
};

bool fits_inline(size_t n, const int* status, const void* cmp_values) {
  return (status || cmp_values) && n <= kInlineElems && (!status || in_host_memory(status)) &&
         (!cmp_values || in_host_memory(cmp_values));
}

template <class T>
InlineArrays<T> inline_arrays(size_t n, const int* status, const void* cmp_values) {
  InlineArrays<T> a{};
  if (status) memcpy(a.status, status, n * sizeof(int));
  if (cmp_values) memcpy(a.values, cmp_values, n * sizeof(T));
  return a;
}

template <class T>
__global__ void wait_inline_kernel(int op, T* ivars, size_t n, size_t* indices, bool has_status, int c, T value,
                                   bool has_values, InlineArrays<T> a, size_t* result) {
  wait_body<T>(op, ivars, n, indices, has_status ? a.status : nullptr, c, value, has_values ? a.values : nullptr,
               result);
}

size_t align16(size_t x) { return (x + 15) & ~size_t(15); }

// Host bytes carried into device memory in a kernel's parameters, which the launch copies: read
// at the call, with nothing to allocate or wait for, which stream capture does not allow.
constexpr unsigned kCarryBytes = 4000;  // with the other parameters under a launch's 4 KiB
struct Carried {
  unsigned char bytes[kCarryBytes];
};

__global__ void carry_kernel(unsigned char* dst, unsigned n, Carried c) {
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) dst[i] = c.bytes[i];
}

bool carry(const char* call, char* dst, const void* src, size_t bytes, cudaStream_t s) {
  Carried c;
  for (size_t done = 0; done < bytes; done += kCarryBytes) {
    const auto n = static_cast<unsigned>(std::min<size_t>(kCarryBytes, bytes - done));
    memcpy(c.bytes, static_cast<const char*>(src) + done, n);
    carry_kernel<<<1, 128, 0, s>>>(reinterpret_cast<unsigned char*>(dst + done), n, c);
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

// Host form: the inputs travel in the kernel's parameters (fits_inline), or are staged in the
// library's pinned memory and copied to its device memory (the kernel reads them on every poll);
// the result and indices come back through the pinned memory (call_memory.h). Layouts, each
// part 16-byte aligned:
//   pinned  [result][indices: n][status: n][values: n]
//   device          [indices: n][status: n][values: n]   (at the same offsets less 16)
template <class T>
size_t run(const char* call, int op, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
           const void* cmp_value, const void* cmp_values) {
  const bool some = op == GSHMEMI_WAIT_UNTIL_SOME || op == GSHMEMI_TEST_SOME;
  const size_t failed = (op == GSHMEMI_WAIT_UNTIL_ANY || op == GSHMEMI_TEST_ANY) ? SIZE_MAX : 0;
  T value = T();
  if (cmp_value) memcpy(&value, cmp_value, sizeof(T));
  const bool in_params = fits_inline(n, status, cmp_values);
  const size_t idx_bytes = some ? align16(n * sizeof(size_t)) : 0;
  const size_t status_bytes = status && !in_params ? align16(n * sizeof(int)) : 0;
  const size_t values_bytes = cmp_values && !in_params ? n * sizeof(T) : 0;
  const size_t dev_bytes = idx_bytes + status_bytes + values_bytes;
  constexpr size_t kHead = 16;  // the result, in pinned memory only
  CallMemory& m = rt().call_memory;
  char* host = static_cast<char*>(m.pinned(call, kHead + dev_bytes));
  char* dev = dev_bytes ? static_cast<char*>(m.device(call, dev_bytes)) : nullptr;
  if (!host || (dev_bytes && !dev)) return failed;
  const cudaStream_t s = internal_stream();
  auto* result = reinterpret_cast<size_t*>(host);
  size_t* dev_indices = some ? reinterpret_cast<size_t*>(dev) : nullptr;
  if (in_params) {
    wait_inline_kernel<T><<<1, 1, 0, s>>>(op, ivars, n, dev_indices, status != nullptr, cmp, value,
                                          cmp_values != nullptr, inline_arrays<T>(n, status, cmp_values), result);
  } else {
    const size_t inputs = idx_bytes;  // the status mask's offset in device memory (pinned: kHead more)
    if (!copy_inputs(call, dev + inputs, host + kHead + inputs,
                     {{status, status_bytes ? n * sizeof(int) : 0, 0}, {cmp_values, values_bytes, status_bytes}}, s))
      return failed;
    wait_kernel<T><<<1, 1, 0, s>>>(op, ivars, n, dev_indices,
                                   status ? reinterpret_cast<const int*>(dev + inputs) : nullptr, cmp, value,
                                   cmp_values ? reinterpret_cast<const T*>(dev + inputs + status_bytes) : nullptr,
                                   result);
  }
  if (!finish(call, s, false)) return failed;
  if (some && n && !cuda_ok(call, "copy of the indices",
                            cudaMemcpyAsync(host + kHead, dev, n * sizeof(size_t), cudaMemcpyDeviceToHost, s)))
    return failed;
  if (!finish(call, s, true)) return failed;
  const size_t r = *result;
  if (some && r > 0 && r <= n) {
    if (in_host_memory(indices)) {
      memcpy(indices, host + kHead, r * sizeof(size_t));
    } else if (!cuda_ok(call, "copy of the indices to device memory",
                        cudaMemcpyAsync(indices, host + kHead, r * sizeof(size_t), cudaMemcpyHostToDevice, s)) ||
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

// Stream form. Arrays of up to kInlineElems elements in host memory travel in the wait
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
  if (fits_inline(n, status, cmp_values)) {
    wait_inline_kernel<T><<<1, 1, 0, stream>>>(op, ivars, n, nullptr, status != nullptr, cmp, value,
                                               cmp_values != nullptr, inline_arrays<T>(n, status, cmp_values),
                                               nullptr);
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
  wait_kernel<T><<<1, 1, 0, stream>>>(op, ivars, n, nullptr, status ? scratch.at<int>(0) : nullptr, cmp, value,
                                      cmp_values ? scratch.at<T>(off_values) : nullptr, nullptr);
  finish(call, stream, false);
}

bool valid_type(const char* call, int kind, size_t size) {
  if (kind != GSHMEMI_KIND_FLOAT && (size == 2 || size == 4 || size == 8)) return true;
  GSHMEM_LOG_ERROR("%s: internal error: no wait for %zu-byte kind-%d variables", call, size, kind);
  return false;
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load({preload::K(wait_kernel<int16_t>), preload::K(wait_kernel<uint16_t>),
                        preload::K(wait_kernel<int32_t>), preload::K(wait_kernel<uint32_t>),
                        preload::K(wait_kernel<int64_t>), preload::K(wait_kernel<uint64_t>),
                        preload::K(wait_inline_kernel<int16_t>), preload::K(wait_inline_kernel<uint16_t>),
                        preload::K(wait_inline_kernel<int32_t>), preload::K(wait_inline_kernel<uint32_t>),
                        preload::K(wait_inline_kernel<int64_t>), preload::K(wait_inline_kernel<uint64_t>),
                        preload::K(carry_kernel)});
});

}  // namespace
}  // namespace gshmem::p2p

extern "C" GSHMEM_API size_t gshmemi_host_wait(const char* call, int op, int kind, size_t size, void* ivars,
                                               size_t nelems, size_t* indices, const int* status, int cmp,
                                               const void* cmp_value, const void* cmp_values) {
  using namespace gshmem::p2p;
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
  using namespace gshmem::p2p;
  if (!check_init(call) || !check_cmp(call, cmp) || !valid_type(call, kind, size)) return;
  if (!check_local(call, ivars, nelems * size)) return;
  if (nelems && !ivars) {
    GSHMEM_LOG_ERROR("%s: ivars is NULL with nelems %zu", call, nelems);
    return;
  }
  const bool sgn = kind == GSHMEMI_KIND_SIGNED;
#define P2P_WAIT_AS(T) \
  wait_on_stream(call, op, static_cast<T*>(ivars), nelems, status, cmp, cmp_value, cmp_values, stream)
  if (size == 2) sgn ? P2P_WAIT_AS(int16_t) : P2P_WAIT_AS(uint16_t);
  else if (size == 4) sgn ? P2P_WAIT_AS(int32_t) : P2P_WAIT_AS(uint32_t);
  else sgn ? P2P_WAIT_AS(int64_t) : P2P_WAIT_AS(uint64_t);
#undef P2P_WAIT_AS
}
