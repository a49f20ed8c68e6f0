// SPDX-License-Identifier: BSD-3-Clause
#include "rma_transfer.h"

#include <cstdint>
#include <cstring>

#include "host/core/driver.h"
#include "host/core/runtime.h"
#include "host/launch/preload.h"
#include "host/mem/heap.h"

namespace gshmem::rma {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;

// Element e occupies `units` U-words at dst + e * dpitch (resp. src + e * spitch).
template <class U>
__global__ void k_strided_copy(char* dst, size_t dpitch, const char* src, size_t spitch, size_t n, size_t units) {
  const size_t total = n * units;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total; k += step) {
    const size_t e = k / units, u = k - e * units;
    reinterpret_cast<U*>(dst + e * dpitch)[u] = reinterpret_cast<const U*>(src + e * spitch)[u];
  }
}

struct Value16 {
  unsigned char b[16];
};

// Stores the first sizeof(W) bytes of v at dst as one W when dst is aligned for it.
template <class W>
__device__ bool store_word(void* dst, const Value16& v) {
  if (reinterpret_cast<uintptr_t>(dst) % sizeof(W) != 0) return false;
  W w;
  memcpy(&w, v.b, sizeof(W));
  *static_cast<volatile W*>(dst) = w;
  return true;
}

__global__ void k_store(void* dst, Value16 v, unsigned bytes) {
  bool done = false;
  switch (bytes) {
    case 1:
      done = store_word<uint8_t>(dst, v);
      break;
    case 2:
      done = store_word<uint16_t>(dst, v);
      break;
    case 4:
      done = store_word<uint32_t>(dst, v);
      break;
    case 8:
      done = store_word<uint64_t>(dst, v);
      break;
    default:
      break;
  }
  if (!done)
    for (unsigned i = 0; i < bytes; ++i) static_cast<volatile unsigned char*>(dst)[i] = v.b[i];
}

bool cuda_ok(const char* call, const char* what, cudaError_t e) {
  if (e == cudaSuccess) return true;
  GSHMEM_LOG_ERROR("%s: %s failed: %s (%s)", call, what, cudaGetErrorString(e), cudaGetErrorName(e));
  return false;
}

size_t max_pitch() {
  static size_t cached = 0;
  if (cached == 0) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxPitch, rt().device) != cudaSuccess || v <= 0) {
      cudaGetLastError();
      v = 1 << 30;  // conservative
    }
    cached = static_cast<size_t>(v);
  }
  return cached;
}

// Whether kernels on this GPU may load/store `p` (device, managed or mapped pinned memory).
bool device_accessible(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
         (attr.type == cudaMemoryTypeHost && attr.devicePointer != nullptr);
}

template <class U>
void launch_copy(const Transfer& t, size_t units, unsigned blocks, cudaStream_t stream) {
  k_strided_copy<U><<<blocks, kThreads, 0, stream>>>(t.dst, t.dst_pitch, t.src, t.src_pitch, t.nelems, units);
}

// Each element moves in the widest word (16..1 bytes) that both addresses, both pitches and
// the element size are multiples of.
bool launch_strided_kernel(const char* call, const Transfer& t, cudaStream_t stream) {
  const uintptr_t mix =
      reinterpret_cast<uintptr_t>(t.dst) | reinterpret_cast<uintptr_t>(t.src) | t.dst_pitch | t.src_pitch | t.elem;
  size_t unit = 16;
  while (unit > 1 && (mix & (unit - 1)) != 0) unit >>= 1;
  const size_t units = t.elem / unit;
  const size_t total = t.nelems * units;
  unsigned blocks = static_cast<unsigned>((total + kThreads - 1) / kThreads);
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  switch (unit) {
    case 16:
      launch_copy<uint4>(t, units, blocks, stream);
      break;
    case 8:
      launch_copy<uint64_t>(t, units, blocks, stream);
      break;
    case 4:
      launch_copy<uint32_t>(t, units, blocks, stream);
      break;
    case 2:
      launch_copy<uint16_t>(t, units, blocks, stream);
      break;
    default:
      launch_copy<uint8_t>(t, units, blocks, stream);
      break;
  }
  return cuda_ok(call, "strided-copy kernel launch", cudaGetLastError());
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load({preload::K(k_store), preload::K(k_strided_copy<uint4>), preload::K(k_strided_copy<uint64_t>),
                        preload::K(k_strided_copy<uint32_t>), preload::K(k_strided_copy<uint16_t>),
                        preload::K(k_strided_copy<uint8_t>)});
});

// Whether p lies in this PE's symmetric heap (device memory mapped here).
bool in_my_heap(const void* p) {
  const char* c = static_cast<const char*>(p);
  const char* base = rt().heap->base();
  return c >= base && c < base + rt().heap->size();
}

}  // namespace

bool transfer(const char* call, const Transfer& t, cudaStream_t stream, bool wait) {
  if (t.nelems == 0) return true;
  bool ok;
  if (t.dst_pitch == t.elem && t.src_pitch == t.elem && in_my_heap(t.local)) {
    // Both ends are device memory of the heap: the driver's copy, not libgshmem's own (static)
    // runtime's cudaMemcpyAsync. A halo exchange's two put_on_stream of 16 KiB rows to the
    // neighbour, against the same copies made by the program itself (halo_host, 2 x H200):
    // 0.90-0.975 x with the runtime's copy, 0.97-1.04 x with the driver's.
    const CUresult r = cu::api().MemcpyAsync(reinterpret_cast<CUdeviceptr>(t.dst), reinterpret_cast<CUdeviceptr>(t.src),
                                             t.nelems * t.elem, reinterpret_cast<CUstream>(stream));
    ok = r == CUDA_SUCCESS;
    if (!ok) GSHMEM_LOG_ERROR("%s: cuMemcpyAsync failed: %s", call, cu::error_string(r));
  } else if (t.dst_pitch == t.elem && t.src_pitch == t.elem) {
    ok = cuda_ok(call, "cudaMemcpyAsync", cudaMemcpyAsync(t.dst, t.src, t.nelems * t.elem, cudaMemcpyDefault, stream));
  } else if (t.dst_pitch <= max_pitch() && t.src_pitch <= max_pitch()) {
    ok =
        cuda_ok(call, "cudaMemcpy2DAsync",
                cudaMemcpy2DAsync(t.dst, t.dst_pitch, t.src, t.src_pitch, t.elem, t.nelems, cudaMemcpyDefault, stream));
  } else if (device_accessible(t.local)) {
    ok = launch_strided_kernel(call, t, stream);
  } else {
    GSHMEM_LOG_INFO(
        "%s: stride of %zu/%zu bytes exceeds the copy engines' pitch limit and the local buffer is not "
        "device memory: copying element by element",
        call, t.dst_pitch, t.src_pitch);
    ok = true;
    for (size_t i = 0; ok && i < t.nelems; ++i)
      ok =
          cuda_ok(call, "cudaMemcpyAsync",
                  cudaMemcpyAsync(t.dst + i * t.dst_pitch, t.src + i * t.src_pitch, t.elem, cudaMemcpyDefault, stream));
  }
  if (ok && wait) ok = cuda_ok(call, "cudaStreamSynchronize", cudaStreamSynchronize(stream));
  return ok;
}

bool store_on_stream(const char* call, void* dst, const void* value, size_t bytes, cudaStream_t stream) {
  Value16 v{};
  if (bytes > sizeof(v.b)) {
    GSHMEM_LOG_ERROR("%s: internal: %zu-byte element for a stream-ordered store (at most 16)", call, bytes);
    return false;
  }
  memcpy(v.b, value, bytes);
  k_store<<<1, 1, 0, stream>>>(dst, v, static_cast<unsigned>(bytes));
  return cuda_ok(call, "store kernel launch", cudaGetLastError());
}

}  // namespace gshmem::rma
