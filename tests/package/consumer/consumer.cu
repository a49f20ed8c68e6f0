// SPDX-License-Identifier: BSD-3-Clause
#include <gshmem/gshmem.h>
__global__ void k(int* p) { gshmem_int_p(p, 1, (gshmem_my_pe() + 1) % gshmem_n_pes()); }
int main() { return gshmemx_initialized(); }
