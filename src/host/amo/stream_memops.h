// SPDX-License-Identifier: BSD-3-Clause
// Zero-SM stream operations for signals (CUDA stream memory operations):
// cuStreamWriteValue64 for SET, cuStreamWaitValue64 for the comparisons it
// expresses exactly (wait_value_plan.h). Each returns false when the memop
// cannot be used here (driver or device lacks 64-bit memops / NOR, the
// comparison has no exact form, or the driver refused the address); the
// caller then enqueues a one-thread kernel instead. Nothing is logged as an
// error for a fallback (it is an INFO line, once per device).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gshmem::amo {

// *addr = value, ordered after all earlier work on `stream` (the write carries
// a memory barrier: CU_STREAM_WRITE_VALUE_DEFAULT). addr: a local or
// peer-mapped device address.
bool stream_write_value64(const char* call, cudaStream_t stream, uint64_t* addr, uint64_t value);

// Later work on `stream` waits until `*addr cmp value` holds. true: enqueued
// (or nothing to wait for).
bool stream_wait_value64(const char* call, cudaStream_t stream, uint64_t* addr, int cmp, uint64_t value);

}  // namespace gshmem::amo
