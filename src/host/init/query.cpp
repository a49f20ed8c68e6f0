// SPDX-License-Identifier: BSD-3-Clause
// The library's questions about itself: version, name, whether it is initialised, this PE
// and the PE count (the host side of gshmem_my_pe / gshmem_n_pes), status strings.
#include <cstring>

#include "host/core/log.h"
#include "host/core/runtime.h"

using namespace gshmem;

extern "C" {

GSHMEM_API const char* gshmemx_status_string(int status) { return status_message(status); }

GSHMEM_API int gshmemx_take_error(char* buf, size_t size) { return log::take_error(buf, size); }

GSHMEM_API void gshmem_info_get_version(int* major, int* minor) {
  if (major) *major = GSHMEM_SPEC_MAJOR_VERSION;
  if (minor) *minor = GSHMEM_SPEC_MINOR_VERSION;
}

GSHMEM_API void gshmem_info_get_name(char* name) {
  if (name) strcpy(name, GSHMEM_VENDOR_STRING);
}

GSHMEM_API int gshmemx_initialized(void) { return rt().initialized ? 1 : 0; }

GSHMEM_API int gshmemi_host_my_pe(void) { return rt().initialized ? rt().my_pe : -1; }
GSHMEM_API int gshmemi_host_n_pes(void) { return rt().initialized ? rt().n_pes : -1; }
}  // extern "C"
