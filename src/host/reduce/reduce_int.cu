// SPDX-License-Identifier: BSD-3-Clause
// Reduction kernels for integer elements. Signedness matters only to min/max; the other
// operators run on the unsigned type of the same size (reduce_canon).
#include "gshmem/detail/host_entry_reduce.h"
#include "reduce_kernel.cuh"

namespace gshmem::reductions {
namespace {

template <class U, class S>
cudaError_t ints(int op, bool is_signed, const Launch& l) {
  switch (op) {
    case GSHMEMI_ROP_AND:
      return launch<gshmem::op::and_, U>(l);
    case GSHMEMI_ROP_OR:
      return launch<gshmem::op::or_, U>(l);
    case GSHMEMI_ROP_XOR:
      return launch<gshmem::op::xor_, U>(l);
    case GSHMEMI_ROP_SUM:
      return launch<gshmem::op::sum, U>(l);
    case GSHMEMI_ROP_PROD:
      return launch<gshmem::op::prod, U>(l);
    case GSHMEMI_ROP_MIN:
      return is_signed ? launch<gshmem::op::min, S>(l) : launch<gshmem::op::min, U>(l);
    case GSHMEMI_ROP_MAX:
      return is_signed ? launch<gshmem::op::max, S>(l) : launch<gshmem::op::max, U>(l);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_int(int op, bool is_signed, int size, const Launch& l) {
  switch (size) {
    case 1:
      return ints<uint8_t, int8_t>(op, is_signed, l);
    case 2:
      return ints<uint16_t, int16_t>(op, is_signed, l);
    case 4:
      return ints<uint32_t, int32_t>(op, is_signed, l);
    case 8:
      return ints<uint64_t, int64_t>(op, is_signed, l);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace gshmem::reductions
