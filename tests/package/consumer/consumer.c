/* SPDX-License-Identifier: BSD-3-Clause */
#include <gshmem/gshmem.h>
int main(void) { return gshmemx_initialized(); }
