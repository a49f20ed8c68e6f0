// SPDX-License-Identifier: BSD-3-Clause
// Interface of the no-rdc test libraries (tests/nordc). Each library is one .cu
// file compiled WITHOUT relocatable device code that includes <gshmem/gshmem.h>
// and launches its own kernels; the program nordc_main (a plain C++ TU) drives them.
//   libnordc_a.so  nordc_a_put: fills a local source and puts it into the next PE
//                  (gshmemx_int_put_block from several blocks, then gshmem_quiet)
//   libnordc_b.so  nordc_b_check: its own device barrier, then checks what A
//                  delivered locally, through gshmem_int_g and through gshmem_ptr,
//                  and reports gshmem_my_pe()/gshmem_n_pes() as its kernels see them
//   libnordc_c.so  (dlopen'ed after gshmem_init) nordc_c_run: p's into the next PE,
//                  barrier, checks, reports the same - its device state was filled
//                  when it was loaded, after initialisation
#pragma once

#include <stddef.h>

#define NORDC_API __attribute__((visibility("default")))

struct nordc_report {
  int my_pe;                     // gshmem_my_pe() in the library's kernel
  int n_pes;                     // gshmem_n_pes() in the library's kernel
  unsigned long long local_bad;  // wrong elements in this PE's buffer
  unsigned long long g_bad;      // wrong elements read from the next PE with gshmem_int_g
  unsigned long long ptr_bad;    // wrong elements read through gshmem_ptr(buf, next)
  unsigned long long first_bad_index;
  int first_bad_value;
  int ptr_null;  // gshmem_ptr(buf, next) was NULL
};

extern "C" {
// All return a cudaError_t value (0: success). Collective: every PE calls them in the same order.
NORDC_API int nordc_a_put(int* dst_sym, int* src_local, size_t n, int salt);
NORDC_API int nordc_b_check(const int* dst_sym, size_t n, int salt, struct nordc_report* out);
typedef int (*nordc_c_run_fn)(int* sym, size_t n, int salt, struct nordc_report* out);
NORDC_API int nordc_c_run(int* sym, size_t n, int salt, struct nordc_report* out);
}
