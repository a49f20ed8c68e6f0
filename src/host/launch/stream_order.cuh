// SPDX-License-Identifier: BSD-3-Clause
// The device side of early launches (early_launch.h): the first statement of every
// kernel launch_plain may start before the work ahead of it on its stream has ended.
#pragma once

namespace gshmem {

// Holds the kernel until the kernel ahead of it on the stream has completed and its memory
// operations are visible. Returns at once when the kernel was not launched early.
__device__ __forceinline__ void wait_for_stream_predecessors() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace gshmem
