// SPDX-License-Identifier: BSD-3-Clause
// On-stream RMA, signals and quiet for PEs on other nodes (the gshmemx_*_on_stream forms).
//
// A one-thread library kernel on the caller's stream posts the operation into this PE's proxy
// ring, exactly as a device call does, so it takes its place in stream order like every other
// on-stream form and is ordered with the device API's operations to the same PE (ticket order).
// Contiguous data goes by reference: the proxy reads (put) or writes (get) this process's memory,
// host or device, itself. The kernel waits for the proxy's reply, so later work on the stream may
// reuse the source of a put or read the data of a get. Delivery at the target is complete after
// quiet_on_stream or a barrier on the stream, as for the device API.
//
// Each returns false after logging a line naming the call and the cause (a launch failure).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "host/proxy/host_ops.h"

namespace gshmem::hproxy {

// putmem(_signal)_on_stream: `bytes` from `source` to heap offset `offset` at `pe`; `sig`
// (optional) is applied at the target after the data.
bool put_on_stream(const char* call, int pe, uint64_t offset, const void* source, size_t bytes, const Signal* sig,
                   cudaStream_t stream);
// getmem_on_stream: `bytes` from heap offset `offset` at `pe` into `dest`.
bool get_on_stream(const char* call, int pe, uint64_t offset, void* dest, size_t bytes, cudaStream_t stream);
// p_on_stream (`bytes` <= 16 at `value`, copied before it returns) and signal_op_on_stream:
// inline entries.
bool value_on_stream(const char* call, int pe, uint64_t offset, const void* value, unsigned bytes, cudaStream_t stream);
bool signal_on_stream(const char* call, int pe, const Signal& sig, cudaStream_t stream);
// quiet_on_stream's proxy half: a kernel that waits until every operation this PE's kernels
// posted into the ring before it completed. Nothing when no proxy runs.
bool quiet_on_stream(const char* call, cudaStream_t stream);

}  // namespace gshmem::hproxy
