// SPDX-License-Identifier: BSD-3-Clause
// Device-side point-to-point synchronisation: waiting on and testing local
// symmetric variables that other PEs update. Declarations and contracts;
// bodies in impl/wait.cuh. Ordering: see the memory model in sync.cuh.
#pragma once

namespace gshmem {

// Values equal the C constants GSHMEM_CMP_* (gshmem/types.h).
enum class cmp : int { eq = 0, ne = 1, gt = 2, ge = 3, lt = 4, le = 5 };

// Wait until `*ivar cmp value` holds (ivar local and symmetric). Loads after
// it observe what the writer made visible before its update (acquire, system).
template <class T> __device__ void wait_until(T* ivar, cmp c, T value);
// Non-blocking check of the same condition (acquire when true).
template <class T> __device__ bool test(T* ivar, cmp c, T value);

}  // namespace gshmem
