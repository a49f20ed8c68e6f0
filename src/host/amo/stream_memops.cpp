// SPDX-License-Identifier: BSD-3-Clause
#include "host/amo/stream_memops.h"

#include <atomic>

#include "host/core/driver.h"
#include "host/core/runtime.h"
#include "host/amo/wait_value_plan.h"
#include "host/core/log.h"

namespace gshmem::amo {
namespace {

// Per CUDA ordinal: what the device supports (queried once).
enum : int { kKnown = 1, k64 = 2, kNor = 4, kFlush = 8, kRemoteWriteRefused = 16 };
constexpr int kMaxDevices = 256;
std::atomic<int> g_caps[kMaxDevices];

int capabilities() {
  const int dev = rt().device;
  if (dev < 0 || dev >= kMaxDevices) return kKnown;
  int c = g_caps[dev].load(std::memory_order_acquire);
  if (c & kKnown) return c;
  c = kKnown;
  const cu::Api* api = nullptr;
  if (cu::load(&api) == GSHMEM_SUCCESS && api->StreamWaitValue64 && api->StreamWriteValue64) {
    int v = 0;
    if (api->DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev) == CUDA_SUCCESS && v)
      c |= k64;
    v = 0;
    if (api->DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, dev) == CUDA_SUCCESS && v)
      c |= kNor;
    v = 0;
    if (api->DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, dev) == CUDA_SUCCESS && v) c |= kFlush;
  }
  GSHMEM_LOG_INFO("signals on streams: 64-bit stream memory operations %s on GPU %d (NOR %s, flush %s)%s",
                  (c & k64) ? "available" : "unavailable", dev, (c & kNor) ? "yes" : "no", (c & kFlush) ? "yes" : "no",
                  (c & k64) ? "" : "; using one-thread kernels instead");
  g_caps[dev].fetch_or(c, std::memory_order_acq_rel);
  return c;
}

void mark(int bit) {
  const int dev = rt().device;
  if (dev >= 0 && dev < kMaxDevices) g_caps[dev].fetch_or(bit, std::memory_order_acq_rel);
}

}  // namespace

bool stream_write_value64(const char* call, cudaStream_t stream, uint64_t* addr, uint64_t value) {
  const int c = capabilities();
  if (!(c & k64) || (c & kRemoteWriteRefused)) return false;
  const CUresult r =
      cu::api().StreamWriteValue64(stream, reinterpret_cast<CUdeviceptr>(addr), value, CU_STREAM_WRITE_VALUE_DEFAULT);
  if (r == CUDA_SUCCESS) return true;
  GSHMEM_LOG_INFO("%s: cuStreamWriteValue64 on %p refused (%s); signals on streams use a kernel from now on", call,
                  static_cast<void*>(addr), cu::error_string(r));
  mark(kRemoteWriteRefused);
  return false;
}

bool stream_wait_value64(const char* call, cudaStream_t stream, uint64_t* addr, int cmp, uint64_t value) {
  const WaitValuePlan p = plan_wait_value(cmp, value);
  if (p.how == WaitValuePlan::How::always_true) return true;
  if (p.how == WaitValuePlan::How::kernel) return false;
  const int c = capabilities();
  if (!(c & k64) || (p.needs_nor && !(c & kNor))) return false;
  const unsigned flags = p.flags | ((c & kFlush) ? static_cast<unsigned>(CU_STREAM_WAIT_VALUE_FLUSH) : 0u);
  const CUresult r = cu::api().StreamWaitValue64(stream, reinterpret_cast<CUdeviceptr>(addr), p.value, flags);
  if (r == CUDA_SUCCESS) return true;
  GSHMEM_LOG_INFO("%s: cuStreamWaitValue64 on %p refused (%s); waiting with a kernel", call, static_cast<void*>(addr),
                  cu::error_string(r));
  return false;
}

}  // namespace gshmem::amo
