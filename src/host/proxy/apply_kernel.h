// SPDX-License-Identifier: BSD-3-Clause
// The proxy's apply kernel: one thread that performs, on this PE's GPU, what another PE asked
// for and the copy engines and stream memory operations cannot do (docs/internode.md section 5):
// AMOs and ADD signals, with the same system-scope atomics this PE and its NVLink peers use on
// the same words, so that all of them are atomic with one another.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gshmem::hproxy {

// What the kernel does at `addr` (a device address of this PE's heap):
enum ApplyKind : uint8_t {
  kApplyStoreRelease = 0,  // st.release.sys of `operand` (8 B): a SET signal, the completion count
  kApplyAddRelease = 1,    // red.release.sys.add of `operand` (8 B): an ADD signal
  kApplyAmo = 2,           // the AMO `op` (GSHMEMI_PROXY_OP_AMO_*) of `width` 4 or 8
};

struct ApplyArgs {
  uint64_t addr = 0;
  uint64_t operand = 0, compare = 0;
  uint64_t result = 0;  // device address of 8 bytes for the AMO's old value (0: none)
  uint8_t kind = kApplyStoreRelease;
  uint8_t op = 0;
  uint8_t width = 8;
};

cudaError_t launch_apply(const ApplyArgs& a, cudaStream_t stream);

}  // namespace gshmem::hproxy
