// SPDX-License-Identifier: BSD-3-Clause
// Reduce-scatter (gshmem_TYPE_OP_reducescatter and its _warp / _block / _on_stream forms):
// the team-reduction test of test_reduce.cu, run on the reducescatter names. Team PE p's
// dest must hold the reduction of every member's source[p * nreduce + i]; in-place calls
// (dest == source) must leave the chunks other than 0 and the caller's own unchanged.
#define GT_REDUCESCATTER 1
#include "test_reduce.cu"
