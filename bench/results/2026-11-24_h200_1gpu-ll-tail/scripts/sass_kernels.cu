// SPDX-License-Identifier: BSD-3-Clause
// A kernel per form (lone thread, warp) calling the device reductions on floats, for
// sass_diff.sh: compiled alone, so its SASS is what the headers make of each form.
#include <gshmem/gshmem.h>
__global__ void __launch_bounds__(1024) k_rs(float* d, const float* s, size_t n) {
  gshmem::reducescatter<gshmem::op::sum, gshmem::thread_scope>(GSHMEM_TEAM_WORLD, d, s, n);
}
__global__ void __launch_bounds__(1024) k_red(float* d, const float* s, size_t n) {
  gshmem::reduce<gshmem::op::sum, gshmem::thread_scope>(GSHMEM_TEAM_WORLD, d, s, n);
}
__global__ void __launch_bounds__(1024) k_rsw(float* d, const float* s, size_t n) {
  gshmem::reducescatter<gshmem::op::sum, gshmem::warp_scope>(GSHMEM_TEAM_WORLD, d, s, n);
}
__global__ void __launch_bounds__(1024) k_redw(float* d, const float* s, size_t n) {
  gshmem::reduce<gshmem::op::sum, gshmem::warp_scope>(GSHMEM_TEAM_WORLD, d, s, n);
}
