// SPDX-License-Identifier: BSD-3-Clause
#include <gshmem/gshmem.h>

#include <cstring>
__global__ void k(int* p) { gshmem_int_p(p, 1, (gshmem_my_pe() + 1) % gshmem_n_pes()); }
// 2: the installed gshmem/version.h (through gshmem.h) is not the package's version.
int main() { return std::strcmp(GSHMEM_VERSION_STRING, GSHMEM_EXPECTED_VERSION) ? 2 : gshmemx_initialized(); }
