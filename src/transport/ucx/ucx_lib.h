// SPDX-License-Identifier: BSD-3-Clause
// Loading UCX at run time: dlopen libucp.so.0, resolve each function by name, check the version.
// The plugin links no UCX, so a site's UCX (verbs, CUDA) is used as found, and a machine
// without UCX learns which file, symbol or version is missing instead of failing to load.
#pragma once

#include <string>

#include "ucx_api.h"

namespace gshmem::ucx {

// The API the plugin's declarations follow: passed to ucp_init_version, and the oldest libucp
// accepted (Debian 12's libucx0 is 1.13; the active-message calls used here are older).
constexpr unsigned kApiMajor = 1;
constexpr unsigned kApiMinor = 13;

struct Lib {
  void* dl = nullptr;
  std::string path;  // as given to dlopen
  unsigned major = 0, minor = 0, release = 0;
  Api api{};
};

// `path`: nullptr or "" for GSHMEM_UCX_LIB, else libucp.so.0 from the loader's search. False
// with *error naming the file and dlerror, the missing symbol, or the version found.
bool load(const char* path, Lib* lib, std::string* error);

}  // namespace gshmem::ucx
