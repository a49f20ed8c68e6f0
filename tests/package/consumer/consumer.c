/* SPDX-License-Identifier: BSD-3-Clause */
#include <gshmem/gshmem.h>
#include <string.h>
/* 2: the installed gshmem/version.h (through gshmem.h) is not the package's version. */
int main(void) { return strcmp(GSHMEM_VERSION_STRING, GSHMEM_EXPECTED_VERSION) ? 2 : gshmemx_initialized(); }
