// SPDX-License-Identifier: BSD-3-Clause
#include "ucx_lib.h"

#include <dlfcn.h>

#include <cstdlib>

namespace gshmem::ucx {

namespace {

template <typename F>
bool resolve(void* dl, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(dl, name));
  if (!*fn && missing->empty()) *missing = name;
  return *fn != nullptr;
}

}  // namespace

bool load(const char* path, Lib* lib, std::string* error) {
  std::string file = path && *path ? path : "";
  if (file.empty())
    if (const char* env = std::getenv("GSHMEM_UCX_LIB"); env && *env) file = env;
  if (file.empty()) file = "libucp.so.0";
  // RTLD_LOCAL: UCX's symbols stay out of the application's namespace (an MPI built on another
  // UCX may be loaded there).
  lib->dl = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->dl) {
    const char* why = dlerror();
    *error = "UCX was not found: dlopen(\"" + file + "\") failed: " + (why ? why : "?") +
             "; install UCX (libucp.so.0, " + std::to_string(kApiMajor) + "." + std::to_string(kApiMinor) +
             " or newer) or set GSHMEM_UCX_LIB to its path";
    return false;
  }
  lib->path = file;
  Api& a = lib->api;
  std::string missing;
  // Version first: an old libucp is named as such, not by the first function it lacks.
  if (resolve(lib->dl, "ucp_get_version", &a.get_version, &missing)) {
    a.get_version(&lib->major, &lib->minor, &lib->release);
    if (lib->major != kApiMajor || lib->minor < kApiMinor) {
      *error = file + " is UCX " + std::to_string(lib->major) + "." + std::to_string(lib->minor) + "." +
               std::to_string(lib->release) + "; gshmem needs " + std::to_string(kApiMajor) + "." +
               std::to_string(kApiMinor) + " or newer (set GSHMEM_UCX_LIB to another libucp.so.0)";
      return false;
    }
  }
  resolve(lib->dl, "ucp_get_version_string", &a.get_version_string, &missing);
  resolve(lib->dl, "ucp_config_read", &a.config_read, &missing);
  resolve(lib->dl, "ucp_config_modify", &a.config_modify, &missing);
  resolve(lib->dl, "ucp_config_release", &a.config_release, &missing);
  resolve(lib->dl, "ucp_init_version", &a.init_version, &missing);
  resolve(lib->dl, "ucp_cleanup", &a.cleanup, &missing);
  resolve(lib->dl, "ucp_worker_create", &a.worker_create, &missing);
  resolve(lib->dl, "ucp_worker_destroy", &a.worker_destroy, &missing);
  resolve(lib->dl, "ucp_worker_query", &a.worker_query, &missing);
  resolve(lib->dl, "ucp_worker_release_address", &a.worker_release_address, &missing);
  resolve(lib->dl, "ucp_worker_progress", &a.worker_progress, &missing);
  resolve(lib->dl, "ucp_worker_get_efd", &a.worker_get_efd, &missing);
  resolve(lib->dl, "ucp_worker_arm", &a.worker_arm, &missing);
  resolve(lib->dl, "ucp_worker_set_am_recv_handler", &a.worker_set_am_recv_handler, &missing);
  resolve(lib->dl, "ucp_ep_create", &a.ep_create, &missing);
  resolve(lib->dl, "ucp_ep_close_nbx", &a.ep_close_nbx, &missing);
  resolve(lib->dl, "ucp_am_send_nbx", &a.am_send_nbx, &missing);
  resolve(lib->dl, "ucp_am_recv_data_nbx", &a.am_recv_data_nbx, &missing);
  resolve(lib->dl, "ucp_request_check_status", &a.request_check_status, &missing);
  resolve(lib->dl, "ucp_request_free", &a.request_free, &missing);
  resolve(lib->dl, "ucs_status_string", &a.status_string, &missing);
  resolve(lib->dl, "ucp_mem_map", &a.mem_map, &missing);
  resolve(lib->dl, "ucp_mem_unmap", &a.mem_unmap, &missing);
  resolve(lib->dl, "ucp_rkey_pack", &a.rkey_pack, &missing);
  resolve(lib->dl, "ucp_rkey_buffer_release", &a.rkey_buffer_release, &missing);
  resolve(lib->dl, "ucp_ep_rkey_unpack", &a.ep_rkey_unpack, &missing);
  resolve(lib->dl, "ucp_rkey_destroy", &a.rkey_destroy, &missing);
  resolve(lib->dl, "ucp_put_nbx", &a.put_nbx, &missing);
  resolve(lib->dl, "ucp_ep_flush_nbx", &a.ep_flush_nbx, &missing);
  if (!missing.empty()) {
    *error = file + " lacks the symbol " + missing + ": not a UCX " + std::to_string(kApiMajor) + "." +
             std::to_string(kApiMinor) + "+ libucp (set GSHMEM_UCX_LIB to another libucp.so.0)";
    return false;
  }
  return true;
}

}  // namespace gshmem::ucx
