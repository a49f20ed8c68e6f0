// SPDX-License-Identifier: BSD-3-Clause
// Reduction kernels for floating elements: float, double, __half, __nv_bfloat16
// (min/max/sum/prod) and float/double _Complex (sum/prod; host and on-stream forms only).
#include "gshmem/detail/host_entry_reduce.h"
#include "reduce_kernel.cuh"

namespace gshmem::reductions {
namespace {

template <class T>
cudaError_t reals(int op, const Launch& l) {
  switch (op) {
    case GSHMEMI_ROP_MIN:
      return launch<gshmem::op::min, T>(l);
    case GSHMEMI_ROP_MAX:
      return launch<gshmem::op::max, T>(l);
    case GSHMEMI_ROP_SUM:
      return launch<gshmem::op::sum, T>(l);
    case GSHMEMI_ROP_PROD:
      return launch<gshmem::op::prod, T>(l);
    default:
      return cudaErrorInvalidValue;
  }
}

template <class T>
cudaError_t complexes(int op, const Launch& l) {
  switch (op) {
    case GSHMEMI_ROP_SUM:
      return launch<gshmem::op::sum, T>(l);
    case GSHMEMI_ROP_PROD:
      return launch<gshmem::op::prod, T>(l);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_float(int op, int kind, int size, const Launch& l) {
  switch (kind) {
    case GSHMEMI_RK_FLOAT:
      if (size == 4) return reals<float>(op, l);
      if (size == 8) return reals<double>(op, l);
      return cudaErrorInvalidValue;
    case GSHMEMI_RK_HALF:
      return size == 2 ? reals<__half>(op, l) : cudaErrorInvalidValue;
    case GSHMEMI_RK_BF16:
      return size == 2 ? reals<__nv_bfloat16>(op, l) : cudaErrorInvalidValue;
    case GSHMEMI_RK_COMPLEX:
      if (size == 8) return complexes<detail::cplx_f>(op, l);
      if (size == 16) return complexes<detail::cplx_d>(op, l);
      return cudaErrorInvalidValue;
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace gshmem::reductions
